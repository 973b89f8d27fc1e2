/**
 * No lost update, for real: 8 concurrent writers, each a loop of 15 separate `baton tokens
 * add` processes on one session, all started at once.
 */
import { describe, expect, it } from 'vitest';
import { withSession } from './helpers.js';
import type { Result } from './helpers.js';

const WRITERS = 8;
// 8 writers keep the lock contended; 15 separate processes each are enough to lose an
// update if one could be lost (every run is a full read-check-append under the lock).
const RUNS = 15;

describe('no lost update', () => {
  it(`${WRITERS} processes × ${RUNS} \`baton tokens add --input 1\` → exactly ${WRITERS * RUNS} input tokens, contiguous seq`, async () => {
    const ws = await withSession('race');
    const failures: Array<{ writer: number; run: number; r: Result }> = [];
    const writer = async (w: number): Promise<void> => {
      for (let i = 0; i < RUNS; i++) {
        const r = await ws.run(['tokens', 'add', '--agent', `w${w}`, '--input', '1'], { spawn: true });
        if (r.code !== 0) failures.push({ writer: w, run: i, r });
      }
    };
    await Promise.all(Array.from({ length: WRITERS }, (_, w) => writer(w)));
    expect(failures.map((f) => `w${f.writer}#${f.run}: exit ${f.r.code}: ${f.r.stderr}`)).toEqual([]);

    const s = await ws.status();
    expect(s.tokens.input).toBe(WRITERS * RUNS);
    expect(s.tokens.output).toBe(0);
    expect(s.tokens.byAgent).toEqual(
      Object.fromEntries(Array.from({ length: WRITERS }, (_, w) => [`w${w}`, { input: RUNS, output: 0, cached: 0 }])),
    );
    expect(s.revision).toBe(1 + WRITERS * RUNS);

    const log = await ws.log();
    const seqs = log.map((e) => e.seq);
    expect(new Set(seqs).size).toBe(seqs.length);
    expect(seqs).toEqual(Array.from({ length: 1 + WRITERS * RUNS }, (_, i) => i + 1));
    const recorded = log.filter((e) => e.type === 'tokens.recorded');
    expect(recorded).toHaveLength(WRITERS * RUNS);
    const perAgent = new Map<string, number>();
    for (const e of recorded)
      perAgent.set(String(e.data['agent']), (perAgent.get(String(e.data['agent'])) ?? 0) + Number(e.data['input']));
    expect(Object.fromEntries(perAgent)).toEqual(
      Object.fromEntries(Array.from({ length: WRITERS }, (_, w) => [`w${w}`, RUNS])),
    );
    // Nothing else was written: no repair, no stray event.
    expect(log.filter((e) => e.type !== 'tokens.recorded').map((e) => e.type)).toEqual(['session.created']);
  }, 600_000);
});
