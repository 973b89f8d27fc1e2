import { ownAll, ownFor, ownNothing } from './own.js';
import { applyBudgetSet } from './spend/budget-policy.js';
import { AGENT_HANDLERS } from './agents/agent-sessions.js';
import { STEP_HANDLERS } from './durable-steps.js';
import { MIRROR_HANDLERS } from './agents/mirrored-transcript.js';
import { RUN_HANDLERS, leaseEnded, leaseRenewed, phaseTaken } from './runs/runs-fold.js';
import type { EventDataMap, PhaseSpec, StoredEvent } from './events.js';
import type { Phase, SessionState } from './state.js';
import { zeroTokens } from './state.js';
import { readTranscript, recordTokens } from './spend/apply-tokens.js';
import { emptyHistory, foldHistory } from './history.js';
import { liftLooseFiles, restoreCheckpoint } from './apply-restore.js';

/** Default retry limit of a phase (Maestro's MAESTRO_MAX_RETRIES). */
export const DEFAULT_MAX_RETRIES = 2;

/** Builds a phase from its declared shape. */
export function phaseFromSpec(spec: PhaseSpec): Phase {
  return {
    id: spec.id,
    name: spec.name,
    status: 'pending',
    // Copies: the spec belongs to the session.created event, which folding must not change.
    agents: [...(spec.agents ?? [])],
    blockedBy: [...(spec.blockedBy ?? [])],
    parallelGroup: spec.parallelGroup ?? null,
    subStep: null,
    subSteps: [],
    maxRetries: spec.maxRetries ?? DEFAULT_MAX_RETRIES,
    retryCount: 0,
    startedAt: null,
    completedAt: null,
    failedAt: null,
    failureReason: null,
    skipReason: null,
    files: [],
    errors: [],
    metadata: { ...(spec.metadata ?? {}) },
  };
}

function initialState(e: StoredEvent & { type: 'session.created' }, sessionId: string): SessionState {
  const d = e.data;
  return {
    id: sessionId,
    title: d.title,
    status: 'active',
    statusCause: null,
    archived: false,
    createdAt: e.time,
    updatedAt: e.time,
    revision: e.seq,
    idFormat: d.idFormat,
    phases: d.phases.map(phaseFromSpec),
    decisions: [],
    findings: [],
    notes: [],
    milestones: [],
    artifacts: [],
    contextSummary: d.contextSummary ?? null,
    tokens: { ...zeroTokens(), byAgent: {}, byPhase: {}, budgetMax: d.budgetMax },
    metadata: { ...(d.metadata ?? {}) },
    repairs: [],
    counters: {},
    ...(typeof d.workspace === 'string' ? { workspace: d.workspace } : {}),
    history: historyFrom(e),
  };
}

function historyFrom(e: StoredEvent): SessionState['history'] {
  const h = emptyHistory();
  foldHistory(h, e);
  return h;
}

function bump(state: SessionState, counter: string, id: string): void {
  const m = /(\d+)$/.exec(id);
  const n = m ? Number(m[1]) : 0;
  if (n > (state.counters[counter] ?? 0)) state.counters[counter] = n;
}

type Handler<K extends keyof EventDataMap> = (s: SessionState, d: EventDataMap[K], e: StoredEvent) => void;
type Handlers = { [K in keyof EventDataMap]?: Handler<K> };

function phaseOf(s: SessionState, id: string | null): Phase | undefined {
  return id === null ? undefined : s.phases.find((p) => p.id === id);
}

/**
 * Makes `agent` an agent of `p` (first-seen order, no repeats). Every event that records work
 * on a phase calls it, so a phase's agents are everyone who worked on it, whichever view
 * shows them.
 */
function worked(p: Phase, agent: string | null | undefined): void {
  if (agent && !p.agents.includes(agent)) p.agents.push(agent);
}

function setStatus(
  s: SessionState,
  status: SessionState['status'],
  cause: string | null,
  detail: string | null | undefined,
  at: string,
): void {
  s.status = status;
  s.statusCause = cause === null ? null : { cause, at, detail: detail ?? null };
}

/*
 * Handlers trust their input: `decide` validated the event before it was written. Events
 * that refer to something missing (a hand-edited journal) are ignored rather than thrown,
 * so that a damaged history still folds.
 */
