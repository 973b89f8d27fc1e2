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
import type { SessionState } from '../domain/state.js';
import { TOOLKIT_RULES_KEY } from '../domain/toolkits/toolkit-rules.js';
import type { ForeignError, ForeignSession, ForeignUnit, FormatProblem } from './types.js';
import { count, MAX_TEXT, nonEmpty, note } from './import-values.js';
import { foreignTokenCells, journalTokenCells, splitCell, UNATTRIBUTED } from './import-tokens.js';
import { statusEvent } from './import-status.js';
import { FILES_READ_KEY, phaseSpecs } from './import-phases.js';

export { FILES_READ_KEY, journalTokenCells, splitCell, statusEvent, UNATTRIBUTED };
export { PROVENANCE_KEY, provenanceOf } from './provenance.js';
export type { Provenance } from './provenance.js';
import { PROVENANCE_KEY } from './provenance.js';
import type { Provenance } from './provenance.js';

/** Session metadata key of errors the foreign session does not attach to a unit. */
export const LOOSE_ERRORS_KEY = 'looseErrors';
/** `idFormat` of a session created by import. */
export const IMPORTED_ID_FORMAT = 'imported';

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
  const emit: Emit = { s, out, push, when, t0, tEnd };
  const { specs, ids } = phaseSpecs(s, problems);
  const phaseIds = new Set(ids);
  createdEvent(emit, specs, phaseIds, problems);
  let errN = 0;
  s.units.forEach((u, i) => {
    errN = unitEvents(emit, u, ids[i]!, errN);
  });
  for (const [cell, c] of foreignTokenCells(s, phaseIds, problems)) {
    const [agent, phase] = splitCell(cell);
    push('tokens.recorded', { agent, phaseId: phase, ...c }, tEnd);
  }
  recordEvents(emit, phaseIds);
  lifecycleEvents(emit, ctx);
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

/** What each part of {@link importEvents} shares: the session, the events so far and their times. */
interface Emit {
  s: ForeignSession;
  out: ImportEvent[];
  push: <K extends EventType>(type: K, data: EventDataMap[K], time: string | null | undefined) => void;
  /** The ISO time of `v`, else `fallback`, noting `key` as untimed. */
  when: (v: string | null | undefined, key: string, fallback: string) => string;
  t0: string;
  tEnd: string;
}

/** The `session.created` event: title (clipped), phases, budget, context and loose errors. */
function createdEvent(
  { s, push, t0 }: Emit,
  specs: PhaseSpec[],
  phaseIds: Set<string>,
  problems: FormatProblem[],
): void {
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
  // A dollar budget (Go Team's) has no place in session.created; the toolkit only warns, so the policy is warn.
  const usd = s.tokens?.maxUsd;
  if (typeof usd === 'number' && Number.isFinite(usd) && usd > 0)
    push('budget.set', { maxUsd: usd, onExceed: 'warn' }, t0);
}

/** One unit's events as phase `phaseId`: start, retries, sub-step, files, errors, end, checkpoints. Returns the error count so far. */
function unitEvents({ s, out, push, when, t0, tEnd }: Emit, u: ForeignUnit, phaseId: string, errCount: number): number {
  let errN = errCount;
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
  return errN;
}

/** Decisions, findings, notes, milestones and artifacts, numbered in foreign order. */
function recordEvents({ s, push, when, tEnd }: Emit, phaseIds: Set<string>): void {
  const phaseOf = (id: string | null): string | null => (id !== null && phaseIds.has(id) ? id : null);
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
        phaseId: phaseOf(d.unitId),
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
        phaseId: phaseOf(f.unitId),
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
        phaseId: phaseOf(a.unitId),
        agent: a.agent ?? null,
      },
      when(a.time, `artifact:art-${i + 1}`, tEnd),
    ),
  );
}

/** The session's status, archiving, and the toolkit's rules (checkpoint ids as baton names them). */
function lifecycleEvents({ s, push, tEnd }: Emit, ctx: ImportContext): void {
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
    // A cost budget only when set, so that sessions imported before it counted keep their hash.
    tokens: [
      s.tokens.input,
      s.tokens.output,
      s.tokens.cached,
      s.tokens.budgetMax,
      ...((s.tokens.costBudgetUsd ?? null) !== null ? [s.tokens.costBudgetUsd] : []),
    ],
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
    ...fileBasesOf(s),
  };
}

/** The folders the session's relative file paths are kept relative to (Provenance.fileBases). */
function fileBasesOf(s: ForeignSession): { fileBases?: Record<string, string> } {
  const bases: Record<string, string> = {};
  for (const u of s.units) for (const f of u.files) if (f.base !== undefined && f.path) bases[f.path] = f.base;
  return Object.keys(bases).length ? { fileBases: bases } : {};
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
