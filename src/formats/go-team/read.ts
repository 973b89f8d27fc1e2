/**
 * Reads a Go Team checkpoints tree (registry `sessions.json`, one folder per session with
 * `manifest.json`, `state.json`, `recovery.json`, `cp-*.json`, `rollback-history.json`)
 * into {@link ForeignSession}s. Lenient: every damaged or inconsistent thing becomes a
 * {@link FormatProblem}; nothing is written.
 */
import type { SessionStatus } from '../../domain/state.js';
import type { ReadResult, SafeDir } from '../safe-dir.js';
import type { FormatProblem, ForeignError, ForeignFile, ForeignSession, ForeignTokens, ForeignUnit, InspectReport } from '../types.js';
import { arr, hashSources, humanDuration, num, obj, parseDocument, problem, str } from '../util.js';
import { verifyChecksum } from './checksum.js';
import { join, locate, type Layout } from './layout.js';
import { adviseResume, type UsableCheckpoint } from './resume.js';
import { HEARTBEAT_LIMIT_SECONDS, parseCheckpointId, STEPS, stepOf, subStepOfPhase, TOTAL_STEPS } from './steps.js';
import { findMetricsRecord, liveTokenRecord, readTokenRecord } from './tokens.js';

/** Statuses Go Team writes in the registry (`paused` is in its status table, not its schema enum). */
const RAW_STATUSES: Record<string, SessionStatus> = {
  active: 'active',
  paused: 'paused',
  interrupted: 'interrupted',
  completed: 'completed',
  failed: 'failed',
  abandoned: 'abandoned',
};

/** One checkpoint of a session, merged from its manifest entry and its file. */
interface Cp {
  id: string;
  file: string | null;
  step: number | null;
  subStep: string | null;
  iteration: boolean;
  createdAt: string | null;
  invalidatedBy: string | null;
  /** Why it cannot be used (corrupt, missing, marked invalid), null when it can (or is only invalidated). */
  problem: string | null;
  doc: Record<string, unknown> | null;
}

function time(v: unknown): number | null {
  const s = str(v);
  if (s === null) return null;
  const t = Date.parse(s);
  return Number.isNaN(t) ? null : t;
}

function unsafeLexical(p: string): boolean {
  return p.includes('\0') || p.startsWith('/') || /^[A-Za-z]:[\\/]/.test(p) || p.replace(/\\/g, '/').split('/').includes('..');
}

/** State shared while reading one tree. */
class Ctx {
  readonly problems: FormatProblem[] = [];
  constructor(
    readonly dir: SafeDir,
    readonly layout: Layout,
    readonly now: Date,
  ) {}
}

interface Loaded {
  read: ReadResult;
  doc: Record<string, unknown> | null;
}

/** Reads and parses one JSON file of a session; damage goes to `problems`. */
async function load(ctx: Ctx, rel: string, sessionId: string | null, problems: FormatProblem[], o: { missing?: FormatProblem | null; quiet?: boolean } = {}): Promise<Loaded> {
  const read = await ctx.dir.read(rel);
  if (read.kind === 'missing') {
    if (o.missing) problems.push(o.missing);
    return { read, doc: null };
  }
  if (read.kind !== 'ok') {
    problems.push({ ...read.problem, sessionId });
    return { read, doc: null };
  }
  const p = parseDocument(read, { sessionId });
  if (!p.ok) {
    if (!o.quiet) problems.push({ ...p.problem, hint: p.problem.hint ?? 'Go Team keeps no backup of this file: restore it from git, or let baton rewrite it with export.' });
    return { read, doc: null };
  }
  return { read, doc: p.value };
}

