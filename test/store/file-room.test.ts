import fs from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { SessionManager } from '../../src/manager/manager.js';
import { dataEndOf, scanJournal } from '../../src/store/file/journal.js';
import { FileStore } from '../../src/store/file/store.js';
import { tempStoreDir } from './helpers.js';

// Room set aside at the end of a journal during a burst (src/store/file/append.ts): appends
// in a burst overwrite zero bytes already on disk, so their fsync commits no new file size.
// What a user relies on: every acknowledged event reads back, readers never take the room for
// lines, and a journal at rest is exactly its lines. Kills during bursts are in file-crash.test.ts.

const dirs: Array<{ remove: () => void }> = [];
afterEach(() => {
  for (const d of dirs.splice(0)) d.remove();
});

async function burst(
  n: number,
): Promise<{ root: string; journal: string; store: FileStore; m: SessionManager; id: string }> {
  const dir = tempStoreDir('baton-room-');
  dirs.push(dir);
  FileStore.init(dir.root);
  const store = new FileStore({ root: dir.root });
  const m = new SessionManager({ store, agent: 'room' });
  const s = await m.start({ title: 'room', phases: [{ id: 'a', name: 'A' }] });
  // A tight loop of awaits never lets the event loop turn: one lock hold, one burst.
  for (let i = 0; i < n; i++) await m.tokens(s.id, { input: 1 });
  return { root: dir.root, journal: path.join(dir.root, 'sessions', s.id, 'journal.jsonl'), store, m, id: s.id };
}

/** Lets the event loop turn until the burst's lock is released (after the derived files). */
async function atRest(m: SessionManager, journal: string): Promise<void> {
  await m.derivedFiles.settled();
  for (let i = 0; i < 100 && fs.statSync(journal).size !== dataEndOf(fs.readFileSync(journal)); i++)
    await new Promise((r) => setTimeout(r, 5));
}

describe('room at the end of a journal during a burst', () => {
  it('a burst sets room aside; every event reads back from the bytes alone, and the room is no line', async () => {
    const { journal, m, id } = await burst(300);
    const bytes = fs.readFileSync(journal);
    const end = dataEndOf(bytes);
    expect(bytes.length).toBeGreaterThan(end); // room: zero bytes after the lines
    expect(bytes.subarray(end).every((b) => b === 0)).toBe(true);
    expect(bytes[end - 1]).toBe(10);
    const scan = scanJournal(bytes, 0, 1);
    expect(scan.bad).toEqual([]);
    expect(scan.tornAt).toBeNull();
    expect(scan.events).toHaveLength(301);
    expect(scan.goodEnd).toBe(end);
    expect((await m.get(id)).tokens.input).toBe(300);
    await m.close();
  });

  it('is given back once the event loop turns: a journal at rest is exactly its lines', async () => {
    const { journal, m, id } = await burst(300);
    await atRest(m, journal);
    const bytes = fs.readFileSync(journal);
    expect(dataEndOf(bytes)).toBe(bytes.length);
    expect(bytes[bytes.length - 1]).toBe(10);
    expect(bytes.toString('utf8').trimEnd().split('\n')).toHaveLength(301);
    // And the next burst starts from there.
    for (let i = 0; i < 50; i++) await m.tokens(id, { input: 1 });
    await m.close();
    const after = fs.readFileSync(journal);
    expect(dataEndOf(after)).toBe(after.length);
    expect(scanJournal(after, 0, 1).events).toHaveLength(351);
  });

  it('room left behind (a writer killed mid-burst) is written over, not cut as a torn line', async () => {
    const { root, journal, store, id } = await burst(300);
    // What a SIGKILL leaves: the room stays on disk. Copy the bytes as they are now into a
    // second store folder, as if this process had died here.
    const left = fs.readFileSync(journal);
    await store.close();
    fs.writeFileSync(journal, left);
    const again = new FileStore({ root });
    const m2 = new SessionManager({ store: again, agent: 'next' });
    const loaded = await again.load(id);
    expect(loaded.repairs).toEqual([]);
    expect(loaded.revision).toBe(301);
    await m2.note(id, { text: 'after the crash' });
    const bytes = fs.readFileSync(journal);
    const scan = scanJournal(bytes, 0, 1);
    expect(scan.bad).toEqual([]);
    expect(scan.events.map((e) => e.seq)).toEqual(Array.from({ length: 302 }, (_, i) => i + 1));
    expect(scan.events.at(-1)!.type).toBe('note.added');
    await m2.close();
    const rest = fs.readFileSync(journal);
    expect(dataEndOf(rest)).toBe(rest.length);
  });

  it('an unfinished write over room (its start, then zeros) is cut as a torn line and kept aside', async () => {
    const { root, journal, store, id } = await burst(300);
    const bytes = Buffer.from(fs.readFileSync(journal));
    await store.close();
    const end = dataEndOf(bytes);
    const partial = Buffer.from('{"v":1,"seq":302,"type":"note.added","data":{"te');
    partial.copy(bytes, end);
    fs.writeFileSync(journal, bytes);
    const again = new FileStore({ root });
    const m2 = new SessionManager({ store: again, agent: 'next' });
    await m2.note(id, { text: 'next' });
    const loaded = await again.load(id);
    const events = await again.readEvents(id);
    expect(events.map((e) => e.type).slice(-2)).toEqual(['repair.torn_tail', 'note.added']);
    expect(loaded.revision).toBe(303);
    const saved = fs.readdirSync(path.dirname(journal)).filter((f) => f.startsWith('journal.jsonl.torn-'));
    expect(saved).toHaveLength(1);
    expect(fs.readFileSync(path.join(path.dirname(journal), saved[0]!), 'utf8')).toBe(partial.toString('utf8'));
    await m2.close();
  });

  it('zero bytes inside acknowledged lines (a damaged block, not a write in progress) are still reported as damage', async () => {
    const { root, journal, store, m, id } = await burst(50);
    await atRest(m, journal);
    await store.close();
    const bytes = Buffer.from(fs.readFileSync(journal));
    // Zeros over the middle of the 10th line: the same shape as a write caught in progress, but they never go away.
    const lines = bytes.toString('utf8').split('\n');
    const at = Buffer.byteLength(lines.slice(0, 9).join('\n')) + 1 + 20;
    bytes.fill(0, at, at + 40);
    fs.writeFileSync(journal, bytes);
    // Unlocked readers read again (a write in progress would be over by then), then report it.
    const reader = new FileStore({ root });
    await expect(reader.readEvents(id)).rejects.toMatchObject({ code: 'CORRUPT', details: { inFlight: true } });
    await expect(reader.load(id)).rejects.toMatchObject({ code: 'CORRUPT' });
    await reader.close();
  });
});