const HANDLERS: Handlers = {
  'session.paused': (s, d, e) => setStatus(s, 'paused', d.cause, d.detail, e.time),
  'session.resumed': (s, _d, _e) => setStatus(s, 'active', null, null, _e.time),
  'session.interrupted': (s, d, e) => setStatus(s, 'interrupted', d.cause, d.detail, e.time),
  'session.completed': (s, d, e) => {
    const left = d.unfinished?.length ? `left unfinished: ${d.unfinished.join(', ')}` : null;
    setStatus(s, 'completed', 'completed', d.detail && left ? `${d.detail} (${left})` : (d.detail ?? left), e.time);
  },
  'session.failed': (s, d, e) => setStatus(s, 'failed', 'failed', d.detail, e.time),
  'session.abandoned': (s, d, e) => setStatus(s, 'abandoned', 'abandoned', d.detail, e.time),
  'session.archived': (s) => {
    s.archived = true;
  },
  'session.pinned': (s) => {
    s.pinned = true;
  },
  'session.unpinned': (s) => {
    s.pinned = false;
  },
  'phase.started': (s, d, e) => {
    const p = phaseOf(s, d.phaseId);
    if (!p) return;
    p.status = 'in_progress';
    p.startedAt = e.time;
    p.subStep = null;
    worked(p, d.agent);
    phaseTaken(s, p.id, d.runId);
  },
  'phase.retried': (s, d, e) => {
    const p = phaseOf(s, d.phaseId);
    if (!p) return;
    p.status = 'in_progress';
    p.retryCount += 1;
    p.startedAt = e.time;
    p.failedAt = null;
    p.failureReason = null;
    p.subStep = null;
    worked(p, d.agent);
    phaseTaken(s, p.id, d.runId);
  },
  'phase.completed': (s, d, e) => {
    const p = phaseOf(s, d.phaseId);
    if (!p) return;
    p.status = 'completed';
    p.completedAt = e.time;
    worked(p, d.agent);
  },
  'phase.failed': (s, d, e) => {
    const p = phaseOf(s, d.phaseId);
    if (!p) return;
    p.status = 'failed';
    p.failedAt = e.time;
    p.failureReason = d.reason;
    worked(p, d.agent);
  },
  'phase.skipped': (s, d) => {
    const p = phaseOf(s, d.phaseId);
    if (!p) return;
    p.status = 'skipped';
    p.skipReason = d.reason;
  },
  'phase.added': (s, d) => {
    if (s.phases.some((p) => p.id === d.phaseId)) return;
    const at = d.after === null ? 0 : s.phases.findIndex((p) => p.id === d.after) + 1;
    s.phases.splice(at > 0 || d.after === null ? at : s.phases.length, 0, phaseFromSpec(d.phase));
  },
  'phase.removed': (s, d) => {
    s.phases = s.phases.filter((p) => p.id !== d.phaseId);
  },
  'phase.updated': (s, d) => {
    const p = phaseOf(s, d.phaseId);
    if (!p) return;
    if (d.maxRetries !== undefined) p.maxRetries = d.maxRetries;
    if (d.blockedBy !== undefined) p.blockedBy = [...d.blockedBy];
    if (d.metadata !== undefined) p.metadata = structuredClone(d.metadata);
  },
  'substep.reached': (s, d, e) => {
    const p = phaseOf(s, d.phaseId);
    if (!p) return;
    p.subStep = d.name;
    p.subSteps.push({ name: d.name, at: e.time });
    // The event carries no agent of its own: whoever recorded it reached the sub-step.
    worked(p, e.actor?.agent);
  },
  'file.recorded': (s, d, e) => {
    const p = phaseOf(s, d.phaseId);
    // The run it was made in: a later write by another live run of the same path is a conflict.
    const rec = {
      path: d.path,
      action: d.action,
      sha256: d.sha256,
      size: d.size,
      recordedAt: e.time,
      agent: d.agent,
      ...(e.actor?.run ? { run: e.actor.run } : {}),
    };
    if (p) {
      p.files = p.files.filter((f) => f.path !== d.path);
      p.files.push(rec);
      worked(p, d.agent);
    } else {
      s.looseFiles = [...(s.looseFiles ?? []).filter((f) => f.path !== d.path), rec];
    }
  },
  'error.recorded': (s, d, e) => {
    bump(s, 'error', d.errorId);
    const p = phaseOf(s, d.phaseId);
    if (!p) return;
    p.errors.push({
      id: d.errorId,
      phaseId: d.phaseId,
      agent: d.agent,
      type: d.type,
      message: d.message,
      time: e.time,
      resolution: null,
      resolved: false,
      resolvedAt: null,
    });
    worked(p, d.agent);
  },
  'error.resolved': (s, d, e) => {
    for (const p of s.phases) {
      const err = p.errors.find((x) => x.id === d.errorId);
      if (err) {
        err.resolved = true;
        err.resolution = d.resolution;
        err.resolvedAt = e.time;
      }
    }
  },
  'tokens.recorded': (s, d, e) => {
    recordTokens(s, d, e.actor?.host ?? '');
    const p = phaseOf(s, d.phaseId);
    if (p) worked(p, d.agent);
  },
  'budget.set': (s, d) => applyBudgetSet(s.tokens, d),
  'budget.cost_set': (s, d) => {
    s.tokens.costBudgetUsd = d.maxUsd;
  },
  'transcript.read': (s, d, e) => readTranscript(s, d, e),
  'decision.recorded': (s, d, e) => {
    bump(s, 'decision', d.decisionId);
    s.decisions.push({
      id: d.decisionId,
      title: d.title,
      choice: d.choice,
      rationale: d.rationale,
      alternatives: d.alternatives,
      agent: d.agent,
      phaseId: d.phaseId,
      time: e.time,
    });
  },
  'finding.added': (s, d, e) => {
    bump(s, 'finding', d.findingId);
    s.findings.push({
      id: d.findingId,
      text: d.text,
      severity: d.severity,
      phaseId: d.phaseId,
      agent: d.agent,
      time: e.time,
      removed: false,
      removedAt: null,
    });
  },
  'finding.removed': (s, d, e) => {
    const f = s.findings.find((x) => x.id === d.findingId);
    if (f) {
      f.removed = true;
      f.removedAt = e.time;
    }
  },
  'note.added': (s, d, e) => {
    bump(s, 'note', d.noteId);
    s.notes.push({ id: d.noteId, text: d.text, phaseId: d.phaseId, agent: d.agent, time: e.time });
  },
  'milestone.added': (s, d) => {
    bump(s, 'milestone', d.milestoneId);
    s.milestones.push({ id: d.milestoneId, title: d.title, targetDate: d.targetDate, done: false, doneAt: null });
  },
  'milestone.done': (s, d, e) => {
    const m = s.milestones.find((x) => x.id === d.milestoneId);
    if (m) {
      m.done = true;
      m.doneAt = e.time;
    }
  },
  'artifact.added': (s, d, e) => {
    bump(s, 'artifact', d.artifactId);
    s.artifacts.push({
      id: d.artifactId,
      path: d.path,
      kind: d.kind,
      description: d.description,
      phaseId: d.phaseId,
      agent: d.agent,
      time: e.time,
    });
  },
  'context.updated': (s, d) => {
    s.contextSummary = d.summary;
  },
  'metadata.set': (s, d) => {
    s.metadata[d.key] = d.value;
  },
  'lease.acquired': (s, d, e) => {
    s.lease = {
      owner: d.owner,
      pid: d.pid,
      host: d.host,
      token: d.token,
      acquiredAt: e.time,
      renewedAt: e.time,
      expiresAt: d.expiresAt,
      ...(d.boot ? { boot: d.boot } : {}),
      ...(d.detached ? { detached: true } : {}),
    };
    s.leaseToken = Math.max(s.leaseToken ?? 0, d.token);
  },
  'lease.renewed': (s, d, e) => {
    if (s.lease && s.lease.token === d.token) {
      s.lease.renewedAt = e.time;
      s.lease.expiresAt = d.expiresAt;
    }
    leaseRenewed(s, d.token, d.expiresAt, e.time);
  },
  'lease.released': (s, d, e) => {
    if (s.lease?.token === d.token) s.lease = null;
    leaseEnded(s, d.token, e.time);
  },
  'lease.expired': (s, d, e) => {
    if (s.lease?.token === d.token) s.lease = null;
    leaseEnded(s, d.token, e.time);
  },
  'checkpoint.created': (s, d, e) => {
    const list = (s.checkpoints ??= []);
    if (list.some((c) => c.id === d.checkpointId)) return;
    list.push({
      id: d.checkpointId,
      name: d.name,
      revision: d.revision,
      createdAt: e.time,
      trigger: d.trigger,
      phaseId: d.phaseId,
      superseded: false,
    });
  },
  'checkpoint.restored': (s, d, e) => restoreCheckpoint(s, d, e),
  'repair.torn_tail': (s, d, e) => {
    s.repairs.push({ kind: 'torn_tail', at: e.time, detail: { ...d } });
  },
  'repair.unreadable_line': (s, d, e) => {
    s.repairs.push({ kind: 'unreadable_line', at: e.time, detail: { line: d.line } });
  },
  'repair.journal': (s, d, e) => {
    s.repairs.push({ kind: 'journal', at: e.time, detail: { ...d } });
  },
  ...AGENT_HANDLERS,
  ...RUN_HANDLERS,
  // Replaced, never changed in place: the state a fold starts from may share it.
  'graph.checkpoint': (s, d) => {
    const g = s.graph ?? { checkpoints: 0, writes: 0, latest: {} };
    s.graph = {
      ...g,
      checkpoints: g.checkpoints + 1,
      latest: { ...g.latest, [d.ns]: { checkpointId: d.checkpointId, step: d.step, source: d.source } },
    };
  },
  'graph.writes': (s, d) => {
    const g = s.graph ?? { checkpoints: 0, writes: 0, latest: {} };
    s.graph = { ...g, writes: g.writes + d.writes.length };
  },
  ...STEP_HANDLERS,
  ...MIRROR_HANDLERS,
  'repair.events_lost': (s, d, e) => {
    // The recovered snapshot holds the effect of every event up to its revision, lost or not.
    if (typeof d.state === 'object' && d.state !== null) Object.assign(s, structuredClone(d.state), { id: s.id });
    s.repairs.push({
      kind: 'events_lost',
      at: e.time,
      detail: { from: d.from, to: d.to, recoveredFrom: d.recoveredFrom, savedTo: d.savedTo },
    });
  },
};

