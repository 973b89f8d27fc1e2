/** Reads one Go Team session (registry entry, folder or both) into a {@link ForeignSession}. */
import type { FormatProblem, ForeignSession, ForeignTokens } from '../types.js';
import { arr, hashSources, num, obj, problem, str } from '../util.js';
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
import { join } from './layout.js';
import { type Ctx, type Loaded, time } from './load.js';
import { adviseResume, type UsableCheckpoint } from './resume.js';
import { findMetricsRecord, liveCostBudget, liveTokenRecord, readTokenRecord } from './tokens.js';
import { buildUnits, recoveryError } from './units.js';
import { type Metrics, openSession, pseudoRead, type SessionFiles } from './session-files.js';
import { currentStepOf, rawStatusOf, staleLive, statusOf } from './session-status.js';

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
  const maxUsd = liveCostBudget(liveState, (message, hint) =>
    problems.push(
      problem('BAD_VALUE', 'info', `Session ${id}: ${message}`, {
        sessionId: id,
        path: join(sdir, 'state.json'),
        hint,
      }),
    ),
  );
  if (maxUsd !== null)
    tokens = {
      ...(tokens ?? { input: 0, output: 0, cached: 0, byAgent: null, byUnit: null, agrees: null, max: null }),
      maxUsd,
    };
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

/** What {@link adviseResume} needs that {@link readSession} has already decided. */
type Decided = Pick<
  Parameters<typeof adviseResume>[0],
  'status' | 'rawStatus' | 'resumable' | 'running' | 'units' | 'currentStep' | 'liveStale'
>;

/** The resume advice: which checkpoints are usable, rebuildable or unusable, and why. */
function resumeOf(
  decided: Decided,
  e: Record<string, unknown>,
  cps: Cp[],
  usableCps: Cp[],
  recovery: Record<string, unknown> | null,
  live: Record<string, unknown> | null,
  id: string,
  problems: FormatProblem[],
): ReturnType<typeof adviseResume> {
  return adviseResume({
    ...decided,
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
}

/** The rollbacks as session notes. */
function rollbackNotes(rollbacks: ReturnType<typeof collectRollbacks>): ForeignSession['notes'] {
  return rollbacks.map((r) => ({
    text: `Rolled back from ${r.fromCheckpoint ?? `step ${r.fromStep ?? '?'}`} to ${r.toCheckpoint ?? `step ${r.toStep ?? '?'}`}${r.reason ? `: ${r.reason}` : ''}${r.id ? ` (${r.id})` : ''}`,
    time: r.timestamp,
    agent: null,
  }));
}

/** Reads one session (registry entry, folder or both). */
export async function readSession(
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
  const recovery = recoveryL.doc;
  const e = entry ?? {};
  const rollbacks = collectRollbacks(manifest, rollbackL.doc);
  // A state.json older than a rollback or a newer manifest/registry does not say where the session is.
  const stale = staleLive(live, manifest, e, rollbacks);
  const liveState = obj(live?.state);
  const placeState = stale ? {} : liveState;

  // ---- status ----
  const sessionInfo = obj(placeState.session);
  const rawStatus = rawStatusOf(id, sdir, e, sessionInfo, problems);

  const resumable = typeof e.resumable === 'boolean' ? e.resumable : null;

  // ---- checkpoints ----
  const cps = safe ? await readCheckpoints(ctx, id, sdir, manifest, problems, take) : [];
  applyRollbacks(id, cps, rollbacks, problems, sdir);
  const usableCps = usableCheckpoints(id, sdir, cps, problems);
  reportInvalidated(id, sdir, cps, usableCps, problems);
  const currentStep = currentStepOf(id, sdir, regPath, e, manifest, liveState, problems, stale);
  const { status, running } = statusOf(
    ctx,
    { id, sdir, regPath, entry, rawStatus, resumable, usableCps, live, sessionInfo, recovery, files },
    problems,
  );

  // ---- units ----
  const stepsCompleted =
    typeof obj(e.progress).steps_completed === 'number' ? num(obj(e.progress).steps_completed) : null;
  const units = buildUnits(id, cps, usableCps, currentStep, stepsCompleted, status, placeState, problems, sdir);
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
  const resume = resumeOf(
    { status, rawStatus, resumable, running, units, currentStep, liveStale: stale },
    e,
    cps,
    usableCps,
    recovery,
    live,
    id,
    problems,
  );
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
    notes: rollbackNotes(rollbacks),
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