/** Reads every session of the tree under `dir`. */
export async function inspectTree(dir: SafeDir, now: Date): Promise<InspectReport> {
  const found = await locate(dir);
  const report: InspectReport = { format: 'go-team', root: dir.root, sessions: [], problems: [] };
  if (!found) {
    report.problems.push(problem('UNKNOWN_FORMAT', 'error', 'No Go Team checkpoints folder (sessions.json or <session>/manifest.json) was found.', {
      hint: 'Give the checkpoints/ folder, the go-team folder holding it, or a project root holding .claude/agents/microai/teams/go-team/checkpoints/.',
    }));
    return report;
  }
  const ctx = new Ctx(dir, found, now);
  const regPath = join(found.cp, 'sessions.json');
  const reg = await load(ctx, regPath, null, ctx.problems, {
    missing: problem('MISSING_FILE', 'warning', `The registry ${regPath} is missing; sessions were read from their folders.`, { path: regPath, hint: 'Export the sessions with baton to write a registry, or restore it from git.' }),
  });
  const registry = reg.doc;
  const entries = new Map<string, Record<string, unknown>>();
  const rawActive: string[] = [];
  if (registry) {
    if (!Array.isArray(registry.sessions)) {
      ctx.problems.push(problem(registry.sessions === undefined ? 'MISSING_FIELD' : 'BAD_VALUE', 'error', `${regPath} has no sessions[] list.`, { path: regPath, details: { field: 'sessions', assumed: [] } }));
    }
    if (registry.version === undefined) ctx.problems.push(problem('MISSING_FIELD', 'info', `${regPath} has no version; 1.0.0 assumed.`, { path: regPath, details: { field: 'version', assumed: '1.0.0' } }));
    arr(registry.sessions).forEach((e, i) => {
      const id = str(obj(e).id);
      if (id === null || id === '') {
        ctx.problems.push(problem('BAD_VALUE', 'warning', `Entry ${i} of ${regPath} has no id; it was skipped.`, { path: regPath, details: { index: i } }));
        return;
      }
      if (entries.has(id)) {
        ctx.problems.push(problem('BAD_VALUE', 'warning', `Session ${id} is listed twice in ${regPath}; the first entry is used.`, { path: regPath, sessionId: id }));
        return;
      }
      entries.set(id, obj(e));
      if (str(obj(e).status) === 'active') rawActive.push(id);
    });
  }
  const lastActive = registry ? str(registry.last_active_session) : null;

  // Session folders; links leading outside PATH are reported and not followed.
  const folders = new Map<string, 'ok' | 'unsafe'>();
  for (const e of await dir.list(found.cp)) {
    if (e.kind !== 'dir' && e.kind !== 'link') continue;
    if (e.kind === 'link') {
      const c = await dir.check(e.path);
      if (!c.ok) {
        ctx.problems.push({ ...c.problem, sessionId: e.name });
        folders.set(e.name, 'unsafe');
        continue;
      }
    }
    folders.set(e.name, 'ok');
  }
  const ids = [...entries.keys()];
  for (const [name, k] of folders) {
    if (entries.has(name) || k === 'unsafe') continue;
    const hasSessionFiles = (await dir.exists(join(found.cp, name, 'manifest.json'))) || (await dir.exists(join(found.cp, name, 'state.json'))) || (await dir.list(join(found.cp, name))).some((f) => /^cp-.*\.json$/.test(f.name));
    if (!hasSessionFiles) continue;
    if (registry) {
      ctx.problems.push(problem('ORPHAN_SESSION', 'warning', `The folder ${join(found.cp, name)} holds a session that ${regPath} does not list; Go Team will not offer it for resume.`, {
        sessionId: name,
        path: join(found.cp, name),
        hint: 'Import it with baton and export it to add it to the registry, or delete the folder.',
      }));
    }
    ids.push(name);
  }

  const metrics = found.team !== null ? await readMetrics(ctx, found.team) : null;
  for (const id of ids) {
    report.sessions.push(await readSession(ctx, id, entries.get(id) ?? null, regPath, reg, registry, folders.get(id) ?? null, lastActive, metrics));
  }

  if (rawActive.length > 1) {
    ctx.problems.push(problem('TWO_ACTIVE', 'error', `${rawActive.length} sessions are "active" in ${regPath}: ${rawActive.join(', ')}; Go Team runs one at a time.`, {
      path: regPath,
      details: { sessions: rawActive, lastActive },
      hint: `Keep ${lastActive && rawActive.includes(lastActive) ? lastActive : 'the one you work on'} active and mark the other(s) interrupted or paused (baton reports the stale ones as interrupted).`,
    }));
  }
  if (lastActive !== null && !entries.has(lastActive)) {
    const folder = folders.has(lastActive);
    ctx.problems.push(problem('DANGLING_ACTIVE', 'error', `last_active_session names ${lastActive}, which ${regPath} does not list${folder ? ' (its folder exists but is unregistered)' : ' and which has no folder'}.`, {
      path: regPath,
      details: { lastActive, folder },
      hint: 'Go Team\'s *resume would find nothing: set last_active_session to an existing session (or null), e.g. by exporting the session you continue with baton.',
    }));
  }
  report.problems.push(...ctx.problems);
  return report;
}

interface Metrics {
  path: string;
  doc: Record<string, unknown>;
}

async function readMetrics(ctx: Ctx, team: string): Promise<Metrics | null> {
  const path = join(team, 'metrics', 'session-metrics.json');
  const l = await load(ctx, path, null, ctx.problems);
  return l.doc ? { path, doc: l.doc } : null;
}

