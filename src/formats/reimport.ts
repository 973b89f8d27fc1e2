/**
 * Re-import, the pure part: the events that bring a baton session imported before forward to
 * its foreign session as it is now ({@link reimportEvents}); what cannot move forward is
 * reported, not applied. The first import is in import.ts.
 */
import { fold } from '../domain/apply.js';
import type { StoredEvent } from '../domain/events.js';
import type { Phase, SessionState } from '../domain/state.js';
import { TOOLKIT_RULES_KEY, toolkitRulesOf } from '../domain/toolkits/toolkit-rules.js';
import type { ToolkitRules } from '../domain/toolkits/toolkit-rules.js';
import { reimportedRules } from '../domain/toolkits/toolkit-tokens.js';
import { workHash } from './import.js';
import {
  importEvents,
  isoTime,
  journalTokenCells,
  LOOSE_ERRORS_KEY,
  provenance,
  provenanceOf,
  PROVENANCE_KEY,
  splitCell,
  statusEvent,
  UNATTRIBUTED,
} from './import.js';
import type { ImportContext, ImportEvent, Provenance } from './import.js';
import type { ForeignSession, FormatProblem, TokenCountsLike } from './types.js';
import { type Diverged, phaseDiff, type Push } from './reimport-phase.js';

/** Result of {@link reimportEvents}. */
export interface ReimportPlan {
  /** Nothing to do: the foreign files have the hash recorded at the last import. */
  unchanged: boolean;
  /** Events that bring the baton session forward (the provenance update last). */
  events: ImportEvent[];
  /** Changes baton cannot express as events (reported, not applied), and mapping notes. */
  problems: FormatProblem[];
  /** The foreign session is archived and the baton one is not: archive it after appending. */
  archive: boolean;
}

/**
 * The events that bring `current` (a session imported before from the same foreign session)
 * forward to `s`. The rule (docs/formats.md, "Re-import"):
 * - unchanged `sourceHash` → nothing;
 * - otherwise the foreign session is imported afresh in memory and compared with the current
 *   state, and only what moves forward is appended: phases started, retried, reaching a
 *   sub-step, completed, failed or skipped; new files; new errors and resolutions; token
 *   increases per agent (per unit without a per-agent breakdown); new decisions, findings, notes, milestones (and milestones
 *   done), artifacts; a changed context summary or budget; a session status the state machine
 *   allows (possibly through `resumed`); archiving; and the new provenance;
 * - what only goes backwards or disappears (a unit back from completed to pending, fewer
 *   retries, a unit added or removed, an error reopened or gone, fewer tokens, a record
 *   removed, a changed title or unit definition, an archived session un-archived, a status
 *   the state machine forbids) is not applied but reported as a `REIMPORT_DIVERGED` problem
 *   naming it; everything else is still applied.
 * `journal` is the session's events (for the token counts per agent and per phase).
 */
export function reimportEvents(
  current: SessionState,
  journal: ReadonlyArray<{ type: string; data: unknown }>,
  s: ForeignSession,
  ctx: ImportContext,
): ReimportPlan {
  const prov = provenanceOf(current);
  if (prov && prov.sourceHash === s.sourceHash && prov.format === s.format && prov.foreignId === s.id)
    return { unchanged: true, events: [], problems: [], archive: false };
  const fresh = importEvents(s, ctx);
  const problems = [...fresh.problems];
  const target = fold(
    null,
    fresh.events.map((e, i) => ({ ...e, actor: { agent: null, pid: 0, host: '' }, seq: i + 1 }) as StoredEvent),
    current.id,
  )!;
  const out: ImportEvent[] = [];
  const now = ctx.importedAt;
  const push: Push = (type, data, time) => {
    out.push({ type, data, time: time ?? now } as ImportEvent);
  };
  const diverged: Diverged = (severity, kind, message, details = {}) => {
    problems.push({
      code: 'REIMPORT_DIVERGED',
      severity,
      sessionId: s.id,
      path: s.path,
      message,
      hint: 'baton keeps its own history; the foreign document is kept verbatim in provenance.documents.',
      details: { kind, ...details },
    });
  };
  const counters = { ...current.counters };
  const nextId = (counter: string, prefix: string): string =>
    `${prefix}-${(counters[counter] = (counters[counter] ?? 0) + 1)}`;
  const d: Diff = {
    current,
    target,
    s,
    now,
    curPhases: new Map(current.phases.map((p) => [p.id, p])),
    push,
    diverged,
    nextId,
  };

  unitsDiff(d);
  metadataDiff(d);
  tokensDiff(d, journal, fresh.events);
  contextDiff(d);
  recordsDiff(d);
  milestonesDiff(d);
  newCheckpoints(current, fresh.events, d.curPhases, out);
  statusDiff(d);
  const archive = archiveDiff(d);
  // Made-up times: those of the fresh import (same phase ids; record ids match while baton added none of its own).
  const old = target.metadata[PROVENANCE_KEY] as Provenance | undefined;
  const after = fold(
    structuredClone(current),
    out.map(
      (e, i) => ({ ...e, actor: { agent: null, pid: 0, host: '' }, seq: current.revision + i + 1 }) as StoredEvent,
    ),
    current.id,
  )!;
  push(
    'metadata.set',
    {
      key: PROVENANCE_KEY,
      value: { ...provenance(s, ctx, old?.untimed ?? [], old?.untimedAt), workHash: workHash(after) },
    },
    now,
  );
  return { unchanged: false, events: out, problems, archive };
}

