/**
 * Import, the pure part: a {@link ForeignSession} becomes baton journal events (a new
 * session's whole initial journal, {@link importEvents}); for a session imported before, the
 * events that bring it forward are in reimport.ts.
 * No I/O, no clock: the caller passes the import time. The mapping is the one in
 * docs/formats.md ("How a foreign session becomes a baton session").
 */
import { createHash } from 'node:crypto';
import { fold } from '../domain/apply.js';
import type { EventDataMap, EventType, PhaseSpec, StoredEvent } from '../domain/events.js';
import { MAX_ID_LENGTH } from '../domain/ids.js';
import type { SessionState, SessionStatus } from '../domain/state.js';
import { TOOLKIT_RULES_KEY } from '../domain/toolkit-rules.js';
import { SESSION_TRANSITIONS } from '../domain/transitions.js';
import type { SessionAction } from '../domain/transitions.js';
import type {
  ForeignError,
  ForeignSession,
  FormatName,
  FormatProblem,
  ProblemSeverity,
  TokenCountsLike,
} from './types.js';

/** Session metadata key of the provenance record. */
export const PROVENANCE_KEY = 'provenance';
/** Session metadata key of errors the foreign session does not attach to a unit. */
export const LOOSE_ERRORS_KEY = 'looseErrors';
/** Phase metadata key of the files a unit read (baton records only created/modified/deleted). */
export const FILES_READ_KEY = 'filesRead';
/** Agent under which tokens the foreign per-agent breakdown does not account for are recorded. */
export const UNATTRIBUTED = '(unattributed)';
/** `idFormat` of a session created by import. */
export const IMPORTED_ID_FORMAT = 'imported';

/** Where an imported session came from (session metadata `provenance`). */
export interface Provenance {
  format: FormatName;
  /** The toolkit's own id of the session. */
  foreignId: string;
  /** Absolute folder that was imported. */
  root: string;
  /** Main file of the session, relative to `root`. */
  path: string;
  sourceHash: string;
  importedAt: string;
  /** The parsed foreign documents, verbatim: what an exporter merges onto. */
  documents: Record<string, unknown>;
  /** Times made up because the foreign file had none (see ExportInput.untimed). */
  untimed: string[];
  /**
   * sha256 of the session's work as imported ({@link workHash}): an export finds out from it
   * whether baton changed anything since, and if not writes the position and update-time
   * fields back as they were. Absent in provenance written before it existed.
   */
  workHash?: string;
  /**
   * The time made up for each `untimed` key. A phase that baton later starts or completes
   * gets a real time, which then no longer equals this one (see `stillUntimed`). Absent in
   * provenance written before it existed: every listed key then stays untimed.
   */
  untimedAt?: Record<string, string>;
}

/**
 * The time an exporter should write for a baton record: null when baton made it up at import
 * (`key` as in ExportInput.untimed, e.g. `error:err-2`), else `time`.
 */
export function foreignTime(input: { untimed?: string[] }, key: string, time: string | null): string | null {
  return input.untimed?.includes(key) ? null : time;
}

/** An event to append, with its own time (foreign when known); the manager adds actor and seq. */
export type ImportEvent = { [K in EventType]: { type: K; data: EventDataMap[K]; time: string } }[EventType];

/** What the import needs from outside. */
export interface ImportContext {
  /** ISO time of this import: provenance, and events whose foreign time is unknown. */
  importedAt: string;
  /** Absolute folder imported (recorded in the provenance). */
  root: string;
}

/** Result of {@link importEvents}. */
export interface ImportPlan {
  events: ImportEvent[];
  /** Things the mapping had to change or could not keep (duplicate unit ids, clipped text…). */
  problems: FormatProblem[];
}

const ID_PATTERN = /^[A-Za-z0-9][A-Za-z0-9._-]*$/;

/**
 * The baton id of a foreign session: `prefix + foreignId` when that is a valid baton id, else a
 * slug of it (characters outside `[A-Za-z0-9._-]` become `-`, no `..`, at most 128 characters).
 */
export function batonIdFor(foreignId: string, prefix = ''): string {
  const direct = `${prefix}${foreignId}`;
  if (direct.length <= MAX_ID_LENGTH && ID_PATTERN.test(direct) && !direct.includes('..')) return direct;
  let slug = direct
    .normalize('NFKD')
    .replace(/[\u0300-\u036f]/g, '')
    .replace(/[^A-Za-z0-9._-]+/g, '-')
    .replace(/\.{2,}/g, '.')
    .replace(/^[^A-Za-z0-9]+/, '')
    .slice(0, MAX_ID_LENGTH)
    .replace(/[^A-Za-z0-9]+$/, '');
  if (!slug) slug = 'imported-session';
  return slug;
}

