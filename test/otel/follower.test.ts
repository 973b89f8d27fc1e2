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
  const f = new Follower({ manager: m, sender, destination: 'test', sessionId: null, since, onSent: (s) => sent.push(s), onWarning: (w) => sent.push({ sessionId: `warning: ${w}`, spans: 0, through: 0 }) });
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
    await expect(follow(m, null)).rejects.toMatchObject({ code: 'STORE_UNAVAILABLE', message: expect.stringContaining('keeps no cursors') });
    expect(receiver.requests).toHaveLength(0);
  });
});