/** What every part of a re-import diff shares: both states, the foreign session and the sinks. */
interface Diff {
  current: SessionState;
  target: SessionState;
  s: ForeignSession;
  now: string;
  curPhases: Map<string, Phase>;
  push: Push;
  diverged: Diverged;
  nextId: (counter: string, prefix: string) => string;
}

/** The title and the set of units: baton cannot change either, so differences are reported; then each phase moves forward. */
function unitsDiff({ current, target, curPhases, push, diverged, nextId }: Diff): void {
  if (target.title !== current.title)
    diverged(
      'info',
      'title',
      `The title changed to ${JSON.stringify(target.title)}; baton has no event for a new title and keeps ${JSON.stringify(current.title)}.`,
    );
  for (const t of target.phases)
    if (!curPhases.has(t.id))
      diverged(
        'warning',
        'unit_added',
        `Unit ${t.id} is new in the foreign session; baton cannot add a phase to an existing session, so it was not imported (import under another --id-prefix to get a fresh copy).`,
        { unitId: t.id },
      );
  const tgtIds = new Set(target.phases.map((p) => p.id));
  for (const p of current.phases)
    if (!tgtIds.has(p.id))
      diverged('warning', 'unit_removed', `Unit ${p.id} is no longer in the foreign session; baton keeps the phase.`, {
        unitId: p.id,
      });

  for (const t of target.phases) {
    const p = curPhases.get(t.id);
    if (p) phaseDiff(p, t, push, diverged, nextId);
  }
}

/** Metadata baton keeps whole: the loose errors and the toolkit's rules as they apply now. */
function metadataDiff({ current, target, now, push }: Diff): void {
  // Loose errors are kept as a whole list in metadata.
  const looseCur = JSON.stringify(current.metadata[LOOSE_ERRORS_KEY] ?? []);
  const looseTgt = JSON.stringify(target.metadata[LOOSE_ERRORS_KEY] ?? []);
  if (looseCur !== looseTgt)
    push('metadata.set', { key: LOOSE_ERRORS_KEY, value: target.metadata[LOOSE_ERRORS_KEY] ?? [] }, now);
  // The toolkit's rules as they apply now (what baton's resume plan follows); an isolating
  // toolkit's savings without the agents' tokens baton recorded since (toolkit-tokens.ts).
  const rules = target.metadata[TOOLKIT_RULES_KEY] as ToolkitRules | undefined;
  if (rules === undefined) return;
  const value = reimportedRules(current, rules);
  if (JSON.stringify(current.metadata[TOOLKIT_RULES_KEY]) !== JSON.stringify(value))
    push('metadata.set', { key: TOOLKIT_RULES_KEY, value }, now);
}

/**
 * Tokens, compared at the grain of the foreign breakdown: per agent when it has one (baton
 * may have recorded an agent's tokens against a phase since, e.g. through a mirror), else per
 * unit, whoever recorded them.
 * An agent baton knows but the foreign map does not name (a layout whose per-agent map
 * cannot hold it) is counted in the foreign file's unattributed remainder.
 */
