import { describe, expect, it } from 'vitest';
import {
  assertWritable,
  decideArchive,
  decideError,
  decideFiles,
  decidePhase,
  decideResolve,
  decideSession,
  decideSubstep,
  decideTokens,
} from '../../src/domain/decide.js';
import { decideBudgetPolicy } from '../../src/domain/spend/budget-policy.js';
import type { EventDraft } from '../../src/domain/decide.js';
import {
  decideArtifact,
  decideContext,
  decideDecision,
  decideFinding,
  decideFindingRemove,
  decideMilestone,
  decideMilestoneDone,
  decideNote,
} from '../../src/domain/decide-records.js';
import type { SessionState, SessionStatus } from '../../src/domain/state.js';
import { FINAL_STATUSES, SESSION_STATUSES } from '../../src/domain/state.js';
import { sessionTarget } from '../../src/domain/transitions.js';
import type { SessionAction } from '../../src/domain/transitions.js';
import { commit, phases, refusal, session } from './helpers.js';
import { cliHint } from '../../src/cli/hint-words.js';

const ACTIONS: SessionAction[] = ['pause', 'resume', 'complete', 'fail', 'abandon', 'interrupt'];

/** The session lifecycle, written out independently: allowed action → resulting status. */
const EXPECTED: Record<SessionStatus, Partial<Record<SessionAction, SessionStatus>>> = {
  active: { pause: 'paused', complete: 'completed', fail: 'failed', abandon: 'abandoned', interrupt: 'interrupted' },
  paused: { resume: 'active', complete: 'completed', fail: 'failed', abandon: 'abandoned' },
  interrupted: { resume: 'active', pause: 'paused', complete: 'completed', fail: 'failed', abandon: 'abandoned' },
  completed: {},
  failed: { resume: 'active', abandon: 'abandoned' },
  abandoned: {},
};

const EVENT_OF: Record<SessionAction, string> = {
  pause: 'session.paused',
  resume: 'session.resumed',
  complete: 'session.completed',
  fail: 'session.failed',
  abandon: 'session.abandoned',
  interrupt: 'session.interrupted',
};

/** How to reach each status from a fresh (active) session. */
const PATH: Record<SessionStatus, EventDraft[]> = {
  active: [],
  paused: [{ type: 'session.paused', data: { cause: 'user', detail: null } }],
  interrupted: [{ type: 'session.interrupted', data: { cause: 'lease_expired', detail: 'pid 7 vanished' } }],
  completed: [{ type: 'session.completed', data: { detail: null } }],
  failed: [{ type: 'session.failed', data: { detail: 'boom' } }],
  abandoned: [{ type: 'session.abandoned', data: { detail: null } }],
};

function inStatus(status: SessionStatus): SessionState {
  // Its one phase is skipped, so completing the session is not refused for unfinished work.
  const fresh = session(phases('p'));
  const s = commit(commit(fresh, decidePhase(fresh, 'p', 'skip')), PATH[status]);
  expect(s.status).toBe(status);
  return s;
}

