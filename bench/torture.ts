// `npm run torture`: the reliability trials of issue 16 at full size, on the file store and on
// PostgreSQL (BATON_TEST_PG_URL, or a private server started for the run), within a time
// budget, printing one table. Runnable alone: node --import tsx bench/torture.ts [options]
//
//   --max-minutes N   the whole run's budget (default 60); a trial cut short says PARTIAL
//   --small           the sizes the test suite uses
//   --store S         file, postgres or both (default both)
//   --only a,b        only these trials (crash, concurrency, damage, random-damage, fuzz-mcp, fuzz-cli, takeover)
import fs from 'node:fs';
import { FULL, SMALL, fileTarget, pgTarget } from './torture/common.js';
import type { Target, TrialResult } from './torture/common.js';
import { PrivatePg } from '../test/support/private-pg.js';
import { TRIALS, WEIGHTS, table, verdict } from './torture/trials.js';

function option(name: string): string | undefined {
  const i = process.argv.indexOf(`--${name}`);
  return i === -1 ? undefined : process.argv[i + 1];
}

const minutes = Number(option('max-minutes') ?? 60);
const sizes = process.argv.includes('--small') ? SMALL : FULL;
const stores = (option('store') ?? 'both').split(',');
const only = option('only')?.split(',') ?? Object.keys(TRIALS);
for (const t of only)
  if (!TRIALS[t]) throw new Error(`no trial ${t}; the trials are ${Object.keys(TRIALS).join(', ')}`);

const loadavg = (): string => fs.readFileSync('/proc/loadavg', 'utf8').split(' ').slice(0, 3).join(' ');
const start = Date.now();
const deadline = start + minutes * 60_000;
console.error(`torture: ${sizes === FULL ? 'full' : 'small'} size, budget ${minutes} min, load average ${loadavg()}`);

const targets: Target[] = [];
let server: PrivatePg | null = null;
if (stores.includes('file') || stores.includes('both')) targets.push(fileTarget());
if (stores.includes('postgres') || stores.includes('both')) {
  const url = process.env['BATON_TEST_PG_URL'];
  if (url) targets.push(pgTarget(url));
  else {
    const s = await PrivatePg.tryStart({ conf: ['fsync = off', 'max_connections = 200'] });
    if (typeof s === 'string') console.error(`torture: PostgreSQL trials SKIPPED: ${s} (set BATON_TEST_PG_URL)`);
    else {
      server = s;
      targets.push(pgTarget(s.url()));
    }
  }
}

// Interrupted: stop the private server and the writers (see common.ts) before going.
for (const sig of ['SIGINT', 'SIGTERM'] as const) {
  process.on(sig, () => {
    server?.stop();
    // The file targets' folders go at once (their cleanup removes them before its first await).
    for (const t of targets) void t.cleanup().catch(() => undefined);
    process.exit(130);
  });
}

const results: TrialResult[] = [];
const runs = targets.flatMap((t) => only.map((name) => ({ t, name })));
try {
  for (const [i, { t, name }] of runs.entries()) {
    // Each trial gets its weight's share of the time left; what one does not use goes to the rest.
    const weightLeft = runs.slice(i).reduce((n, x) => n + (WEIGHTS[x.name] ?? 1), 0);
    const share = (Math.max(0, deadline - Date.now()) * (WEIGHTS[name] ?? 1)) / weightLeft;
    const r = await TRIALS[name]!(t, sizes, Date.now() + share);
    results.push(r);
    console.error(
      `torture: ${r.trial} on ${r.store}: ${verdict(r)} (${r.done}/${r.planned} ${r.unit}, ${r.seconds.toFixed(1)} s)${r.problems.length ? `\n  ${r.problems.slice(0, 5).join('\n  ')}` : ''}`,
    );
  }
} finally {
  for (const t of targets) await t.cleanup().catch(() => undefined);
  server?.stop();
}

console.log(table(results));
console.log(
  `\n${((Date.now() - start) / 60_000).toFixed(1)} min; load average at the end ${loadavg()} (2 cores shared with other work); node ${process.version}`,
);
process.exit(results.some((r) => verdict(r) === 'FAIL') ? 1 : 0);
