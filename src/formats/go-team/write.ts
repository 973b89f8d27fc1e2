/**
 * Writes a baton session in Go Team's layout, by Go Team's own write rules: the live
 * `state.json` (an `action` save), the `manifest.json`, the `sessions.json` registry merged
 * with the sessions already in the destination, and `recovery.json` for an interrupted
 * session. Baton phases map onto Go Team's nine steps by identity only (write-steps.ts).
 * Go Team checkpoint files (`cp-*.json`: git commit + state snapshot + checksum) cannot be
 * made from baton checkpoints, so only the ones the session was imported with are written
 * back, byte for byte, where the destination lacks them, and damaged ones are dropped
 * (write-checkpoints.ts). Every field baton does not map is kept from the session's files
 * already at the destination (the newest: with --mirror the toolkit may still write them),
 * else from the imported documents; nothing changed since the import keeps the update and
 * save times as written.
 */
import { BatonError } from '../../domain/errors.js';
import type { Phase, SessionStatus } from '../../domain/state.js';
import { foreignTime } from '../import.js';
import type { SafeDir } from '../safe-dir.js';
import type { ExportInput, WritePlan } from '../types.js';
import { arr, obj, parseDocument, str, withSafeForeignId } from '../util.js';
import { join, locate } from './layout.js';
import { REVIEW_MAX_ITERATIONS, STEPS, stepOf, TOTAL_STEPS } from './steps.js';
import { type Dropped, json, newRecovery, planVerbatim, repairRecovery, replacement } from './write-checkpoints.js';
import {
  checkMappable,
  notRepresented,
  pendingTasks,
  type Position,
  positionOf,
  writeCostBudget,
  writeTokenMetrics,
} from './write-steps.js';

const SESSION_FILE = /^(manifest|state|recovery|rollback-history)\.json$|^cp-.*\.json$/;

/** baton status → Go Team registry status (abandoned keeps a paused/interrupted status with resumable false). */
function goStatus(s: SessionStatus, previous: string | null): string {
  if (s === 'abandoned') return previous === 'interrupted' || previous === 'paused' ? previous : 'abandoned';
  return s;
}

async function existing(out: SafeDir, rel: string): Promise<Record<string, unknown> | null | 'corrupt'> {
  const r = await out.read(rel);
  if (r.kind === 'missing') return null;
  if (r.kind !== 'ok') return 'corrupt';
  const p = parseDocument(r);
  return p.ok ? p.value : 'corrupt';
}

/** What the registry entry of the exported session is made from. */
interface EntryInput {
  status: string;
  resumable: boolean;
  currentStep: number;
  completedCount: number;
  phases: Array<Phase | null>;
  /** created_at of the imported manifest, the fallback after the registry's own. */
  createdAt: string | null;
  /** The checkpoint to name instead of the entry's current one (a dropped one is replaced). */
  checkpoint: (cp: unknown) => unknown;
}

/**
 * The registry at the destination (or a new one from the imported registry's top fields) with
 * this session's entry updated or added; refuses a registry it cannot read rather than lose
 * the other sessions it lists.
 */
