/**
 * Validation of every change before it is written: each function takes the current state and
 * a request, and returns the events to append, or throws a coded {@link BatonError}. Nothing
 * here does I/O; hashes, time and actor are supplied by the caller.
 */
import { BatonError } from './errors.js';
import { hint } from './hints.js';
import type { EventDataMap, EventType, PhaseSpec } from './events.js';
import { clip } from './ids.js';
import { unfinishedForCompletion } from './session-complete.js';
import { toolkitGuard } from './toolkits/toolkit-guard.js';
import type { FileAction, Phase, SessionState } from './state.js';
import { FINAL_STATUSES } from './state.js';
import { allowedPhaseActions, phaseTarget, sessionTarget } from './transitions.js';
import type { PhaseAction, SessionAction } from './transitions.js';

/** An event to append, before time, actor and seq are attached. */
export type EventDraft = { [K in EventType]: { type: K; data: EventDataMap[K] } }[EventType];

/** Builds a typed draft. */
export function draft<K extends EventType>(type: K, data: EventDataMap[K]): EventDraft {
  return { type, data } as EventDraft;
}

/** Largest token count accepted in one record; guards against typos like 1e30. */
export const MAX_TOKENS_PER_RECORD = 1_000_000_000_000;
/** Longest free text accepted (titles, messages, notes…). */
export const MAX_TEXT = 100_000;

/** Checks free text: a non-empty string of bounded length. */
export function text(value: unknown, what: string, { optional = false, max = MAX_TEXT } = {}): string {
  if (value === undefined || value === null || value === '') {
    if (optional) return '';
    throw new BatonError('BAD_INPUT', `${what} is missing.`, { hint: `Give a non-empty ${what}.` });
  }
  if (typeof value !== 'string')
    throw new BatonError('BAD_INPUT', `${what} must be text.`, { hint: `Pass ${what} as a string.` });
  if (value.length > max) {
    throw new BatonError('BAD_INPUT', `${what} is ${value.length} characters long; at most ${max} are allowed.`, {
      hint: `Shorten ${what}, or store the long text as a file and record it as an artifact.`,
    });
  }
  return value;
}

/** Refuses changes to a session that has ended or been archived. */
export function assertWritable(s: SessionState): void {
  if (s.archived) {
    throw new BatonError('INVALID_TRANSITION', `Session ${s.id} is archived and takes no more changes.`, {
      hint: hint('session.start-new'),
      details: { sessionId: s.id },
    });
  }
  if ((FINAL_STATUSES as string[]).includes(s.status)) {
    throw new BatonError('INVALID_TRANSITION', `Session ${s.id} is ${s.status} and takes no more changes.`, {
      hint: s.status === 'failed' ? hint('resume.apply', { session: s.id }) : hint('session.start-new'),
      details: { sessionId: s.id, status: s.status },
    });
  }
}

/** Finds a phase by id (or, failing that, by exact name), else `NOT_FOUND` listing the phases. */
export function findPhase(s: SessionState, ref: string): Phase {
  const p = s.phases.find((x) => x.id === ref) ?? s.phases.find((x) => x.name === ref);
  if (p) return p;
  throw new BatonError('NOT_FOUND', `Session ${s.id} has no phase ${JSON.stringify(clip(ref))}.`, {
    hint: s.phases.length ? `Phases: ${s.phases.map((x) => x.id).join(', ')}.` : hint('session.start-with-phases'),
    details: { sessionId: s.id, phase: ref },
  });
}

/** The id of the phase `ref` names, or null when none is named. */
export function optionalPhase(s: SessionState, ref: string | null | undefined): string | null {
  return ref === undefined || ref === null || ref === '' ? null : findPhase(s, ref).id;
}

/** The id the next record of `counter` gets (`prefix-N`). */
export function nextId(s: SessionState, counter: string, prefix: string): string {
  return `${prefix}-${(s.counters[counter] ?? 0) + 1}`;
}

/** Options of a phase verb. */
export interface PhaseActionOptions {
  agent?: string | null;
  force?: boolean;
  reason?: string | null;
}

function phaseStartCheck(s: SessionState, p: Phase, force: boolean): void {
  if (s.status !== 'active') {
    throw new BatonError(
      'INVALID_TRANSITION',
      `Session ${s.id} is ${s.status}; phases can only be started in an active session.`,
      {
        hint: hint('resume.plan-then-apply', { session: s.id }),
        details: { sessionId: s.id, status: s.status },
      },
    );
  }
  if (force) return;
  const open = p.blockedBy.filter((b) => {
    const dep = s.phases.find((x) => x.id === b);
    return !dep || (dep.status !== 'completed' && dep.status !== 'skipped');
  });
  if (open.length) {
    throw new BatonError('BLOCKED', `Phase ${p.id} is blocked by ${open.join(', ')}, not yet completed or skipped.`, {
      hint: hint('phase.finish-blockers', { blockers: open }),
      details: { phase: p.id, blockedBy: open },
    });
  }
}

