/**
 * Durable steps (pure part; the manager's side is src/manager/steps.ts, the behaviour
 * docs/steps.md). A step is keyed by a name within a session, and optionally a phase: the
 * first runner to append `step.started` runs it, and `step.completed` (its JSON result, or
 * the hash and size of a result kept beside the journal) or `step.failed` (its error and the
 * attempts made) records how it ended. A later call finds the record and returns it instead
 * of running the step again. A step started by a runner that is gone can be taken over: a
 * new `step.started` with the next `claim` number, after which only that claim may end it.
 */
import { BatonError } from './errors.js';
import type { EventDataMap, StoredEvent } from './events.js';
import type { EventDraft } from './decide.js';
import type { SessionState } from './state.js';
import type { DurableStep, StepEventData, StepRunner } from './step-types.js';

export type { DurableStep, StepError, StepEventData, StepResultRef, StepRunner } from './step-types.js';

/** Results larger than this (bytes of JSON) are kept beside the journal when the store can. */
export const STEP_INLINE_MAX = 64 * 1024;

/** The step `key` of `phaseId` (null: of the session), if any. */
export function findStep(s: SessionState, key: string, phaseId: string | null): DurableStep | undefined {
  return s.durableSteps?.find((x) => x.key === key && x.phaseId === phaseId);
}

/** A step as `status --json` and the handoff show it: everything but the result value. */
export type StepView = Omit<DurableStep, 'result'>;

/** The durable steps of a session, without their result values (those can be large). */
export function stepsView(s: SessionState): StepView[] {
  return (s.durableSteps ?? []).map(({ result: _omit, ...rest }) => rest);
}

/**
 * How a step stands, in one sentence (the handoff, `baton status` and the dashboard say it
 * alike): a completed one with its attempts and result size (and where a large result is
 * kept), a failed one with its error, a running one with its runner and the warning that its
 * work may be half done. `text` fits free text (an error message, a host) to the medium.
 */
export function stepOutcome(d: StepView, text: (s: string) => string = (s) => s): string {
  const tries = `${d.attempts} attempt${d.attempts === 1 ? '' : 's'}`;
  if (d.status === 'completed')
    return `completed (${tries}, result ${thousands(d.size ?? 0)} bytes${d.resultRef ? ', kept beside the journal' : ''}): not run again`;
  if (d.status === 'failed') return `failed after ${tries}: ${text(d.error?.message ?? 'unknown error')}`;
  const r = d.runner;
  return `running since ${d.startedAt} (pid ${r.pid} on ${text(r.host)}${r.runId ? `, run ${r.runId}` : ''}): taken over and run again once that runner is gone; its work may be half done`;
}

function thousands(n: number): string {
  return String(n).replace(/\B(?=(\d{3})+(?!\d))/g, ',');
}

/** A step's name for messages: `key` or `phase/key`. */
export function stepName(key: string, phaseId: string | null): string {
  return phaseId ? `${phaseId}/${key}` : key;
}

/** Checks a step key: text of 1 to 200 characters without control characters. */
export function checkStepKey(key: unknown): string {
  if (typeof key !== 'string' || key.length === 0 || key.length > 200 || /[\u0000-\u001f]/.test(key)) {
    throw new BatonError(
      'BAD_INPUT',
      `A step key must be text of 1 to 200 characters without control characters; got ${JSON.stringify(key)}.`,
      {
        hint: 'Name the step, e.g. "fetch-issues" or "deploy:staging".',
      },
    );
  }
  return key;
}

/**
 * Where `value` stops being JSON that reads back the same (`result.items[2]`), or null when
 * it is such JSON: null, booleans, finite numbers, text, arrays and plain objects (an
 * object's `undefined` properties are left out, as JSON does). Anything else (undefined in an
 * array, NaN, a Date, a Map, a class instance, a function, a bigint, a cycle) is named.
 */
export function jsonProblem(value: unknown, path = 'result', seen: Set<object> = new Set()): string | null {
  if (value === null || typeof value === 'string' || typeof value === 'boolean') return null;
  if (typeof value === 'number') return Number.isFinite(value) ? null : `${path} (${value})`;
  if (typeof value !== 'object') return `${path} (${typeof value})`;
  if (seen.has(value)) return `${path} (a cycle)`;
  seen.add(value);
  try {
    if (Array.isArray(value)) {
      for (let i = 0; i < value.length; i++) {
        const p = value[i] === undefined ? `${path}[${i}] (undefined)` : jsonProblem(value[i], `${path}[${i}]`, seen);
        if (p) return p;
      }
      return null;
    }
    const proto = Object.getPrototypeOf(value) as unknown;
    if (proto !== Object.prototype && proto !== null)
      return `${path} (a ${(value as object).constructor?.name ?? 'non-plain object'})`;
    for (const [k, v] of Object.entries(value)) {
      if (v === undefined) continue;
      const p = jsonProblem(v, `${path}.${k}`, seen);
      if (p) return p;
    }
    return null;
  } finally {
    seen.delete(value);
  }
}

