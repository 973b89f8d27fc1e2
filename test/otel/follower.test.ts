/**
 * The follower in-process on the memory store (the reference store, with its change feed and
 * cursors): `--since` leaves old sessions out at the first start, a restart sends nothing
 * already delivered, and a store without cursors is refused before anything is sent.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { SessionManager } from '../../src/manager/index.js';
import { exportConfig } from '../../src/otel/config.js';
import { Follower } from '../../src/otel/follow.js';
import type { FollowSent } from '../../src/otel/follow.js';
import { Sender } from '../../src/otel/sender.js';
import { MemoryStore } from '../../src/store/memory.js';
import { Receiver } from './receiver.js';

let receiver: Receiver | null = null;
afterEach(async () => {
  await receiver?.stop();
  receiver = null;
});

async function finished(m: SessionManager, id: string): Promise<void> {
  await m.start({ title: id, id, phases: [{ id: 'a', name: 'A' }], switch: true });
  await m.phase(id, 'a', 'start');
  await m.phase(id, 'a', 'complete');
  await m.lifecycle(id, 'complete');
}

async function follow(m: SessionManager, since: Date | null): Promise<FollowSent[]> {
  const sent: FollowSent[] = [];
  const sender = await Sender.open(exportConfig({}, { endpoint: receiver!.url }));
  const f = new Follower({
    manager: m,
    sender,
    destination: 'test',
    sessionId: null,
    since,
    onSent: (s) => sent.push(s),
    onWarning: (w) => sent.push({ sessionId: `warning: ${w}`, spans: 0, through: 0 }),
  });
  await f.start();
  await f.idle();
  await f.stop();
  await sender.close();
  return sent;
}

describe('the follower', () => {
  it('--since leaves out sessions unchanged since then; a restart sends nothing already delivered', async () => {
    receiver = await new Receiver().start();
    let now = new Date('2026-01-01T00:00:00Z');
    const m = new SessionManager({ store: new MemoryStore(), now: () => now });
    await finished(m, 'old');
    now = new Date('2026-03-01T00:00:00Z');
    await finished(m, 'new');
    const first = await follow(m, new Date('2026-02-01T00:00:00Z'));
    expect(first.map((s) => s.sessionId)).toEqual(['new']);
    expect(new Set(receiver.spans.map((s) => s.attributes['session.id']))).toEqual(new Set(['new']));
    const count = receiver.spans.length;
    expect(count).toBe(2); // the root and the phase
    expect(await follow(m, new Date('2026-02-01T00:00:00Z'))).toEqual([]);
    expect(receiver.spans).toHaveLength(count);
    // Without --since, the old session is caught up, and only it.
    expect((await follow(m, null)).map((s) => s.sessionId)).toEqual(['old']);
    expect(receiver.spans).toHaveLength(count + 2);
    expect(await m.cursors.list('otel.test.')).toEqual([
      { name: 'otel.test.new', value: JSON.stringify({ seq: (await m.log('new')).at(-1)!.seq }) },
      { name: 'otel.test.old', value: JSON.stringify({ seq: (await m.log('old')).at(-1)!.seq }) },
    ]);
  });

  it('a store without cursors: STORE_UNAVAILABLE before anything is sent', async () => {
    receiver = await new Receiver().start();
    const store = new MemoryStore();
    Object.defineProperty(store, 'cursors', { value: undefined });
    const m = new SessionManager({ store });
    await finished(m, 'x');
    await expect(follow(m, null)).rejects.toMatchObject({
      code: 'STORE_UNAVAILABLE',
      message: expect.stringContaining('keeps no cursors'),
    });
    expect(receiver.requests).toHaveLength(0);
  });

  it('a session that cannot be sent now (damaged cursor) is retried on its own; the others go on', async () => {
    receiver = await new Receiver().start();
    const m = new SessionManager({ store: new MemoryStore() });
    await finished(m, 'good');
    await finished(m, 'bad');
    await m.cursors.put('otel.test.bad', 'garbage', null);
    const sent: string[] = [];
    const warnings: string[] = [];
    const sender = await Sender.open(exportConfig({ BATON_OTEL_BACKOFF_MS: '20' }, { endpoint: receiver.url }));
    const f = new Follower({
      manager: m,
      sender,
      destination: 'test',
      sessionId: null,
      onSent: (x) => sent.push(x.sessionId),
      onWarning: (w) => warnings.push(w),
    });
    try {
      await f.start();
      const until = async (ok: () => boolean): Promise<void> => {
        for (let i = 0; i < 400 && !ok(); i++) await new Promise((r) => setTimeout(r, 10));
        expect(ok()).toBe(true);
      };
      await until(() => sent.includes('good') && warnings.length >= 2);
      expect(warnings[0]).toMatch(
        /^Session bad not sent now \(CORRUPT\): An otel cursor holds "garbage".* Trying again in 20 ms\.$/,
      );
      expect(warnings[1]).toContain('Trying again in 40 ms.');
      await m.cursors.put('otel.test.bad', JSON.stringify({ seq: 0 }), 'garbage');
      await until(() => sent.includes('bad'));
      expect(new Set(receiver.spans.map((s) => s.attributes['session.id']))).toEqual(new Set(['good', 'bad']));
    } finally {
      await f.stop();
      await sender.close();
    }
  });
});