/**
 * Validates a phase verb against the transition table and returns its event. `start` on a
 * failed phase is a retry. A retry past `maxRetries` is refused with `RETRIES_EXHAUSTED`
 * unless forced; a start with open blockers with `BLOCKED` unless forced.
 */
export function decidePhase(
  s: SessionState,
  ref: string,
  action: PhaseAction,
  o: PhaseActionOptions = {},
): EventDraft[] {
  assertWritable(s);
  const p = findPhase(s, ref);
  const target = phaseTarget(p.status, action);
  if (!target) {
    const allowed = allowedPhaseActions(p.status);
    throw new BatonError(
      'INVALID_TRANSITION',
      `Phase ${p.id} is ${p.status}; it cannot ${action === 'complete' ? 'be completed' : action}.`,
      {
        hint: allowed.length ? `From ${p.status} a phase may: ${allowed.join(', ')}.` : `A ${p.status} phase is final.`,
        details: { phase: p.id, status: p.status, action, allowed },
      },
    );
  }
  const agent = o.agent ?? null;
  const force = o.force === true;
  switch (action) {
    case 'start':
    case 'retry': {
      phaseStartCheck(s, p, force);
      if (p.status === 'failed') {
        if (p.retryCount >= p.maxRetries && !force) {
          throw new BatonError(
            'RETRIES_EXHAUSTED',
            `Phase ${p.id} has used ${p.retryCount} of ${p.maxRetries} retries.`,
            {
              hint: hint('phase.escalate', { session: s.id, phase: p.id, maxRetries: p.maxRetries, active: true }),
              details: { phase: p.id, retryCount: p.retryCount, maxRetries: p.maxRetries },
            },
          );
        }
        return [draft('phase.retried', { phaseId: p.id, agent, forced: force, attempt: p.retryCount + 1 })];
      }
      return [draft('phase.started', { phaseId: p.id, agent, forced: force })];
    }
    case 'complete':
      return [
        ...toolkitGuard(s, 'phase-complete', { force, phaseId: p.id }),
        draft('phase.completed', { phaseId: p.id, agent }),
      ];
    case 'fail':
      return [draft('phase.failed', { phaseId: p.id, agent, reason: o.reason ?? null })];
    case 'skip':
      return [
        draft('phase.skipped', {
          phaseId: p.id,
          reason: o.reason ?? null,
          ...(p.status === 'failed' ? { from: 'failed' as const } : {}),
        }),
      ];
  }
}

/** Records reaching a sub-step inside an in-progress phase. */
export function decideSubstep(s: SessionState, ref: string, name: string): EventDraft[] {
  assertWritable(s);
  const p = findPhase(s, ref);
  const n = text(name, 'sub-step name', { max: 200 });
  if (p.status !== 'in_progress') {
    throw new BatonError(
      'INVALID_TRANSITION',
      `Phase ${p.id} is ${p.status}; sub-steps are recorded only while it is in progress.`,
      {
        hint: hint('phase.start', { phase: p.id }),
        details: { phase: p.id, status: p.status },
      },
    );
  }
  return [draft('substep.reached', { phaseId: p.id, name: n })];
}

/** A file as measured by the caller when it was recorded. */
export interface MeasuredFile {
  path: string;
  sha256: string | null;
  size: number | null;
}

/**
 * The phase a record belongs to when the caller names none: the only in-progress phase, or
 * among several the one the agent works on. Null when no phase is in progress; `BAD_INPUT`
 * when the choice is ambiguous, rather than guessing.
 */
export function impliedPhase(s: SessionState, agent: string | null): string | null {
  const running = s.phases.filter((p) => p.status === 'in_progress');
  if (running.length <= 1) return running[0]?.id ?? null;
  const mine = agent ? running.filter((p) => p.agents.includes(agent)) : [];
  if (mine.length === 1) return mine[0]!.id;
  throw new BatonError(
    'BAD_INPUT',
    `Phases ${running.map((p) => p.id).join(', ')} are all in progress; which one is this for?`,
    {
      hint: hint('phase.name-one', { phases: running.map((p) => p.id) }),
    },
  );
}