/** The provenance of a session, or null when it was not imported. */
export function provenanceOf(state: SessionState): Provenance | null {
  const p = state.metadata[PROVENANCE_KEY] as Partial<Provenance> | undefined;
  if (!p || typeof p !== 'object' || typeof p.format !== 'string' || typeof p.foreignId !== 'string') return null;
  return p as Provenance;
}

const UTC_ISO = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(?:\.\d{1,9})?Z$/;

/**
 * A foreign time as ISO-8601 UTC, or null when absent or not a date. A time already written
 * that way is kept as written (`…:00Z` stays `…:00Z`, so an export writes the same text);
 * others (offsets, a space instead of `T`, a bare date) are converted.
 */
export function isoTime(v: string | null | undefined): string | null {
  if (typeof v !== 'string' || v.trim() === '') return null;
  const t = Date.parse(v);
  if (Number.isNaN(t)) return null;
  return UTC_ISO.test(v) ? v : new Date(t).toISOString();
}

function note(
  severity: ProblemSeverity,
  code: string,
  s: ForeignSession,
  message: string,
  details?: Record<string, unknown>,
): FormatProblem {
  return { code, severity, sessionId: s.id, path: s.path, message, hint: null, ...(details ? { details } : {}) };
}

function nonEmpty(v: string | null | undefined, fallback: string, max: number): string {
  const s = typeof v === 'string' && v.trim() !== '' ? v : fallback;
  return s.length > max ? s.slice(0, max) : s;
}

function count(v: unknown): number {
  return typeof v === 'number' && Number.isFinite(v) && v > 0 ? Math.min(Math.round(v), 1_000_000_000_000) : 0;
}

function counts(t: TokenCountsLike | null | undefined): TokenCountsLike {
  return { input: count(t?.input), output: count(t?.output), cached: count(t?.cached) };
}

const MAX_TEXT = 100_000;

/** Phases of the session: one per unit, ids made unique, blockers pointing nowhere or in a cycle dropped. */
function phaseSpecs(s: ForeignSession, problems: FormatProblem[]): { specs: PhaseSpec[]; ids: string[] } {
  const seen = new Set<string>();
  const ids = s.units.map((u, i) => {
    let id = typeof u.id === 'string' && u.id !== '' ? u.id : `unit-${i + 1}`;
    if (seen.has(id)) {
      let n = 2;
      while (seen.has(`${id}-${n}`)) n++;
      problems.push(
        note(
          'warning',
          'DUPLICATE_UNIT',
          s,
          `Unit id ${JSON.stringify(id)} appears more than once; the later one was imported as ${id}-${n}.`,
          { unitId: id, importedAs: `${id}-${n}` },
        ),
      );
      id = `${id}-${n}`;
    }
    seen.add(id);
    return id;
  });
  const specs: PhaseSpec[] = s.units.map((u, i) => {
    const blockedBy = (u.blockedBy ?? []).filter((b) => {
      if (seen.has(b) && b !== ids[i]) return true;
      problems.push(
        note(
          'warning',
          'BAD_VALUE',
          s,
          `Unit ${ids[i]} is blocked by ${JSON.stringify(b)}, which is not another unit of the session; the dependency was dropped.`,
          { unitId: ids[i], blockedBy: b },
        ),
      );
      return false;
    });
    const read = u.files.filter((f) => f.action === 'read').map((f) => f.path);
    const metadata = { ...u.metadata, ...(read.length ? { [FILES_READ_KEY]: read } : {}) };
    return {
      id: ids[i]!,
      name: nonEmpty(u.name, ids[i]!, 1000),
      agents: [...new Set(u.agents ?? [])],
      blockedBy,
      metadata,
    };
  });
  if (hasCycle(specs)) {
    problems.push(
      note(
        'warning',
        'BAD_VALUE',
        s,
        "The units' blocked_by dependencies form a cycle; all dependencies were dropped.",
      ),
    );
    for (const p of specs) p.blockedBy = [];
  }
  return { specs, ids };
}

function hasCycle(specs: PhaseSpec[]): boolean {
  const by = new Map(specs.map((p) => [p.id, p]));
  const mark = new Map<string, 1 | 2>();
  const visit = (id: string): boolean => {
    if (mark.get(id) === 2) return false;
    if (mark.get(id) === 1) return true;
    mark.set(id, 1);
    for (const b of by.get(id)?.blockedBy ?? []) if (visit(b)) return true;
    mark.set(id, 2);
    return false;
  };
  return specs.some((p) => visit(p.id));
}