/**
 * The part of a shared file (registry, metrics) that belongs to one session, as a read for
 * {@link hashSources}: another session's heartbeat must not make this one look changed.
 */
function pseudoRead(path: string, part: unknown): ReadResult {
  const bytes = Buffer.from(JSON.stringify(part), 'utf8');
  return { kind: 'ok', path, text: bytes.toString('utf8'), bytes, bom: false, crlf: false, mtimeMs: 0 };
}

/** Reads one session (registry entry, folder or both). */
async function readSession(
  ctx: Ctx,
  id: string,
  entry: Record<string, unknown> | null,
  regPath: string,
  reg: Loaded,
  registry: Record<string, unknown> | null,
  folder: 'ok' | 'unsafe' | null,
  lastActive: string | null,
  metrics: Metrics | null,
): Promise<ForeignSession> {
  const problems: FormatProblem[] = [];
  const documents: Record<string, unknown> = {};
  const reads: ReadResult[] = [];
  const sources: string[] = [];
  if (registry && entry) {
    // Only this session's entry is kept: export merges it into the registry found at the destination.
    documents[regPath] = { ...registry, sessions: [entry] };
    sources.push(regPath);
    reads.push(pseudoRead(regPath, { entry, last_active_session: registry.last_active_session ?? null }));
  }
  const sdir = join(ctx.layout.cp, id);
  const check = await ctx.dir.check(sdir);
  let safe = check.ok && folder !== 'unsafe';
  if (!check.ok) problems.push({ ...check.problem, sessionId: id });
  else if (folder === 'unsafe') problems.push(problem('UNSAFE_PATH', 'error', `The folder of session ${id} is a link leading outside the inspected folder; its files were not read.`, { sessionId: id, path: sdir }));
  if (safe && folder === null) {
    problems.push(problem('MISSING_FILE', 'error', `The folder ${sdir} of session ${id} is missing; only the registry entry was read.`, { sessionId: id, path: sdir, hint: 'Restore the folder from git, or remove the entry from the registry.' }));
    safe = false;
  }

  const take = (l: Loaded) => {
    if (l.read.kind === 'missing' || l.read.kind === 'unsafe') return;
    sources.push(l.read.path);
    reads.push(l.read);
    if (l.doc) documents[l.read.path] = l.doc;
    else if (l.read.kind === 'ok') documents[l.read.path] = l.read.text; // unparseable: kept verbatim
  };
  const none: Loaded = { read: { kind: 'missing', path: '' }, doc: null };
  const manifestL = safe
    ? await load(ctx, join(sdir, 'manifest.json'), id, problems, { missing: problem('MISSING_FILE', 'warning', `Session ${id} has no manifest.json; its checkpoints were read from the cp-*.json files alone.`, { sessionId: id, path: join(sdir, 'manifest.json') }) })
    : none;
  const stateL = safe
    ? await load(ctx, join(sdir, 'state.json'), id, problems, { missing: problem('MISSING_FILE', 'info', `Session ${id} has no state.json (live auto-save); the live recovery option is unavailable.`, { sessionId: id, path: join(sdir, 'state.json') }) })
    : none;
  const recoveryL = safe ? await load(ctx, join(sdir, 'recovery.json'), id, problems) : none;
  const rollbackL = safe ? await load(ctx, join(sdir, 'rollback-history.json'), id, problems) : none;
  for (const l of [manifestL, stateL, recoveryL, rollbackL]) take(l);
  const manifest = manifestL.doc;
  const live = stateL.doc;
  const liveState = obj(live?.state);
  const recovery = recoveryL.doc;

  // ---- status ----
  const e = entry ?? {};
  const sessionInfo = obj(liveState.session);
  let rawStatus = str(e.status);
  const liveStatus = str(sessionInfo.status);
  if (liveStatus !== null && rawStatus !== null && liveStatus !== rawStatus) {
    problems.push(problem('REGISTRY_MISMATCH', 'warning', `Session ${id}: the registry says status "${rawStatus}", state.json says "${liveStatus}"; state.json wins.`, { sessionId: id, path: join(sdir, 'state.json'), details: { field: 'status', registry: rawStatus, session: liveStatus } }));
    rawStatus = liveStatus;
  } else if (rawStatus === null) rawStatus = liveStatus;
  const resumable = typeof e.resumable === 'boolean' ? e.resumable : null;

  // ---- checkpoints ----
  const cps = safe ? await readCheckpoints(ctx, id, sdir, manifest, problems, take) : [];
  const rollbacks = collectRollbacks(manifest, rollbackL.doc);
  applyRollbacks(id, cps, rollbacks, problems, sdir);
  const usableCps = cps.filter((c) => c.problem === null && c.invalidatedBy === null && c.step !== null);
  for (const c of cps) {
    if (c.problem === null) continue;
    const fallback = [...usableCps].reverse().find((u) => (u.step as number) < (c.step ?? TOTAL_STEPS + 1) || (u.step === c.step && u !== c && (u.createdAt ?? '') < (c.createdAt ?? '~'))) ?? null;
    problems.push(problem('CORRUPT_CHECKPOINT', 'error', `Checkpoint ${c.id} of session ${id} ${c.problem}; it cannot be restored.`, {
      sessionId: id,
      path: c.file ?? join(sdir, 'manifest.json'),
      details: { checkpoint: c.id, step: c.step, reason: c.problem, fallback: fallback?.id ?? null },
      hint: fallback ? `Fall back to the last valid checkpoint, ${fallback.id} (step ${fallback.step}).` : 'No earlier valid checkpoint: rebuild it from git (*cp-rebuild) or start fresh.',
    }));
  }

  // ---- current step ----
  const stepSources: Array<[string, number | null, string]> = [
    ['state.json', stepOf(liveState.current_step), join(sdir, 'state.json')],
    ['manifest.json', stepOf(manifest?.current_step), join(sdir, 'manifest.json')],
    ['sessions.json', stepOf(e.current_step), regPath],
  ];
  const winner = stepSources.find((s) => s[1] !== null) ?? null;
  const currentStep = winner ? winner[1] : null;
  for (const [name, v, path] of stepSources) {
    if (v !== null && winner && v !== currentStep) {
      problems.push(problem('REGISTRY_MISMATCH', 'warning', `Session ${id}: ${name} says current_step ${v}, ${winner[0]} says ${currentStep}; ${winner[0]} wins.`, { sessionId: id, path, details: { field: 'current_step', [name]: v, [winner[0]]: currentStep } }));
    }
  }
  for (const [field, a, b] of [['current_checkpoint', str(e.current_checkpoint), str(manifest?.current_checkpoint)]] as const) {
    if (a !== null && b !== null && a !== b) {
      problems.push(problem('REGISTRY_MISMATCH', 'warning', `Session ${id}: the registry says ${field} ${a}, manifest.json says ${b}; the manifest wins.`, { sessionId: id, path: regPath, details: { field, registry: a, session: b } }));
    }
  }

  // ---- status after the heartbeat rule ----
  let status: SessionStatus;
  let running = false;
  if (rawStatus === null) {
    const done = usableCps.some((c) => c.step === TOTAL_STEPS && !c.iteration);
    status = done ? 'completed' : 'interrupted';
    if (entry) problems.push(problem('MISSING_FIELD', 'warning', `Session ${id} has no status; ${status} assumed.`, { sessionId: id, path: regPath, details: { field: 'status', assumed: status } }));
  } else if (!(rawStatus in RAW_STATUSES)) {
    status = 'interrupted';
    problems.push(problem('BAD_VALUE', 'warning', `Session ${id} has the unknown status "${rawStatus}"; it is treated as interrupted.`, { sessionId: id, path: regPath, details: { field: 'status', value: rawStatus } }));
  } else {
    status = RAW_STATUSES[rawStatus] as SessionStatus;
  }
  if ((status === 'interrupted' || status === 'paused') && resumable === false) status = 'abandoned';
  const beats = [time(e.updated_at), time(live?.saved_at), time(obj(sessionInfo.auto_save).last_save)].filter((t): t is number => t !== null);
  const lastBeat = beats.length > 0 ? Math.max(...beats) : null;
  if (status === 'active') {
    const age = lastBeat === null ? null : Math.round((ctx.now.getTime() - lastBeat) / 1000);
    if (age === null || age > HEARTBEAT_LIMIT_SECONDS) {
      status = 'interrupted';
      problems.push(problem('STALE_ACTIVE', 'warning', `Session ${id} says active but ${age === null ? 'has no updated_at/saved_at' : `was last saved ${humanDuration(age)} ago`}, beyond Go Team's ${humanDuration(HEARTBEAT_LIMIT_SECONDS)} heartbeat limit; it is reported interrupted.`, {
        sessionId: id,
        path: regPath,
        details: { lastHeartbeat: lastBeat === null ? null : new Date(lastBeat).toISOString(), ageSeconds: age, limitSeconds: HEARTBEAT_LIMIT_SECONDS },
        hint: 'Resume it (checkpoint or live auto-save); Go Team itself marks it interrupted on its next start.',
      }));
    } else running = true;
  }
  if (status === 'interrupted' && !recovery && recoveryL.read.kind === 'missing' && safe) {
    problems.push(problem('MISSING_FILE', 'info', `Session ${id} is interrupted but has no recovery.json; the recovery options were derived from its checkpoints and state.json.`, { sessionId: id, path: join(sdir, 'recovery.json') }));
  }

  // ---- units ----
  const stepsCompleted = typeof obj(e.progress).steps_completed === 'number' ? num(obj(e.progress).steps_completed) : null;
  const units = buildUnits(id, cps, usableCps, currentStep, stepsCompleted, status, liveState, problems, sdir);
  const inFlight = units.find((u) => u.status !== 'completed' && u.status !== 'skipped') ?? null;
  const interruptError = recoveryError(recovery, status, currentStep);
  if (interruptError) {
    // The step the error happened in holds it; a step baton does not know keeps it on the session.
    const u = units.find((x) => x.id === interruptError.unitId);
    if (u) u.errors.push(interruptError);
    else interruptError.unitId = null;
  }

  // ---- tokens ----
  let tokens: ForeignTokens | null = null;
  const liveTok = liveTokenRecord(liveState);
  if (liveTok) tokens = readTokenRecord(liveTok.rec);
  if (!tokens && metrics) {
    const rec = findMetricsRecord(metrics.doc, id);
    if (rec) {
      tokens = readTokenRecord(rec);
      documents[metrics.path] = { session: rec };
      sources.push(metrics.path);
      reads.push(pseudoRead(metrics.path, rec));
    }
  }
  if (tokens && tokens.agrees === false) {
    problems.push(problem('TOKENS_DISAGREE', 'warning', `Session ${id}: the token totals differ from the sum of the per-agent breakdown.`, { sessionId: id, path: liveTok ? join(sdir, 'state.json') : (metrics?.path ?? null), hint: 'The totals are kept; the difference is recorded under the agent "(unattributed)" on import.' }));
  }

  const title = str(e.topic) ?? str(manifest?.topic) ?? str(liveState.topic) ?? id;
  const updatedTimes = [time(e.updated_at), time(live?.saved_at), time(manifest?.updated_at)].filter((t): t is number => t !== null);
  const resume = adviseResume({
    status,
    rawStatus,
    resumable,
    running,
    units,
    currentStep,
    usable: usableCps.map((c): UsableCheckpoint => ({ id: c.id, step: c.step as number, subStep: c.subStep, iteration: c.iteration, createdAt: c.createdAt })),
    unusable: new Map(cps.filter((c) => c.problem !== null || c.invalidatedBy !== null).map((c) => [c.id, c.problem ?? `was invalidated by rollback ${c.invalidatedBy}`])),
    live,
    recovery,
  });
  if (interruptError && !interruptError.resolved) {
    resume.warnings.push(`${interruptError.message.replace(/\.$/, '')} (recovery.json): find out what failed before resuming, or the step will fail again.`);
  }
  const outputs = obj(live?.outputs);
  const findings = arr(outputs.review_comments).map((rc) => {
    const o = obj(rc);
    const text = typeof rc === 'string' ? rc : (str(o.comment) ?? str(o.text) ?? str(o.message) ?? JSON.stringify(rc));
    return { text, severity: str(o.severity), unitId: '6', time: str(o.timestamp) ?? str(o.time) };
  });
  const mainPath = stateL.read.kind === 'ok' ? stateL.read.path : manifestL.read.kind === 'ok' ? manifestL.read.path : regPath;
  return {
    format: 'go-team',
    id,
    title,
    rawStatus,
    status,
    active: id === lastActive && status !== 'completed' && status !== 'failed' && status !== 'abandoned',
    archived: false,
    path: mainPath,
    sources,
    createdAt: str(e.created_at) ?? str(manifest?.created_at) ?? null,
    updatedAt: updatedTimes.length > 0 ? new Date(Math.max(...updatedTimes)).toISOString() : null,
    units,
    position: { unitId: inFlight?.id ?? null, subStep: inFlight?.subStep ?? null },
    resume,
    unresolvedErrors: interruptError && !interruptError.resolved ? [interruptError] : [],
    tokens,
    decisions: [],
    findings,
    notes: rollbacks.map((r) => ({
      text: `Rolled back from ${r.fromCheckpoint ?? `step ${r.fromStep ?? '?'}`} to ${r.toCheckpoint ?? `step ${r.toStep ?? '?'}`}${r.reason ? `: ${r.reason}` : ''}${r.id ? ` (${r.id})` : ''}`,
      time: r.timestamp,
      agent: null,
    })),
    milestones: [],
    artifacts: [],
    contextSummary: str(obj(live?.context).last_action),
    checkpoints: cps.map((c) => ({
      id: c.id,
      unitId: c.step === null ? null : String(c.step),
      createdAt: c.createdAt,
      valid: c.problem === null && c.invalidatedBy === null,
      problem: c.problem ?? (c.invalidatedBy ? `invalidated by rollback ${c.invalidatedBy}` : null),
    })),
    problems,
    documents,
    sourceHash: hashSources(reads),
  };
}