async function mergeRegistry(
  input: ExportInput,
  out: SafeDir,
  regRel: string,
  origRegistry: Record<string, unknown>,
  origEntry: Record<string, unknown>,
  p: EntryInput,
): Promise<{ reg: Record<string, unknown>; entry: Record<string, unknown> }> {
  const { state, foreignId: id, now } = input;
  const nowIso = now.toISOString();
  const outReg = await existing(out, regRel);
  if (outReg === 'corrupt') {
    throw new BatonError(
      'CORRUPT',
      `${regRel} in the export folder cannot be read, so the other sessions it lists would be lost.`,
      { hint: 'Repair or remove that registry (it keeps no backup), then export again.' },
    );
  }
  const { sessions: _s, ...origTop } = origRegistry;
  const reg: Record<string, unknown> = outReg ?? {
    version: '1.0.0',
    ...origTop,
    sessions: [],
    last_active_session: null,
  };
  const list = arr(reg.sessions);
  const at = list.findIndex((e) => str(obj(e).id) === id);
  const base = at >= 0 ? obj(list[at]) : origEntry;
  const entry: Record<string, unknown> = {
    ...base,
    id,
    topic: state.title,
    status: p.status,
    created_at: str(base.created_at) ?? p.createdAt ?? state.createdAt,
    // Nothing changed since the import: the update time and position are written as they were.
    updated_at: input.unchangedSinceImport === true && base.updated_at !== undefined ? base.updated_at : nowIso,
    current_step:
      input.unchangedSinceImport === true && base.current_step !== undefined ? base.current_step : p.currentStep,
    current_checkpoint: p.checkpoint(base.current_checkpoint ?? null) ?? null,
    progress: {
      ...obj(base.progress),
      steps_completed: p.completedCount,
      total_steps: TOTAL_STEPS,
      percentage: Math.round((p.completedCount / TOTAL_STEPS) * 100),
    },
    git_branch: base.git_branch ?? `go-team/${id}`,
    resumable: p.resumable,
  };
  if (state.status === 'completed') {
    const last = p.phases[TOTAL_STEPS - 1] ?? null;
    entry.completed_at =
      str(base.completed_at) ??
      (last ? foreignTime(input, `phase:${last.id}:completedAt`, last.completedAt) : null) ??
      nowIso;
  } else delete entry.completed_at;
  // The entry says something new (a status baton derived, e.g. a dead heartbeat read as
  // interrupted): the update time is bumped after all.
  if (entry.updated_at !== nowIso && sameFields(entry, base, 'updated_at') === false) entry.updated_at = nowIso;
  const sessions = [...list];
  if (at >= 0) sessions[at] = entry;
  else sessions.push(entry);
  reg.sessions = sessions;
  if (state.status === 'active') reg.last_active_session = id;
  else if (
    (reg.last_active_session === undefined || reg.last_active_session === null) &&
    str(origRegistry.last_active_session) === id
  )
    reg.last_active_session = id;
  else if (reg.last_active_session === undefined) reg.last_active_session = null;
  return { reg, entry };
}

type Doc = Record<string, unknown>;

const asObj = (v: unknown): Doc | null =>
  v !== null && typeof v === 'object' && !Array.isArray(v) ? (v as Doc) : null;

/** The imported documents of session `id`, by file name, and the imported registry with its entry. */
function importedDocs(
  docs: Record<string, unknown>,
  id: string,
): { mine: Map<string, unknown>; origRegistry: Doc; origEntry: Doc } {
  const mine = new Map<string, unknown>();
  let origRegistry: Doc = {};
  for (const [key, doc] of Object.entries(docs)) {
    const parts = key.split('/');
    const name = parts[parts.length - 1] ?? '';
    if (parts[parts.length - 2] === id && SESSION_FILE.test(name)) mine.set(name, doc);
    else if (name === 'sessions.json' && doc !== null && typeof doc === 'object') origRegistry = obj(doc);
  }
  const origEntry = obj(arr(origRegistry.sessions).find((e) => str(obj(e).id) === id));
  return { mine, origRegistry, origEntry };
}

/** What the session's documents are built from: the export, where it writes, and what it had. */
interface Ctx {
  input: ExportInput;
  out: SafeDir;
  sdir: string;
  mine: Map<string, unknown>;
  pos: Position;
  nowIso: string;
  /** Nothing changed since the import: the update and save times stay as written. */
  keep: boolean;
}

/** The session's file already at the destination (newest), else the imported one. */
async function baseDoc(c: Ctx, name: string): Promise<Doc | null> {
  const d = await existing(c.out, join(c.sdir, name));
  return (d === 'corrupt' ? null : d) ?? asObj(c.mine.get(name));
}

