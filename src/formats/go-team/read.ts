/**
 * Reads a Go Team checkpoints tree (registry `sessions.json`, one folder per session with
 * `manifest.json`, `state.json`, `recovery.json`, `cp-*.json`, `rollback-history.json`)
 * into {@link ForeignSession}s. Lenient: every damaged or inconsistent thing becomes a
 * {@link FormatProblem}; nothing is written.
 */
import type { SessionStatus } from '../../domain/state.js';
import type { ReadResult, SafeDir } from '../safe-dir.js';
import type { FormatProblem, ForeignSession, ForeignTokens, InspectReport } from '../types.js';
import { arr, hashSources, humanDuration, num, obj, problem, str } from '../util.js';
import {
  applyRollbacks,
  checkpointRecords,
  collectRollbacks,
  type Cp,
  readCheckpoints,
  rebuildableCheckpoints,
  reportInvalidated,
  usableCheckpoints,
} from './checkpoints.js';
import { goTeamRules } from './rules.js';
import { join, locate } from './layout.js';
import { Ctx, load, type Loaded, time } from './load.js';
import { adviseResume, type UsableCheckpoint } from './resume.js';
import { HEARTBEAT_LIMIT_SECONDS, stepOf, TOTAL_STEPS } from './steps.js';
import { findMetricsRecord, liveTokenRecord, readTokenRecord } from './tokens.js';
import { buildUnits, recoveryError } from './units.js';

/** Statuses Go Team writes in the registry (`paused` is in its status table, not its schema enum). */
const RAW_STATUSES: Record<string, SessionStatus> = {
  active: 'active',
  paused: 'paused',
  interrupted: 'interrupted',
  completed: 'completed',
  failed: 'failed',
  abandoned: 'abandoned',
};