/** Events of a new session that reproduces `s`, oldest first, ending with the provenance. */
export function importEvents(s: ForeignSession, ctx: ImportContext): ImportPlan {
  const problems: FormatProblem[] = [];
  const out: ImportEvent[] = [];
  const t0 = isoTime(s.createdAt) ?? isoTime(s.updatedAt) ?? ctx.importedAt;
  const tEnd = isoTime(s.updatedAt) ?? t0;
  const push = <K extends EventType>(type: K, data: EventDataMap[K], time: string | null | undefined): void => {
    out.push({ type, data, time: time ?? t0 } as ImportEvent);
  };
  const untimed: string[] = [];
  const untimedAt: Record<string, string> = {};
  const when = (v: string | null | undefined, key: string, fallback: string): string => {
    const t = isoTime(v);
    if (t === null) {
      untimed.push(key);
      untimedAt[key] = fallback;
    }
    return t ?? fallback;
  };
  const { specs, ids } = phaseSpecs(s, problems);
  const phaseIds = new Set(ids);
  const title = nonEmpty(s.title, s.id, 1000);
  if ((s.title ?? '').length > 1000)
    problems.push(
      note(
        'info',
        'BAD_VALUE',
        s,
        'The title is longer than 1000 characters; it was clipped (the full text stays in provenance.documents).',
      ),
    );
  const loose = looseErrors(s, phaseIds);
  const budget =
    s.tokens?.max !== null && s.tokens?.max !== undefined && count(s.tokens.max) > 0 ? count(s.tokens.max) : null;
  push(
    'session.created',
    {
      title,
      idFormat: IMPORTED_ID_FORMAT,
      phases: specs,
      budgetMax: budget,
      contextSummary: s.contextSummary !== null && s.contextSummary !== '' ? s.contextSummary : null,
      metadata: loose.length ? { [LOOSE_ERRORS_KEY]: loose } : {},
    },
    t0,
  );

  let errN = 0;
  s.units.forEach((u, i) => {
    const phaseId = ids[i]!;
    const agent = u.agents?.[0] ?? null;
    const runs = u.status !== 'pending' && u.status !== 'blocked' && u.status !== 'skipped';
    const ends = u.status === 'completed' || u.status === 'failed' || u.status === 'skipped';
    const started = runs ? when(u.startedAt, `phase:${phaseId}:startedAt`, t0) : (isoTime(u.startedAt) ?? t0);
    const ended = ends ? when(u.completedAt, `phase:${phaseId}:completedAt`, tEnd) : (isoTime(u.completedAt) ?? tEnd);
    if (runs) push('phase.started', { phaseId, agent, forced: false }, started);
    const retries = count(u.retries);
    for (let r = 1; r <= retries; r++) push('phase.retried', { phaseId, agent, forced: false, attempt: r }, started);
    if (u.subStep) push('substep.reached', { phaseId, name: nonEmpty(u.subStep, u.subStep, 200) }, started);
    for (const f of u.files) {
      if (f.action === 'read' || !f.path) continue;
      push(
        'file.recorded',
        { phaseId, path: f.path.slice(0, 4096), action: f.action, sha256: null, size: null, agent },
        started,
      );
    }
    for (const e of u.errors) {
      const errorId = `err-${++errN}`;
      push(
        'error.recorded',
        {
          errorId,
          phaseId,
          agent: e.agent,
          type: nonEmpty(e.type, 'error', 100),
          message: nonEmpty(e.message, '(no message)', MAX_TEXT),
        },
        when(e.time, `error:${errorId}`, started),
      );
      // A resolution the foreign file does not give stays null (not invented), so export writes it back as it was.
      if (e.resolved) push('error.resolved', { errorId, resolution: e.resolution as string }, isoTime(e.time) ?? ended);
    }
    if (u.status === 'completed') push('phase.completed', { phaseId, agent }, ended);
    else if (u.status === 'failed')
      push(
        'phase.failed',
        { phaseId, agent, reason: u.errors.filter((e) => !e.resolved).at(-1)?.message ?? null },
        ended,
      );
    else if (u.status === 'skipped') push('phase.skipped', { phaseId, reason: null }, ended);
    // The toolkit's usable checkpoints of this unit become baton checkpoints holding the state
    // as of here (docs/formats/go-team.md: "Per-step checkpoint snapshots (state+outputs+files+git commit)").
    for (const c of checkpointsOf(s, u.id)) {
      push(
        'checkpoint.created',
        { checkpointId: c.id, name: c.name, revision: out.length, trigger: 'phase', phaseId, git: c.git },
        isoTime(c.createdAt) ?? ended,
      );
    }
  });

  for (const [cell, c] of foreignTokenCells(s, phaseIds, problems)) {
    const [agent, phase] = splitCell(cell);
    push('tokens.recorded', { agent, phaseId: phase, ...c }, tEnd);
  }
  s.decisions.forEach((d, i) =>
    push(
      'decision.recorded',
      {
        decisionId: `dec-${i + 1}`,
        title: nonEmpty(d.title, d.choice || '(untitled)', 1000),
        choice: nonEmpty(d.choice, d.title || '(none)', MAX_TEXT),
        rationale: d.rationale ?? null,
        alternatives: (d.alternatives ?? []).map(String),
        agent: d.agent ?? null,
        phaseId: d.unitId !== null && phaseIds.has(d.unitId) ? d.unitId : null,
      },
      when(d.time, `decision:dec-${i + 1}`, tEnd),
    ),
  );
  s.findings.forEach((f, i) =>
    push(
      'finding.added',
      {
        findingId: `fnd-${i + 1}`,
        text: nonEmpty(f.text, '(empty)', MAX_TEXT),
        severity: f.severity ?? null,
        phaseId: f.unitId !== null && phaseIds.has(f.unitId) ? f.unitId : null,
        agent: null,
      },
      when(f.time, `finding:fnd-${i + 1}`, tEnd),
    ),
  );
  s.notes.forEach((n, i) =>
    push(
      'note.added',
      { noteId: `note-${i + 1}`, text: nonEmpty(n.text, '(empty)', MAX_TEXT), phaseId: null, agent: n.agent ?? null },
      when(n.time, `note:note-${i + 1}`, tEnd),
    ),
  );
  s.milestones.forEach((m, i) => {
    push(
      'milestone.added',
      { milestoneId: `ms-${i + 1}`, title: nonEmpty(m.title, '(untitled)', 1000), targetDate: m.targetDate ?? null },
      tEnd,
    );
    if (m.doneAt !== null && m.doneAt !== undefined)
      push('milestone.done', { milestoneId: `ms-${i + 1}` }, isoTime(m.doneAt) ?? tEnd);
  });
  s.artifacts.forEach((a, i) =>
    push(
      'artifact.added',
      {
        artifactId: `art-${i + 1}`,
        path: nonEmpty(a.path, '(unknown)', 4096),
        kind: a.kind ?? null,
        description: a.description ?? null,
        phaseId: a.unitId !== null && phaseIds.has(a.unitId) ? a.unitId : null,
        agent: a.agent ?? null,
      },
      when(a.time, `artifact:art-${i + 1}`, tEnd),
    ),
  );
  const status = statusEvent(s.status, 'active', s.rawStatus);
  for (const e of status ?? []) push(e.type, e.data as never, tEnd);
  if (s.archived) push('session.archived', {}, tEnd);
  // The toolkit's rules, with its checkpoint ids as baton names them, for baton's resume plan.
  if (s.rules) {
    const rec = s.rules.recommended;
    const value = rec?.checkpoint
      ? { ...s.rules, recommended: { ...rec, checkpoint: batonIdFor(rec.checkpoint) } }
      : s.rules;
    push('metadata.set', { key: TOOLKIT_RULES_KEY, value }, ctx.importedAt);
  }
  const imported = fold(
    null,
    out.map((e, i) => ({ ...e, actor: { agent: null, pid: 0, host: '' }, seq: i + 1 }) as StoredEvent),
    'import',
  )!;
  push(
    'metadata.set',
    { key: PROVENANCE_KEY, value: { ...provenance(s, ctx, untimed, untimedAt), workHash: workHash(imported) } },
    ctx.importedAt,
  );
  return { events: out, problems };
}

