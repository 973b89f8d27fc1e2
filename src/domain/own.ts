import { clonePlain } from './clone.js';
import type { StoredEvent } from './events.js';
import { ATTEMPT_EVENTS } from './history.js';
import type { SessionState } from './state.js';

/*
 * Copy on write for fold. A fold must leave the state it starts from untouched (the manager
 * keeps it, callers hold it), and copying the whole state for every change made the copy the
 * largest cost of an update once the state grew. So a fold copies only the top level, and
 * before each event takes its own deep copy of the parts that event's handler changes: a
 * token update copies the one phase it names, not the notes, files and transcripts (and its
 * handler replaces the token totals it changes rather than changing them). An event type not
 * listed here copies everything, as before: a new handler is safe until it is listed.
 * test/domain/fold-copy.test.ts folds every kind of event on deeply frozen states, so a
 * handler that changes a part its entry does not copy fails there.
 */

type Key = keyof SessionState;

/** Parts of a state this fold owns (has copied): keys, phases by id, or everything. */
export interface Owned {
  all: boolean;
  keys: Set<Key>;
  /** The phases array itself is owned (copied shallowly); phases listed here are deep copies. */
  phases: Set<string> | null;
  /** Parts of `history` owned: its top level with the counts, its attempts, its token trail. */
  history: Set<'top' | 'attempts' | 'tokens'>;
}

/** Nothing owned yet: the fold starts from a shallow copy of its base. */
export function ownNothing(): Owned {
  return { all: false, keys: new Set(), phases: null, history: new Set() };
}

/** A fresh state (built by session.created) belongs to its fold entirely. */
export function ownAll(): Owned {
  return { all: true, keys: new Set(), phases: null, history: new Set() };
}

/** Deep-copies key `k` of `s` unless this fold already owns it. */
function own(s: SessionState, o: Owned, k: Key): void {
  if (o.keys.has(k)) return;
  o.keys.add(k);
  if (k === 'phases') o.phases = null;
  const r = s as unknown as Record<string, unknown>;
  if (r[k] !== undefined) r[k] = clonePlain(r[k]);
}

/** Deep-copies the phase `id` (and the array holding it, shallowly) unless already owned. */
function ownPhase(s: SessionState, o: Owned, id: unknown): void {
  if (o.keys.has('phases') || typeof id !== 'string') return;
  if (!o.phases) {
    s.phases = s.phases.slice();
    o.phases = new Set();
  }
  if (o.phases.has(id)) return;
  o.phases.add(id);
  const i = s.phases.findIndex((p) => p.id === id);
  if (i !== -1) s.phases[i] = clonePlain(s.phases[i]!);
}

/**
 * Copies the parts of `history` event `e` changes, unless owned: every event counts (the
 * counts are small); attempts for the events that open, close or add to one; for a token
 * record, the trail object and its running point only: the fold replaces the trail's arrays
 * instead of changing them (history.ts), so the kept points (up to 512) are not copied by
 * every record, which took a tenth of an update's CPU time (BENCHMARKS.md's token updates row).
 */
function ownHistory(s: SessionState, o: Owned, e: StoredEvent): void {
  const h = s.history;
  if (!h || o.keys.has('history')) return;
  if (!o.history.has('top')) {
    o.history.add('top');
    s.history = { ...h, types: { ...h.types }, agents: { ...h.agents } };
  }
  const own = s.history!;
  if (ATTEMPT_EVENTS.has(e.type) && !o.history.has('attempts')) {
    o.history.add('attempts');
    own.attempts = clonePlain(own.attempts);
    own.open = { ...own.open };
  }
  if (e.type === 'tokens.recorded' && !o.history.has('tokens')) {
    o.history.add('tokens');
    const t = own.tokens;
    own.tokens = { ...t, last: t.last ? clonePlain(t.last) : null };
  }
}

/**
 * Keys copied whole by event type. Values a handler replaces rather than changes (revision,
 * updatedAt, status and its cause, a new lease) need no copy: the top level is the fold's own.
 */