function tokensDiff(
  { s, target, now, curPhases, push, diverged }: Diff,
  journal: ReadonlyArray<{ type: string; data: unknown }>,
  freshEvents: ImportEvent[],
): void {
  const want = journalTokenCells(freshEvents);
  const perAgent = [...want.keys()].every((k) => splitCell(k)[1] === null);
  const named = new Set([...want.keys()].map((k) => splitCell(k)[0]));
  const group = (k: string): string => {
    const [agent, phase] = splitCell(k);
    if (!perAgent) return phase ?? '';
    return named.has(agent) ? agent : UNATTRIBUTED;
  };
  const sumBy = (cells: Map<string, TokenCountsLike>): Map<string, TokenCountsLike> => {
    const out = new Map<string, TokenCountsLike>();
    for (const [k, c] of cells) {
      const g = group(k);
      const cur = out.get(g) ?? { input: 0, output: 0, cached: 0 };
      out.set(g, { input: cur.input + c.input, output: cur.output + c.output, cached: cur.cached + c.cached });
    }
    return out;
  };
  // An isolating toolkit (BMAD) leaves the tokens recorded against a phase (a spawned agent)
  // out of the session's figures: its `current` is the main session's, and those tokens are
  // in its savings (metadataDiff), so they are not compared here.
  const isolated = toolkitRulesOf(target)?.tokens?.isolatedAgents === true;
  const mine = [...journalTokenCells(journal)].filter(([k]) => !isolated || splitCell(k)[1] === null);
  const have = sumBy(new Map(mine));
  for (const [g, w] of sumBy(want)) {
    const h = have.get(g) ?? { input: 0, output: 0, cached: 0 };
    const d = { input: w.input - h.input, output: w.output - h.output, cached: w.cached - h.cached };
    const agent = perAgent ? g : UNATTRIBUTED;
    const phaseId = perAgent || g === '' ? null : g;
    const who = perAgent ? `agent ${g}` : phaseId ? `unit ${phaseId}` : 'the session';
    if (d.input < 0 || d.output < 0 || d.cached < 0)
      diverged(
        'warning',
        'tokens_decreased',
        `Tokens of ${who} went down in the foreign session; baton keeps the higher count.`,
        { agent: perAgent ? g : null, phaseId, foreign: w, baton: h },
      );
    const pos = { input: Math.max(0, d.input), output: Math.max(0, d.output), cached: Math.max(0, d.cached) };
    if (pos.input || pos.output || pos.cached || !have.has(g))
      push(
        'tokens.recorded',
        { agent, phaseId: phaseId !== null && curPhases.has(phaseId) ? phaseId : null, ...pos },
        isoTime(s.updatedAt) ?? now,
      );
  }
}

/** The token and cost budgets and the context summary (a removed summary is reported, the last one kept). */
function contextDiff({ current, target, s, now, push, diverged }: Diff): void {
  if (target.tokens.budgetMax !== current.tokens.budgetMax) push('budget.set', { max: target.tokens.budgetMax }, now);
  // A cost budget the files now set, or changed; one set in baton while the files hold none is kept.
  const usd = target.tokens.costBudgetUsd ?? null;
  if (usd !== null && usd !== (current.tokens.costBudgetUsd ?? null)) push('budget.set', { maxUsd: usd }, now);
  if (target.contextSummary !== current.contextSummary) {
    if (target.contextSummary !== null)
      push('context.updated', { summary: target.contextSummary }, isoTime(s.updatedAt) ?? now);
    else
      diverged(
        'info',
        'context_removed',
        'The foreign session no longer has a context summary; baton keeps its last one.',
      );
  }
}

/** Decisions, findings, notes and artifacts, matched by content (foreign records carry no stable ids). */
function recordsDiff({ current, target, curPhases, push, diverged, nextId }: Diff): void {
  const phaseOf = (id: string | null): string | null => (id !== null && curPhases.has(id) ? id : null);
  const decKey = (d: { title: string; choice: string }): string => `${d.title}\0${d.choice}`;
  appendNew(
    current.decisions.map(decKey),
    target.decisions,
    decKey,
    (d) =>
      push(
        'decision.recorded',
        {
          decisionId: nextId('decision', 'dec'),
          title: d.title,
          choice: d.choice,
          rationale: d.rationale,
          alternatives: d.alternatives,
          agent: d.agent,
          phaseId: phaseOf(d.phaseId),
        },
        d.time,
      ),
    (n) =>
      diverged('info', 'decision_removed', `${n} decision(s) recorded in baton are not in the foreign session; kept.`),
  );
  appendNew(
    current.findings.filter((f) => !f.removed).map((f) => f.text),
    target.findings,
    (f) => f.text,
    (f) =>
      push(
        'finding.added',
        {
          findingId: nextId('finding', 'fnd'),
          text: f.text,
          severity: f.severity,
          phaseId: phaseOf(f.phaseId),
          agent: f.agent,
        },
        f.time,
      ),
    (n) =>
      diverged(
        'info',
        'finding_removed',
        `${n} open finding(s) in baton are not in the foreign session; kept open (close them with \`baton finding remove\`).`,
      ),
  );
  appendNew(
    current.notes.map((n) => n.text),
    target.notes,
    (n) => n.text,
    (n) => push('note.added', { noteId: nextId('note', 'note'), text: n.text, phaseId: null, agent: n.agent }, n.time),
    (n) => diverged('info', 'note_removed', `${n} note(s) in baton are not in the foreign session; kept.`),
  );
  appendNew(
    current.artifacts.map((a) => a.path),
    target.artifacts,
    (a) => a.path,
    (a) =>
      push(
        'artifact.added',
        {
          artifactId: nextId('artifact', 'art'),
          path: a.path,
          kind: a.kind,
          description: a.description,
          phaseId: phaseOf(a.phaseId),
          agent: a.agent,
        },
        a.time,
      ),
    (n) => diverged('info', 'artifact_removed', `${n} artifact(s) in baton are not in the foreign session; kept.`),
  );
}