/**
 * Records files created, modified or deleted, against the named phase or else the
 * {@link impliedPhase}.
 */
export function decideFiles(
  s: SessionState,
  action: FileAction,
  files: MeasuredFile[],
  phaseRef: string | null,
  agent: string | null,
): EventDraft[] {
  assertWritable(s);
  if (!files.length) throw new BatonError('BAD_INPUT', 'No file paths given.', { hint: 'Name at least one path.' });
  const phaseId = optionalPhase(s, phaseRef) ?? impliedPhase(s, agent);
  return files.map((f) =>
    draft('file.recorded', {
      phaseId,
      path: text(f.path, 'file path', { max: 4096 }),
      action,
      sha256: f.sha256,
      size: f.size,
      agent,
    }),
  );
}

/** Request to record an error. */
export interface ErrorInput {
  phase: string;
  type: string;
  message: string;
  agent?: string | null;
}

/** Records an error against a phase; the new error's id is `err-<n>`. */
export function decideError(s: SessionState, input: ErrorInput): { events: EventDraft[]; errorId: string } {
  assertWritable(s);
  const p = findPhase(s, text(input.phase, 'phase'));
  const errorId = nextId(s, 'error', 'err');
  return {
    errorId,
    events: [
      draft('error.recorded', {
        errorId,
        phaseId: p.id,
        agent: input.agent ?? null,
        type: text(input.type, 'error type', { max: 100 }),
        message: text(input.message, 'error message'),
      }),
    ],
  };
}

/** Marks an error resolved. */
export function decideResolve(s: SessionState, errorId: string, resolution: string): EventDraft[] {
  assertWritable(s);
  const all = s.phases.flatMap((p) => p.errors);
  const err = all.find((e) => e.id === errorId);
  if (!err) {
    const open = all.filter((e) => !e.resolved).map((e) => e.id);
    throw new BatonError('NOT_FOUND', `Session ${s.id} has no error ${JSON.stringify(clip(errorId))}.`, {
      hint: open.length ? `Unresolved errors: ${open.join(', ')}.` : 'This session has no unresolved errors.',
    });
  }
  if (err.resolved) {
    throw new BatonError('INVALID_TRANSITION', `Error ${errorId} is already resolved (${err.resolution ?? ''}).`, {
      hint: 'Nothing to do.',
    });
  }
  return [draft('error.resolved', { errorId, resolution: text(resolution, 'resolution') })];
}

/** A user-given value as shown in a message (never throws, unlike JSON.stringify on a bigint). */
function shown(value: unknown): string {
  return typeof value === 'string' ? JSON.stringify(clip(value)) : String(value);
}

/** Checks a token count: a non-negative safe integer. Accepts numeric strings from the CLI. */
export function tokenCount(value: unknown, what: 'input' | 'output' | 'cached' | 'cache-write'): number {
  const n = typeof value === 'string' && /^\s*\d+\s*$/.test(value) ? Number(value) : value;
  if (typeof n !== 'number' || !Number.isInteger(n) || n < 0 || n > MAX_TOKENS_PER_RECORD) {
    throw new BatonError(
      'BAD_INPUT',
      `${what} must be a whole number from 0 to ${MAX_TOKENS_PER_RECORD}; got ${shown(value)}.`,
      {
        hint: hint('tokens.count', { what }),
      },
    );
  }
  return n;
}

/** Request to record token use. */
export interface TokensInput {
  agent: string;
  phase?: string | null;
  input?: unknown;
  output?: unknown;
  /** Cache reads. */
  cached?: unknown;
  /** Cache writes (tokens written to a prompt cache). */
  cacheWrite?: unknown;
  /** The model that spent them (prices the record); none: its cost is unknown. */
  model?: unknown;
}

/** Checks an optional model name: null when absent or empty. */
export function modelName(value: unknown): string | null {
  if (value === undefined || value === null || value === '') return null;
  return text(value, 'model', { max: 200 }).trim() || null;
}

/** Records token use by an agent, optionally against a phase and with the model that spent it. */
export function decideTokens(s: SessionState, t: TokensInput): EventDraft[] {
  assertWritable(s);
  const agent = text(t.agent, 'agent name', { max: 200 });
  const input = tokenCount(t.input ?? 0, 'input');
  const output = tokenCount(t.output ?? 0, 'output');
  const cached = tokenCount(t.cached ?? 0, 'cached');
  const cacheWrite = tokenCount(t.cacheWrite ?? 0, 'cache-write');
  const model = modelName(t.model);
  // The new fields only when they say something: records stay as they were shaped before.
  return [
    draft('tokens.recorded', {
      agent,
      phaseId: optionalPhase(s, t.phase),
      input,
      output,
      cached,
      ...(cacheWrite ? { cacheWrite } : {}),
      ...(model ? { model } : {}),
    }),
  ];
}

