/**
 * `manager.steps`: durable steps (docs/steps.md; the pure part is src/domain/durable-steps.ts).
 * `run` runs a function once per session, step key and phase, records its JSON result (or
 * its error) in the journal, and returns the record on every later call, in this process or
 * another. Who runs a step is decided by the conditional append of `step.started`; the
 * others wait for its end, and take it over when its runner is gone (its process on this
 * machine, or the run it was made in, ended or lapsed).
 */
import { nodeCrypto } from './lazy.js';
import {
  checkStepKey,
  decideStepEnd,
  decideStepStart,
  jsonProblem,
  STEP_INLINE_MAX,
  stepName,
  stepsView,
} from '../domain/durable-steps.js';
import type { DurableStep, StepError, StepEventData, StepRunner, StepView } from '../domain/durable-steps.js';
import { BatonError, isBatonError } from '../domain/errors.js';
import { findRun } from '../domain/runs/runs.js';
import type { SessionState } from '../domain/state.js';
import { stepResultsOf } from '../store/capabilities.js';
import type { SessionStore } from '../store/types.js';
import { processAlive } from './runs/process-check.js';
import type { Runs } from './runs/runs.js';
import type { ManagerCore } from './types.js';

/** Options of {@link Steps.run}. */
export interface StepOptions {
  /** The phase the step belongs to (its key is then unique within the phase); default none. */
  phase?: string | null;
  /** Attempts after the first failure before the step is recorded failed (default 0). */
  retries?: number;
  /** Wait before retry n: `backoffMs × 2^(n-1)` (default 1000). */
  backoffMs?: number;
  /**
   * How long to wait for a step another live runner is running before giving up with
   * `LOCKED` (naming the runner). Default: wait as long as that runner is not known gone.
   */
  waitMs?: number | null;
  /** How often a waiting call reads the session again (default 200 ms). */
  pollMs?: number;
  /** Run a step recorded failed again (a new claim); without it the recorded failure is thrown. */
  rerunFailed?: boolean;
  /** The run (`manager.runs`) the step is made in: once it ends or lapses, another runner may take the step over. */
  run?: string;
  agent?: string | null;
}

/** What the step's function is told. */
export interface StepContext {
  /** 1, 2, … within this claim (retries). */
  attempt: number;
  /** 1 for the first runner of the step; more after takeovers and re-runs. */
  claim: number;
  /** True when this runner took the step over from one that is gone: the work may be half done. */
  takeover: boolean;
}

/** See the file comment. */
export class Steps {
  constructor(
    private readonly m: ManagerCore,
    private readonly runs: Runs,
    /** The manager's agent, named as the runner when a call names none. */
    private readonly agent: string | null = null,
  ) {}

  /**
   * Runs step `key` of session `id` once: the first call anywhere runs `fn` (with retries as
   * `options` say) and records its result, which must be JSON (else `BAD_INPUT` naming the
   * step and where the value stops being JSON; recorded as the step's failure); every later
   * call returns the recorded result (parsed from JSON) without running `fn`. A step recorded
   * failed rethrows as `RETRIES_EXHAUSTED` (unless `rerunFailed`); on the call that ran it,
   * the function's own error is thrown. While another live runner runs the step, the call
   * waits for its record (`LOCKED` after `waitMs`); a runner found gone is taken over and
   * `fn` runs again with `takeover: true`.
   *
   * Idempotency of the work inside `fn` is the caller's part: a runner that dies after its
   * side effect and before its record is appended leaves the step running, and the runner
   * that takes it over runs `fn` again. Make the effect idempotent (a key of your own on the
   * effect, a check before acting), or safe to repeat.
   */
  async run<T>(
    id: string,
    key: string,
    fn: (ctx: StepContext) => T | Promise<T>,
    options: StepOptions = {},
  ): Promise<T> {
    checkStepKey(key);
    const phaseId = options.phase ?? null;
    const name = stepName(key, phaseId);
    const { pid, host, boot } = this.m.origin;
    const runner: StepRunner = { pid, host, boot, runId: options.run ?? null, agent: options.agent ?? this.agent };
    const deadline = options.waitMs === undefined || options.waitMs === null ? null : Date.now() + options.waitMs;
    let pause = Math.max(10, options.pollMs ?? 200);
    const input = { key, phaseId, runner, rerunFailed: options.rerunFailed === true };
    for (;;) {
      // A fresh read, then an append conditional on it: of two runners, the first to append
      // step.started runs the step; the other gets CONFLICT, reads again and finds it taken.
      const s = await this.m.get(id);
      const found = decideStepStart(s, input, (step) => this.gone(s, step)).found;
      if (found.kind === 'run') {
        const co = { ...changeOptions(options), expectedRevision: s.revision };
        try {
          await this.m.change(
            id,
            (cur) => ({
              events: decideStepStart(cur, input, (step) => this.gone(cur, step)).events,
              result: undefined,
            }),
            co,
          );
        } catch (e) {
          if (isBatonError(e, 'CONFLICT')) continue;
          throw e;
        }
        return this.execute(id, { key, phaseId, name }, found, fn, options);
      }
      if (found.kind === 'completed') return this.resultOf(id, name, found.step) as Promise<T>;
      if (found.kind === 'failed') throw recordedFailure(id, name, found.step);
      if (deadline !== null && Date.now() >= deadline) throw busy(id, name, found.step);
      await sleep(deadline === null ? pause : Math.min(pause, Math.max(0, deadline - Date.now())));
      pause = Math.min(pause * 2, 1000, Math.max(10, options.pollMs ?? 1000));
    }
  }

