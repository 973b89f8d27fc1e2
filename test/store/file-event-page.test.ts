/**
 * A page of a file store's journal (`readEvents(id, after, limit)`) is found by a binary search
 * over the file's bytes and read around itself: the same events a whole read gives, whatever
 * the lines' lengths, the batches, the room set aside at the end or a torn last line, while
 * reading a small part of a long journal.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { newEvent } from '../../src/domain/events.js';
import type { NewEvent } from '../../src/domain/events.js';
import { SessionManager } from '../../src/manager/index.js';
import { FileStore } from '../../src/store/file/store.js';
import { tempDir } from '../support/temp.js';

const actor = { agent: 'w', pid: process.pid, host: os.hostname() };
const at = (): string => new Date().toISOString();

function note(i: number): NewEvent {
  // Lines of very different lengths, some longer than the reader's 16 KB window.
  const text = i % 97 === 0 ? 'x'.repeat(40_000) : `note ${i} ${'y'.repeat(i % 300)}`;
  return newEvent('note.added', { noteId: `note-${i}`, text, phaseId: null, agent: null }, at(), actor);
}

async function bigJournal(events: number): Promise<{ store: FileStore; dir: string }> {
  const dir = `${tempDir('baton-page-')}/.baton`;
  FileStore.init(dir);
  const store = new FileStore({ root: dir });
  const created = newEvent(
    'session.created',
    { title: 'Paged', idFormat: 'custom', phases: [{ id: 'p', name: 'P' }], budgetMax: null },
    at(),
    actor,
  );
  const m = new SessionManager({ store, agent: 'w' });
  await m.createFrom('paged', [created]);
  let rev = 1;
  while (rev < events) {
    // Batches of 1 to 40 events: multi-event appends carry `batch` marks on their lines.
    const k = Math.min(1 + (rev % 40), events - rev);
    rev = (
      await store.append(
        'paged',
        rev,
        Array.from({ length: k }, (_, j) => note(rev + j)),
      )
    ).revision;
  }
  return { store, dir };
}

afterEach(() => vi.restoreAllMocks());

describe('a page of a file journal', () => {
  it('gives the events a whole read gives, from any seq, for any page size', async () => {
    const { store } = await bigJournal(3000);
    try {
      const all = await store.readEvents('paged');
      expect(all).toHaveLength(3000);
      for (const after of [0, 1, 2, 39, 40, 41, 96, 97, 500, 1234, 2900, 2990, 2999, 3000, 4000])
        for (const limit of [1, 7, 100])
          expect(await store.readEvents('paged', after, limit)).toEqual(all.slice(after, after + limit));
    } finally {
      await store.close();
    }
  });

  it('reads a small part of a long journal for a page, and none of a torn last line', async () => {
    const { store, dir } = await bigJournal(6000);
    await store.close();
    const journal = fs
      .readdirSync(path.join(dir, 'sessions'), { recursive: true, encoding: 'utf8' })
      .map((f) => path.join(dir, 'sessions', f))
      .find((f) => f.endsWith('.jsonl'))!;
    // A torn append: a line without its newline, never acknowledged.
    fs.appendFileSync(journal, '{"seq":6001,"type":"note.added"');
    const size = fs.statSync(journal).size;
    const reader = new FileStore({ root: dir });
    try {
      let bytes = 0;
      const readSync = fs.readSync;
      vi.spyOn(fs, 'readSync').mockImplementation(((...a: Parameters<typeof fs.readSync>) => {
        const n = readSync(...a);
        bytes += n;
        return n;
      }) as typeof fs.readSync);
      const whole = vi.spyOn(fs, 'readFileSync');
      const page = await reader.readEvents('paged', 5900, 100);
      expect(page.map((e) => e.seq)).toEqual(Array.from({ length: 100 }, (_, i) => 5901 + i));
      const middle = await reader.readEvents('paged', 3000, 50);
      expect(middle.map((e) => e.seq)).toEqual(Array.from({ length: 50 }, (_, i) => 3001 + i));
      expect(whole.mock.calls.filter(([f]) => String(f).endsWith('.jsonl'))).toEqual([]);
      expect(bytes).toBeLessThan(size / 10);
      expect((await reader.readEvents('paged', 5990, 100)).map((e) => e.seq)).toEqual(
        Array.from({ length: 10 }, (_, i) => 5991 + i),
      );
    } finally {
      await reader.close();
    }
  });
});