/**
 * Folds `event` into `state` in place. Only for fold loops that own `state`; everyone
 * else uses {@link apply} or {@link fold}. Unknown event types only move the revision.
 */
export function applyInPlace(state: SessionState, event: StoredEvent): void {
  // Own properties only: a foreign type such as "hasOwnProperty" must not find Object's methods.
  const handler = (Object.hasOwn(HANDLERS, event.type) ? HANDLERS[event.type] : undefined) as
    | Handler<typeof event.type>
    | undefined;
  if (handler) handler(state, event.data as never, event);
  // A state folded before histories existed (an old snapshot) gets none: half a history would mislead.
  if (state.history) foldHistory(state.history, event);
  state.revision = event.seq;
  state.updatedAt = event.time;
}

/**
 * Folds events into a state. `base` is the state to start from (a snapshot) or null, in
 * which case the first event must be `session.created`. `base` is not modified; the result
 * shares with it the parts no event changed, so treat both as read-only (copy with
 * `clonePlain` before changing one). Returns null when there is nothing to fold.
 */
export function fold(
  base: SessionState | null,
  events: readonly StoredEvent[],
  sessionId?: string,
): SessionState | null {
  // Copy on write (own.ts): the result shares with `base` what no event changed.
  let state: SessionState | null = base ? { ...base } : null;
  if (state) liftLooseFiles(state);
  const owned = base ? ownNothing() : ownAll();
  for (const e of events) {
    if (state === null) {
      if (e.type !== 'session.created') continue;
      state = initialState(e as StoredEvent & { type: 'session.created' }, sessionId ?? '');
      continue;
    }
    ownFor(state, owned, e);
    applyInPlace(state, e);
  }
  return state;
}

/** Pure `apply(state, event) → state`: returns a new state, `state` is untouched. */
export function apply(state: SessionState, event: StoredEvent): SessionState {
  return fold(state, [event]) as SessionState;
}
