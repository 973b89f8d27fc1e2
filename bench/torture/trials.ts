/**
 * Every torture trial, in the order they run, and the table they print. Used by
 * `npm run torture` (full size, bench/torture.ts) and by the test suite (small size).
 */
import { concurrencyTrial } from './concurrency.js';
import { crashTrial } from './crash.js';
import { damageTrial } from './damage.js';
import { cliFuzzTrial, mcpFuzzTrial } from './fuzz.js';
import { takeoverTrial } from './takeover.js';
import { randomDamageTrial } from './random-damage.js';
import type { Sizes, Target, TrialResult } from './common.js';

/** A trial: runs on one store within a deadline (ms since the epoch). */
export type Trial = (target: Target, sizes: Sizes, deadline: number) => Promise<TrialResult>;

/** Every trial by a short name (`--only`). */
export const TRIALS: Record<string, Trial> = {
  crash: crashTrial,
  concurrency: concurrencyTrial,
  damage: damageTrial,
  'random-damage': randomDamageTrial,
  'fuzz-mcp': mcpFuzzTrial,
  'fuzz-cli': cliFuzzTrial,
  takeover: takeoverTrial,
};

/** How much of the time budget each trial may take, relative to the others (crashes are slow: a process per kill). */
export const WEIGHTS: Record<string, number> = {
  crash: 6,
  concurrency: 2,
  damage: 1,
  'random-damage': 1,
  'fuzz-mcp': 1,
  'fuzz-cli': 1,
  takeover: 1,
};

/** PASS: everything at the planned size held; PARTIAL: it held, but the time budget ran out first; FAIL: a guarantee broke. */
export function verdict(r: TrialResult): 'PASS' | 'PARTIAL' | 'FAIL' {
  if (r.problems.length) return 'FAIL';
  return r.done >= r.planned ? 'PASS' : 'PARTIAL';
}

/** The results as one Markdown table. */
export function table(results: TrialResult[]): string {
  const head =
    '| trial | store | planned | done | result | seconds | what was seen |\n|---|---|---:|---:|---|---:|---|';
  const rows = results.map(
    (r) =>
      `| ${r.trial} | ${r.store} | ${r.planned} ${r.unit} | ${r.done} | ${verdict(r)} | ${r.seconds.toFixed(1)} | ${r.problems.length ? `${r.problems.length} problem(s); first: ${r.problems[0]!.replace(/\|/g, '/').replace(/\n/g, ' ').slice(0, 200)}` : r.detail} |`,
  );
  return [head, ...rows].join('\n');
}
