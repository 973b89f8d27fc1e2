/** The status and current step of one Go Team session, reconciled from its registry entry and files. */
import type { SessionStatus } from '../../domain/state.js';
import type { FormatProblem } from '../types.js';
import { humanDuration, obj, problem, str } from '../util.js';
import type { Cp } from './checkpoints.js';
import { join } from './layout.js';
import { type Ctx, time } from './load.js';
import { HEARTBEAT_LIMIT_SECONDS, stepOf, TOTAL_STEPS } from './steps.js';
import type { SessionFiles } from './session-files.js';

/** Statuses Go Team writes in the registry (`paused` is in its status table, not its schema enum). */
const RAW_STATUSES: Record<string, SessionStatus> = {
  active: 'active',
  paused: 'paused',
  interrupted: 'interrupted',
  completed: 'completed',
  failed: 'failed',
  abandoned: 'abandoned',
};

/** The raw status: the registry's, unless state.json says otherwise (state.json wins). */
export function rawStatusOf(
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

/**
 * Why the live `state.json` is older than what the toolkit wrote after it, or null when it is
 * not. Go Team's auto-save writes `state.json` and then the registry (seed 001 "4. AUTO-SAVE
 * OPERATION"), and a rollback restores the state of a checkpoint, logs the rollback in the
 * manifest and invalidates later checkpoints (`*rollback`): a rollback dated after `saved_at`,
 * or a manifest or registry saved after it that names another step, means `state.json` still
 * holds the work the rollback undid. Judged by the toolkit's own save times only.
 */
export function staleLive(
  live: Record<string, unknown> | null,
  manifest: Record<string, unknown> | null,
  e: Record<string, unknown>,
  rollbacks: ReadonlyArray<{ id: string | null; timestamp: string | null; toStep: number | null }>,
): string | null {
  const saved = time(live?.saved_at);
  if (!live || saved === null) return null;
  const savedText = str(live.saved_at);
  const rb = [...rollbacks].reverse().find((r) => (time(r.timestamp) ?? -1) > saved);
  if (rb)
    return `state.json was saved at ${savedText}, before rollback ${rb.id ?? ''}${rb.id ? ' ' : ''}at ${rb.timestamp}${rb.toStep !== null ? ` to step ${rb.toStep}` : ''}`;
  const liveStep = stepOf(obj(live.state).current_step);
  for (const [name, doc] of [
    ['manifest.json', manifest],
    ['sessions.json', e],
  ] as const) {
    const at = time(doc?.updated_at);
    const step = stepOf(doc?.current_step);
    if (at !== null && at > saved && step !== null && liveStep !== null && step !== liveStep)
      return `state.json was saved at ${savedText} (step ${liveStep}); ${name} was updated after it, at ${str(doc?.updated_at)} (step ${step})`;
  }
  return null;
}

/**
 * The current step: state.json, then manifest.json, then the registry; disagreements are
 * reported. A stale state.json ({@link staleLive}) comes last: the newer files win.
 */
export function currentStepOf(
  id: string,
  sdir: string,
  regPath: string,
  e: Record<string, unknown>,
  manifest: Record<string, unknown> | null,
  liveState: Record<string, unknown>,
  problems: FormatProblem[],
  stale: string | null = null,
): number | null {
  const live: [string, number | null, string] = [
    'state.json',
    stepOf(liveState.current_step),
    join(sdir, 'state.json'),
  ];
  const stepSources: Array<[string, number | null, string]> = [
    ...(stale ? [] : [live]),
    ['manifest.json', stepOf(manifest?.current_step), join(sdir, 'manifest.json')],
    ['sessions.json', stepOf(e.current_step), regPath],
    ...(stale ? [live] : []),
  ];
  const winner = stepSources.find((s) => s[1] !== null) ?? null;
  if (stale && winner && winner[0] !== 'state.json' && live[1] !== null && live[1] !== winner[1]) {
    problems.push(
      problem(
        'STALE_STATE',
        'warning',
        `Session ${id}: ${stale}; ${winner[0]} wins (current_step ${winner[1]}, not ${live[1]}): the steps the rollback undid are not completed.`,
        {
          sessionId: id,
          path: live[2],
          details: { field: 'current_step', 'state.json': live[1], [winner[0]]: winner[1] },
        },
      ),
    );
    return winner[1];
  }
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
export interface StatusInput {
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
export function statusOf(
  ctx: Ctx,
  s: StatusInput,
  problems: FormatProblem[],
): { status: SessionStatus; running: boolean } {
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