/** Merges manifest entries and cp-*.json files into checkpoints, validating each file. */
async function readCheckpoints(ctx: Ctx, id: string, sdir: string, manifest: Record<string, unknown> | null, problems: FormatProblem[], take: (l: Loaded) => void): Promise<Cp[]> {
  const files = (await ctx.dir.list(sdir)).filter((f) => /^cp-.*\.json$/.test(f.name) && (f.kind === 'file' || f.kind === 'link'));
  const fileIds = files.map((f) => f.name.slice(0, -'.json'.length));
  const used = new Set<string>();
  const out: Cp[] = [];
  const entries = manifest ? arr(manifest.checkpoints).map(obj) : [];
  const fromEntry = new Map<string, Record<string, unknown>>();
  for (const en of entries) {
    const cid = str(en.id);
    if (cid === null) continue;
    let fid = fileIds.find((f) => f === cid) ?? null;
    if (fid === null) fid = fileIds.find((f) => !used.has(f) && (f.startsWith(`${cid}-`) || cid.startsWith(`${f}-`))) ?? null;
    if (fid !== null) used.add(fid);
    fromEntry.set(cid, en);
    out.push(await readCp(ctx, id, sdir, cid, fid, en, problems, take));
  }
  for (const f of fileIds) if (!used.has(f)) out.push(await readCp(ctx, id, sdir, f, f, null, problems, take));
  return out.sort((a, b) => (a.step ?? 99) - (b.step ?? 99) || (a.createdAt ?? '').localeCompare(b.createdAt ?? '') || a.id.localeCompare(b.id));
}

