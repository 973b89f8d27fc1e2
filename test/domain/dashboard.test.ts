/**
 * The dashboard's fold of a journal (domain/dashboard.ts): one attempt per start or retry,
 * closed by completion, failure, a skip or a restore; sub-steps and errors on the attempt in
 * flight; token series sampled without losing exactness (every point a true running sum, the
 * last one the total), fed incrementally with the same result as all at once.
 */
import { describe, expect, it } from 'vitest';
import { addEvents, emptyTimeline, tokenSeries } from '../../src/domain/dashboard.js';
import type { StoredEvent } from '../../src/domain/events.js';
import { BUILTIN_PRICING } from '../../src/domain/pricing.js';
import { created, ev } from './helpers.js';

function journal(): StoredEvent[] {
  let seq = 1;
  const e: StoredEvent[] = [
    created([
      { id: 'a', name: 'a' },
      { id: 'b', name: 'b' },
      { id: 'c', name: 'c' },
    ]),
  ];
  const next = <T extends StoredEvent['type']>(type: T, data: Parameters<typeof ev<T>>[1]): void =>
    void e.push(ev(type, data, ++seq));
  next('phase.started', { phaseId: 'a', agent: 'ann', forced: false });
  next('substep.reached', { phaseId: 'a', name: 'one' });
  next('error.recorded', { errorId: 'err-1', phaseId: 'a', agent: 'ann', type: 'runtime', message: 'x' });
  next('phase.failed', { phaseId: 'a', agent: 'ann', reason: 'broke' });
  next('phase.retried', { phaseId: 'a', agent: 'ben', forced: false, attempt: 2 });
  next('substep.reached', { phaseId: 'a', name: 'two' });
  next('phase.completed', { phaseId: 'a', agent: 'ben' });
  next('phase.skipped', { phaseId: 'c', reason: 'not needed' });
  next('phase.started', { phaseId: 'b', agent: 'ann', forced: false });
  return e;
}

describe('the dashboard timeline of a journal', () => {
  it('has one attempt per start and retry, with outcome, agent, reason, sub-steps and errors', () => {
    const t = addEvents(emptyTimeline(), journal(), BUILTIN_PRICING);
    expect(t.attempts.map((a) => [a.phaseId, a.attempt, a.outcome, a.agent, a.reason])).toEqual([
      ['a', 1, 'failed', 'ann', 'broke'],
      ['a', 2, 'completed', 'ben', null],
      ['c', 1, 'skipped', null, 'not needed'],
      ['b', 1, 'running', 'ann', null],
    ]);
    expect(t.attempts[0]!.substeps.map((s) => s.name)).toEqual(['one']);
    expect(t.attempts[0]!.errors).toEqual(['err-1']);
    expect(t.attempts[1]!.substeps.map((s) => s.name)).toEqual(['two']);
    expect(t.attempts[3]!.endedAt).toBeNull();
    expect(t.types['phase.started']).toBe(2);
    expect(t.agents).toEqual({ ann: 4, ben: 2 });
  });

  it('closes attempts in flight when a checkpoint is restored, and ignores events it already has', () => {
    const e = journal();
    const t = addEvents(emptyTimeline(), e, BUILTIN_PRICING);
    const restore = {
      ...ev('phase.started', { phaseId: 'x', agent: null, forced: false }, e.length + 1),
      type: 'checkpoint.restored',
      data: { checkpointId: 'cp-1', name: 'n', revision: 3, state: null, supersedes: [], git: null },
    } as unknown as StoredEvent;
    addEvents(t, [...e, restore], BUILTIN_PRICING);
    expect(t.attempts.at(-1)).toMatchObject({ phaseId: 'b', outcome: 'superseded', reason: 'checkpoint restored' });
    expect(t.attempts).toHaveLength(4);
    expect(t.revision).toBe(e.length + 1);
  });

  it('samples token series exactly: each point a running sum, the last the total; fed in parts or at once alike', () => {
    const e: StoredEvent[] = [created([{ id: 'p', name: 'p' }])];
    let expected = 0;
    for (let i = 0; i < 1000; i++) {
      const input = (i * 37) % 101;
      const output = i % 13;
      expected += input + output;
      e.push(
        ev(
          'tokens.recorded',
          {
            agent: i % 4 === 0 ? 'ann' : 'ben',
            phaseId: i % 2 ? 'p' : null,
            input,
            output,
            cached: 5,
            model: i % 5 === 0 ? 'claude-sonnet-4-5' : null,
          },
          i + 2,
        ),
      );
    }
    const whole = addEvents(emptyTimeline(), e, BUILTIN_PRICING);
    const parts = emptyTimeline();
    for (let i = 0; i < e.length; i += 97) addEvents(parts, e.slice(i, i + 97), BUILTIN_PRICING);
    expect(tokenSeries(parts, 25)).toEqual(tokenSeries(whole, 25));
    const s = tokenSeries(whole, 25);
    expect(s.time.length).toBeLessThanOrEqual(25);
    expect(s.records).toBe(1000);
    expect(s.total.at(-1)).toBe(expected);
    expect(s.byAgent['ann']!.at(-1)! + s.byAgent['ben']!.at(-1)!).toBe(expected);
    // Each sampled point equals the running sum at its record.
    const full = tokenSeries(whole, 10_000);
    expect(full.time).toHaveLength(1000);
    for (let k = 0; k < s.time.length; k++) {
      const i = full.time.lastIndexOf(s.time[k]!);
      expect(s.total[k]).toBe(full.total[i]);
    }
    for (let k = 1; k < s.total.length; k++) expect(s.total[k]!).toBeGreaterThanOrEqual(s.total[k - 1]!);
    expect(s.usd!.at(-1)!).toBeGreaterThan(0);
    expect(tokenSeries(addEvents(emptyTimeline(), e.slice(0, 1), BUILTIN_PRICING)).time).toEqual([]);
  });
});