async function manifestDoc(c: Ctx): Promise<Doc> {
  const { state, foreignId: id } = c.input;
  const manifest: Doc = (await baseDoc(c, 'manifest.json')) ?? {
    session_id: id,
    topic: state.title,
    created_at: state.createdAt,
    updated_at: c.nowIso,
    checkpoints: [],
    current_checkpoint: null,
    current_step: c.pos.currentStep,
    rollback_history: [],
  };
  Object.assign(manifest, {
    session_id: id,
    topic: state.title,
    updated_at: c.keep && manifest.updated_at !== undefined ? manifest.updated_at : c.nowIso,
    current_step: c.keep && manifest.current_step !== undefined ? manifest.current_step : c.pos.currentStep,
  });
  return manifest;
}

/** The live `state.json` (an "action" save). */
async function liveDoc(
  c: Ctx,
  status: string,
  checkpoint: unknown,
  dropped: Dropped,
  docs: Record<string, unknown>,
): Promise<Doc> {
  const { state, foreignId: id } = c.input;
  const { currentStep, open, firstOpen } = c.pos;
  const def = STEPS[currentStep - 1] ?? STEPS[0];
  const live: Doc = (await baseDoc(c, 'state.json')) ?? {
    session_id: id,
    saved_at: c.nowIso,
    save_trigger: 'action',
    state: {
      topic: state.title,
      date: c.nowIso.slice(0, 10),
      phase: def?.name ?? 'init',
      current_step: currentStep,
      current_agent: null,
      iteration_count: 0,
      max_iterations: REVIEW_MAX_ITERATIONS,
      breakpoint_active: false,
    },
    context: { last_action: null, pending_tasks: [], current_file: null, current_line: null },
    outputs: {},
    recovery_point: { checkpoint, actions_since_checkpoint: 0, can_resume_from_action: true },
  };
  const ls: Doc = { ...obj(live.state) };
  const previousStep = stepOf(ls.current_step);
  ls.topic = state.title;
  ls.current_step = currentStep;
  if (previousStep !== currentStep) ls.phase = def?.name ?? ls.phase;
  if (open && (open.status === 'in_progress' || open.status === 'failed') && firstOpen + 1 === currentStep) {
    const sub = open.subStep;
    if (sub && def?.sub && sub === `${currentStep}b`) ls.phase = def.sub;
    const it = sub ? /^review-(\d+)$/.exec(sub) : null;
    if (it && currentStep === 6) ls.iteration_count = Number(it[1]);
  }
  if (ls.session !== undefined && typeof obj(ls.session).status === 'string')
    ls.session = { ...obj(ls.session), status };
  writeTokenMetrics(ls, state, docs);
  writeCostBudget(ls, state);
  const context = { ...obj(live.context) };
  if (state.contextSummary !== null) context.last_action = state.contextSummary;
  if (c.pos.unmapped.length > 0 || arr(context.pending_tasks).length > 0)
    context.pending_tasks = pendingTasks(context.pending_tasks, c.pos.unmapped);
  const recoveryPoint = asObj(live.recovery_point);
  // Nothing changed since the import: no save happened, so the save time and trigger stay (Go
  // Team's heartbeat, and the time a re-import falls back on for steps without one).
  const kept = c.keep && live.saved_at !== undefined;
  Object.assign(live, {
    session_id: id,
    saved_at: kept ? live.saved_at : c.nowIso,
    save_trigger: kept ? (live.save_trigger ?? 'action') : 'action',
    state: ls,
    context,
  });
  if (recoveryPoint)
    live.recovery_point = { ...recoveryPoint, checkpoint: replacement(dropped, recoveryPoint.checkpoint) };
  return live;
}