async function readCp(ctx: Ctx, id: string, sdir: string, cid: string, fid: string | null, en: Record<string, unknown> | null, problems: FormatProblem[], take: (l: Loaded) => void): Promise<Cp> {
  const info = parseCheckpointId(cid) ?? (fid ? parseCheckpointId(fid) : null);
  const cp: Cp = {
    id: cid,
    file: null,
    step: stepOf(en?.step) ?? info?.step ?? null,
    subStep: info?.subStep ?? null,
    iteration: info?.iteration ?? false,
    createdAt: str(en?.timestamp) ?? null,
    invalidatedBy: str(en?.invalidated_by),
    problem: null,
    doc: null,
  };
  if (fid === null) {
    // A checkpoint invalidated by a rollback may have been removed: nothing is lost then.
    if (cp.invalidatedBy === null) cp.problem = 'is listed in manifest.json but its file is missing';
    return cp;
  }
  const rel = join(sdir, `${fid}.json`);
  cp.file = rel;
  const check = await ctx.dir.check(rel);
  if (!check.ok) {
    problems.push({ ...check.problem, sessionId: id });
    cp.problem = 'is a link leading outside the inspected folder (not followed)';
    return cp;
  }
  const l = await load(ctx, rel, id, problems, { quiet: true });
  take(l);
  if (!l.doc) {
    cp.problem = l.read.kind === 'ok' && l.read.text.trim() === '' ? 'is empty' : 'does not parse as a JSON object';
    return cp;
  }
  const d = l.doc;
  cp.doc = d;
  cp.createdAt ??= str(d.created_at);
  const fileStep = stepOf(d.step_number);
  if (cp.step === null) cp.step = fileStep;
  const shape: string[] = [];
  if (d.step_number === undefined) shape.push('no step_number');
  else if (fileStep === null) shape.push(`step_number ${JSON.stringify(d.step_number)} is not 1–9`);
  else if (info && fileStep !== info.step) shape.push(`step_number ${fileStep} does not match its id (step ${info.step})`);
  if (d.session_id !== undefined && str(d.session_id) !== id) shape.push(`session_id ${JSON.stringify(d.session_id)} is not ${id}`);
  if (d.state !== undefined && (d.state === null || typeof d.state !== 'object' || Array.isArray(d.state))) shape.push('state is not an object');
  if (d.state === undefined) shape.push('no state');
  const sum = verifyChecksum(d);
  if (sum === 'missing') {
    problems.push(problem('MISSING_FIELD', 'info', `Checkpoint ${cid} of session ${id} has no checksum; it could not be verified.`, { sessionId: id, path: rel, details: { field: 'checksum', assumed: 'unverified' } }));
  }
  if (cp.invalidatedBy === null) cp.invalidatedBy = str(d.invalidated_by);
  if (sum === 'mismatch') cp.problem = 'has a checksum that does not match its content';
  else if (shape.length > 0) cp.problem = `has a wrong shape (${shape.join('; ')})`;
  else if ((d.valid === false || en?.valid === false) && cp.invalidatedBy === null) cp.problem = 'is marked invalid (valid: false)';
  return cp;
}