describe('session lifecycle via decideSession', () => {
  it('covers exactly the six statuses', () => {
    expect([...SESSION_STATUSES].sort()).toEqual(Object.keys(EXPECTED).sort());
    expect([...FINAL_STATUSES].sort()).toEqual(['abandoned', 'completed', 'failed']);
  });

  for (const from of Object.keys(EXPECTED) as SessionStatus[]) {
    for (const action of ACTIONS) {
      const to = EXPECTED[from][action];
      if (to) {
        it(`${from} --${action}--> ${to}`, () => {
          const s = inStatus(from);
          const drafts = decideSession(s, action, 'some detail', 'signal');
          expect(drafts).toHaveLength(1);
          expect(drafts[0]!.type).toBe(EVENT_OF[action]);
          const next = commit(s, drafts);
          expect(next.status).toBe(to);
          expect(next.archived).toBe(false);
          if (to === 'active') {
            expect(drafts[0]!.data).toEqual({ from });
            expect(next.statusCause).toBeNull();
          } else if (action === 'pause' || action === 'interrupt') {
            expect(drafts[0]!.data).toEqual({ cause: 'signal', detail: 'some detail' });
            expect(next.statusCause).toEqual({ cause: 'signal', at: next.updatedAt, detail: 'some detail' });
          } else {
            expect(drafts[0]!.data).toEqual({ detail: 'some detail' });
            expect(next.statusCause).toEqual({ cause: to, at: next.updatedAt, detail: 'some detail' });
          }
        });
      } else {
        it(`${from} --${action}--> refused`, () => {
          const s = inStatus(from);
          const err = refusal(() => decideSession(s, action), 'INVALID_TRANSITION');
          expect(err.message).toContain(`Session sess-1 is ${from}`);
          expect(err.message).toContain(action);
          expect(err.details).toEqual({ sessionId: 'sess-1', status: from, action });
          if (from === 'active' && action === 'resume') expect(cliHint(err)).toMatch(/already active/);
          else expect(cliHint(err)).toContain('baton status');
        });
      }
    }
  }

  it('sessionTarget agrees with the expected table', () => {
    for (const from of Object.keys(EXPECTED) as SessionStatus[]) {
      for (const action of ACTIONS) expect(sessionTarget(from, action)).toBe(EXPECTED[from][action]);
    }
  });

  it('defaults the cause of a pause to "user" and the detail to null', () => {
    const s = session();
    expect(decideSession(s, 'pause')).toEqual([{ type: 'session.paused', data: { cause: 'user', detail: null } }]);
  });

  it('refuses every lifecycle verb on an archived session, whatever its status', () => {
    for (const status of ['paused', 'completed', 'failed', 'abandoned'] as const) {
      const s = commit(inStatus(status), [{ type: 'session.archived', data: {} }]);
      expect(s.archived).toBe(true);
      expect(s.status).toBe(status);
      for (const action of ACTIONS) {
        expect(refusal(() => decideSession(s, action), 'INVALID_TRANSITION').message).toMatch(/archived/);
      }
    }
  });
});

describe('archiving', () => {
  for (const status of ['paused', 'completed', 'failed', 'abandoned'] as const) {
    it(`archives a ${status} session`, () => {
      const s = inStatus(status);
      const drafts = decideArchive(s);
      expect(drafts).toEqual([{ type: 'session.archived', data: {} }]);
      const next = commit(s, drafts);
      expect(next.archived).toBe(true);
      expect(next.status).toBe(status);
    });
  }

  for (const status of ['active', 'interrupted'] as const) {
    it(`refuses to archive a ${status} session`, () => {
      const err = refusal(() => decideArchive(inStatus(status)), 'INVALID_TRANSITION');
      expect(err.message).toContain(status);
      expect(cliHint(err)).toMatch(/Complete, pause or abandon/);
    });
  }

  it('refuses to archive twice', () => {
    const s = commit(inStatus('completed'), [{ type: 'session.archived', data: {} }]);
    expect(refusal(() => decideArchive(s), 'INVALID_TRANSITION').message).toMatch(/already archived/);
  });
});

describe('completing a session with unfinished phases', () => {
  it('is BLOCKED, naming each unfinished phase and its status, with both ways out', () => {
    let s = session(phases('a', 'b', 'c', 'd'));
    s = commit(s, decidePhase(s, 'a', 'start'));
    s = commit(s, decidePhase(s, 'a', 'complete'));
    s = commit(s, decidePhase(s, 'b', 'skip'));
    s = commit(s, decidePhase(s, 'c', 'start'));
    const err = refusal(() => decideSession(s, 'complete'), 'BLOCKED');
    expect(err.message).toBe('Session sess-1 has unfinished phases: c (in progress), d (pending).');
    expect(err.details).toEqual({
      sessionId: 'sess-1',
      unfinished: [
        { id: 'c', status: 'in_progress' },
        { id: 'd', status: 'pending' },
      ],
    });
    expect(cliHint(err)).toBe(
      'Finish or skip them first (`baton phase complete|skip <phase> --session sess-1`), or run `baton complete --force --session sess-1` to complete it anyway, recording c, d as left unfinished.',
    );
  });

  it('with force, completes and records the phases left unfinished, in the event and the status cause', () => {
    let s = session(phases('a', 'b'));
    s = commit(s, decidePhase(s, 'a', 'start'));
    const drafts = decideSession(s, 'complete', 'shipped early', 'user', { force: true });
    expect(drafts).toEqual([{ type: 'session.completed', data: { detail: 'shipped early', unfinished: ['a', 'b'] } }]);
    const done = commit(s, drafts);
    expect(done.status).toBe('completed');
    expect(done.statusCause?.detail).toBe('shipped early (left unfinished: a, b)');
    expect(commit(s, decideSession(s, 'complete', null, 'user', { force: true })).statusCause?.detail).toBe(
      'left unfinished: a, b',
    );
  });

  it('a session whose phases are all completed or skipped (or that has none) completes without force, recording nothing extra', () => {
    expect(decideSession(session(), 'complete')).toEqual([{ type: 'session.completed', data: { detail: null } }]);
  });
});