/** recovery.json: kept (moved off dropped checkpoints) or, for a session interrupted in baton, made. */
async function planRecovery(
  c: Ctx,
  entry: Doc,
  manifest: Doc,
  live: Doc,
  dropped: Dropped,
  writes: WritePlan['writes'],
): Promise<void> {
  const { state, foreignId: id } = c.input;
  const rel = join(c.sdir, 'recovery.json');
  const orig = c.mine.get('recovery.json');
  const atOut = await existing(c.out, rel);
  if (state.status !== 'interrupted' && (orig === undefined || atOut !== null)) return;
  let rec = (atOut === 'corrupt' ? null : atOut) ?? asObj(orig);
  if (!rec && typeof orig === 'string' && state.status !== 'interrupted') {
    writes.push({ path: rel, content: orig, backup: false });
    return;
  }
  if (!rec) {
    const listed = arr(manifest.checkpoints)
      .map(obj)
      .filter((x) => x.valid !== false && x.invalidated_by === undefined);
    const cp = str(entry.current_checkpoint) ?? str(manifest.current_checkpoint) ?? str(listed[listed.length - 1]?.id);
    rec = newRecovery(state, id, c.nowIso, c.pos.currentStep, cp, str(obj(live.state).current_agent));
  }
  writes.push({ path: rel, content: json(repairRecovery(rec, dropped)), backup: false });
}

/** Plans the files that put `input.state` in Go Team's layout under `out`. */
export async function planExport(given: ExportInput, out: SafeDir): Promise<WritePlan> {
  const { input, problem: idProblem } = withSafeForeignId(given, 'Go Team');
  const { state, foreignId: id, now } = input;
  const docs = input.original ?? {};
  const cpDir = (await locate(out))?.cp ?? 'checkpoints';
  const sdir = join(cpDir, id);
  // The imported documents are found by the id they hold, which may be the unsafe one.
  const { mine, origRegistry, origEntry } = importedDocs(docs, given.foreignId);
  const pos = positionOf(state);
  checkMappable(state, pos, mine.size > 0);
  const c: Ctx = { input, out, sdir, mine, pos, nowIso: now.toISOString(), keep: input.unchangedSinceImport === true };
  const problems = [
    ...(idProblem ? [idProblem] : []),
    ...notRepresented(state, pos, id, join(sdir, 'state.json'), mine.size > 0),
  ];
  const status = goStatus(state.status, str(origEntry.status));
  const manifest = await manifestDoc(c);
  const verbatim: WritePlan['writes'] = [];
  const dropped = await planVerbatim(mine, out, sdir, id, manifest, verbatim, problems);
  manifest.current_checkpoint = replacement(dropped, manifest.current_checkpoint);
  const regRel = join(cpDir, 'sessions.json');
  const { reg, entry } = await mergeRegistry(input, out, regRel, origRegistry, origEntry, {
    status,
    resumable: state.status === 'active' || state.status === 'paused' || state.status === 'interrupted',
    currentStep: pos.currentStep,
    completedCount: pos.completedCount,
    phases: pos.phases,
    createdAt: str(asObj(mine.get('manifest.json'))?.created_at),
    checkpoint: (cp) => replacement(dropped, cp),
  });
  const live = await liveDoc(c, status, entry.current_checkpoint, dropped, docs);
  const writes: WritePlan['writes'] = [
    { path: join(sdir, 'state.json'), content: json(live), backup: false },
    { path: join(sdir, 'manifest.json'), content: json(manifest), backup: false },
  ];
  await planRecovery(c, entry, manifest, live, dropped, writes);
  writes.push(...verbatim, { path: regRel, content: json(reg), backup: false });
  return { writes, removes: [], problems };
}

/** Whether `a` and `b` hold the same fields and values, `except` aside (key order ignored). */
function sameFields(a: Record<string, unknown>, b: Record<string, unknown>, except: string): boolean {
  const norm = (v: unknown): unknown =>
    Array.isArray(v)
      ? v.map(norm)
      : v && typeof v === 'object'
        ? Object.fromEntries(
            Object.keys(v as object)
              .sort()
              .filter((k) => k !== except)
              .map((k) => [k, norm((v as Record<string, unknown>)[k])]),
          )
        : v;
  return JSON.stringify(norm(a)) === JSON.stringify(norm(b));
}