interface Rollback {
  id: string | null;
  timestamp: string | null;
  fromCheckpoint: string | null;
  fromStep: number | null;
  toCheckpoint: string | null;
  toStep: number | null;
  reason: string | null;
}

function collectRollbacks(manifest: Record<string, unknown> | null, history: Record<string, unknown> | null): Rollback[] {
  const out: Rollback[] = [];
  const seen = new Set<string>();
  for (const r of [...arr(manifest?.rollback_history), ...arr(history?.history)].map(obj)) {
    const rb: Rollback = {
      id: str(r.id),
      timestamp: str(r.timestamp),
      fromCheckpoint: str(r.from_checkpoint),
      fromStep: stepOf(r.from_step),
      toCheckpoint: str(r.to_checkpoint),
      toStep: stepOf(r.to_step) ?? (str(r.to_checkpoint) ? (parseCheckpointId(str(r.to_checkpoint) as string)?.step ?? null) : null),
      reason: str(r.reason),
    };
    const key = rb.id ?? `${rb.timestamp}|${rb.fromCheckpoint}|${rb.toCheckpoint}`;
    if (seen.has(key)) continue;
    seen.add(key);
    out.push(rb);
  }
  return out.sort((a, b) => (a.timestamp ?? '').localeCompare(b.timestamp ?? ''));
}