/**
 * A hash of what a session's work is (phases, records, tokens, lifecycle; not metadata, times
 * of baton's own bookkeeping or checkpoints): equal before and after a change that did no work.
 */
export function workHash(s: SessionState): string {
  const work = {
    status: s.status,
    archived: s.archived,
    title: s.title,
    contextSummary: s.contextSummary,
    phases: s.phases.map((p) => [
      p.id,
      p.status,
      p.retryCount,
      p.subStep,
      p.files.length,
      p.errors.map((e) => [e.id, e.resolved]),
      p.agents,
    ]),
    tokens: [s.tokens.input, s.tokens.output, s.tokens.cached, s.tokens.budgetMax],
    records: [
      s.decisions.length,
      s.findings.filter((f) => !f.removed).length,
      s.notes.length,
      s.milestones.map((m) => m.done),
      s.artifacts.length,
    ],
  };
  return createHash('sha256').update(JSON.stringify(work)).digest('hex');
}

/** The provenance record of `s` as imported now (also written by a re-import, reimport.ts). */
export function provenance(
  s: ForeignSession,
  ctx: ImportContext,
  untimed: string[],
  untimedAt: Record<string, string> | undefined,
): Provenance {
  return {
    format: s.format,
    foreignId: s.id,
    root: ctx.root,
    path: s.path,
    sourceHash: s.sourceHash,
    importedAt: ctx.importedAt,
    documents: s.documents,
    untimed,
    ...(untimedAt ? { untimedAt } : {}),
  };
}