  /** The durable steps of session `id`, without their result values (as `status --json` shows them). */
  async list(id: string): Promise<StepView[]> {
    return stepsView(await this.m.get(id));
  }

  /** True when the runner of a running step is known gone (see {@link StepOptions.run}). */
  private gone(s: SessionState, step: DurableStep): boolean {
    const r = step.runner;
    const run = r.runId ? findRun(s, r.runId) : undefined;
    if (run)
      return run.ended !== null && run.ended !== undefined
        ? true
        : this.runs.gone(run) || (run.expiresAt !== null && Date.parse(run.expiresAt) <= Date.parse(this.m.time()));
    const { host, boot, pid } = this.m.origin;
    if (r.host !== host) return false;
    if (r.boot && boot && r.boot !== boot) return true;
    // This process: another call in it runs the step now.
    if (r.pid === pid) return false;
    return !processAlive(r.pid);
  }

  private async execute<T>(
    id: string,
    at: { key: string; phaseId: string | null; name: string },
    claim: { claim: number; takeover: boolean },
    fn: (ctx: StepContext) => T | Promise<T>,
    o: StepOptions,
  ): Promise<T> {
    const retries = Math.max(0, Math.floor(o.retries ?? 0));
    const base = { key: at.key, phaseId: at.phaseId, claim: claim.claim };
    const co = changeOptions(o);
    let attempt = 0;
    for (;;) {
      attempt++;
      let value: T;
      try {
        value = await fn({ attempt, claim: claim.claim, takeover: claim.takeover });
      } catch (e) {
        if (attempt <= retries) {
          await sleep((o.backoffMs ?? 1000) * 2 ** (attempt - 1));
          continue;
        }
        await this.m.change(
          id,
          (s) => ({
            events: decideStepEnd(s, { type: 'step.failed', data: { ...base, attempts: attempt, error: errorOf(e) } }),
            result: undefined,
          }),
          co,
        );
        throw e;
      }
      const problem = value === undefined ? null : jsonProblem(value);
      if (problem) {
        const err = new BatonError(
          'BAD_INPUT',
          `The result of step ${at.name} of session ${id} is not JSON: ${problem} cannot be recorded.`,
          {
            hint: 'Return plain data (objects, arrays, text, finite numbers, booleans, null); convert dates to ISO text and maps to objects, then run it again with rerunFailed.',
            details: { sessionId: id, step: at.key, phase: at.phaseId, at: problem },
          },
        );
        await this.m.change(
          id,
          (s) => ({
            events: decideStepEnd(s, {
              type: 'step.failed',
              data: { ...base, attempts: attempt, error: errorOf(err) },
            }),
            result: undefined,
          }),
          co,
        );
        throw err;
      }
      const text = value === undefined ? null : JSON.stringify(value);
      const data: StepEventData['completed'] = {
        ...base,
        attempts: attempt,
        size: text === null ? 0 : Buffer.byteLength(text),
      };
      const table = stepResultsOf(this.m.store);
      if (text !== null && data.size > STEP_INLINE_MAX && table) {
        const sha256 = nodeCrypto().createHash('sha256').update(text).digest('hex');
        // Durable before the event that names it: a reader never finds a record without its result.
        await table.put(id, sha256, text);
        data.resultRef = { sha256, size: data.size };
      } else if (text !== null) data.result = JSON.parse(text) as unknown;
      await this.m.change(
        id,
        (s) => ({ events: decideStepEnd(s, { type: 'step.completed', data }), result: undefined }),
        co,
      );
      return (text === null ? undefined : JSON.parse(text)) as T;
    }
  }