/** Checks a positive integer (budget, retry limit). */
export function positive(value: unknown, what: string): number {
  const n = typeof value === 'string' && /^\s*\d+\s*$/.test(value) ? Number(value) : value;
  if (typeof n !== 'number' || !Number.isInteger(n) || n <= 0 || n > MAX_TOKENS_PER_RECORD) {
    throw new BatonError('BAD_INPUT', `${what} must be a positive whole number; got ${shown(value)}.`, {
      hint: `Pass ${what} as an integer above 0.`,
    });
  }
  return n;
}

/** Validates a session lifecycle verb. */
export function decideSession(
  s: SessionState,
  action: SessionAction,
  detail: string | null = null,
  cause = 'user',
  o: { force?: boolean } = {},
): EventDraft[] {
  if (s.archived) assertWritable(s);
  const target = sessionTarget(s.status, action);
  if (!target) {
    throw new BatonError('INVALID_TRANSITION', `Session ${s.id} is ${s.status}; it cannot ${action}.`, {
      hint:
        s.status === 'active' && action === 'resume'
          ? 'It is already active.'
          : hint('session.status', { session: s.id }),
      details: { sessionId: s.id, status: s.status, action },
    });
  }
  if (action === 'complete') {
    const unfinished = unfinishedForCompletion(s, o.force === true);
    const waived = toolkitGuard(s, 'complete', { force: o.force === true });
    return [...waived, draft('session.completed', unfinished.length ? { detail, unfinished } : { detail })];
  }
  switch (action) {
    case 'pause':
      return [draft('session.paused', { cause, detail })];
    case 'resume':
      return [draft('session.resumed', { from: s.status })];
    case 'interrupt':
      return [draft('session.interrupted', { cause, detail })];
    case 'fail':
      return [draft('session.failed', { detail })];
    case 'abandon':
      return [draft('session.abandoned', { detail })];
  }
}

/**
 * Archiving is allowed for any session that is not active, and, for a session imported from
 * a toolkit, once the steps it requires first are done (or `force`, recorded).
 */
export function decideArchive(s: SessionState, o: { force?: boolean } = {}): EventDraft[] {
  if (s.archived)
    throw new BatonError('INVALID_TRANSITION', `Session ${s.id} is already archived.`, { hint: 'Nothing to do.' });
  if (s.status === 'active' || s.status === 'interrupted') {
    throw new BatonError(
      'INVALID_TRANSITION',
      `Session ${s.id} is ${s.status}; only a session that is not running can be archived.`,
      {
        hint: hint('session.end-first', { session: s.id }),
      },
    );
  }
  return [...toolkitGuard(s, 'archive', { force: o.force === true }), draft('session.archived', {})];
}

/** Validates the phases of a new session: unique ids, known blockers, no cycles. */
export function validatePhases(phases: PhaseSpec[]): PhaseSpec[] {
  const ids = new Set<string>();
  for (const p of phases) {
    if (ids.has(p.id))
      throw new BatonError('BAD_INPUT', `Phase id ${JSON.stringify(p.id)} appears twice.`, {
        hint: 'Give every phase its own id.',
      });
    ids.add(p.id);
  }
  for (const p of phases) {
    for (const b of p.blockedBy ?? []) {
      if (!ids.has(b))
        throw new BatonError('BAD_INPUT', `Phase ${p.id} is blocked by ${JSON.stringify(b)}, which is not a phase.`, {
          hint: `Phases: ${[...ids].join(', ')}.`,
        });
      if (b === p.id)
        throw new BatonError('BAD_INPUT', `Phase ${p.id} is blocked by itself.`, {
          hint: 'Remove it from its own blockedBy.',
        });
    }
  }
  const byId = new Map(phases.map((p) => [p.id, p]));
  const state = new Map<string, 1 | 2>();
  const visit = (id: string, path: string[]): void => {
    if (state.get(id) === 2) return;
    if (state.get(id) === 1) {
      throw new BatonError('BAD_INPUT', `The phases' blockedBy form a cycle: ${[...path, id].join(' → ')}.`, {
        hint: 'Remove one of the dependencies.',
      });
    }
    state.set(id, 1);
    for (const b of byId.get(id)?.blockedBy ?? []) visit(b, [...path, id]);
    state.set(id, 2);
  };
  for (const p of phases) visit(p.id, []);
  return phases;
}
