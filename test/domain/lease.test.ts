/** Leases, fencing and expiry as pure functions of state and time. */
import { describe, expect, it } from 'vitest';
import {
  decideAcquire,
  decideRelease,
  decideRenew,
  effectiveStatus,
  expiryEvents,
  assertFence,
  leaseOf,
} from '../../src/domain/runs/lease.js';
import { decideSession } from '../../src/domain/decide.js';
import type { SessionState } from '../../src/domain/state.js';
import { at, commit, phases, refusal, session } from './helpers.js';
import { cliHint } from '../../src/cli/hint-words.js';

const req = (owner: string, now: string, pid = 100) => ({ owner, pid, host: 'h', ttlMs: 60_000, now });
const plus = (iso: string, ms: number): string => new Date(Date.parse(iso) + ms).toISOString();

function leased(owner = 'w1'): SessionState {
  return commit(session(phases('build')), decideAcquire(session(phases('build')), req(owner, at(1))));
}

describe('leases', () => {
  it('the first lease gets token 1 and expires ttl after the request', () => {
    const s = leased();
    expect(leaseOf(s)).toMatchObject({ owner: 'w1', pid: 100, host: 'h', token: 1, expiresAt: plus(at(1), 60_000) });
    expect(s.leaseToken).toBe(1);
  });

  it('another owner is refused with LOCKED while the lease is valid; force takes it over with the next token', () => {
    const s = leased();
    const e = refusal(() => decideAcquire(s, req('w2', at(10), 200)), 'LOCKED');
    expect(e.message).toContain('w1');
    expect(cliHint(e)).toContain('--force');
    const forced = commit(s, decideAcquire(s, req('w2', at(10), 200), true));
    expect(leaseOf(forced)).toMatchObject({ owner: 'w2', token: 2 });
  });

  it('the same owner and pid re-acquiring renews instead', () => {
    const s = leased();
    const drafts = decideAcquire(s, req('w1', at(20)));
    expect(drafts.map((d) => d.type)).toEqual(['lease.renewed']);
    expect(leaseOf(commit(s, drafts))!.expiresAt).toBe(plus(at(20), 60_000));
  });

  it('an expired lease is taken over: the expiry and the interruption are recorded first', () => {
    const s = leased();
    const later = plus(at(1), 61_000);
    const drafts = decideAcquire(s, req('w2', later, 200));
    expect(drafts.map((d) => d.type)).toEqual(['lease.expired', 'session.interrupted', 'lease.acquired']);
    const next = commit(s, drafts);
    expect(leaseOf(next)).toMatchObject({ owner: 'w2', token: 2 });
    expect(next.status).toBe('interrupted');
    expect(next.statusCause?.cause).toBe('lease-expired');
  });

  it('effectiveStatus: active with an expired lease reads as interrupted (lease-expired) with what was in flight', () => {
    let s = leased();
    s = commit(s, [{ type: 'phase.started', data: { phaseId: 'build', agent: 'w1', forced: false } }]);
    s = commit(s, [{ type: 'substep.reached', data: { phaseId: 'build', name: 'compile' } }]);
    expect(effectiveStatus(s, at(30)).status).toBe('active');
    const eff = effectiveStatus(s, plus(at(1), 60_000));
    expect(eff.status).toBe('interrupted');
    expect(eff.cause).toEqual({
      cause: 'lease-expired',
      at: plus(at(1), 60_000),
      detail: 'held by w1 (pid 100 on h); in flight: build (sub-step: compile)',
    });
    expect(expiryEvents(s, at(30))).toEqual([]);
  });

  it('a paused session with an expired lease stays paused; only the lease expiry is recorded', () => {
    let s = leased();
    s = commit(s, decideSession(s, 'pause'));
    expect(effectiveStatus(s, plus(at(1), 120_000)).status).toBe('paused');
    expect(expiryEvents(s, plus(at(1), 120_000)).map((d) => d.type)).toEqual(['lease.expired']);
  });
});

describe('fencing', () => {
  it('writes without a token are not fenced; the current token passes', () => {
    const s = leased();
    expect(() => assertFence(s, undefined, at(5))).not.toThrow();
    expect(() => assertFence(s, 1, at(5))).not.toThrow();
  });

  it('an older token, an unissued token, an expired lease and a released lease are FENCED', () => {
    const s = leased();
    const taken = commit(s, decideAcquire(s, req('w2', at(5), 200), true));
    expect(refusal(() => assertFence(taken, 1, at(6)), 'FENCED').message).toContain('w2 holds token 2');
    refusal(() => assertFence(taken, 7, at(6)), 'FENCED');
    refusal(() => assertFence(taken, 2, plus(at(5), 60_000)), 'FENCED');
    const released = commit(taken, decideRelease(taken, 2, at(7)));
    expect(leaseOf(released)).toBeNull();
    refusal(() => assertFence(released, 2, at(8)), 'FENCED');
  });

  it('renewal extends the lease; a lost lease cannot be renewed', () => {
    const s = leased();
    const renewed = commit(s, decideRenew(s, 1, 60_000, at(40)));
    expect(leaseOf(renewed)!.expiresAt).toBe(plus(at(40), 60_000));
    refusal(() => decideRenew(renewed, 1, 60_000, plus(at(40), 61_000)), 'FENCED');
  });

  it('a lease of no time is BAD_INPUT; a finished session takes no lease', () => {
    const s = session(phases('a'));
    refusal(() => decideAcquire(s, { ...req('w', at(1)), ttlMs: 0 }), 'BAD_INPUT');
    const done = commit(s, decideSession(s, 'complete', null, 'user', { force: true }));
    refusal(() => decideAcquire(done, req('w', at(2))), 'INVALID_TRANSITION');
  });
});