  /** The recorded result of a completed step, read from beside the journal when kept there. */
  private async resultOf(id: string, name: string, step: DurableStep): Promise<unknown> {
    if (!step.resultRef) return 'result' in step ? structuredClone(step.result) : undefined;
    const { sha256, size } = step.resultRef;
    const table = stepResultsOf(this.m.store);
    const text = table ? await table.get(id, sha256) : null;
    if (text === null || nodeCrypto().createHash('sha256').update(text).digest('hex') !== sha256) {
      throw new BatonError(
        'CORRUPT',
        `The result of step ${name} of session ${id} (${size} bytes, sha256 ${sha256.slice(0, 12)}…) is ${text === null ? 'missing' : 'damaged'} in the store.`,
        {
          hint: 'Run the step again with rerunFailed is not possible for a completed step: restore the store from a backup, or start a new session.',
          details: { sessionId: id, step: step.key, phase: step.phaseId, sha256, size },
        },
      );
    }
    return JSON.parse(text) as unknown;
  }
}

/**
 * Copies the large step results of session `s` kept beside its journal in `from` into `to`
 * (`migrate-store`), where both stores keep them; a result already there is stored once.
 */
export async function copyStepResults(from: SessionStore, to: SessionStore, s: SessionState): Promise<void> {
  const src = stepResultsOf(from);
  const dst = stepResultsOf(to);
  if (!src || !dst) return;
  for (const step of s.durableSteps ?? []) {
    if (!step.resultRef) continue;
    const text = await src.get(s.id, step.resultRef.sha256);
    if (text !== null) await dst.put(s.id, step.resultRef.sha256, text);
  }
}

/** The agent and run a step's events are written with (the manager's agent when the call names none). */
function changeOptions(o: StepOptions): { agent?: string | null; run?: string } {
  return { ...(o.agent !== undefined ? { agent: o.agent } : {}), ...(o.run ? { run: o.run } : {}) };
}

function errorOf(e: unknown): StepError {
  if (e instanceof Error) {
    const code = (e as Error & { code?: unknown }).code;
    return { message: e.message, name: e.name, code: typeof code === 'string' ? code : null };
  }
  return { message: String(e), name: typeof e, code: null };
}

function recordedFailure(id: string, name: string, step: DurableStep): BatonError {
  return new BatonError(
    'RETRIES_EXHAUSTED',
    `Step ${name} of session ${id} failed after ${step.attempts} attempt${step.attempts === 1 ? '' : 's'}: ${step.error?.message ?? 'unknown error'}`,
    {
      hint: 'The failure is recorded; fix the cause and call steps.run with rerunFailed: true to run it again.',
      details: {
        sessionId: id,
        step: step.key,
        phase: step.phaseId,
        attempts: step.attempts,
        error: step.error ?? null,
      },
    },
  );
}

function busy(id: string, name: string, step: DurableStep): BatonError {
  const r = step.runner;
  return new BatonError(
    'LOCKED',
    `Step ${name} of session ${id} is being run by pid ${r.pid} on ${r.host}${r.runId ? ` (run ${r.runId})` : ''} since ${step.startedAt}.`,
    {
      hint: 'Wait for it (a longer waitMs, or none), or end that runner: once its process or run is gone, the step is taken over.',
      details: {
        sessionId: id,
        step: step.key,
        phase: step.phaseId,
        runner: r,
        startedAt: step.startedAt,
        claim: step.claim,
      },
    },
  );
}

function sleep(ms: number): Promise<void> {
  return new Promise((r) => setTimeout(r, ms));
}