/** Reads every session of the tree under `dir`. */
export async function inspectTree(dir: SafeDir, now: Date): Promise<InspectReport> {
  const found = await locate(dir);
  const report: InspectReport = { format: 'go-team', root: dir.root, sessions: [], problems: [] };
  if (!found) {
    report.problems.push(
      problem(
        'UNKNOWN_FORMAT',
        'error',
        'No Go Team checkpoints folder (sessions.json or <session>/manifest.json) was found.',
        {
          hint: 'Give the checkpoints/ folder, the go-team folder holding it, or a project root holding .claude/agents/microai/teams/go-team/checkpoints/.',
        },
      ),
    );
    return report;
  }
  const ctx = new Ctx(dir, found, now);
  const regPath = join(found.cp, 'sessions.json');
  const reg = await load(ctx, regPath, null, ctx.problems, {
    missing: problem(
      'MISSING_FILE',
      'warning',
      `The registry ${regPath} is missing; sessions were read from their folders.`,
      { path: regPath, hint: 'Export the sessions with baton to write a registry, or restore it from git.' },
    ),
  });
  const registry = reg.doc;
  const entries = new Map<string, Record<string, unknown>>();
  const rawActive: string[] = [];
  if (registry) {
    if (!Array.isArray(registry.sessions)) {
      ctx.problems.push(
        problem(
          registry.sessions === undefined ? 'MISSING_FIELD' : 'BAD_VALUE',
          'error',
          `${regPath} has no sessions[] list.`,
          { path: regPath, details: { field: 'sessions', assumed: [] } },
        ),
      );
    }
    if (registry.version === undefined)
      ctx.problems.push(
        problem('MISSING_FIELD', 'info', `${regPath} has no version; 1.0.0 assumed.`, {
          path: regPath,
          details: { field: 'version', assumed: '1.0.0' },
        }),
      );
    arr(registry.sessions).forEach((e, i) => {
      const id = str(obj(e).id);
      if (id === null || id === '') {
        ctx.problems.push(
          problem('BAD_VALUE', 'warning', `Entry ${i} of ${regPath} has no id; it was skipped.`, {
            path: regPath,
            details: { index: i },
          }),
        );
        return;
      }
      if (entries.has(id)) {
        ctx.problems.push(
          problem('BAD_VALUE', 'warning', `Session ${id} is listed twice in ${regPath}; the first entry is used.`, {
            path: regPath,
            sessionId: id,
          }),
        );
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
    const hasSessionFiles =
      (await dir.exists(join(found.cp, name, 'manifest.json'))) ||
      (await dir.exists(join(found.cp, name, 'state.json'))) ||
      (await dir.list(join(found.cp, name))).some((f) => /^cp-.*\.json$/.test(f.name));
    if (!hasSessionFiles) continue;
    if (registry) {
      ctx.problems.push(
        problem(
          'ORPHAN_SESSION',
          'warning',
          `The folder ${join(found.cp, name)} holds a session that ${regPath} does not list; Go Team will not offer it for resume.`,
          {
            sessionId: name,
            path: join(found.cp, name),
            hint: 'Import it with baton and export it to add it to the registry, or delete the folder.',
          },
        ),
      );
    }
    ids.push(name);
  }

  const metrics = found.team !== null ? await readMetrics(ctx, found.team) : null;
  for (const id of ids) {
    report.sessions.push(
      await readSession(
        ctx,
        id,
        entries.get(id) ?? null,
        regPath,
        reg,
        registry,
        folders.get(id) ?? null,
        lastActive,
        metrics,
      ),
    );
  }

  if (rawActive.length > 1) {
    ctx.problems.push(
      problem(
        'TWO_ACTIVE',
        'error',
        `${rawActive.length} sessions are "active" in ${regPath}: ${rawActive.join(', ')}; Go Team runs one at a time.`,
        {
          path: regPath,
          details: { sessions: rawActive, lastActive },
          hint: `Keep ${lastActive && rawActive.includes(lastActive) ? lastActive : 'the one you work on'} active and mark the other(s) interrupted or paused (baton reports the stale ones as interrupted).`,
        },
      ),
    );
  }
  if (lastActive !== null && !entries.has(lastActive)) {
    const folder = folders.has(lastActive);
    ctx.problems.push(
      problem(
        'DANGLING_ACTIVE',
        'error',
        `last_active_session names ${lastActive}, which ${regPath} does not list${folder ? ' (its folder exists but is unregistered)' : ' and which has no folder'}.`,
        {
          path: regPath,
          details: { lastActive, folder },
          hint: "Go Team's *resume would find nothing: set last_active_session to an existing session (or null), e.g. by exporting the session you continue with baton.",
        },
      ),
    );
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

/** The files of one session as read: the documents export gets back and the reads the hash covers. */
interface SessionFiles {
  problems: FormatProblem[];
  documents: Record<string, unknown>;
  reads: ReadResult[];
  sources: string[];
  sdir: string;
  /** False when the folder is missing or leads outside PATH: only the registry entry was read. */
  safe: boolean;
  /** Records a loaded file as a source of the session. */
  take: (l: Loaded) => void;
  manifestL: Loaded;
  stateL: Loaded;
  recoveryL: Loaded;
  rollbackL: Loaded;
}

/** Reads the registry entry and the folder's JSON files of one session (not its checkpoints). */
async function openSession(
  ctx: Ctx,
  id: string,
  entry: Record<string, unknown> | null,
  regPath: string,
  registry: Record<string, unknown> | null,
  folder: 'ok' | 'unsafe' | null,
): Promise<SessionFiles> {
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
  else if (folder === 'unsafe')
    problems.push(
      problem(
        'UNSAFE_PATH',
        'error',
        `The folder of session ${id} is a link leading outside the inspected folder; its files were not read.`,
        { sessionId: id, path: sdir },
      ),
    );
  if (safe && folder === null) {
    // An abandoned session (*abandon: no resume) has nothing to restore from its folder: its
    // absence is a warning, not damage listed first (issue 27).
    const abandoned = entry !== null && (str(entry.status) === 'abandoned' || entry.resumable === false);
    problems.push(
      abandoned
        ? problem(
            'MISSING_FILE',
            'warning',
            `The folder ${sdir} of session ${id} is missing; the session is abandoned (not resumable), so nothing is lost for resuming. Only the registry entry was read.`,
            {
              sessionId: id,
              path: sdir,
              hint: 'Remove the entry from the registry, or restore the folder from git to keep its history.',
              details: { abandoned: true },
            },
          )
        : problem(
            'MISSING_FILE',
            'error',
            `The folder ${sdir} of session ${id} is missing; only the registry entry was read.`,
            { sessionId: id, path: sdir, hint: 'Restore the folder from git, or remove the entry from the registry.' },
          ),
    );
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
    ? await load(ctx, join(sdir, 'manifest.json'), id, problems, {
        missing: problem(
          'MISSING_FILE',
          'warning',
          `Session ${id} has no manifest.json; its checkpoints were read from the cp-*.json files alone.`,
          { sessionId: id, path: join(sdir, 'manifest.json') },
        ),
      })
    : none;
  const stateL = safe
    ? await load(ctx, join(sdir, 'state.json'), id, problems, {
        missing: problem(
          'MISSING_FILE',
          'info',
          `Session ${id} has no state.json (live auto-save); the live recovery option is unavailable.`,
          { sessionId: id, path: join(sdir, 'state.json') },
        ),
      })
    : none;
  const recoveryL = safe ? await load(ctx, join(sdir, 'recovery.json'), id, problems) : none;
  const rollbackL = safe ? await load(ctx, join(sdir, 'rollback-history.json'), id, problems) : none;
  for (const l of [manifestL, stateL, recoveryL, rollbackL]) take(l);
  return { problems, documents, reads, sources, sdir, safe, take, manifestL, stateL, recoveryL, rollbackL };
}

/** The raw status: the registry's, unless state.json says otherwise (state.json wins). */
function rawStatusOf(
  id: string,
  sdir: string,
  e: Record<string, unknown>,
  sessionInfo: Record<string, unknown>,
  problems: FormatProblem[],
): string | null {
  let rawStatus = str(e.status);
  const liveStatus = str(sessionInfo.status);
  if (liveStatus !== null && rawStatus !== null && liveStatus !== rawStatus) {
    problems.push(
      problem(
        'REGISTRY_MISMATCH',
        'warning',
        `Session ${id}: the registry says status "${rawStatus}", state.json says "${liveStatus}"; state.json wins.`,
        {
          sessionId: id,
          path: join(sdir, 'state.json'),
          details: { field: 'status', registry: rawStatus, session: liveStatus },
        },
      ),
    );
    rawStatus = liveStatus;
  } else if (rawStatus === null) rawStatus = liveStatus;
  return rawStatus;
}

/** The current step: state.json, then manifest.json, then the registry; disagreements are reported. */
function currentStepOf(
  id: string,
  sdir: string,
  regPath: string,
  e: Record<string, unknown>,
  manifest: Record<string, unknown> | null,
  liveState: Record<string, unknown>,
  problems: FormatProblem[],
): number | null {
  const stepSources: Array<[string, number | null, string]> = [
    ['state.json', stepOf(liveState.current_step), join(sdir, 'state.json')],
    ['manifest.json', stepOf(manifest?.current_step), join(sdir, 'manifest.json')],
    ['sessions.json', stepOf(e.current_step), regPath],
  ];
  const winner = stepSources.find((s) => s[1] !== null) ?? null;
  const currentStep = winner ? winner[1] : null;
  for (const [name, v, path] of stepSources) {
    if (v !== null && winner && v !== currentStep) {
      problems.push(
        problem(
          'REGISTRY_MISMATCH',
          'warning',
          `Session ${id}: ${name} says current_step ${v}, ${winner[0]} says ${currentStep}; ${winner[0]} wins.`,
          { sessionId: id, path, details: { field: 'current_step', [name]: v, [winner[0]]: currentStep } },
        ),
      );
    }
  }
  for (const [field, a, b] of [
    ['current_checkpoint', str(e.current_checkpoint), str(manifest?.current_checkpoint)],
  ] as const) {
    if (a !== null && b !== null && a !== b) {
      problems.push(
        problem(
          'REGISTRY_MISMATCH',
          'warning',
          `Session ${id}: the registry says ${field} ${a}, manifest.json says ${b}; the manifest wins.`,
          { sessionId: id, path: regPath, details: { field, registry: a, session: b } },
        ),
      );
    }
  }
  return currentStep;
}

/** What {@link statusOf} decides from. */
interface StatusInput {
  id: string;
  sdir: string;
  regPath: string;
  entry: Record<string, unknown> | null;
  rawStatus: string | null;
  resumable: boolean | null;
  usableCps: Cp[];
  live: Record<string, unknown> | null;
  sessionInfo: Record<string, unknown>;
  recovery: Record<string, unknown> | null;
  files: SessionFiles;
}

/** The session status after the heartbeat rule, and whether it is running right now. */
function statusOf(ctx: Ctx, s: StatusInput, problems: FormatProblem[]): { status: SessionStatus; running: boolean } {
  const { id, sdir, regPath, entry, rawStatus, resumable, usableCps, live, sessionInfo, recovery } = s;
  const { safe, recoveryL } = s.files;
  const e = entry ?? {};

  let status: SessionStatus;
  let running = false;
  if (rawStatus === null) {
    const done = usableCps.some((c) => c.step === TOTAL_STEPS && !c.iteration);
    status = done ? 'completed' : 'interrupted';
    if (entry)
      problems.push(
        problem('MISSING_FIELD', 'warning', `Session ${id} has no status; ${status} assumed.`, {
          sessionId: id,
          path: regPath,
          details: { field: 'status', assumed: status },
        }),
      );
  } else if (!(rawStatus in RAW_STATUSES)) {
    status = 'interrupted';
    problems.push(
      problem(
        'BAD_VALUE',
        'warning',
        `Session ${id} has the unknown status "${rawStatus}"; it is treated as interrupted.`,
        { sessionId: id, path: regPath, details: { field: 'status', value: rawStatus } },
      ),
    );
  } else {
    status = RAW_STATUSES[rawStatus] as SessionStatus;
  }
  if ((status === 'interrupted' || status === 'paused') && resumable === false) status = 'abandoned';
  const beats = [time(e.updated_at), time(live?.saved_at), time(obj(sessionInfo.auto_save).last_save)].filter(
    (t): t is number => t !== null,
  );
  const lastBeat = beats.length > 0 ? Math.max(...beats) : null;
  if (status === 'active') {
    const age = lastBeat === null ? null : Math.round((ctx.now.getTime() - lastBeat) / 1000);
    if (age === null || age > HEARTBEAT_LIMIT_SECONDS) {
      status = 'interrupted';
      problems.push(
        problem(
          'STALE_ACTIVE',
          'warning',
          `Session ${id} says active but ${age === null ? 'has no updated_at/saved_at' : `was last saved ${humanDuration(age)} ago`}, beyond Go Team's ${humanDuration(HEARTBEAT_LIMIT_SECONDS)} heartbeat limit; it is reported interrupted.`,
          {
            sessionId: id,
            path: regPath,
            details: {
              lastHeartbeat: lastBeat === null ? null : new Date(lastBeat).toISOString(),
              ageSeconds: age,
              limitSeconds: HEARTBEAT_LIMIT_SECONDS,
            },
            hint: 'Resume it (checkpoint or live auto-save); Go Team itself marks it interrupted on its next start.',
          },
        ),
      );
    } else running = true;
  }
  if (status === 'interrupted' && !recovery && recoveryL.read.kind === 'missing' && safe) {
    problems.push(
      problem(
        'MISSING_FILE',
        'info',
        `Session ${id} is interrupted but has no recovery.json; the recovery options were derived from its checkpoints and state.json.`,
        { sessionId: id, path: join(sdir, 'recovery.json') },
      ),
    );
  }
  return { status, running };
}

/** Token totals from state.json, else from the team's session metrics (then recorded as a source). */
function tokensOf(
  id: string,
  sdir: string,
  liveState: Record<string, unknown>,
  metrics: Metrics | null,
  files: SessionFiles,
  problems: FormatProblem[],
): ForeignTokens | null {
  const { documents, sources, reads } = files;

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
    problems.push(
      problem(
        'TOKENS_DISAGREE',
        'warning',
        `Session ${id}: the token totals differ from the sum of the per-agent breakdown.`,
        {
          sessionId: id,
          path: liveTok ? join(sdir, 'state.json') : (metrics?.path ?? null),
          hint: 'The totals are kept; the difference is recorded under the agent "(unattributed)" on import.',
        },
      ),
    );
  }
  return tokens;
}

/** The review comments of step 6 kept in state.json's outputs. */
function reviewFindings(live: Record<string, unknown> | null): ForeignSession['findings'] {
  const outputs = obj(live?.outputs);
  return arr(outputs.review_comments).map((rc) => {
    const o = obj(rc);
    const text = typeof rc === 'string' ? rc : (str(o.comment) ?? str(o.text) ?? str(o.message) ?? JSON.stringify(rc));
    return { text, severity: str(o.severity), unitId: '6', time: str(o.timestamp) ?? str(o.time) };
  });
}

/** Reads one session (registry entry, folder or both). */
async function readSession(
  ctx: Ctx,
  id: string,
  entry: Record<string, unknown> | null,
  regPath: string,
  _reg: Loaded,
  registry: Record<string, unknown> | null,
  folder: 'ok' | 'unsafe' | null,
  lastActive: string | null,
  metrics: Metrics | null,
): Promise<ForeignSession> {
  const files = await openSession(ctx, id, entry, regPath, registry, folder);
  const { problems, documents, sources, reads, sdir, safe, take, manifestL, stateL, recoveryL, rollbackL } = files;

  const manifest = manifestL.doc;
  const live = stateL.doc;
  const liveState = obj(live?.state);
  const recovery = recoveryL.doc;

  // ---- status ----
  const e = entry ?? {};
  const sessionInfo = obj(liveState.session);
  const rawStatus = rawStatusOf(id, sdir, e, sessionInfo, problems);

  const resumable = typeof e.resumable === 'boolean' ? e.resumable : null;

  // ---- checkpoints ----
  const cps = safe ? await readCheckpoints(ctx, id, sdir, manifest, problems, take) : [];
  const rollbacks = collectRollbacks(manifest, rollbackL.doc);
  applyRollbacks(id, cps, rollbacks, problems, sdir);
  const usableCps = usableCheckpoints(id, sdir, cps, problems);
  reportInvalidated(id, sdir, cps, usableCps, problems);
  const currentStep = currentStepOf(id, sdir, regPath, e, manifest, liveState, problems);
  const { status, running } = statusOf(
    ctx,
    { id, sdir, regPath, entry, rawStatus, resumable, usableCps, live, sessionInfo, recovery, files },
    problems,
  );

  // ---- units ----
  const stepsCompleted =
    typeof obj(e.progress).steps_completed === 'number' ? num(obj(e.progress).steps_completed) : null;
  const units = buildUnits(id, cps, usableCps, currentStep, stepsCompleted, status, liveState, problems, sdir);
  const inFlight = units.find((u) => u.status !== 'completed' && u.status !== 'skipped') ?? null;
  const interruptError = recoveryError(recovery, status, currentStep);
  if (interruptError) {
    // The step the error happened in holds it; a step baton does not know keeps it on the session.
    const u = units.find((x) => x.id === interruptError.unitId);
    if (u) u.errors.push(interruptError);
    else interruptError.unitId = null;
  }

  const tokens = tokensOf(id, sdir, liveState, metrics, files, problems);

  const title = str(e.topic) ?? str(manifest?.topic) ?? str(liveState.topic) ?? id;
  const updatedTimes = [time(e.updated_at), time(live?.saved_at), time(manifest?.updated_at)].filter(
    (t): t is number => t !== null,
  );
  const resume = adviseResume({
    status,
    rawStatus,
    resumable,
    running,
    units,
    currentStep,
    usable: usableCps.map(
      (c): UsableCheckpoint => ({
        id: c.id,
        step: c.step as number,
        subStep: c.subStep,
        iteration: c.iteration,
        createdAt: c.createdAt,
        git: c.git,
        unverified: c.checksum === 'unverified',
      }),
    ),
    rebuildable: rebuildableCheckpoints(id, cps, recovery, problems),
    branch: str(e.git_branch),
    unusable: new Map(
      cps
        .filter((c) => c.problem !== null || c.invalidatedBy !== null)
        .map((c) => [c.id, c.problem ?? `was invalidated by rollback ${c.invalidatedBy}`]),
    ),
    live,
    recovery,
  });
  if (interruptError && !interruptError.resolved) {
    resume.warnings.push(
      `${interruptError.message.replace(/\.$/, '')} (recovery.json): find out what failed before resuming, or the step will fail again.`,
    );
  }
  const mainPath =
    stateL.read.kind === 'ok' ? stateL.read.path : manifestL.read.kind === 'ok' ? manifestL.read.path : regPath;
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
    findings: reviewFindings(live),
    notes: rollbacks.map((r) => ({
      text: `Rolled back from ${r.fromCheckpoint ?? `step ${r.fromStep ?? '?'}`} to ${r.toCheckpoint ?? `step ${r.toStep ?? '?'}`}${r.reason ? `: ${r.reason}` : ''}${r.id ? ` (${r.id})` : ''}`,
      time: r.timestamp,
      agent: null,
    })),
    milestones: [],
    artifacts: [],
    contextSummary: str(obj(live?.context).last_action),
    checkpoints: checkpointRecords(cps, usableCps),
    rules: goTeamRules(status, rawStatus, resumable, resume),
    problems,
    documents,
    sourceHash: hashSources(reads),
  };
}
