/**
 * `baton run` records the end of its run once more when the store was briefly unreachable:
 * one dropped connection must not leave the session active under a lease nobody holds. An
 * attempt that was stored but reported failed is not written twice.
 */
import { describe, expect, it } from 'vitest';
import { recordRunEndRetrying } from '../../src/cli/commands/run-end.js';
import { BatonError } from '../../src/domain/errors.js';
import type { StoredEvent } from '../../src/domain/events.js';
import { SessionManager } from '../../src/manager/manager.js';
import type { RunEnd } from '../../src/manager/leases.js';
import { MemoryStore } from '../../src/store/memory.js';

const END: RunEnd = { command: ['make'], exitCode: 0, signal: null, userInterrupt: true };
const unreachable = (): BatonError => new BatonError('STORE_UNAVAILABLE', 'The store cannot be reached: Connection terminated unexpectedly.', { details: { retryable: true } });

/** A session under a lease, and a store whose next appends fail as `fail` says (`before` or `after` writing). */
async function leased(fail: Array<'before' | 'after'>): Promise<{ m: SessionManager; store: MemoryStore; token: number }> {
  const store = new MemoryStore();
  const m = new SessionManager({ store, agent: 'runner' });
  await m.start({ title: 'Run', id: 'r' });
  const token = (await m.leases.acquire('r', { owner: 'run:runner', ttlMs: 60_000 })).result.token;
  const append = store.append.bind(store);
  store.append = async (...args) => {
    const how = fail.shift();
    if (how === 'before') throw unreachable();
    const r = await append(...args);
    if (how === 'after') throw unreachable();
    return r;
  };
  return { m, store, token };
}

const ends = (events: StoredEvent[]): StoredEvent[] => events.filter((e) => e.type === 'run.ended');
const noSleep = async (): Promise<void> => undefined;

describe('recording the end of a run while the store is unreachable', () => {
  it('a failure before the write: tried again, recorded once, the session paused and the lease released', async () => {
    const { m, store, token } = await leased(['before', 'before']);
    const retried: string[] = [];
    const r = await recordRunEndRetrying(m, 'r', token, END, null, { withinMs: 10_000, onRetry: (msg) => retried.push(msg), sleep: noSleep });
    expect(retried).toHaveLength(2);
    expect(retried[0]).toMatch(/Connection terminated unexpectedly/);
    expect(r).toMatchObject({ result: 'user-interrupt', state: { status: 'paused', lease: null } });
    expect(ends(await store.readEvents('r'))).toHaveLength(1);
  });

  it('a write that was stored but reported failed is found, not written twice, and no FENCED follows', async () => {
    const { m, store, token } = await leased(['after']);
    const retried: string[] = [];
    const r = await recordRunEndRetrying(m, 'r', token, END, null, { withinMs: 10_000, onRetry: (msg) => retried.push(msg), sleep: noSleep });
    expect(retried).toHaveLength(1);
    expect(r).toMatchObject({ result: 'user-interrupt', state: { status: 'paused', lease: null } });
    expect(ends(await store.readEvents('r'))).toHaveLength(1);
  });

  it('gives up with the store error once its time is up, having written nothing', async () => {
    const { m, store, token } = await leased(Array.from({ length: 100 }, () => 'before' as const));
    // Real pauses, cut short: the 50 ms run out after a few tries.
    const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, Math.min(ms, 5)));
    await expect(recordRunEndRetrying(m, 'r', token, END, null, { withinMs: 50, onRetry: () => undefined, sleep })).rejects.toMatchObject({ code: 'STORE_UNAVAILABLE' });
    expect(ends(await store.readEvents('r'))).toEqual([]);
  });

  it('a FENCED end (the lease was taken over) is not retried', async () => {
    const { m, token } = await leased([]);
    await new SessionManager({ store: m.store, agent: 'other' }).leases.acquire('r', { owner: 'run:other', ttlMs: 60_000, force: true });
    let retries = 0;
    await expect(recordRunEndRetrying(m, 'r', token, END, null, { withinMs: 10_000, onRetry: () => (retries += 1), sleep: noSleep })).rejects.toMatchObject({ code: 'FENCED' });
    expect(retries).toBe(0);
  });
});
