import { describe, expect, it } from 'vitest';
import { DEFAULT_MAX_RETRIES } from '../../src/domain/apply.js';
import { decidePhase } from '../../src/domain/decide.js';
import type { PhaseStatus, SessionState } from '../../src/domain/state.js';
import { PHASE_STATUSES } from '../../src/domain/state.js';
import { allowedPhaseActions, phaseTarget } from '../../src/domain/transitions.js';
import type { PhaseAction } from '../../src/domain/transitions.js';
import { commit, phases, refusal, session } from './helpers.js';
import { cliHint } from '../../src/cli/hint-words.js';

const ACTIONS: PhaseAction[] = ['start', 'complete', 'fail', 'skip', 'retry'];

/**
 * The phase state machine as the issue states it, written out independently of
 * PHASE_TRANSITIONS: the event each allowed action produces and the status it leads to;
 * null = refused with INVALID_TRANSITION.
 */
type Cell = { event: string; to: PhaseStatus } | null;
const EXPECTED: Record<PhaseStatus, Record<PhaseAction, Cell>> = {
  pending: {
    start: { event: 'phase.started', to: 'in_progress' },
    complete: null,
    fail: null,
    skip: { event: 'phase.skipped', to: 'skipped' },
    retry: null,
  },
  in_progress: {
    start: null,
    complete: { event: 'phase.completed', to: 'completed' },
    fail: { event: 'phase.failed', to: 'failed' },
    skip: null,
    retry: null,
  },
  completed: { start: null, complete: null, fail: null, skip: null, retry: null },
  failed: {
    start: { event: 'phase.retried', to: 'in_progress' },
    complete: null,
    fail: null,
    // The user's decision once the retries are used up (recorded as from: failed).
    skip: { event: 'phase.skipped', to: 'skipped' },
    retry: { event: 'phase.retried', to: 'in_progress' },
  },
  skipped: { start: null, complete: null, fail: null, skip: null, retry: null },
};

/** Allowed actions per status, for the hint of a refusal. */
const ALLOWED: Record<PhaseStatus, PhaseAction[]> = {
  pending: ['start', 'skip'],
  in_progress: ['complete', 'fail'],
  completed: [],
  failed: ['start', 'retry', 'skip'],
  skipped: [],
};

/** A session whose phase `p` has reached `status` through legal verbs (and an untouched `q`). */
function withPhaseIn(status: PhaseStatus): SessionState {
  let s = session([
    { id: 'p', name: 'Phase P' },
    { id: 'q', name: 'Phase Q' },
  ]);
  const steps: Record<PhaseStatus, PhaseAction[]> = {
    pending: [],
    in_progress: ['start'],
    completed: ['start', 'complete'],
    failed: ['start', 'fail'],
    skipped: ['skip'],
  };
  for (const a of steps[status]) s = commit(s, decidePhase(s, 'p', a, { agent: 'setup' }));
  expect(s.phases[0]!.status).toBe(status);
  return s;
}

