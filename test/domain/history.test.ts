/**
 * The history folded with the state (domain/history.ts), which the dashboard's session page
 * shows without reading the journal: one attempt per start or retry, closed by completion,
 * failure, a skip or a restore; sub-steps and errors on the attempt in flight; event counts;
 * and a token trail that stays within 512 points however long the session, each point exact,
 * the same whether folded at once or from a snapshot (JSON) and the events after it.
 */
import { describe, expect, it } from 'vitest';
import { fold } from '../../src/domain/apply.js';
import type { StoredEvent } from '../../src/domain/events.js';
import { TRAIL_POINTS, tokenSeries } from '../../src/domain/history.js';
import type { SessionHistory } from '../../src/domain/history.js';
import { BUILTIN_PRICING, costOf, priceOf } from '../../src/domain/spend/pricing.js';
import type { SessionState } from '../../src/domain/state.js';
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

function historyOf(events: StoredEvent[]): SessionHistory {
  return (fold(null, events) as SessionState).history!;
}

function tokens(n: number, from: number): StoredEvent[] {
  return Array.from({ length: n }, (_, k) => {
    const i = from + k;
    return ev(
      'tokens.recorded',
      {
        agent: i % 4 === 0 ? 'ann' : 'ben',
        phaseId: i % 2 ? 'p' : null,
        input: (i * 37) % 101,
        output: i % 13,
        cached: 5,
        model: i % 5 === 0 ? 'claude-sonnet-4-5' : null,
      },
      i + 2,
    );
  });
}

describe('the history folded with the state', () => {
  it('has one attempt per start and retry, with outcome, agent, reason, sub-steps and errors', () => {
    const h = historyOf(journal());
    expect(h.attempts.map((a) => [a.phaseId, a.attempt, a.outcome, a.agent, a.reason])).toEqual([
      ['a', 1, 'failed', 'ann', 'broke'],
      ['a', 2, 'completed', 'ben', null],
      ['c', 1, 'skipped', null, 'not needed'],
      ['b', 1, 'running', 'ann', null],
    ]);
    expect(h.attempts[0]!.substeps.map((s) => s.name)).toEqual(['one']);
    expect(h.attempts[0]!.errors).toEqual(['err-1']);
    expect(h.attempts[1]!.substeps.map((s) => s.name)).toEqual(['two']);
    expect(h.attempts[3]!.endedAt).toBeNull();
    expect(h.types).toEqual({
      'session.created': 1,
      'phase.started': 2,
      'substep.reached': 2,
      'error.recorded': 1,
      'phase.failed': 1,
      'phase.retried': 1,
      'phase.completed': 1,
      'phase.skipped': 1,
    });
    expect(h.agents).toEqual({ ann: 4, ben: 2 });
  });

  it('closes attempts in flight when a checkpoint is restored, and keeps its history through the restore', () => {
    const e = journal();
    const restore = {
      ...ev('phase.started', { phaseId: 'x', agent: null, forced: false }, e.length + 1),
      type: 'checkpoint.restored',
      data: { checkpointId: 'cp-1', name: 'n', revision: 3, state: null, supersedes: [], git: null },
    } as unknown as StoredEvent;
    const h = historyOf([...e, restore]);
    expect(h.attempts.at(-1)).toMatchObject({ phaseId: 'b', outcome: 'superseded', reason: 'checkpoint restored' });
    expect(h.attempts).toHaveLength(4);
    expect(h.types['checkpoint.restored']).toBe(1);
  });

  it('keeps at most 512 exact, evenly spaced token points, the same from a snapshot as from a replay', () => {
    const n = 30_000;
    const e = [created([{ id: 'p', name: 'p' }]), ...tokens(n, 0)];
    const whole = fold(null, e) as SessionState;
    const t = whole.history!.tokens;
    expect(t.points.length).toBeLessThan(TRAIL_POINTS);
    expect(t.points.length).toBeGreaterThan(TRAIL_POINTS / 2 - 1);
    // Each point is the running sum at its record, and the points are `stride` records apart.
    let used = 0;
    const running: number[] = [];
    for (const x of e.slice(1)) {
      const d = x.data as { input: number; output: number };
      running.push((used += d.input + d.output));
    }
    t.points.forEach((p, k) => {
      expect(p.n).toBe((k + 1) * t.stride);
      expect(p.used).toBe(running[p.n - 1]);
    });
    expect(t.last!.used).toBe(running.at(-1));
    // Folded from a snapshot written at any revision (JSON, as stores keep it), then the rest.
    for (const cut of [1, 2, 513, 777, 20_001]) {
      const snap = JSON.parse(JSON.stringify(fold(null, e.slice(0, cut)))) as SessionState;
      expect(fold(snap, e.slice(cut))).toEqual(whole);
    }
  });

  it('draws a series of at most the points asked, ending at the total, priced now', () => {
    const e = [created([{ id: 'p', name: 'p' }]), ...tokens(1000, 0)];
    const h = historyOf(e);
    const s = tokenSeries(h.tokens, BUILTIN_PRICING, 25);
    expect(s.time.length).toBeLessThanOrEqual(25);
    expect(s.records).toBe(1000);
    const records = e
      .slice(1)
      .map((x) => x.data as { input: number; output: number; cached: number; model: string | null });
    const total = records.reduce((a, r) => a + r.input + r.output, 0);
    expect(s.total.at(-1)).toBe(total);
    expect(s.byAgent['ann']!.at(-1)! + s.byAgent['ben']!.at(-1)!).toBe(total);
    for (let k = 1; k < s.total.length; k++) expect(s.total[k]!).toBeGreaterThanOrEqual(s.total[k - 1]!);
    const price = priceOf(BUILTIN_PRICING, 'claude-sonnet-4-5')!;
    const usd = records.filter((r) => r.model).reduce((a, r) => a + costOf(r, price), 0);
    expect(s.usd!.at(-1)!).toBeCloseTo(usd, 5);
    expect(tokenSeries(h.tokens, {}, 25).usd).toBeNull();
    expect(tokenSeries(h.tokens, BUILTIN_PRICING, 10_000).time.length).toBeLessThanOrEqual(TRAIL_POINTS);
    expect(tokenSeries(historyOf(e.slice(0, 1)).tokens, BUILTIN_PRICING).time).toEqual([]);
  });
});