/** A rollback to step N invalidates the checkpoints after N taken before it (no roll-forward). */
function applyRollbacks(id: string, cps: Cp[], rollbacks: Rollback[], problems: FormatProblem[], sdir: string): void {
  for (const rb of rollbacks) {
    if (rb.toStep === null) continue;
    const at = time(rb.timestamp);
    for (const c of cps) {
      if (c.invalidatedBy !== null || c.step === null || c.step <= rb.toStep) continue;
      const ct = time(c.createdAt);
      if (at !== null && ct !== null && ct > at) continue; // taken after the rollback: a new line of work
      c.invalidatedBy = rb.id ?? `rollback at ${rb.timestamp ?? '?'}`;
      problems.push(problem('BAD_VALUE', 'warning', `Checkpoint ${c.id} of session ${id} is still marked valid though rollback ${c.invalidatedBy} to step ${rb.toStep} invalidated it; it is treated as invalidated.`, {
        sessionId: id,
        path: join(sdir, 'manifest.json'),
        details: { checkpoint: c.id, rollback: c.invalidatedBy },
      }));
    }
  }
}

function filesOf(id: string, cp: Cp, problems: FormatProblem[]): ForeignFile[] {
  const f = obj(cp.doc?.files);
  const out: ForeignFile[] = [];
  for (const action of ['created', 'modified', 'deleted'] as const) {
    for (const p of arr(f[action])) {
      const path = str(p);
      if (path === null) continue;
      if (unsafeLexical(path)) {
        problems.push(problem('UNSAFE_PATH', 'warning', `Checkpoint ${cp.id} of session ${id} lists the file ${JSON.stringify(path)}, which leaves the project; it was not recorded.`, { sessionId: id, path: cp.file, details: { file: path } }));
        continue;
      }
      out.push({ path, action });
    }
  }
  return out;
}

/**
 * The one error Go Team records: on an error inside a step it saves the error state and
 * recovery metadata (`recovery.json`, `interrupt_reason: "error"`) and does not mark the
 * session failed. Other reasons (timeout, crash, disconnect) are interruptions, not errors.
 * Resolved once the session is completed (the step was redone since).
 */