/**
 * The `untimed` keys of `prov` whose made-up time `state` still holds. A phase's start or end
 * time that baton set later (the phase was retried, started or completed in baton) is real
 * and is written out again.
 */
export function stillUntimed(prov: Provenance, state: SessionState): string[] {
  const keys = Array.isArray(prov.untimed) ? prov.untimed : [];
  const madeUp = prov.untimedAt;
  if (!madeUp || typeof madeUp !== 'object') return [...keys];
  return keys.filter((key) => {
    const m = /^phase:(.+):(startedAt|completedAt)$/.exec(key);
    if (!m || typeof madeUp[key] !== 'string') return true;
    const phase = state.phases.find((p) => p.id === m[1]);
    // A phase's end is its completion or its failure, whichever it has.
    const now = !phase ? null : m[2] === 'startedAt' ? phase.startedAt : (phase.completedAt ?? phase.failedAt);
    return now === null || now === madeUp[key];
  });
}

/**
 * The foreign checkpoints of unit `unitId` that baton imports as its own: the usable ones
 * (valid: readable, consistent, not invalidated), with a baton-valid id and the git commit
 * they record. Damaged and invalidated ones are not restorable in the toolkit either.
 */
export function checkpointsOf(
  s: ForeignSession,
  unitId: string,
): Array<{
  id: string;
  name: string;
  createdAt: string | null;
  git: { branch: string | null; head: string | null; dirty: boolean } | null;
}> {
  return s.checkpoints
    .filter((c) => c.valid && c.unitId === unitId)
    .map((c) => ({
      id: batonIdFor(c.id),
      name: `${c.name ?? `unit ${unitId}`} (${s.format} ${c.id})`.slice(0, 200),
      createdAt: c.createdAt,
      // A Go Team checkpoint is a commit of everything (`git add -A`): nothing uncommitted in it.
      git:
        c.git && (c.git.branch !== null || c.git.commit !== null)
          ? { branch: c.git.branch, head: c.git.commit, dirty: false }
          : null,
    }));
}

/** Errors that belong to no unit of the session (kept verbatim in session metadata). */
function looseErrors(s: ForeignSession, phaseIds: Set<string>): ForeignError[] {
  const inUnits = new Set(s.units.flatMap((u) => u.errors.map((e) => `${e.type}\0${e.message}`)));
  return s.unresolvedErrors.filter(
    (e) => (e.unitId === null || !phaseIds.has(e.unitId)) && !inUnits.has(`${e.type}\0${e.message}`),
  );
}

const CELL_SEP = '\u0000';
function cellKey(agent: string, phaseId: string | null): string {
  return `${agent}${CELL_SEP}${phaseId ?? ''}`;
}
/** The agent and phase of a token cell key (see journalTokenCells). */
export function splitCell(k: string): [string, string | null] {
  const i = k.indexOf(CELL_SEP);
  const p = k.slice(i + 1);
  return [k.slice(0, i), p === '' ? null : p];
}

/**
 * Token use of the foreign session as (agent, phase) cells: the per-agent breakdown when there
 * is one, else the per-unit one under {@link UNATTRIBUTED}; what the totals hold beyond it
 * goes to {@link UNATTRIBUTED} without a phase.
 */