describe('phase transition table via decidePhase', () => {
  it('covers exactly the five statuses', () => {
    expect([...PHASE_STATUSES].sort()).toEqual(Object.keys(EXPECTED).sort());
  });

  for (const from of Object.keys(EXPECTED) as PhaseStatus[]) {
    for (const action of ACTIONS) {
      const cell = EXPECTED[from][action];
      if (cell) {
        it(`${from} --${action}--> ${cell.to} (${cell.event})`, () => {
          const s = withPhaseIn(from);
          const before = structuredClone(s);
          const drafts = decidePhase(s, 'p', action, { agent: 'alice', reason: 'why' });
          expect(s).toEqual(before); // deciding does not touch the state
          expect(drafts).toHaveLength(1);
          expect(drafts[0]!.type).toBe(cell.event);
          expect((drafts[0]!.data as { phaseId: string }).phaseId).toBe('p');
          const next = commit(s, drafts);
          expect(next.phases[0]!.status).toBe(cell.to);
          expect(next.phases[1]!.status).toBe('pending');
          expect(next.revision).toBe(s.revision + 1);
        });
      } else {
        it(`${from} --${action}--> refused with INVALID_TRANSITION`, () => {
          const s = withPhaseIn(from);
          const before = structuredClone(s);
          const err = refusal(() => decidePhase(s, 'p', action, { force: true }), 'INVALID_TRANSITION');
          expect(s).toEqual(before);
          expect(err.message).toContain('Phase p');
          expect(err.message).toContain(from);
          expect(err.details).toMatchObject({ phase: 'p', status: from, action });
          expect([...(err.details['allowed'] as string[])].sort()).toEqual([...ALLOWED[from]].sort());
          const allowed = ALLOWED[from];
          if (allowed.length) {
            for (const a of allowed) expect(cliHint(err)).toContain(a);
            // and no action that is refused from here is offered
            for (const a of ACTIONS.filter((x) => !allowed.includes(x)))
              expect(cliHint(err)).not.toMatch(new RegExp(`\\b${a}\\b`));
          } else {
            expect(cliHint(err)).toMatch(/final/);
          }
        });
      }
    }
  }

  it('phaseTarget and allowedPhaseActions agree with the expected table', () => {
    for (const from of Object.keys(EXPECTED) as PhaseStatus[]) {
      for (const action of ACTIONS) expect(phaseTarget(from, action)).toBe(EXPECTED[from][action]?.to);
      expect([...allowedPhaseActions(from)].sort()).toEqual([...ALLOWED[from]].sort());
    }
  });

  it('records the agent, reason and timestamps in the folded phase', () => {
    let s = session([{ id: 'p', name: 'P' }]);
    s = commit(s, decidePhase(s, 'p', 'start', { agent: 'alice' }));
    expect(s.phases[0]).toMatchObject({ status: 'in_progress', agents: ['alice'], startedAt: s.updatedAt });
    s = commit(s, decidePhase(s, 'p', 'fail', { agent: 'alice', reason: 'tests red' }));
    expect(s.phases[0]).toMatchObject({ status: 'failed', failureReason: 'tests red', failedAt: s.updatedAt });
    s = commit(s, decidePhase(s, 'p', 'retry', { agent: 'bob' }));
    expect(s.phases[0]).toMatchObject({
      status: 'in_progress',
      agents: ['alice', 'bob'],
      failedAt: null,
      failureReason: null,
    });
    s = commit(s, decidePhase(s, 'p', 'complete'));
    expect(s.phases[0]).toMatchObject({ status: 'completed', completedAt: s.updatedAt });
    const t = session([{ id: 'x', name: 'X' }]);
    const skipped = commit(t, decidePhase(t, 'x', 'skip', { reason: 'not needed' }));
    expect(skipped.phases[0]).toMatchObject({ status: 'skipped', skipReason: 'not needed' });
  });

  it('finds a phase by exact name as well as by id', () => {
    const s = session([{ id: 'design', name: 'Design the API' }]);
    const drafts = decidePhase(s, 'Design the API', 'start');
    expect(drafts[0]!.data).toMatchObject({ phaseId: 'design' });
  });

  it('refuses an unknown phase with NOT_FOUND listing the phases', () => {
    const s = session([
      { id: 'a', name: 'A' },
      { id: 'b', name: 'B' },
    ]);
    const err = refusal(() => decidePhase(s, 'nope', 'start'), 'NOT_FOUND');
    expect(err.message).toContain('nope');
    expect(cliHint(err)).toContain('a, b');
    const empty = session([]);
    expect(cliHint(refusal(() => decidePhase(empty, 'x', 'start'), 'NOT_FOUND'))).toMatch(/no phases/);
  });
});