describe('writes refused on ended or archived sessions', () => {
  /** A session with an in-progress phase, an error, a finding and a milestone, then ended. */
  function ended(how: 'completed' | 'failed' | 'abandoned' | 'archived'): SessionState {
    let s = session(phases('p', 'q'));
    s = commit(s, decidePhase(s, 'p', 'start'));
    s = commit(s, decideError(s, { phase: 'p', type: 'test', message: 'red' }).events);
    s = commit(s, decideFinding(s, { text: 'f' }).events);
    s = commit(s, decideMilestone(s, { title: 'm' }).events);
    if (how === 'archived') {
      s = commit(s, decideSession(s, 'pause'));
      s = commit(s, decideArchive(s));
    } else {
      s = commit(
        s,
        decideSession(s, how === 'completed' ? 'complete' : how === 'failed' ? 'fail' : 'abandon', null, 'user', {
          force: true,
        }),
      );
    }
    return s;
  }

  const writes: Array<[string, (s: SessionState) => unknown]> = [
    ['phase start', (s) => decidePhase(s, 'q', 'start', { force: true })],
    ['phase complete', (s) => decidePhase(s, 'p', 'complete')],
    ['phase fail', (s) => decidePhase(s, 'p', 'fail')],
    ['phase skip', (s) => decidePhase(s, 'q', 'skip')],
    ['substep', (s) => decideSubstep(s, 'p', 'step 1')],
    ['files', (s) => decideFiles(s, 'created', [{ path: 'a.ts', sha256: null, size: null }], null, null)],
    ['error add', (s) => decideError(s, { phase: 'p', type: 't', message: 'm' })],
    ['error resolve', (s) => decideResolve(s, 'err-1', 'fixed')],
    ['tokens', (s) => decideTokens(s, { agent: 'a', input: 1 })],
    ['budget', (s) => decideBudgetPolicy(s, { tokens: 100 })],
    ['decision', (s) => decideDecision(s, { title: 't', choice: 'c' })],
    ['finding add', (s) => decideFinding(s, { text: 'x' })],
    ['finding remove', (s) => decideFindingRemove(s, 'fnd-1')],
    ['note', (s) => decideNote(s, { text: 'n' })],
    ['milestone add', (s) => decideMilestone(s, { title: 'm2' })],
    ['milestone done', (s) => decideMilestoneDone(s, 'ms-1')],
    ['artifact', (s) => decideArtifact(s, { path: 'out.md' })],
    ['context', (s) => decideContext(s, 'summary')],
  ];

  it('the same writes are accepted while the session is active (control)', () => {
    let s = session(phases('p', 'q'));
    s = commit(s, decidePhase(s, 'p', 'start'));
    s = commit(s, decideError(s, { phase: 'p', type: 'test', message: 'red' }).events);
    s = commit(s, decideFinding(s, { text: 'f' }).events);
    s = commit(s, decideMilestone(s, { title: 'm' }).events);
    for (const [, fn] of writes) expect(() => fn(s)).not.toThrow();
  });

  for (const how of ['completed', 'failed', 'abandoned', 'archived'] as const) {
    it(`refuses every write on a ${how} session with INVALID_TRANSITION`, () => {
      const s = ended(how);
      expect(() => assertWritable(s)).toThrow();
      for (const [name, fn] of writes) {
        const err = refusal(() => fn(s), 'INVALID_TRANSITION');
        expect(err.message, name).toContain('takes no more changes');
        expect(err.message, name).toContain(how);
      }
    });
  }

  it('points a failed session at resume, and an ended one at a new session', () => {
    expect(cliHint(refusal(() => assertWritable(ended('failed'))))).toMatch(/baton resume --apply --session sess-1/);
    expect(cliHint(refusal(() => assertWritable(ended('completed'))))).toMatch(/baton start/);
    expect(cliHint(refusal(() => assertWritable(ended('archived'))))).toMatch(/baton start/);
  });

  it('accepts writes on paused and interrupted sessions', () => {
    for (const status of ['paused', 'interrupted'] as const) {
      const s = inStatus(status);
      expect(() => assertWritable(s)).not.toThrow();
      expect(decideNote(s, { text: 'still here' }).events).toHaveLength(1);
    }
  });
});
