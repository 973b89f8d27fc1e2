// The PostgreSQL store's durable appends against a raw INSERT loop with the same durability
// (one row per transaction, synchronous_commit as the server has it, the same payload, into a
// plain table with the events table's columns and primary key) on the same server, in
// alternating rounds. Run by bench/run.ts; on its own:
//   BATON_TEST_PG_URL=postgres://… node --import tsx bench/postgres.ts [--quick]
import crypto from 'node:crypto';
import { createRequire } from 'node:module';
import { pathToFileURL } from 'node:url';
import { newEvent } from '../src/domain/events.js';
import { SessionManager } from '../src/manager/manager.js';
import { actor, alternateRounds, rowLine, tokenEvent, turn } from './common.js';
import type { Row } from './common.js';
import { summarize } from '../src/domain/summary.js';
import { fold } from '../src/domain/apply.js';
import type { StoredEvent } from '../src/domain/events.js';
import { PostgresStore } from '../src/store/postgres/store.js';

const require = createRequire(import.meta.url);

/** One line of the results table. */
export type PgRow = Row;

/** Measures; returns the table rows, or [] (with the reason printed) when no server is configured. */
export async function pgAppends(quick: boolean): Promise<PgRow[]> {
  const base = process.env['BATON_TEST_PG_URL'];
  if (!base) {
    console.log('PostgreSQL appends: skipped (set BATON_TEST_PG_URL=postgres://… to measure them).');
    return [];
  }
  const schema = `baton_bench_${crypto.randomBytes(5).toString('hex')}`;
  const u = new URL(base);
  u.searchParams.set('schema', schema);
  const store = new PostgresStore({ url: u.toString() });
  const pg = require('pg') as typeof import('pg');
  const raw = new pg.Client({ connectionString: base });
  await raw.connect();
  try {
    const created = newEvent(
      'session.created',
      {
        title: 'bench',
        idFormat: 'explicit',
        phases: [{ id: 'build', name: 'Build' }],
        budgetMax: null,
        contextSummary: null,
        metadata: {},
      },
      new Date().toISOString(),
      actor,
    );
    await store.create('bench', [created], summarize(fold(null, [{ ...created, seq: 1 } as StoredEvent], 'bench')!));
    const manager = new SessionManager({ store, agent: 'bench' });
    const s = await manager.start({ title: 'manager bench', id: 'managed', phases: [{ id: 'build', name: 'Build' }] });
    const sync = (await raw.query<{ synchronous_commit: string }>('SHOW synchronous_commit')).rows[0]!
      .synchronous_commit;
    await raw.query(
      `CREATE TABLE "${schema}".raw (session_id text NOT NULL, seq integer NOT NULL, type text NOT NULL, body text NOT NULL, PRIMARY KEY (session_id, seq))`,
    );
    const body = JSON.stringify(tokenEvent(1));
    const n = quick ? 400 : 2000;
    const rounds = 20;
    let rev = 1;
    let seq = 0;
    const insert = async (): Promise<void> => {
      for (let i = 0; i < n / rounds; i++)
        await raw.query(`INSERT INTO "${schema}".raw (session_id, seq, type, body) VALUES ($1, $2, $3, $4)`, [
          'bench',
          ++seq,
          'tokens.recorded',
          body,
        ]);
    };
    for (let i = 0; i < 20; i++) await manager.tokens(s.id, { agent: 'bench', input: 1 }); // warm-up: statements prepared
    const app = await alternateRounds(rounds, n / rounds, insert, async () => {
      for (let i = 0; i < n / rounds; i++) rev = (await store.append('bench', rev, [tokenEvent(i)])).revision;
      // The refresh that follows the last acknowledgements is baton's work: inside its round, not the baseline's.
      await store.settle();
    });
    const tok = await alternateRounds(rounds, n / rounds, insert, async () => {
      for (let i = 0; i < n / rounds; i++) await manager.tokens(s.id, { agent: `agent-${i % 4}`, input: 1, output: 2 });
      await turn();
      await store.settle();
    });
    const baseline = (rate: number): string =>
      `${rate.toFixed(0)} /s raw \`INSERT\` per transaction (synchronous_commit=${sync})`;
    return [
      {
        name: 'PostgreSQL store durable appends (`store.append`, one event per commit)',
        baton: `${app.oursRate.toFixed(0)} /s`,
        baseline: baseline(app.baseRate),
        ratio: app.ratio,
        target: '≥ 0.85× (median of 20 alternating rounds)',
        pass: app.ratio >= 0.85,
      },
      {
        name: '`SessionManager.tokens()` updates/s on PostgreSQL vs raw one-row `INSERT`s (same durability)',
        baton: `${tok.oursRate.toFixed(0)} /s`,
        baseline: baseline(tok.baseRate),
        ratio: tok.ratio,
        target: '≥ 0.85× (median of 20 alternating rounds)',
        pass: tok.ratio >= 0.85,
      },
    ];
  } finally {
    await store.close();
    await raw.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`).catch(() => undefined);
    await raw.end();
  }
}

/** How the PostgreSQL row is measured, as BENCHMARKS.md explains it. */
export const PG_EXPLANATION = `- **PostgreSQL appends**: \`PostgresStore.append\` of one event (the conditional insert, one
  commit each; the NOTIFY, and the registry row when the append changed it (a token record
  does not), follow after the acknowledgement, coalesced into statements at least 20 ms apart (100 ms when they only notify), in the same process and on the same
  server, so their cost is in the figure), and \`SessionManager.tokens()\` on the PostgreSQL store (the manager keeps
  the state it last wrote: one conditional statement per update, no read), against a loop of
  plain one-row \`INSERT\`s into a plain table with the same columns and primary key (baton's own
  events table also has a foreign key to its sessions, 16 hash partitions and a BRIN index:
  measured apart, those cost it about a tenth), one transaction each, on the same server with
  the same \`synchronous_commit\`, in alternating rounds; the server is \`BATON_TEST_PG_URL\`.`;

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  for (const r of await pgAppends(process.argv.includes('--quick'))) console.log(rowLine(r));
}
