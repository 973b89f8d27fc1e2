/**
 * Claims at scale on PostgreSQL (issue 30; docs/scale.md, "Claims"): 100 sessions whose leases
 * lapsed, claimed by 16 claimer processes at once (`baton claim --json` in a loop, the built
 * CLI, each process its own pool): every session is claimed by exactly one claim, with the
 * next fencing token, and then nothing is left. And a waiting claimer (`claim --wait` with a
 * poll far longer than the test) is woken by the announcement of another process that
 * interrupts a session, not by its poll. Exactly-once is asserted, not timing (the bench
 * measures that: bench/scale.ts).
 */
import { spawn } from 'node:child_process';
import { afterAll, describe, expect, it } from 'vitest';
import { newEvent } from '../../src/domain/events.js';
import { SessionManager } from '../../src/manager/manager.js';
import { PostgresStore } from '../../src/store/postgres/store.js';
import { BATON, baseEnv, needBuiltCli, workspace } from '../cli/helpers.js';
import { PG_URL, dropSchema, freshSchema, needsRealServer, urlWith } from '../store/pg-helpers.js';

interface Claimed {
  claimed: null | { sessionId: string; token: number };
}

/** Runs `baton claim --json` in a loop until it finds nothing; every claim it printed, and how it ended. */
function claimer(dir: string, env: NodeJS.ProcessEnv): Promise<{ claims: string[]; codes: number[]; stderr: string }> {
  return new Promise((resolve, reject) => {
    const claims: string[] = [];
    const codes: number[] = [];
    let stderr = '';
    const once = (): void => {
      const child = spawn(process.execPath, [BATON, 'claim', '--json', '--ttl', '10m'], { cwd: dir, env });
      let out = '';
      child.stdout.on('data', (b: Buffer) => (out += b.toString()));
      child.stderr.on('data', (b: Buffer) => (stderr += b.toString()));
      child.on('error', reject);
      child.on('close', (code) => {
        codes.push(code ?? -1);
        const c = out.trim() ? (JSON.parse(out) as Claimed).claimed : null;
        if (code === 0 && c) {
          claims.push(`${c.sessionId}#${c.token}`);
          once();
        } else resolve({ claims, codes, stderr });
      });
    };
    once();
  });
}

describe.skipIf(!PG_URL)('claims on PostgreSQL, many claimer processes', () => {
  needsRealServer({
    '100 lapsed sessions, 16 claimer processes at once: each session claimed exactly once, with the next token, then none is left':
      "a claim holds its pick in a transaction on one connection while it loads and appends through others, which the embedded server's one session cannot run at once",
    'a waiting claimer is woken by the announcement of another process that interrupts a session, not by its poll':
      'the same; and NOTIFY is delivered to the session, not to the connection that LISTENs',
  });
  const schemas: string[] = [];
  const stores: PostgresStore[] = [];
  afterAll(async () => {
    for (const s of stores.splice(0)) await s.close();
    for (const s of schemas.splice(0)) await dropSchema(s);
  });

  /** A manager on a fresh schema, as another machine's worker (its own host, so its leases are never this host's gone holders). */
  function setup(): { url: string; m: SessionManager } {
    needBuiltCli();
    const schema = freshSchema('claims');
    schemas.push(schema);
    const url = urlWith({ schema });
    const store = new PostgresStore({ url, workspace: 'elsewhere' });
    stores.push(store);
    return { url, m: new SessionManager({ store, agent: 'holder', host: 'another-host', pid: 4242 }) };
  }

  it('100 lapsed sessions, 16 claimer processes at once: each session claimed exactly once, with the next token, then none is left', async () => {
    const { url, m } = setup();
    const ids = Array.from({ length: 100 }, (_, i) => `s-${String(i).padStart(3, '0')}`);
    for (const id of ids) {
      await m.createFrom(id, [
        newEvent(
          'session.created',
          { title: id, idFormat: 'explicit', phases: [], budgetMax: null, contextSummary: null, metadata: {} },
          m.time(),
          { agent: 'holder', pid: 4242, host: 'another-host' },
        ),
      ]);
      await m.leases.acquire(id, { owner: 'run:gone', ttlMs: 1_000 });
    }
    await new Promise((r) => setTimeout(r, 1_300)); // every lease has lapsed
    const env = baseEnv({ BATON_STORE: url, BATON_AGENT: 'worker' });
    const dir = workspace().dir;
    const results = await Promise.all(Array.from({ length: 16 }, () => claimer(dir, env)));
    const all = results.flatMap((r) => r.claims);
    const why = results.map((r) => r.stderr).join('\n');
    // Each claimer stopped on "nothing to claim" (exit 3), none on an error.
    for (const r of results) expect(r.codes.at(-1), why).toBe(3);
    expect(all.length, why).toBe(100);
    expect(all.map((c) => c.split('#')[0]).sort()).toEqual(ids);
    expect(new Set(all.map((c) => c.split('#')[1]))).toEqual(new Set(['2']));
    // The journals agree: two leases each (the lapsed one, then exactly one claim), one resume.
    for (const id of ids) {
      const log = await m.log(id);
      expect(log.filter((e) => e.type === 'lease.acquired').map((e) => (e.data as { token: number }).token)).toEqual([
        1, 2,
      ]);
    }
    expect(await new SessionManager({ store: m.store }).claims.claim({ owner: 'late', ttlMs: 60_000 })).toBeNull();
  }, 300_000);

  it('a waiting claimer is woken by the announcement of another process that interrupts a session, not by its poll', async () => {
    const { url, m } = setup();
    await m.start({ title: 'w', id: 'w', switch: true, phases: [{ id: 'p', name: 'p' }] });
    const env = baseEnv({ BATON_STORE: url, BATON_AGENT: 'worker' });
    const child = spawn(process.execPath, [BATON, 'claim', '--wait', '--poll', '10m', '--timeout', '2m', '--json'], {
      cwd: workspace().dir,
      env,
    });
    let out = '';
    let err = '';
    child.stdout.on('data', (b: Buffer) => (out += b.toString()));
    child.stderr.on('data', (b: Buffer) => (err += b.toString()));
    const exited = new Promise<number>((r) => child.on('close', (code) => r(code ?? -1)));
    // It has looked once, found nothing, and waits (it says so on stderr).
    const t0 = Date.now();
    while (!err.includes('waiting') && Date.now() - t0 < 60_000) await new Promise((r) => setTimeout(r, 50));
    expect(err).toContain('waiting');
    const at = Date.now();
    await m.lifecycle('w', 'interrupt', 'crash');
    await m.close();
    expect(await exited, err).toBe(0);
    // Woken by the announcement: long before the 10-minute poll (and the 2-minute timeout).
    expect(Date.now() - at).toBeLessThan(30_000);
    expect((JSON.parse(out) as Claimed).claimed?.sessionId).toBe('w');
  }, 180_000);
});