describe('retries', () => {
  function failed(maxRetries?: number): SessionState {
    let s = session([{ id: 'p', name: 'P', ...(maxRetries !== undefined ? { maxRetries } : {}) }]);
    s = commit(s, decidePhase(s, 'p', 'start'));
    return commit(s, decidePhase(s, 'p', 'fail'));
  }

  it('defaults maxRetries to 2', () => {
    expect(DEFAULT_MAX_RETRIES).toBe(2);
    expect(session([{ id: 'p', name: 'P' }]).phases[0]).toMatchObject({ maxRetries: 2, retryCount: 0 });
  });

  it('counts retries, allows two and refuses the third with RETRIES_EXHAUSTED', () => {
    let s = failed();
    const r1 = decidePhase(s, 'p', 'retry', { agent: 'a' });
    expect(r1).toEqual([{ type: 'phase.retried', data: { phaseId: 'p', agent: 'a', forced: false, attempt: 1 } }]);
    expect(s.phases[0]!.retryCount).toBe(0); // deciding alone does not count
    s = commit(s, r1);
    expect(s.phases[0]!.retryCount).toBe(1);
    s = commit(s, decidePhase(s, 'p', 'fail'));
    // `start` on a failed phase is a retry too
    const r2 = decidePhase(s, 'p', 'start');
    expect(r2[0]).toMatchObject({ type: 'phase.retried', data: { attempt: 2, forced: false } });
    s = commit(s, r2);
    expect(s.phases[0]!.retryCount).toBe(2);
    s = commit(s, decidePhase(s, 'p', 'fail'));

    for (const action of ['retry', 'start'] as const) {
      const err = refusal(() => decidePhase(s, 'p', action), 'RETRIES_EXHAUSTED');
      expect(err.message).toContain('2 of 2');
      expect(err.details).toMatchObject({ phase: 'p', retryCount: 2, maxRetries: 2 });
      expect(cliHint(err)).toMatch(/--force/);
    }

    const forced = decidePhase(s, 'p', 'retry', { force: true, agent: 'boss' });
    expect(forced).toEqual([
      { type: 'phase.retried', data: { phaseId: 'p', agent: 'boss', forced: true, attempt: 3 } },
    ]);
    s = commit(s, forced);
    expect(s.phases[0]).toMatchObject({ status: 'in_progress', retryCount: 3 });
  });

  it('a first start is not a retry and does not count', () => {
    let s = session([{ id: 'p', name: 'P' }]);
    s = commit(s, decidePhase(s, 'p', 'start'));
    expect(s.phases[0]!.retryCount).toBe(0);
  });

  it('honours a per-phase maxRetries of 0 and of 3', () => {
    const zero = failed(0);
    refusal(() => decidePhase(zero, 'p', 'retry'), 'RETRIES_EXHAUSTED');
    expect(decidePhase(zero, 'p', 'retry', { force: true })[0]!.type).toBe('phase.retried');

    let s = failed(3);
    for (let i = 1; i <= 3; i++) {
      s = commit(s, decidePhase(s, 'p', 'retry'));
      expect(s.phases[0]!.retryCount).toBe(i);
      s = commit(s, decidePhase(s, 'p', 'fail'));
    }
    refusal(() => decidePhase(s, 'p', 'retry'), 'RETRIES_EXHAUSTED');
  });

  it('checks the session is active before counting retries, even when forced', () => {
    let s = failed();
    s = commit(s, [{ type: 'session.paused', data: { cause: 'user' } }]);
    refusal(() => decidePhase(s, 'p', 'retry', { force: true }), 'INVALID_TRANSITION');
  });
});

