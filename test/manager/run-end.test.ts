/**
 * `manager.runs.hold` (and so `baton run`) records the end of its run once more when the
 * store was briefly unreachable: one dropped connection must not leave the session active
 * under a lease nobody holds. An attempt that was stored but reported failed is found by the
 * run's id and not written twice.
 */
import { describe, expect, it } from 'vitest';
import { BatonError } from '../../src/domain/errors.js';
import type { StoredEvent } from '../../src/domain/events.js';
import { SessionManager } from '../../src/manager/manager.js';
import type { HoldOptions } from '../../src/manager/runs/run-hold.js';
import { MemoryStore } from '../../src/store/memory.js';

const unreachable = (): BatonError =>
  new BatonError('STORE_UNAVAILABLE', 'The store cannot be reached: Connection terminated unexpectedly.', {
    details: { retryable: true },
  });

/** A session, and a store whose appends fail as `fail` says (`before` or `after` writing) once `fail` is filled. */
async function session(): Promise<{ m: SessionManager; store: MemoryStore; fail: Array<'before' | 'after'> }> {
  const store = new MemoryStore();
  const m = new SessionManager({ store, agent: 'runner' });
  await m.start({ title: 'Run', id: 'r' });
  const fail: Array<'before' | 'after'> = [];
  const append = store.append.bind(store);
  store.append = async (...args) => {
    const how = fail.shift();
    if (how === 'before') throw unreachable();
    const r = await append(...args);
    if (how === 'after') throw unreachable();
    return r;
  };
  return { m, store, fail };
}

const ends = (events: StoredEvent[]): StoredEvent[] => events.filter((e) => e.type === 'run.ended');
/** No heartbeat during the test: only the end is written. */
const HOLD: HoldOptions = { ttlMs: 600_000, heartbeatMs: 300_000 };

describe('recording the end of a held run while the store is unreachable', () => {
  it('a failure before the write: tried again, recorded once, the session paused and the lease released', async () => {
    const { m, store, fail } = await session();
    const retried: string[] = [];
    await m.runs.hold('r', async () => void fail.push('before', 'before'), {
      ...HOLD,
      onNotice: (msg) => retried.push(msg),
    });
    expect(retried).toHaveLength(2);
    expect(retried[0]).toMatch(/Connection terminated unexpectedly/);
    expect(await m.get('r')).toMatchObject({ status: 'paused', lease: null });
    expect(ends(await store.readEvents('r'))).toHaveLength(1);
  });

  it('a write that was stored but reported failed is found, not written twice, and no FENCED follows', async () => {
    const { m, store, fail } = await session();
    const retried: string[] = [];
    const out = await m.runs.holdOutcome('r', async () => void fail.push('after'), {
      ...HOLD,
      onNotice: (msg) => retried.push(msg),
    });
    expect(retried).toHaveLength(1);
    expect(out).toMatchObject({ lost: null, end: { cause: 'run-completed', status: 'paused' } });
    expect(ends(await store.readEvents('r'))).toHaveLength(1);
  });

  it('gives up with the store error once its time is up, having written nothing', async () => {
    const { m, store, fail } = await session();
    const held = m.runs.hold('r', async () => void fail.push(...Array.from({ length: 100 }, () => 'before' as const)), {
      ...HOLD,
      endRetryMs: 50,
    });
    await expect(held).rejects.toMatchObject({ code: 'STORE_UNAVAILABLE' });
    fail.length = 0;
    expect(ends(await store.readEvents('r'))).toEqual([]);
  });

  it('a FENCED end (the lease was taken over) is not retried: recorded as lost, the new holder untouched', async () => {
    const { m, store } = await session();
    const retried: string[] = [];
    const held = m.runs.hold(
      'r',
      async () =>
        void (await new SessionManager({ store, agent: 'other' }).leases.acquire('r', {
          owner: 'run:other',
          ttlMs: 60_000,
          force: true,
        })),
      { ...HOLD, onNotice: (msg) => retried.push(msg) },
    );
    await expect(held).rejects.toMatchObject({ code: 'FENCED' });
    expect(retried).toEqual([]);
    const s = await m.get('r');
    expect(s.runs?.[0]?.ended).toMatchObject({ how: 'died', cause: 'lease-lost' });
    expect(s.lease?.owner).toBe('run:other');
    expect(s.status).toBe('active');
  });
});