/** Milestones, matched by title: new ones added (and done), done ones marked; reopening is reported. */
function milestonesDiff({ current, target, now, push, diverged, nextId }: Diff): void {
  const curMs = new Map(current.milestones.map((m) => [m.title, m]));
  appendNew(
    current.milestones.map((m) => m.title),
    target.milestones,
    (m) => m.title,
    (m) => {
      const id = nextId('milestone', 'ms');
      push('milestone.added', { milestoneId: id, title: m.title, targetDate: m.targetDate }, now);
      if (m.done) push('milestone.done', { milestoneId: id }, m.doneAt);
    },
    (n) => diverged('info', 'milestone_removed', `${n} milestone(s) in baton are not in the foreign session; kept.`),
  );
  for (const m of target.milestones) {
    const c = curMs.get(m.title);
    if (c && m.done && !c.done) push('milestone.done', { milestoneId: c.id }, m.doneAt);
    if (c && !m.done && c.done)
      diverged(
        'info',
        'milestone_reopened',
        `Milestone ${c.id} is done in baton but not in the foreign session; kept done.`,
      );
  }
}

/** The session status, through the events the state machine allows; a forbidden move is reported. */
function statusDiff({ current, target, s, now, push, diverged }: Diff): void {
  if (target.status === current.status) return;
  const evs = statusEvent(target.status, current.status, s.rawStatus);
  if (evs) for (const e of evs) push(e.type, e.data as never, isoTime(s.updatedAt) ?? now);
  else
    diverged(
      'warning',
      'status_backwards',
      `The foreign session is ${target.status} but the baton session is ${current.status}; baton's state machine has no way from ${current.status} to ${target.status}, so the status was kept.`,
      { foreign: target.status, baton: current.status },
    );
}

/** Archives the baton session when the foreign one is archived (true: archive after appending); un-archiving is reported. */
function archiveDiff({ current, target, s, now, push, diverged }: Diff): boolean {
  if (target.archived && !current.archived) {
    push('session.archived', {}, isoTime(s.updatedAt) ?? now);
    return true;
  }
  if (!target.archived && current.archived)
    diverged(
      'warning',
      'unarchived',
      'The foreign session is live again but the baton session is archived; it stays archived.',
    );
  return false;
}

/** Appends the target records whose key the current list lacks (multiset match); reports how many current ones the target lacks. */
function appendNew<T>(
  currentKeys: string[],
  target: T[],
  key: (t: T) => string,
  add: (t: T) => void,
  removed: (n: number) => void,
): void {
  const pool = new Map<string, number>();
  for (const k of currentKeys) pool.set(k, (pool.get(k) ?? 0) + 1);
  for (const t of target) {
    const k = key(t);
    const n = pool.get(k) ?? 0;
    if (n > 0) pool.set(k, n - 1);
    else add(t);
  }
  const left = [...pool.values()].reduce((a, b) => a + b, 0);
  if (left > 0) removed(left);
}

/**
 * Foreign checkpoints taken since the last import become baton checkpoints of the state as
 * brought forward so far (appended to `out`; the manager saves their files).
 */
function newCheckpoints(
  current: SessionState,
  fresh: ImportEvent[],
  phases: Map<string, unknown>,
  out: ImportEvent[],
): void {
  const known = new Set((current.checkpoints ?? []).map((c) => c.id));
  for (const e of fresh) {
    if (e.type !== 'checkpoint.created' || known.has(e.data.checkpointId) || !phases.has(e.data.phaseId ?? ''))
      continue;
    out.push({
      type: 'checkpoint.created',
      data: { ...e.data, revision: current.revision + out.length },
      time: e.time,
    });
  }
}
