/**
 * The coalescing of src/store/postgres/refresh.ts, without a server: what the batches carry
 * (per session the newest revision and the newest row), how far apart they start, and that
 * flush() waits for every noted refresh and skips the pause.
 */
import { describe, expect, it } from 'vitest';
import { Refresher } from '../../src/store/postgres/refresh.js';
import type { RefreshBatch } from '../../src/store/postgres/refresh.js';
import type { SessionSummary } from '../../src/domain/summary.js';

const row = (id: string, title: string): SessionSummary =>
  ({
    id,
    title,
    status: 'active',
    cause: null,
    archived: false,
    createdAt: 't',
    updatedAt: 't',
    revision: 0,
    phasesTotal: 0,
    phasesDone: 0,
    currentPhase: null,
    progress: 0,
  }) as SessionSummary;

describe('Refresher', () => {
  it('coalesces per session: the newest revision, and the newest row with its own revision', async () => {
    const batches: RefreshBatch[] = [];
    const r = new Refresher(async (b) => void batches.push(b), 50);
    r.note('a', 2, row('a', 'first'));
    await r.flush();
    r.note('a', 3, row('a', 'second'));
    r.note('b', 7, null);
    r.note('a', 4, null);
    r.note('b', 6, null); // acknowledged out of order: the higher revision stays
    await r.flush();
    expect(batches).toHaveLength(2);
    expect(batches[0]).toMatchObject({ ids: ['a'], revisions: [2], rowRevisions: [2] });
    const second = batches[1]!;
    expect(second.ids).toEqual(['a', 'b']);
    expect(second.revisions).toEqual([4, 7]);
    expect(second.rowRevisions).toEqual([3, null]);
    expect(JSON.parse(second.rows[0]!)).toMatchObject({ id: 'a', title: 'second', revision: 3 });
    expect(second.rows[1]).toBeNull();
  });

  it('starts the first batch at once and the next no sooner than the spacing; a stream in between shares one batch', async () => {
    const starts: number[] = [];
    const sizes: number[] = [];
    const r = new Refresher(async (b) => {
      starts.push(Date.now());
      sizes.push(b.ids.length);
    }, 40);
    r.note('s0', 1, null);
    await new Promise((res) => setTimeout(res, 5));
    for (let i = 1; i <= 20; i++) r.note(`s${i}`, 1, null);
    await new Promise((res) => setTimeout(res, 120));
    expect(sizes).toEqual([1, 20]);
    expect(starts[1]! - starts[0]!).toBeGreaterThanOrEqual(35);
  });

  it('batches that only notify keep the longer spacing; a row noted during that pause goes out at the row spacing', async () => {
    const starts: number[] = [];
    const withRow: boolean[] = [];
    const r = new Refresher(
      async (b) => {
        starts.push(Date.now());
        withRow.push(b.rows.some((x) => x !== null));
      },
      30,
      300,
    );
    r.note('a', 1, null); // after a quiet spell: at once
    await new Promise((res) => setTimeout(res, 10));
    for (let i = 2; i <= 10; i++) r.note('a', i, null); // a stream of token records
    await new Promise((res) => setTimeout(res, 100));
    // Only notifications pending: nothing yet, 100 ms after the first batch (its spacing is 300 ms).
    expect(starts).toHaveLength(1);
    r.note('b', 4, row('b', 'phase complete')); // a row: due 30 ms after the first batch, so now
    await new Promise((res) => setTimeout(res, 60));
    expect(starts).toHaveLength(2);
    expect(withRow).toEqual([false, true]);
    expect(starts[1]! - starts[0]!).toBeLessThan(250);
    // The next notifications alone wait out the longer spacing again, from the row batch.
    r.note('a', 11, null);
    await new Promise((res) => setTimeout(res, 150));
    expect(starts).toHaveLength(2);
    await new Promise((res) => setTimeout(res, 250));
    expect(starts).toHaveLength(3);
    expect(starts[2]! - starts[1]!).toBeGreaterThanOrEqual(290);
  });

  it('flush() runs what is pending without waiting out the spacing, and survives a failed batch', async () => {
    let calls = 0;
    const r = new Refresher(async () => {
      calls++;
      if (calls === 1) throw new Error('server gone');
    }, 10_000);
    r.note('a', 1, null);
    await new Promise((res) => setTimeout(res, 5));
    r.note('a', 2, null);
    const t0 = Date.now();
    await r.flush();
    expect(calls).toBe(2);
    expect(Date.now() - t0).toBeLessThan(1_000);
  });
});
