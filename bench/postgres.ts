// The PostgreSQL store's durable appends against a raw INSERT loop with the same durability
// (one row per transaction, synchronous_commit as the server has it, same table shape and
// payload) on the same server, in alternating rounds. Run by bench/run.ts; on its own:
//   BATON_TEST_PG_URL=postgres://… node --import tsx bench/postgres.ts [--quick]
import crypto from 'node:crypto';
import fs from 'node:fs';
import { createRequire } from 'node:module';
import os from 'node:os';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { newEvent } from '../src/domain/events.js';
import type { NewEvent } from '../src/domain/events.js';
import { summarize } from '../src/domain/summary.js';
import { fold } from '../src/domain/apply.js';
import type { StoredEvent } from '../src/domain/events.js';
import { PostgresStore } from '../src/store/postgres/store.js';

const require = createRequire(import.meta.url);

/** One line of the results table (bench/run.ts uses the same type for every row). */
export interface PgRow {
  name: string;
  baton: string;
  baseline: string;
  ratio: number;
  target: string;
  pass: boolean;
}

const actor = { agent: 'bench', pid: process.pid, host: os.hostname() };
const tokenEvent = (i: number): NewEvent => newEvent('tokens.recorded', { agent: `agent-${i % 4}`, phaseId: null, input: 10, output: 5, cached: 1 }, new Date().toISOString(), actor);

function p50(xs: number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.floor(s.length / 2)]!;
}

/** Measures; returns the table row, or null (with the reason printed) when no server is configured. */
export async function pgAppends(quick: boolean): Promise<PgRow | null> {
  const base = process.env['BATON_TEST_PG_URL'];
  if (!base) {
    console.log('PostgreSQL appends: skipped (set BATON_TEST_PG_URL=postgres://… to measure them).');
    return null;
  }
  const schema = `baton_bench_${crypto.randomBytes(5).toString('hex')}`;
  const u = new URL(base);
  u.searchParams.set('schema', schema);
  const store = new PostgresStore({ url: u.toString() });
  const pg = require('pg') as typeof import('pg');
  const raw = new pg.Client({ connectionString: base });
  await raw.connect();
  try {
    const created = newEvent('session.created', { title: 'bench', idFormat: 'explicit', phases: [{ id: 'build', name: 'Build' }], budgetMax: null, contextSummary: null, metadata: {} }, new Date().toISOString(), actor);
    await store.create('bench', [created], summarize(fold(null, [{ ...created, seq: 1 } as StoredEvent], 'bench')!));
    const sync = (await raw.query<{ synchronous_commit: string }>('SHOW synchronous_commit')).rows[0]!.synchronous_commit;
    await raw.query(`CREATE TABLE "${schema}".raw (session_id text NOT NULL, seq integer NOT NULL, type text NOT NULL, body text NOT NULL, PRIMARY KEY (session_id, seq))`);
    const body = JSON.stringify(tokenEvent(1));
    const n = quick ? 400 : 2000;
    const rounds = 20;
    let rev = 1;
    let seq = 0;
    let rawMs = 0;
    let oursMs = 0;
    const ratios: number[] = [];
    for (let r = 0; r < rounds; r++) {
      let t0 = performance.now();
      for (let i = 0; i < n / rounds; i++) await raw.query(`INSERT INTO "${schema}".raw (session_id, seq, type, body) VALUES ($1, $2, $3, $4)`, ['bench', ++seq, 'tokens.recorded', body]);
      const rawRound = performance.now() - t0;
      t0 = performance.now();
      for (let i = 0; i < n / rounds; i++) rev = (await store.append('bench', rev, [tokenEvent(i)])).revision;
      const oursRound = performance.now() - t0;
      rawMs += rawRound;
      oursMs += oursRound;
      ratios.push(rawRound / oursRound);
    }
    const ratio = p50(ratios);
    return {
      name: 'PostgreSQL store durable appends (`store.append`, one event per commit)',
      baton: `${(n / (oursMs / 1000)).toFixed(0)} /s`,
      baseline: `${(n / (rawMs / 1000)).toFixed(0)} /s raw \`INSERT\` per transaction (synchronous_commit=${sync})`,
      ratio,
      target: '≥ 0.7× (median of 20 alternating rounds)',
      pass: ratio >= 0.7,
    };
  } finally {
    await store.close();
    await raw.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`).catch(() => undefined);
    await raw.end();
  }
}

/** How the PostgreSQL row is measured, as BENCHMARKS.md explains it. */
export const PG_EXPLANATION = `- **PostgreSQL appends**: \`PostgresStore.append\` of one event (conditional insert, NOTIFY,
  one commit each) against a loop of plain one-row \`INSERT\`s into a table of the same shape,
  one transaction each, on the same server with the same \`synchronous_commit\`, in alternating
  rounds; the server is \`BATON_TEST_PG_URL\`.`;

/** The table line of a row. */
export function rowLine(row: PgRow): string {
  return `| ${row.name} | ${row.baton} | ${row.baseline} | ${row.ratio.toFixed(2)}× | ${row.target} | ${row.pass ? 'pass' : '**FAIL**'} |`;
}

/**
 * Run on its own (without --quick), the row replaces the PostgreSQL line of BENCHMARKS.md (or
 * is added to its table), so that this part can be measured again without the whole bench.
 */
if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  const row = await pgAppends(process.argv.includes('--quick'));
  if (row) {
    const line = rowLine(row);
    console.log(line);
    const file = fileURLToPath(new URL('../BENCHMARKS.md', import.meta.url));
    if (!process.argv.includes('--quick') && fs.existsSync(file)) {
      const lines = fs.readFileSync(file, 'utf8').split('\n');
      const at = lines.findIndex((l) => l.startsWith(`| ${row.name} |`));
      if (at >= 0) lines[at] = line;
      else {
        let last = -1;
        lines.forEach((l, i) => {
          if (l.startsWith('| ')) last = i;
        });
        lines.splice(last + 1, 0, line);
      }
      let text = lines.join('\n');
      if (!text.includes('**PostgreSQL appends**')) text = `${text.trimEnd()}\n${PG_EXPLANATION}\n`;
      const stamp = `The PostgreSQL row was last measured by \`bench/postgres.ts\` on ${new Date().toISOString().slice(0, 10)} (load average ${os.loadavg()[0]!.toFixed(1)} on ${os.cpus().length} CPUs at the end).`;
      text = text.replace(/\nThe PostgreSQL row was last measured by [^\n]*\n/, '\n');
      fs.writeFileSync(file, `${text.trimEnd()}\n\n${stamp}\n`);
      console.log('Updated BENCHMARKS.md');
    }
  }
}
