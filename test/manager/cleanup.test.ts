/**
 * Retention through the manager (memory store, injected clock): pin/unpin, delete with
 * tombstones, and cleanup's selection, its refusals and its re-check at the moment it acts.
 */
import { beforeEach, describe, expect, it } from 'vitest';
import { BatonError } from '../../src/domain/errors.js';
import { SessionManager } from '../../src/manager/manager.js';
import { MemoryStore } from '../../src/store/memory.js';
import type { SessionStore } from '../../src/store/types.js';
import { expectCode } from '../../src/testing/conformance.js';

const DAY = 86_400_000;
const T0 = Date.parse('2026-01-01T00:00:00.000Z');

let clock = T0;
let store: MemoryStore;
let m: SessionManager;

function managerOver(s: SessionStore): SessionManager {
  return new SessionManager({ store: s, now: () => new Date(clock), agent: 'test' });
}

beforeEach(() => {
  clock = T0;
  store = new MemoryStore();
  m = managerOver(store);
});

/** Creates session `id` on day `day` and ends it with `end` (or leaves it active). */
async function session(id: string, day: number, end: 'complete' | 'fail' | 'abandon' | 'pause' | null): Promise<void> {
  clock = T0 + day * DAY;
  await m.start({ title: `Session ${id}`, id, switch: true });
  if (end) await m.lifecycle(id, end);
}

describe('pin and unpin', () => {
  it('records session.pinned / session.unpinned, shown in state, status view and list rows', async () => {
    await session('a', 0, 'complete');
    const s = await m.pin('a', 'the reference run');
    expect(s.pinned).toBe(true);
    expect((await m.log('a')).slice(-1)[0]).toMatchObject({
      type: 'session.pinned',
      data: { reason: 'the reference run' },
    });
    expect((await m.list({ all: true }))[0]).toMatchObject({ id: 'a', pinned: true });
    await expectCode(m.pin('a'), 'INVALID_TRANSITION');
    expect((await m.unpin('a')).pinned).toBe(false);
    expect((await m.list({ all: true }))[0]).toMatchObject({ id: 'a', pinned: false });
    await expectCode(m.unpin('a'), 'INVALID_TRANSITION');
  });

  it('works on archived and active sessions alike; NOT_FOUND for an unknown one', async () => {
    await session('arch', 0, 'complete');
    await m.archive('arch');
    expect((await m.pin('arch')).pinned).toBe(true);
    await session('live', 1, null);
    expect((await m.pin('live')).pinned).toBe(true);
    expect((await m.get('live')).status).toBe('active');
    await expectCode(m.pin('nobody'), 'NOT_FOUND');
  });
});

describe('delete', () => {
  it('deletes a finished session and leaves a tombstone; clears the active pointer naming it', async () => {
    await session('p', 0, 'pause');
    expect(await store.getActive()).toBe('p');
    clock += DAY;
    const t = await m.delete('p');
    expect(t).toEqual({
      id: 'p',
      deletedAt: new Date(clock).toISOString(),
      title: 'Session p',
      status: 'paused',
      archived: false,
    });
    expect(await store.getActive()).toBeNull();
    await expectCode(m.get('p'), 'NOT_FOUND');
    expect(await m.listDeleted()).toEqual([t]);
  });

  it('refuses an active, interrupted (expired lease) or pinned session', async () => {
    await session('act', 0, null);
    await expectCode(m.delete('act'), 'INVALID_TRANSITION');
    await m.leases.acquire('act', { owner: 'runner', ttlMs: 60_000 });
    clock += 120_000;
    expect((await m.list())[0]).toMatchObject({ id: 'act', status: 'interrupted' });
    await expectCode(m.delete('act'), 'INVALID_TRANSITION');
    await session('pin', 1, 'complete');
    await m.pin('pin');
    await expectCode(m.delete('pin'), 'INVALID_TRANSITION');
    expect(await m.listDeleted()).toEqual([]);
  });

  it('honours --if-revision', async () => {
    await session('r', 0, 'complete');
    await expectCode(m.delete('r', { expectedRevision: 1 }), 'CONFLICT');
    expect((await m.delete('r', { expectedRevision: 2 })).id).toBe('r');
  });

  it('lists tombstones newest deletion first', async () => {
    await session('one', 0, 'complete');
    await session('two', 1, 'complete');
    clock = T0 + 10 * DAY;
    await m.delete('one');
    clock += 1000;
    await m.delete('two');
    expect((await m.listDeleted()).map((t) => t.id)).toEqual(['two', 'one']);
  });
});

