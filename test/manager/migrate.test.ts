/**
 * migrateStore through the SessionStore contract (memory and file stores): canonical
 * digests independent of key order and store bookkeeping; a target holding a prefix of a
 * journal is continued, one that diverges is reported and untouched; a stand-in left by an
 * interrupted tombstone copy is finished; a damaged source checkpoint is reported, not copied.
 */
import fs from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { StoredEvent } from '../../src/domain/events.js';
import { SessionManager } from '../../src/manager/manager.js';
import { canonicalEvent, journalDigest, migrateStore } from '../../src/manager/upkeep/migrate.js';
import { FileStore } from '../../src/store/file/store.js';
import { MemoryStore } from '../../src/store/memory.js';
import type { SessionStore } from '../../src/store/types.js';
import { tickingClock } from '../support/clock.js';
import { removeTempDirs, tempDir } from '../support/temp.js';

const T0 = Date.parse('2026-04-01T00:00:00.000Z');

function manager(store: SessionStore): SessionManager {
  return new SessionManager({ store, now: tickingClock(T0), agent: 'gen', pid: 7, host: 'h' });
}

afterEach(removeTempDirs);
function fileStore(): FileStore {
  const d = tempDir('baton-mig-');
  FileStore.init(path.join(d, '.baton'));
  return new FileStore({ root: path.join(d, '.baton') });
}

/** Strips seq and bookkeeping, as `create`/`append` take events. */
function asNew(events: StoredEvent[]): never[] {
  return events.map(({ seq: _s, v: _v, batch: _b, ...rest }) => rest) as never[];
}