/** What a runner finds when it reaches a step. */
export type StepFound =
  | { kind: 'run'; claim: number; takeover: boolean }
  | { kind: 'completed' | 'failed' | 'busy'; step: DurableStep };

/**
 * A runner reaches step `key`: none recorded (or `rerun` of a failed one, or its runner
 * `gone`): a `step.started` with the next claim, and it runs the step. Completed: the record.
 * Failed: the record (the caller rethrows it). Running under a live runner: busy.
 */
export function decideStepStart(
  s: SessionState,
  i: { key: string; phaseId: string | null; runner: StepRunner; rerunFailed: boolean },
  gone: (step: DurableStep) => boolean,
): { events: EventDraft[]; found: StepFound } {
  if (i.phaseId !== null && !s.phases.some((p) => p.id === i.phaseId)) {
    throw new BatonError(
      'NOT_FOUND',
      `Session ${s.id} has no phase ${JSON.stringify(i.phaseId)} for step ${JSON.stringify(i.key)}.`,
      {
        hint: `Name one of its phases (${s.phases.map((p) => p.id).join(', ') || 'none'}), or none.`,
        details: { sessionId: s.id, phase: i.phaseId, step: i.key },
      },
    );
  }
  const cur = findStep(s, i.key, i.phaseId);
  if (cur?.status === 'completed') return { events: [], found: { kind: 'completed', step: cur } };
  if (cur?.status === 'failed' && !i.rerunFailed) return { events: [], found: { kind: 'failed', step: cur } };
  if (cur?.status === 'running' && !gone(cur)) return { events: [], found: { kind: 'busy', step: cur } };
  const claim = (cur?.claim ?? 0) + 1;
  const takeover = cur?.status === 'running';
  const data: StepEventData['started'] = { key: i.key, phaseId: i.phaseId, claim, runner: i.runner, takeover };
  return { events: [{ type: 'step.started', data }], found: { kind: 'run', claim, takeover } };
}

/**
 * Claim `claim` ends its step. FENCED when the step was taken over since (its runner was
 * judged gone): the newer claim's record stands.
 */
export function decideStepEnd(
  s: SessionState,
  end:
    | { type: 'step.completed'; data: StepEventData['completed'] }
    | { type: 'step.failed'; data: StepEventData['failed'] },
): EventDraft[] {
  const { key, phaseId, claim } = end.data;
  const cur = findStep(s, key, phaseId);
  if (!cur || cur.claim !== claim || cur.status !== 'running') {
    throw new BatonError(
      'FENCED',
      `Step ${stepName(key, phaseId)} of session ${s.id} was taken over by another runner (claim ${cur?.claim ?? 0}, ${cur?.status ?? 'unknown'}) while claim ${claim} ran it.`,
      {
        hint: "Its runner was judged gone (its process or run ended); the other runner's record stands. Call steps.run again to read it.",
        details: { sessionId: s.id, step: key, phase: phaseId, claim, current: cur?.claim ?? null },
      },
    );
  }
  return [end];
}

type Fold<K extends keyof EventDataMap> = (s: SessionState, d: EventDataMap[K], e: StoredEvent) => void;

function ended(
  s: SessionState,
  key: string,
  phaseId: string | null,
  claim: number,
  e: StoredEvent,
): DurableStep | null {
  const cur = s.durableSteps?.find((x) => x.key === key && x.phaseId === phaseId);
  if (!cur || cur.claim !== claim) return null;
  cur.endedAt = e.time;
  return cur;
}

/** How step events fold into `durableSteps` (listed in apply.ts). */
export const STEP_HANDLERS: { [K in 'step.started' | 'step.completed' | 'step.failed']: Fold<K> } = {
  'step.started': (s, d, e) => {
    const list = (s.durableSteps ??= []);
    const step: DurableStep = {
      key: d.key,
      phaseId: d.phaseId,
      status: 'running',
      claim: d.claim,
      attempts: 0,
      runner: d.runner,
      startedAt: e.time,
      endedAt: null,
      size: null,
    };
    const i = list.findIndex((x) => x.key === d.key && x.phaseId === d.phaseId);
    if (i === -1) list.push(step);
    else list[i] = step;
  },
  'step.completed': (s, d, e) => {
    const cur = ended(s, d.key, d.phaseId, d.claim, e);
    if (!cur) return;
    Object.assign(cur, { status: 'completed', attempts: d.attempts, size: d.size });
    if (d.resultRef) cur.resultRef = d.resultRef;
    else if ('result' in d) cur.result = d.result;
  },
  'step.failed': (s, d, e) => {
    const cur = ended(s, d.key, d.phaseId, d.claim, e);
    if (cur) Object.assign(cur, { status: 'failed', attempts: d.attempts, error: d.error });
  },
};