describe('cleanup', () => {
  /** A store with one session of every kind, all 40 days old unless said otherwise. */
  async function zoo(): Promise<void> {
    await session('done', 0, 'complete');
    await session('failed', 1, 'fail');
    await session('gave-up', 2, 'abandon');
    await session('paused', 3, 'pause');
    await session('pinned', 4, 'complete');
    await m.pin('pinned');
    // Active without being the workspace's current session: resumed by a write of its own.
    const resume = (id: string) =>
      m.change(id, () => ({ events: [{ type: 'session.resumed', data: { from: 'paused' } }], result: undefined }));
    await session('crashed', 5, 'pause');
    await resume('crashed');
    await m.leases.acquire('crashed', { owner: 'runner', ttlMs: 60_000 }); // expires a minute later
    await store.setActive(null); // else starting the next session would pause it
    await session('recent', 38, 'complete');
    await session('running', 39, 'pause');
    await resume('running');
    await store.setActive(null);
    clock = T0 + 45 * DAY;
  }

  it('by default archives completed, failed and abandoned sessions older than 30 days, and nothing else', async () => {
    await zoo();
    const r = await m.cleanup();
    expect(r.dryRun).toBe(false);
    expect(r.actions.map((a) => [a.id, a.action, a.status])).toEqual([
      ['gave-up', 'archive', 'abandoned'],
      ['failed', 'archive', 'failed'],
      ['done', 'archive', 'completed'],
    ]);
    const rows = await m.list({ all: true });
    const archived = rows
      .filter((x) => x.archived)
      .map((x) => x.id)
      .sort();
    expect(archived).toEqual(['done', 'failed', 'gave-up']);
    for (const id of ['done', 'failed', 'gave-up']) expect(await store.isArchived(id)).toBe(true);
    // Untouched: not a single event written to the others.
    expect((await m.get('crashed')).status).toBe('active');
    expect((await m.list()).find((x) => x.id === 'crashed')?.status).toBe('interrupted');
    expect((await m.get('running')).status).toBe('active');
    expect((await m.get('pinned')).archived).toBe(false);
    expect((await m.get('paused')).archived).toBe(false);
    // Running it again finds nothing.
    expect((await m.cleanup()).actions).toEqual([]);
  });

  it('--dry-run lists the same actions and changes nothing', async () => {
    await zoo();
    const before = await Promise.all(
      (await m.list({ all: true })).map(async (x) => [x.id, (await m.get(x.id)).revision]),
    );
    const dry = await m.cleanup({ dryRun: true });
    expect(dry.dryRun).toBe(true);
    expect(dry.actions.map((a) => a.id)).toEqual(['gave-up', 'failed', 'done']);
    const after = await Promise.all(
      (await m.list({ all: true })).map(async (x) => [x.id, (await m.get(x.id)).revision]),
    );
    expect(after).toEqual(before);
  });

  it('--status narrows or widens among paused/completed/failed/abandoned; the current session is never touched', async () => {
    await zoo();
    expect((await m.cleanup({ statuses: ['completed'], dryRun: true })).actions.map((a) => a.id)).toEqual(['done']);
    expect((await m.cleanup({ statuses: ['paused'], dryRun: true })).actions.map((a) => a.id)).toEqual(['paused']);
    // The paused session that is the workspace's current one stays.
    await m.switchTo('paused');
    await m.lifecycle('paused', 'pause');
    expect(await store.getActive()).toBe('paused');
    expect((await m.cleanup({ statuses: ['paused'], dryRun: true })).actions).toEqual([]);
  });

  it('--older-than and --keep', async () => {
    await zoo();
    expect((await m.cleanup({ olderThanMs: 44.5 * DAY, dryRun: true })).actions.map((a) => a.id)).toEqual(['done']);
    expect((await m.cleanup({ olderThanMs: 0, dryRun: true })).actions.map((a) => a.id)).toEqual([
      'recent',
      'gave-up',
      'failed',
      'done',
    ]);
    expect((await m.cleanup({ olderThanMs: 0, keep: 2, dryRun: true })).actions.map((a) => a.id)).toEqual([
      'failed',
      'done',
    ]);
    expect((await m.cleanup({ keep: 10, dryRun: true })).actions).toEqual([]);
    await expectCode(m.cleanup({ keep: -1 }), 'BAD_INPUT');
  });

  it('--delete deletes archived and live sessions alike, leaving tombstones', async () => {
    await zoo();
    await m.archive('done');
    clock += 40 * DAY;
    const r = await m.cleanup({ delete: true });
    // Archiving `done` was its last update.
    expect(r.actions.map((a) => [a.id, a.action])).toEqual([
      ['done', 'delete'],
      ['recent', 'delete'],
      ['gave-up', 'delete'],
      ['failed', 'delete'],
    ]);
    expect((await m.list({ all: true })).map((x) => x.id).sort()).toEqual(['crashed', 'paused', 'pinned', 'running']);
    const tombs = await m.listDeleted();
    expect(tombs.map((t) => [t.id, t.status, t.archived]).sort()).toEqual([
      ['done', 'completed', true],
      ['failed', 'failed', false],
      ['gave-up', 'abandoned', false],
      ['recent', 'completed', false],
    ]);
  });

  it('leaves alone a session that was pinned or written to after it was selected', async () => {
    await zoo();
    // A store that lets another writer pin `done` right after the selection, as a race would.
    let calls = 0;
    const other = managerOver(store);
    const racing = new Proxy(store, {
      get(target, prop, receiver) {
        if (prop === 'getActive') {
          return async () => {
            calls += 1;
            if (calls === 2) await other.pin('done');
            return target.getActive();
          };
        }
        const v = Reflect.get(target, prop, receiver) as unknown;
        return typeof v === 'function' ? (v as (...a: unknown[]) => unknown).bind(target) : v;
      },
    });
    const skipped: string[] = [];
    const r = await managerOver(racing).cleanup({ onSkip: (id, reason) => skipped.push(`${id}: ${reason}`) });
    expect(r.actions.map((a) => a.id)).toEqual(['gave-up', 'failed']);
    expect(skipped).toEqual(['done: Session done is left alone by cleanup: it is pinned.']);
    expect(await store.isArchived('done')).toBe(false);
    expect((await m.get('done')).archived).toBe(false);
  });

  it('finishes an archive that was recorded but whose move never happened', async () => {
    await session('half', 0, 'complete');
    await m.change('half', () => ({ events: [{ type: 'session.archived', data: {} }], result: undefined }));
    clock = T0 + 40 * DAY;
    expect(await store.isArchived('half')).toBe(false);
    // A memory store moves with the event; a file store reports where the folder is.
    const lying = new Proxy(store, {
      get(target, prop, receiver) {
        if (prop === 'isArchived') return async () => false;
        if (prop === 'list')
          return async () => ({
            ...(await target.list()),
            summaries: (await target.list()).summaries.map((s) => ({ ...s, archived: false })),
          });
        const v = Reflect.get(target, prop, receiver) as unknown;
        return typeof v === 'function' ? (v as (...a: unknown[]) => unknown).bind(target) : v;
      },
    });
    const r = await managerOver(lying).cleanup({ olderThanMs: 0 });
    expect(r.actions.map((a) => a.id)).toEqual(['half']);
    expect((await m.log('half')).filter((e) => e.type === 'session.archived')).toHaveLength(1);
  });

  it('skips a session it cannot read, and goes on', async () => {
    await zoo();
    const broken = new Proxy(store, {
      get(target, prop, receiver) {
        if (prop === 'load') {
          return async (id: string) => {
            if (id === 'failed') throw new BatonError('CORRUPT', 'damaged');
            return target.load(id);
          };
        }
        const v = Reflect.get(target, prop, receiver) as unknown;
        return typeof v === 'function' ? (v as (...a: unknown[]) => unknown).bind(target) : v;
      },
    });
    const skipped: string[] = [];
    const r = await managerOver(broken).cleanup({ dryRun: true, onSkip: (id, why) => skipped.push(`${id} ${why}`) });
    expect(r.actions.map((a) => a.id)).toEqual(['gave-up', 'done']);
    expect(skipped).toEqual(['failed it cannot be read (CORRUPT: damaged)']);
  });
});
