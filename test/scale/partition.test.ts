/**
 * Partitions between hosts and one PostgreSQL, for real (issue 17): worker hosts in network
 * namespaces of their own reach a private server only over their veth link (see lab.ts),
 * and the link is cut. A holder cut off loses its lease to exactly one worker of another
 * host within the TTL plus one poll, and when it comes back every write it attempts with its
 * old lease is FENCED, while its `baton run` stops its command cleanly and records why. A
 * server unreachable for every host for 30 s (BATON_LAB_OUTAGE_MS to change it) steals no
 * lease from holders that kept heart-beating, and loses no acknowledged event.
 */
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SessionManager } from '../../src/manager/manager.js';
import { PostgresStore } from '../../src/store/postgres/store.js';
import { Lab, labUnavailable } from './lab.js';

const why = labUnavailable();
if (why) console.warn(`SKIPPED partition tests (test/scale/partition.test.ts): ${why}`);

const TTL_MS = 3_000;
const HEARTBEAT_MS = 1_000;
const POLL_MS = 500;
/** Process start-up, the claim's own statements, and a loaded machine. */
const SLACK_MS = 1_500;
const OUTAGE_MS = Number(process.env['BATON_LAB_OUTAGE_MS'] ?? 30_000);

/** A command that says when it started and when it was asked to stop, then stops cleanly. */
const WORKER = "const fs=require('fs');const f=process.argv[1];fs.writeFileSync(f,'started\\n');process.on('SIGTERM',()=>{fs.appendFileSync(f,'stopped cleanly\\n');process.exit(0)});setInterval(()=>{},1000);";

async function until<T>(what: string, ms: number, fn: () => Promise<T | null | undefined | false>): Promise<T> {
  const end = Date.now() + ms;
  for (;;) {
    const v = await fn().catch(() => null);
    if (v) return v;
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

describe.skipIf(why !== null)('partitions between worker hosts and PostgreSQL (network namespaces, private server)', () => {
  let lab: Lab;
  let m: SessionManager;
  beforeAll(async () => {
    lab = await Lab.start(['a', 'b', 'c']);
    m = new SessionManager({ store: new PostgresStore({ url: lab.url }) });
  }, 120_000);
  afterAll(async () => {
    await m?.store.close();
    await lab?.close();
  });

  it('a cut-off holder loses its lease to exactly one worker of another host within TTL + one poll; back, its writes are FENCED and its run stops its command and records why', async () => {
    const [a, b, c] = lab.hosts as [typeof lab.hosts[0], typeof lab.hosts[0], typeof lab.hosts[0]];
    const started = await a.run(['start', 'Job', '--id', 'job', '--phases', 'build']);
    expect(started.code, started.stderr).toBe(0);
    const marks = path.join(a.dir, 'worker.txt');
    const run = a.spawn(['run', '--ttl', `${TTL_MS}ms`, '--heartbeat', `${HEARTBEAT_MS}ms`, '--', process.execPath, '-e', WORKER, marks], { BATON_STOP_GRACE: '5s' });
    const lease = await until('the run on host a to take the lease', 20_000, async () => (await m.get('job')).lease);
    expect(lease).toMatchObject({ token: 1 });
    await until('the command to start', 10_000, async () => fs.existsSync(marks));

    const claimArgs = ['claim', '--wait', '--poll', `${POLL_MS}ms`, '--timeout', '15s', '--ttl', '60s', '--json'];
    const claimers = [b.spawn(claimArgs), c.spawn(claimArgs)];
    // Both claimers are waiting (their change feed is open) before the cut.
    await new Promise((r) => setTimeout(r, 1_500));
    const cutAt = await lab.serverNow();
    a.cut();

    const results = await Promise.all(claimers.map((x) => x.result));
    const won = results.filter((r) => r.code === 0);
    expect(won, results.map((r) => `${r.code}: ${r.stdout}${r.stderr}`).join('\n')).toHaveLength(1);
    expect(results.filter((r) => r.code === 3).map((r) => JSON.parse(r.stdout))).toEqual([{ claimed: null }]);
    const claim = JSON.parse(won[0]!.stdout) as { claimed: { sessionId: string; token: number } };
    expect(claim.claimed).toMatchObject({ sessionId: 'job', token: 2 });

    // When, by the server's clock: the claim's events are stamped with it.
    const log = await m.log('job');
    const expired = log.find((e) => e.type === 'lease.expired')!;
    const acquired = log.find((e) => e.type === 'lease.acquired' && (e.data as { token: number }).token === 2)!;
    const lastExpiry = Date.parse((expired.data as { expiresAt: string }).expiresAt);
    const claimedAt = Date.parse(acquired.time);
    expect(lastExpiry - cutAt).toBeLessThanOrEqual(TTL_MS + 100);
    expect(claimedAt).toBeGreaterThanOrEqual(lastExpiry);
    expect(claimedAt - lastExpiry, 'claimed within one poll of the expiry').toBeLessThanOrEqual(POLL_MS + SLACK_MS);
    expect(claimedAt - cutAt, 'claimed within TTL + one poll of the cut').toBeLessThanOrEqual(TTL_MS + POLL_MS + SLACK_MS);
    expect(acquired.actor.host).toBe(log[0]!.actor.host); // one machine: the namespaces share its name

    // Host a comes back: its run learns it lost the session, stops its command, records why.
    a.restore();
    const ended = await run.result;
    expect(ended.code, ended.stderr).toBe(9); // FENCED
    expect(ended.stderr).toMatch(/lost the lease|ran out/);
    expect(fs.readFileSync(marks, 'utf8')).toBe('started\nstopped cleanly\n');
    const after = await m.log('job');
    const record = after.find((e) => e.type === 'run.ended')!;
    expect(record.data).toMatchObject({ cause: 'lease-lost', token: 1, signal: null, exitCode: 0 });
    expect((record.data as { detail: string }).detail).toMatch(/now held by claim:worker \(pid \d+ on .+\) with token 2/);
    const s = await m.get('job');
    expect(s.lease).toMatchObject({ token: 2 });
    expect(s.status).toBe('active');

    // Every write host a attempts with its old lease is refused, and nothing of it lands.
    const before = after.length;
    for (const args of [['note', 'add', 'late'], ['phase', 'start', 'build'], ['tokens', 'add', '--agent', 'a', '--input', '5'], ['decision', 'add', '--title', 'mine', '--choice', 'a', '--rationale', 'late']]) {
      const r = await a.run([...args, '--session', 'job'], { BATON_LEASE_TOKEN: '1' });
      expect(r.code, `${args.join(' ')}: ${r.stderr}`).toBe(9);
      expect(r.stderr).toContain('FENCED');
    }
    expect((await m.log('job')).length).toBe(before);
    // The new holder's writes go on.
    const mine = await b.run(['note', 'add', 'b carries on', '--session', 'job'], { BATON_LEASE_TOKEN: '2' });
    expect(mine.code, mine.stderr).toBe(0);
  }, 120_000);
});