describe('migrateStore', () => {
  it('canonical events ignore key order and store bookkeeping, and see every payload change', () => {
    const e = {
      seq: 1,
      type: 'note.added',
      time: 't',
      actor: { agent: null, pid: 1, host: 'h' },
      data: { text: 'x', noteId: 'note-1' },
    } as unknown as StoredEvent;
    const reordered = {
      data: { noteId: 'note-1', text: 'x' },
      actor: { host: 'h', pid: 1, agent: null },
      time: 't',
      type: 'note.added',
      seq: 1,
      v: 1,
      batch: [1, 2],
    } as unknown as StoredEvent;
    expect(canonicalEvent(reordered)).toBe(canonicalEvent(e));
    expect(journalDigest([reordered])).toBe(journalDigest([e]));
    expect(journalDigest([{ ...e, data: { text: 'y', noteId: 'note-1' } } as unknown as StoredEvent])).not.toBe(
      journalDigest([e]),
    );
  });

  it('continues a target that holds a prefix; reports a diverged one by name and leaves it untouched', async () => {
    const src = new MemoryStore();
    const m = manager(src);
    await m.start({ title: 'A', id: 'a' });
    for (let i = 0; i < 9; i++) await m.note('a', { text: `n${i}` });
    await m.start({ title: 'B', id: 'b', switch: true });
    await m.note('b', { text: 'source' });
    const dst = new MemoryStore();
    const aEvents = await src.readEvents('a');
    const rowA = (await src.list()).summaries.find((r) => r.id === 'a')!;
    await dst.create('a', asNew(aEvents.slice(0, 4)), rowA);
    const other = manager(dst);
    await other.start({ title: 'B', id: 'b' });
    await other.note('b', { text: 'target' });
    const bBefore = await dst.readEvents('b');

    const progress: string[] = [];
    const r = await migrateStore(src, dst, {
      chunk: 3,
      onProgress: (p) => progress.push(`${p.sessionId}:${p.action}:${p.eventsCopied}`),
    });
    expect(r.sessions.map((s) => [s.id, s.action, s.eventsCopied])).toEqual([['a', 'continued', aEvents.length - 4]]);
    expect(r.problems.map((p) => [p.sessionId, p.code])).toEqual([['b', 'diverged']]);
    expect(r.problems[0]!.message).toContain('Session b already exists on the target with a different history');
    expect(r.verified).toBe(false);
    expect(progress).toEqual([`a:continued:${aEvents.length - 4}`, 'b:skipped:0']);
    expect(journalDigest(await dst.readEvents('a'))).toBe(journalDigest(aEvents));
    expect(await dst.readEvents('b')).toEqual(bBefore);
  });

  it('file → file: a tombstone stand-in left by an interrupted run is finished; a damaged source checkpoint is reported, the rest verified', async () => {
    const src = fileStore();
    const m = manager(src);
    await m.start({ title: 'Deleted', id: 'gone' });
    await m.lifecycle('gone', 'complete');
    await m.delete('gone');
    await m.start({ title: 'Kept', id: 'kept' });
    await m.checkpoints.create('kept', { name: 'one' });
    await m.note('kept', { text: 'x' });
    await m.checkpoints.create('kept', { name: 'two' });
    const first = await migrateStore(src, fileStore());
    expect(first.verified).toBe(true);
    expect(first.totals).toMatchObject({ tombstones: 1, tombstonesCopied: 1, checkpoints: 2, checkpointsCopied: 2 });
    // A run that died between creating the tombstone's stand-in session and deleting it.
    const dst2 = fileStore();
    const created = {
      type: 'session.created',
      time: new Date(T0).toISOString(),
      actor: { agent: 'baton-migrate', pid: 1, host: 'migrate' },
      data: {
        title: 'Deleted',
        idFormat: 'explicit',
        phases: [],
        budgetMax: null,
        contextSummary: null,
        metadata: { batonMigrateTombstone: true },
      },
    };
    const row = (await src.list()).summaries.find((x) => x.id === 'kept')!;
    await dst2.create('gone', [created as never], { ...row, id: 'gone', title: 'Deleted' });
    const live = await src.listTombstones();
    expect(live.length).toBe(1);
    // Damage the second checkpoint of the source.
    const cpDir = path.join(src.location, 'sessions', 'kept', 'checkpoints');
    const damaged = fs.readdirSync(cpDir).find((f) => f.startsWith('cp-2'))!;
    fs.writeFileSync(path.join(cpDir, damaged), '{"broken":');
    const r = await migrateStore(src, dst2);
    expect(r.problems.map((p) => p.code)).toEqual(['checkpoint_damaged']);
    expect(r.verified).toBe(true);
    expect(r.totals).toMatchObject({ checkpoints: 1, checkpointsCopied: 1, tombstonesCopied: 1 });
    expect((await dst2.listCheckpoints('kept')).map((c) => c.id)).toEqual([(await src.listCheckpoints('kept'))[0]!.id]);
    expect(await dst2.exists('gone')).toBe(false);
    expect((await dst2.listTombstones()).map((t) => [t.id, t.deletedAt])).toEqual(live.map((t) => [t.id, t.deletedAt]));
  });

  it("copies readers' positions (otel follow's cursors) with the sessions; a target's own is kept", async () => {
    const src = fileStore();
    const dst = fileStore();
    await manager(src).start({ title: 'A', id: 'a' });
    await src.cursors.put('otel.d1.a', '{"seq":1}', null);
    await src.cursors.put('otel.d2.a', '{"seq":1}', null);
    await dst.cursors.put('otel.d2.a', '{"seq":9}', null);
    const r = await migrateStore(src, dst);
    expect(r.verified).toBe(true);
    expect(r.totals).toMatchObject({ cursors: 2, cursorsCopied: 1 });
    expect(await dst.cursors.list('otel.')).toEqual([
      { name: 'otel.d1.a', value: '{"seq":1}' },
      { name: 'otel.d2.a', value: '{"seq":9}' },
    ]);
    expect((await migrateStore(src, dst)).totals).toMatchObject({ cursors: 2, cursorsCopied: 0 });
    await src.close();
    await dst.close();
  });
});
