/** Phase leases as pure functions of state and time: exclusion with the session lease, one run per phase, fencing per phase. */
import { describe, expect, it } from 'vitest';
import { assertFence, decideAcquire } from '../../src/domain/runs/lease.js';
import { decidePhaseRunStart } from '../../src/domain/runs/phase-lease.js';
import { decideRunDeath } from '../../src/domain/runs/runs.js';
import type { SessionState } from '../../src/domain/state.js';
import { at, commit, phases, refusal, session } from './helpers.js';

const plus = (iso: string, ms: number): string => new Date(Date.parse(iso) + ms).toISOString();
const start = (runId: string, pid: number) => ({
  runId,
  kind: 'command' as const,
  agent: runId,
  process: { pid, host: 'h', boot: null },
  ttlMs: 60_000,
  now: at(1),
});

/** Runs run-1 on build and run-2 on docs, each holding its phase's lease; their tokens. */
function twoPhaseRuns(): { s: SessionState; t1: number; t2: number } {
  let s = session(phases('build', 'docs', 'test'));
  const a = decidePhaseRunStart(s, start('run-1', 11), 'build', { now: at(1) });
  s = commit(s, a.events);
  const b = decidePhaseRunStart(s, start('run-2', 12), 'docs', { now: at(1) });
  s = commit(s, b.events);
  return { s, t1: a.token, t2: b.token };
}

describe('phase leases', () => {
  it('two runs lease two phases: each owns its phase with its own token from the session series', () => {
    const { s, t1, t2 } = twoPhaseRuns();
    expect([t1, t2]).toEqual([1, 2]);
    expect(s.leaseToken).toBe(2);
    expect(s.phases.map((p) => [p.id, p.status, p.owner ?? null])).toEqual([
      ['build', 'in_progress', 'run-1'],
      ['docs', 'in_progress', 'run-2'],
      ['test', 'pending', null],
    ]);
    // Both write: neither fences the other.
    expect(() => assertFence(s, t1, at(2))).not.toThrow();
    expect(() => assertFence(s, t2, at(2))).not.toThrow();
  });

  it('a second run on a leased phase is LOCKED naming the holder; the session lease is LOCKED while phase leases live', () => {
    const { s } = twoPhaseRuns();
    const same = refusal(() => decidePhaseRunStart(s, start('run-3', 13), 'build', { now: at(2) }), 'LOCKED');
    expect(same.message).toContain('(run-1, pid 11 on h)');
    const whole = refusal(
      () => decideAcquire(s, { owner: 'w', pid: 20, host: 'h', ttlMs: 60_000, now: at(2) }),
      'LOCKED',
    );
    expect(whole.message).toMatch(/2 runs hold a lease on phase build .*phase docs/);
    // Once both lapsed (no renewal within the TTL), the session lease is free.
    expect(() =>
      decideAcquire(s, { owner: 'w', pid: 20, host: 'h', ttlMs: 60_000, now: plus(at(1), 61_000) }),
    ).not.toThrow();
  });

  it('a phase lease is LOCKED while the session lease is held', () => {
    let s = session(phases('build'));
    s = commit(s, decideAcquire(s, { owner: 'whole', pid: 30, host: 'h', ttlMs: 60_000, now: at(1) }));
    const e = refusal(() => decidePhaseRunStart(s, start('run-1', 11), 'build', { now: at(2) }), 'LOCKED');
    expect(e.message).toContain('held whole by whole (pid 30 on h)');
  });

  it('fenced per phase: a dead run whose phase was taken over is FENCED, the other phase writes on', () => {
    const { s, t1, t2 } = twoPhaseRuns();
    const dead = commit(s, decideRunDeath(s, 'run-1', 'process-gone', null, { now: at(3), dead: new Set(['run-1']) }));
    const next = decidePhaseRunStart(dead, start('run-3', 13), 'build', { now: at(4) });
    const taken = commit(dead, next.events);
    expect(next.token).toBe(3);
    expect(taken.phases.find((p) => p.id === 'build')?.owner).toBe('run-3');
    expect(refusal(() => assertFence(taken, t1, at(5)), 'FENCED').message).toContain('phase build');
    expect(() => assertFence(taken, t2, at(5))).not.toThrow();
    expect(() => assertFence(taken, next.token, at(5))).not.toThrow();
    // A lapsed phase lease is FENCED too.
    expect(refusal(() => assertFence(taken, t2, plus(at(1), 61_000)), 'FENCED').message).toContain('lapsed');
  });
});