describe('blockers', () => {
  function plan(): SessionState {
    return session([
      { id: 'a', name: 'A' },
      { id: 'b', name: 'B', blockedBy: ['a'] },
      { id: 'c', name: 'C', blockedBy: ['a', 'b'] },
    ]);
  }

  it('refuses to start a phase whose blockers are pending, in progress or failed', () => {
    let s = plan();
    let err = refusal(() => decidePhase(s, 'b', 'start'), 'BLOCKED');
    expect(err.message).toContain('Phase b');
    expect(err.message).toContain('a');
    expect(err.details).toEqual({ phase: 'b', blockedBy: ['a'] });
    expect(cliHint(err)).toMatch(/--force/);
    err = refusal(() => decidePhase(s, 'c', 'start'), 'BLOCKED');
    expect(err.details).toEqual({ phase: 'c', blockedBy: ['a', 'b'] });

    s = commit(s, decidePhase(s, 'a', 'start'));
    refusal(() => decidePhase(s, 'b', 'start'), 'BLOCKED');
    s = commit(s, decidePhase(s, 'a', 'fail'));
    refusal(() => decidePhase(s, 'b', 'start'), 'BLOCKED');
  });

  it('allows a blocked start with force, marking it forced', () => {
    const s = plan();
    expect(decidePhase(s, 'c', 'start', { force: true })).toEqual([
      { type: 'phase.started', data: { phaseId: 'c', agent: null, forced: true } },
    ]);
  });

  it('allows the start once blockers are completed', () => {
    let s = plan();
    s = commit(s, decidePhase(s, 'a', 'start'));
    s = commit(s, decidePhase(s, 'a', 'complete'));
    expect(decidePhase(s, 'b', 'start')[0]).toMatchObject({ type: 'phase.started', data: { forced: false } });
    // c still waits for b
    expect(refusal(() => decidePhase(s, 'c', 'start'), 'BLOCKED').details['blockedBy']).toEqual(['b']);
  });

  it('allows the start once blockers are skipped (or a mix of completed and skipped)', () => {
    let s = plan();
    s = commit(s, decidePhase(s, 'a', 'skip'));
    expect(decidePhase(s, 'b', 'start')[0]!.type).toBe('phase.started');
    s = commit(s, decidePhase(s, 'b', 'skip'));
    expect(decidePhase(s, 'c', 'start')[0]!.type).toBe('phase.started');
  });

  it('treats a blocker that does not exist as open', () => {
    const s = session([{ id: 'x', name: 'X', blockedBy: ['ghost'] }]);
    expect(refusal(() => decidePhase(s, 'x', 'start'), 'BLOCKED').details['blockedBy']).toEqual(['ghost']);
  });

  it('does not apply blockers to skipping', () => {
    const s = plan();
    expect(decidePhase(s, 'b', 'skip')[0]!.type).toBe('phase.skipped');
  });
});

describe('session status and phase verbs', () => {
  for (const status of ['paused', 'interrupted'] as const) {
    it(`refuses to start a phase in a ${status} session, even with force`, () => {
      let s = session([{ id: 'p', name: 'P' }]);
      s = commit(s, [
        status === 'paused'
          ? { type: 'session.paused', data: { cause: 'user' } }
          : { type: 'session.interrupted', data: { cause: 'lease_expired' } },
      ]);
      expect(s.status).toBe(status);
      for (const force of [false, true]) {
        const err = refusal(() => decidePhase(s, 'p', 'start', { force }), 'INVALID_TRANSITION');
        expect(err.message).toContain(status);
        expect(cliHint(err)).toMatch(/resume/);
        expect(err.details).toMatchObject({ sessionId: 'sess-1', status });
      }
    });
  }

  it('still lets work already in flight be completed or failed in a paused session', () => {
    let s = session(phases('p', 'q'));
    s = commit(s, decidePhase(s, 'p', 'start'));
    s = commit(s, decidePhase(s, 'q', 'start'));
    s = commit(s, [{ type: 'session.paused', data: { cause: 'user' } }]);
    expect(decidePhase(s, 'p', 'complete')[0]!.type).toBe('phase.completed');
    expect(decidePhase(s, 'q', 'fail')[0]!.type).toBe('phase.failed');
  });

  for (const end of ['completed', 'failed', 'abandoned'] as const) {
    it(`refuses every phase verb on a ${end} session`, () => {
      let s = session(phases('p'));
      const type =
        end === 'completed' ? 'session.completed' : end === 'failed' ? 'session.failed' : 'session.abandoned';
      s = commit(s, [{ type, data: {} }]);
      expect(s.status).toBe(end);
      for (const action of ACTIONS) {
        const err = refusal(() => decidePhase(s, 'p', action, { force: true }), 'INVALID_TRANSITION');
        expect(err.message).toContain(end);
      }
    });
  }

  it('refuses every phase verb on an archived session', () => {
    let s = session(phases('p'));
    s = commit(s, [{ type: 'session.paused', data: { cause: 'user' } }]);
    s = commit(s, [{ type: 'session.archived', data: {} }]);
    for (const action of ACTIONS) {
      expect(refusal(() => decidePhase(s, 'p', action, { force: true }), 'INVALID_TRANSITION').message).toMatch(
        /archived/,
      );
    }
  });
});
