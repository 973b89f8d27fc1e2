// What every bench section shares: the table row, medians, alternating comparisons, spawning
// the bundled CLI, and building sessions in bulk. Every figure a section reports is a ratio to a
// baseline measured in the same run, alternately, so that machine noise hits both alike.
import { spawnSync } from 'node:child_process';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { newEvent } from '../src/domain/events.js';
import type { NewEvent } from '../src/domain/events.js';
import { SessionManager } from '../src/manager/manager.js';
import { FileStore } from '../src/store/file/store.js';

/** One line of the results table. */
export interface Row {
  name: string;
  baton: string;
  baseline: string;
  ratio: number;
  target: string;
  pass: boolean;
}

/** The repository root and the bundled CLI. */
export const root = fileURLToPath(new URL('..', import.meta.url));
export const baton = path.join(root, 'dist/baton.cjs');

export const actor = { agent: 'bench', pid: process.pid, host: os.hostname() };

/** Median. */
export function p50(xs: number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.floor(s.length / 2)]!;
}

/** Milliseconds since `t0` (from process.hrtime.bigint()). */
export function ms(t0: bigint): number {
  return Number(process.hrtime.bigint() - t0) / 1e6;
}

/** Wall time of one run of `node args…` (stdin `input`, stdout ignored); throws on a non-zero exit. */
export function timeSpawn(args: string[], cwd: string, input?: string): number {
  const t0 = process.hrtime.bigint();
  const r = spawnSync(process.execPath, args, {
    cwd,
    input,
    stdio: [input === undefined ? 'ignore' : 'pipe', 'ignore', 'pipe'],
    env: { ...process.env, NO_COLOR: '1' },
  });
  const t = ms(t0);
  if (r.status !== 0) throw new Error(`node ${args.join(' ')} failed: ${r.stderr.toString()}`);
  return t;
}

/** Runs `a` and `b` alternately (`runs` times each, after 3 warm-ups); their p50s. */
export function compareSpawns(runs: number, a: () => number, b: () => number): { a: number; b: number } {
  for (let i = 0; i < 3; i++) {
    a();
    b();
  }
  const ta: number[] = [];
  const tb: number[] = [];
  for (let i = 0; i < runs; i++) {
    ta.push(a());
    tb.push(b());
  }
  return { a: p50(ta), b: p50(tb) };
}

/**
 * Alternating rounds of a baseline and of baton, each doing `perRound` operations; the ratio is
 * the median of the per-round ratios (baseline time / baton time: above 1, baton is faster).
 * Returns also the overall rates (operations per second) of both.
 */
export async function alternateRounds(
  rounds: number,
  perRound: number,
  base: () => Promise<void> | void,
  ours: () => Promise<void> | void,
): Promise<{ ratio: number; baseRate: number; oursRate: number }> {
  const ratios: number[] = [];
  let baseMs = 0;
  let oursMs = 0;
  for (let r = 0; r < rounds; r++) {
    // Which one goes first alternates too: the second of a pair runs on a warmer (or busier) machine.
    const first = r % 2 === 0;
    let b = 0;
    let o = 0;
    for (const which of first ? ['b', 'o'] : ['o', 'b']) {
      const t0 = process.hrtime.bigint();
      if (which === 'b') await base();
      else await ours();
      if (which === 'b') b = ms(t0);
      else o = ms(t0);
    }
    baseMs += b;
    oursMs += o;
    ratios.push(b / o);
  }
  return {
    ratio: p50(ratios),
    baseRate: (rounds * perRound) / (baseMs / 1000),
    oursRate: (rounds * perRound) / (oursMs / 1000),
  };
}

/** A token event as the bench appends it. */
export function tokenEvent(i: number): NewEvent {
  return newEvent(
    'tokens.recorded',
    { agent: `agent-${i % 4}`, phaseId: null, input: 10, output: 5, cached: 1 },
    new Date().toISOString(),
    actor,
  );
}

/** A store with one session of `n` events, built in bulk through the store, snapshotted as the manager would. */
export async function sessionWith(
  dir: string,
  n: number,
): Promise<{ store: FileStore; manager: SessionManager; id: string }> {
  FileStore.init(dir);
  const store = new FileStore({ root: dir });
  const manager = new SessionManager({ store, agent: 'bench' });
  const s = await manager.start({ title: `bench ${n}`, phases: [{ id: 'build', name: 'Build' }] });
  let rev = s.revision;
  const snapshotBefore = n >= 400 ? n - 50 : Number.POSITIVE_INFINITY;
  while (rev < n) {
    const k = Math.min(
      1000,
      n - rev,
      rev < snapshotBefore && snapshotBefore - rev < 1000 ? snapshotBefore - rev : 1000,
    );
    rev = (
      await store.append(
        s.id,
        rev,
        Array.from({ length: k }, (_, i) => tokenEvent(rev + i)),
      )
    ).revision;
    if (rev === snapshotBefore) await store.writeSnapshot(s.id, { revision: rev, state: await manager.get(s.id) });
  }
  return { store, manager, id: s.id };
}

/** Lets the event loop turn: work deferred past an acknowledgement runs, inside the timed round. */
export function turn(): Promise<void> {
  return new Promise((r) => setImmediate(r));
}

/** The table line of a row. */
export function rowLine(r: Row): string {
  return `| ${r.name} | ${r.baton} | ${r.baseline} | ${r.ratio.toFixed(2)}× | ${r.target} | ${r.pass ? 'pass' : '**FAIL**'} |`;
}
