/**
 * PostgreSQL under faults (issue 16): a PRIVATE server (initdb in a temp folder, its own port;
 * never the machine's server) restarted while 8 workers append to one session, and the
 * workers' connections killed mid-statement with pg_terminate_backend. Every acknowledged
 * append is in the events table exactly once, every failure is STORE_UNAVAILABLE with
 * `retryable: true`, seqs stay contiguous, and every worker carries on once the server is back.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Client } from 'pg';
import { createRequire } from 'node:module';
import { SessionManager, toBatonError } from '../../src/manager/index.js';
import { PostgresStore } from '../../src/store/postgres/store.js';
import { PrivatePg } from '../support/private-pg.js';
import { checkNotes, noteWorker } from '../../bench/torture/pg-workers.js';
import type { WorkerLog } from '../../bench/torture/pg-workers.js';

const require = createRequire(import.meta.url);
let server: PrivatePg | null = null;
let why = '';

beforeAll(async () => {
  const r = await PrivatePg.tryStart({ conf: ['fsync = off', 'max_connections = 200'] });
  if (typeof r === 'string') why = r;
  else server = r;
}, 180_000);

afterAll(() => server?.stop());

const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

async function session(url: string, id: string): Promise<void> {
  const s = new PostgresStore({ url });
  await new SessionManager({ store: s, agent: 'setup' }).start({ title: id, id, switch: true });
  await s.close();
}

async function events(url: string, id: string) {
  const s = new PostgresStore({ url });
  try {
    return await s.readEvents(id);
  } finally {
    await s.close();
  }
}

/**
 * Runs 8 workers on session `id` while `fault` runs; each stops once it has `after`
 * acknowledged appends past the end of the fault (or at a deadline, and then fails the test).
 */
async function underFault(url: string, id: string, fault: () => Promise<void>, after = 3): Promise<WorkerLog[]> {
  await session(url, id);
  let faultOver = Infinity;
  const deadline = Date.now() + 90_000;
  const carriedOn = (l: WorkerLog): number => l.acked.filter((a) => a.at > faultOver).length;
  const workers = Array.from({ length: 8 }, (_, k) =>
    noteWorker(url, id, `w${k}`, (l) => Date.now() > deadline || carriedOn(l) >= after),
  );
  await sleep(600);
  await fault();
  faultOver = Date.now();
  const logs = await Promise.all(workers);
  for (const [k, l] of logs.entries()) expect(carriedOn(l), `worker ${k} carried on`).toBeGreaterThanOrEqual(after);
  return logs;
}

describe('PostgreSQL (private server) under faults', () => {
  it('restarted while 8 workers write: acknowledged appends all there once, failures retryable, workers carry on', async (ctx) => {
    if (!server) {
      console.warn(`SKIPPED PostgreSQL restart test: ${why}`);
      return ctx.skip();
    }
    const url = `${server.url()}?schema=restart&connect_timeout=5`;
    const pg = server;
    const logs = await underFault(url, 'restart', async () => {
      pg.stopServer('fast');
      await sleep(400);
      pg.startServer();
    });
    expect(
      logs.reduce((n, l) => n + l.failed.length, 0),
      'the restart was felt',
    ).toBeGreaterThan(0);
    expect(checkNotes(await events(url, 'restart'), logs)).toEqual([]);
  });

  it('connections killed mid-statement (pg_terminate_backend): the same guarantees', async (ctx) => {
    if (!server) {
      console.warn(`SKIPPED PostgreSQL pg_terminate_backend test: ${why}`);
      return ctx.skip();
    }
    const url = `${server.url()}?schema=terminate&connect_timeout=5`;
    const pgm = require('pg') as typeof import('pg');
    const admin: Client = new pgm.Client({ connectionString: server.url() });
    await admin.connect();
    let killed = 0;
    // Besides the appends (one statement each), a worker starting sessions: a transaction
    // that holds the workspace lock across several statements, killed in the middle.
    let starting = true;
    const starts = (async () => {
      const s = new PostgresStore({ url });
      const m = new SessionManager({ store: s, agent: 'starter' });
      const out = { acked: [] as string[], failed: [] as Array<{ id: string; code: string; retryable: unknown }> };
      for (let i = 1; starting; i++) {
        try {
          await m.start({ title: `t${i}`, id: `t${i}`, switch: true });
          out.acked.push(`t${i}`);
        } catch (e) {
          const b = toBatonError(e, 'bug');
          out.failed.push({ id: `t${i}`, code: b.code, retryable: (b.details as { retryable?: unknown }).retryable });
        }
      }
      await s.close();
      return out;
    })();
    try {
      const logs = await underFault(url, 'terminate', async () => {
        const until = Date.now() + 1500;
        while (Date.now() < until) {
          const r = await admin.query(
            `SELECT pg_terminate_backend(pid) AS ok FROM pg_stat_activity WHERE application_name = 'baton' AND state <> 'idle' AND pid <> pg_backend_pid()`,
          );
          killed += r.rows.length;
          await sleep(15);
        }
      });
      expect(killed, 'connections were killed mid-statement').toBeGreaterThan(0);
      expect(logs.reduce((n, l) => n + l.failed.length, 0)).toBeGreaterThan(0);
      expect(checkNotes(await events(url, 'terminate'), logs)).toEqual([]);
      starting = false;
      const st = await starts;
      expect(st.acked.length).toBeGreaterThan(0);
      for (const f of st.failed)
        expect(f, 'a killed start is retryable').toMatchObject({ code: 'STORE_UNAVAILABLE', retryable: true });
      // Every session is whole: the acknowledged ones and any whose commit answer was lost.
      const s = new PostgresStore({ url });
      try {
        for (const id of st.acked) expect((await s.readEvents(id))[0]!.type).toBe('session.created');
        for (const f of st.failed)
          if (await s.exists(f.id)) expect((await s.readEvents(f.id))[0]!.type).toBe('session.created');
      } finally {
        await s.close();
      }
    } finally {
      await admin.end();
    }
  });
});