function foreignTokenCells(
  s: ForeignSession,
  phaseIds: Set<string>,
  problems: FormatProblem[],
): Map<string, TokenCountsLike> {
  const cells = new Map<string, TokenCountsLike>();
  const t = s.tokens;
  if (!t) return cells;
  const add = (k: string, c: TokenCountsLike): void => {
    const cur = cells.get(k) ?? { input: 0, output: 0, cached: 0 };
    cells.set(k, { input: cur.input + c.input, output: cur.output + c.output, cached: cur.cached + c.cached });
  };
  if (t.byAgent) {
    for (const [agent, c] of Object.entries(t.byAgent))
      add(cellKey(nonEmpty(agent, UNATTRIBUTED, 200), null), counts(c));
  } else if (t.byUnit) {
    for (const [unit, c] of Object.entries(t.byUnit))
      add(cellKey(UNATTRIBUTED, phaseIds.has(unit) ? unit : null), counts(c));
  }
  const sum = { input: 0, output: 0, cached: 0 };
  for (const c of cells.values()) {
    sum.input += c.input;
    sum.output += c.output;
    sum.cached += c.cached;
  }
  const total = counts(t);
  const rest = {
    input: Math.max(0, total.input - sum.input),
    output: Math.max(0, total.output - sum.output),
    cached: Math.max(0, total.cached - sum.cached),
  };
  if (rest.input || rest.output || rest.cached || cells.size === 0) add(cellKey(UNATTRIBUTED, null), rest);
  if (total.input < sum.input || total.output < sum.output || total.cached < sum.cached) {
    problems.push(
      note(
        'info',
        'TOKENS_DISAGREE',
        s,
        `The token totals are below the sum of the per-agent breakdown; baton's totals are the breakdown's sum (${sum.input} in / ${sum.output} out / ${sum.cached} cached).`,
        { totals: total, sum },
      ),
    );
  }
  // An all-zero unattributed cell only matters when there is nothing else (it keeps "tokens: 0" visible).
  const un = cells.get(cellKey(UNATTRIBUTED, null));
  if (un && !un.input && !un.output && !un.cached && cells.size > 1) cells.delete(cellKey(UNATTRIBUTED, null));
  return cells;
}

/** Token cells (agent, phase) → counts of a journal's `tokens.recorded` events. */
export function journalTokenCells(
  events: ReadonlyArray<{ type: string; data: unknown }>,
): Map<string, TokenCountsLike> {
  const cells = new Map<string, TokenCountsLike>();
  for (const e of events) {
    if (e.type !== 'tokens.recorded') continue;
    const d = e.data as EventDataMap['tokens.recorded'];
    const k = cellKey(d.agent, d.phaseId);
    const cur = cells.get(k) ?? { input: 0, output: 0, cached: 0 };
    cells.set(k, { input: cur.input + d.input, output: cur.output + d.output, cached: cur.cached + d.cached });
  }
  return cells;
}

/** The lifecycle events that take a session from `from` to `to` (one step, or resume then one), or null when none does. */
export function statusEvent(
  to: SessionStatus,
  from: SessionStatus,
  raw: string | null,
): Array<{ type: EventType; data: unknown }> | null {
  if (to === from) return [];
  const one = (f: SessionStatus): Array<{ type: EventType; data: unknown }> | null => {
    const action = (Object.entries(SESSION_TRANSITIONS[f]) as Array<[SessionAction, SessionStatus]>).find(
      ([, target]) => target === to,
    )?.[0];
    if (!action) return null;
    const detail = raw ?? null;
    switch (action) {
      case 'pause':
        return [{ type: 'session.paused', data: { cause: 'imported', detail } }];
      case 'resume':
        return [{ type: 'session.resumed', data: { from: f } }];
      case 'interrupt':
        return [{ type: 'session.interrupted', data: { cause: 'imported', detail } }];
      case 'complete':
        return [{ type: 'session.completed', data: { detail } }];
      case 'fail':
        return [{ type: 'session.failed', data: { detail } }];
      case 'abandon':
        return [{ type: 'session.abandoned', data: { detail } }];
    }
  };
  const direct = one(from);
  if (direct) return direct;
  if (SESSION_TRANSITIONS[from].resume) {
    const then = one('active');
    if (then) return [{ type: 'session.resumed', data: { from } }, ...then];
  }
  return null;
}

/** The baton state a fresh import of `s` produces. */
export function importedState(s: ForeignSession, ctx: ImportContext, id = 'import'): SessionState {
  const { events } = importEvents(s, ctx);
  const actor = { agent: null, pid: 0, host: '' };
  return fold(
    null,
    events.map((e, i) => ({ ...e, actor, seq: i + 1 }) as StoredEvent),
    id,
  )!;
}