const KEYS: Partial<Record<StoredEvent['type'], readonly Key[]>> = {
  'session.paused': [],
  'session.resumed': [],
  'session.interrupted': [],
  'session.completed': [],
  'session.failed': [],
  'session.abandoned': [],
  'session.archived': [],
  'session.pinned': [],
  'session.unpinned': [],
  'error.resolved': ['phases'],
  'budget.set': ['tokens'],
  'budget.cost_set': ['tokens'],
  'transcript.read': ['transcripts'],
  'decision.recorded': ['counters', 'decisions'],
  'finding.added': ['counters', 'findings'],
  'finding.removed': ['findings'],
  'note.added': ['counters', 'notes'],
  'milestone.added': ['counters', 'milestones'],
  'milestone.done': ['milestones'],
  'artifact.added': ['counters', 'artifacts'],
  'context.updated': [],
  'metadata.set': ['metadata'],
  'lease.acquired': [],
  'lease.renewed': ['lease', 'runs'],
  'run.started': ['runs'],
  'run.renewed': ['runs'],
  'run.ended': ['runs'],
  'file.conflicted': ['conflicts'],
  'mirror.conflicted': [],
  'lease.released': ['runs'],
  'lease.expired': ['runs'],
  'checkpoint.created': ['checkpoints'],
  'repair.torn_tail': ['repairs'],
  'repair.unreadable_line': ['repairs'],
  'repair.journal': ['repairs'],
  'graph.checkpoint': [],
  'graph.writes': [],
  'transcript.mirrored': [],
  'transcript.cleared': [],
  'step.started': ['durableSteps'],
  'step.completed': ['durableSteps'],
  'step.failed': ['durableSteps'],
};

/** Types whose handler changes only the phase named by `data.phaseId` (plus the keys listed). */
const PHASE_EVENTS: Partial<Record<StoredEvent['type'], readonly Key[]>> = {
  'phase.started': ['runs'],
  'phase.retried': ['runs'],
  'phase.claimed': ['runs'],
  'phase.completed': [],
  'phase.failed': [],
  'phase.skipped': [],
  'substep.reached': [],
  'error.recorded': ['counters'],
  // Its handler replaces the token objects it changes (apply-tokens.ts).
  'tokens.recorded': [],
};

/**
 * Before `e` is folded into `s` in place: copies what its handler will change, so that no
 * object `s` shares with the state the fold started from is written.
 */
export function ownFor(s: SessionState, o: Owned, e: StoredEvent): void {
  if (o.all) return;
  ownHistory(s, o, e);
  const t = e.type;
  const phaseKeys = Object.hasOwn(PHASE_EVENTS, t) ? PHASE_EVENTS[t] : undefined;
  if (phaseKeys) {
    for (const k of phaseKeys) own(s, o, k);
    const phaseId = (e.data as { phaseId?: unknown } | null)?.phaseId;
    if (phaseId !== null && phaseId !== undefined) ownPhase(s, o, phaseId);
    return;
  }
  if (t === 'file.recorded') {
    const phaseId = (e.data as { phaseId?: unknown } | null)?.phaseId;
    // Outside a phase the handler replaces `looseFiles` with a new array: nothing shared is written.
    if (typeof phaseId === 'string' && s.phases.some((p) => p.id === phaseId)) ownPhase(s, o, phaseId);
    return;
  }
  const keys = Object.hasOwn(KEYS, t) ? KEYS[t] : undefined;
  if (keys) {
    for (const k of keys) own(s, o, k);
    return;
  }
  // Any other type (agents, restores, recovered states, types this version does not know):
  // everything is copied once, and the rest of the fold runs without copying.
  const r = s as unknown as Record<string, unknown>;
  for (const k of Object.keys(r) as Key[]) if (!o.keys.has(k) && !(k === 'phases' && o.phases)) r[k] = clonePlain(r[k]);
  if (o.phases) s.phases = s.phases.map((p) => (o.phases!.has(p.id) ? p : clonePlain(p)));
  o.all = true;
}
