/**
 * The cases of a journal replaced under a writer that keeps it open (issue 25), one at a time
 * in this process (test/store/file-journal-replaced.test.ts races a real writer): a copy taken
 * after the last append is followed without writing anything twice; an older copy, or one
 * caught while a line was being written, gets the appends it lacks; a file with another
 * history makes the append CONFLICT (not acknowledged, decided again against the new file);
 * a copy moved over after the last append is caught when the lock is let go.
 */
import fs from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { FileStore } from '../../src/store/file/store.js';
import { expectCode, expectContiguous, noteEvent, rejection, seed } from '../../src/testing/conformance.js';
import { tempStoreDir } from './helpers.js';

const ID = 'follow';
const cleanups: Array<() => void | Promise<void>> = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

async function setup(): Promise<{ root: string; store: FileStore; journal: string }> {
  const { root, remove } = tempStoreDir();
  const store = new FileStore({ root });
  cleanups.push(remove, () => store.close());
  await seed(store, ID, 2);
  return { root, store, journal: path.join(root, 'sessions', ID, 'journal.jsonl') };
}

/** Moves `bytes` over the journal the way a sync tool does (write a copy, rename it over). */
function replaceWith(journal: string, bytes: Buffer): void {
  fs.writeFileSync(`${journal}.x`, bytes);
  fs.renameSync(`${journal}.x`, journal);
}

/** Notes a fresh store reads, after checking the session loads and its seqs are contiguous. */
async function notesOnDisk(root: string): Promise<string[]> {
  const fresh = new FileStore({ root });
  try {
    await fresh.load(ID);
    const events = await fresh.readEvents(ID);
    expectContiguous(events);
    return events.filter((e) => e.type === 'note.added').map((e) => (e.data as { text: string }).text);
  } finally {
    await fresh.close();
  }
}

describe('a journal replaced while its writer keeps it open', () => {
  it('a copy that holds every append is followed, nothing written twice', async () => {
    const { root, store, journal } = await setup();
    await store.append(ID, 3, [noteEvent(3)]);
    replaceWith(journal, fs.readFileSync(journal));
    await store.append(ID, 4, [noteEvent(4)]);
    expect(await notesOnDisk(root)).toEqual(['note 1', 'note 2', 'note 3', 'note 4']);
  });

  it('an older copy gets the appends it lacks, including the one being written', async () => {
    const { root, store, journal } = await setup();
    const copy = fs.readFileSync(journal);
    await store.append(ID, 3, [noteEvent(3)]);
    await store.append(ID, 4, [noteEvent(4), noteEvent(5)]);
    replaceWith(journal, copy); // the copy was taken before notes 3-5
    expect((await store.append(ID, 6, [noteEvent(6)])).revision).toBe(7);
    expect(await notesOnDisk(root)).toEqual(['note 1', 'note 2', 'note 3', 'note 4', 'note 5', 'note 6']);
  });

  it('a copy caught while a line was being written (zero bytes where the line lands) is completed', async () => {
    const { root, store, journal } = await setup();
    await store.append(ID, 3, [noteEvent(3)]);
    const bytes = fs.readFileSync(journal);
    const lastLine = bytes.lastIndexOf(10, bytes.length - 2) + 1;
    // The first page of the last line had not reached the file yet; the rest had.
    const caught = Buffer.concat([
      bytes.subarray(0, lastLine),
      Buffer.alloc(20),
      bytes.subarray(lastLine + 20, bytes.length - 5),
    ]);
    replaceWith(journal, caught);
    await store.append(ID, 4, [noteEvent(4)]);
    expect(await notesOnDisk(root)).toEqual(['note 1', 'note 2', 'note 3', 'note 4']);
  });

  it('a file with another history: the append is CONFLICT, not acknowledged, and is decided again against it', async () => {
    const { root, store, journal } = await setup();
    await store.append(ID, 3, [noteEvent(3)]);
    const other = tempStoreDir();
    cleanups.push(other.remove);
    const o = new FileStore({ root: other.root });
    await seed(o, ID, 1);
    await o.append(ID, 2, [noteEvent(2, 'note B')]);
    await o.close();
    // The same first lines, then another note at seq 3: not a copy of this journal.
    replaceWith(journal, fs.readFileSync(path.join(other.root, 'sessions', ID, 'journal.jsonl')));
    const refused = await rejection(store.append(ID, 4, [noteEvent(4)]));
    expect(refused).toMatchObject({ code: 'CONFLICT', details: { journalReplaced: true } });
    // What the old file held is kept beside the journal, for a person to look at.
    const kept = String((refused as { details: { savedTo: string } }).details.savedTo);
    expect(fs.readFileSync(path.join(root, 'sessions', ID, kept), 'utf8')).toContain('note 3');
    // Decided again against the journal now at the path (revision 3).
    expect((await store.append(ID, 3, [noteEvent(4)])).revision).toBe(4);
    expect(await notesOnDisk(root)).toEqual(['note 1', 'note B', 'note 4']);
  });

  it('a copy moved over after the last append is caught when the lock is let go', async () => {
    const { root, store, journal } = await setup();
    const copy = fs.readFileSync(journal);
    await store.append(ID, 3, [noteEvent(3)]);
    replaceWith(journal, copy);
    await store.close(); // lets the lock go: the last look finds the copy and completes it
    expect(await notesOnDisk(root)).toEqual(['note 1', 'note 2', 'note 3']);
  });

  it('a read by the writer itself, before its next append, sees its appends, not the older copy', async () => {
    const { root, store, journal } = await setup();
    const copy = fs.readFileSync(journal);
    await store.append(ID, 3, [noteEvent(3)]);
    replaceWith(journal, copy);
    const events = await store.readEvents(ID);
    expect(events.map((e) => e.seq)).toEqual([1, 2, 3, 4]);
    expect((await store.load(ID)).revision).toBe(4);
    expect(await notesOnDisk(root)).toEqual(['note 1', 'note 2', 'note 3']);
  });

  it('a journal gone when the append is checked: not acknowledged', async () => {
    const { store, journal } = await setup();
    await store.append(ID, 3, [noteEvent(3)]);
    fs.renameSync(journal, `${journal}.away`);
    await expectCode(store.append(ID, 4, [noteEvent(4)]), 'CORRUPT');
    fs.renameSync(`${journal}.away`, journal);
  });
});