function recoveryError(recovery: Record<string, unknown> | null, status: SessionStatus, currentStep: number | null): ForeignError | null {
  if (!recovery || str(recovery.interrupt_reason) !== 'error') return null;
  const last = obj(recovery.last_known_state);
  const step = str(last.step) ?? (currentStep !== null ? String(currentStep) : null);
  const action = str(last.action);
  const stepName = str(last.step_name);
  const where = step === null ? 'a step' : `step ${step}${stepName ? ` (${stepName})` : ''}`;
  return {
    unitId: step,
    agent: str(last.agent),
    time: str(recovery.interrupted_at),
    type: 'error',
    message: `Interrupted by an error during ${where}${action ? `: ${action}` : ''}.`,
    resolved: status === 'completed',
    resolution: null,
  };
}

/** The nine steps with statuses derived from the checkpoints, the current step and the session status. */
function buildUnits(id: string, cps: Cp[], usable: Cp[], currentStep: number | null, stepsCompleted: number | null, status: SessionStatus, liveState: Record<string, unknown>, problems: FormatProblem[], sdir: string): ForeignUnit[] {
  const units: ForeignUnit[] = STEPS.map((def) => {
    const mine = usable.filter((c) => c.step === def.n);
    const completing = mine.filter((c) => !c.iteration);
    const last = mine[mine.length - 1] ?? null;
    // A current step whose own checkpoint is corrupt must be redone from the previous one.
    const damaged = cps.some((c) => c.step === def.n && c.problem !== null && !c.iteration);
    // Before the current step: done. The current step itself: done when its checkpoint exists or
    // the registry counts it (current_step 4 with steps_completed 4: the toolkit has not moved on yet).
    const done =
      status === 'completed' ||
      completing.length > 0 ||
      (currentStep !== null && (def.n < currentStep || (def.n === currentStep && stepsCompleted !== null && stepsCompleted >= currentStep && !damaged)));
    const files = new Map<string, ForeignFile>();
    for (const c of mine) for (const f of filesOf(id, c, problems)) files.set(f.path, f);
    return {
      id: String(def.n),
      name: def.name,
      status: done ? 'completed' : 'pending',
      rawStatus: null,
      subStep: last?.subStep ?? null,
      retries: null,
      agents: [...def.agents],
      blockedBy: def.n > 1 ? [String(def.n - 1)] : [],
      startedAt: null,
      completedAt: done ? ((completing[completing.length - 1] ?? null)?.createdAt ?? null) : null,
      files: [...files.values()],
      errors: [],
      metadata: { step_name: def.name, checkpoints: cps.filter((c) => c.step === def.n).map((c) => c.id) },
    } satisfies ForeignUnit;
  });
  if (currentStep !== null && status !== 'completed') {
    for (const u of units) {
      const n = Number(u.id);
      if (n > currentStep && u.status === 'completed') {
        problems.push(problem('REGISTRY_MISMATCH', 'warning', `Session ${id}: step ${n} has a valid checkpoint but the session is at step ${currentStep} and no rollback invalidated it; the step is reported completed.`, { sessionId: id, path: join(sdir, 'manifest.json'), details: { field: 'current_step', step: n, currentStep } }));
      }
    }
  }
  // Go Team checkpoints after every step: a step before the current one without any checkpoint,
  // while a later step has one, was skipped or lost its checkpoint. It is still counted done.
  const withCp = new Set(cps.map((c) => c.step));
  const lastCp = Math.max(0, ...cps.map((c) => c.step ?? 0));
  for (const u of units) {
    const n = Number(u.id);
    if (currentStep !== null && n < currentStep && n < lastCp && !withCp.has(n)) {
      problems.push(problem('PREREQUISITE', 'warning', `Session ${id}: step ${n} (${u.name}) has no checkpoint though later steps have one; it is assumed done, but it cannot be rolled back to.`, {
        sessionId: id,
        path: join(sdir, 'manifest.json'),
        details: { step: n, currentStep },
        hint: 'Check that the step really ran (its outputs exist); rebuild its checkpoint from git with *cp-rebuild if needed.',
      }));
    }
  }
  const first = units.find((u) => u.status !== 'completed');
  if (first && status !== 'completed') {
    const n = Number(first.id);
    const hasIteration = usable.some((c) => c.step === n && c.iteration);
    if (status === 'failed') first.status = 'failed';
    else if (n === currentStep || hasIteration) first.status = 'in_progress';
    if (n === currentStep) {
      const iter = typeof liveState.iteration_count === 'number' ? num(liveState.iteration_count) : null;
      first.subStep = subStepOfPhase(n, str(liveState.phase), iter) ?? first.subStep;
      const agent = str(liveState.current_agent);
      if (agent && !first.agents.includes(agent)) first.agents.push(agent);
    }
  }
  return units;
}
