/**
 * The file store's change feed and the manager's change stream over it: writes from another
 * store instance (as another process would make them) are reported with their revision; a
 * half-written last line is not reported until it is complete; watchSessions reports each
 * event once, in order, from the revision it started at, and only the session asked for.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { SessionManager } from '../../src/manager/manager.js';
import type { SessionChange } from '../../src/manager/watch.js';
import { FileStore } from '../../src/store/file/store.js';
import { Layout } from '../../src/store/file/paths.js';
import { watchJournals } from '../../src/store/file/watch.js';
import { encodeRecord } from '../../src/store/file/codec.js';

const dirs: string[] = [];
const stops: Array<() => Promise<void>> = [];
afterEach(async () => {
  for (const s of stops.splice(0)) await s();
  for (const d of dirs.splice(0)) fs.rmSync(d, { recursive: true, force: true });
});

function root(): string {
  const d = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'baton-watch-')));
  dirs.push(d);
  const r = path.join(d, '.baton');
  FileStore.init(r);
  return r;
}

async function until(pred: () => boolean, what: string, ms = 10_000): Promise<void> {
  const end = Date.now() + ms;
  while (!pred()) {
    if (Date.now() > end) throw new Error(`never saw ${what}`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

describe('file store watch', () => {
  it('reports the new revision of each changed journal; a torn last line only once it is complete', async () => {
    const r = root();
    const writer = new SessionManager({ store: new FileStore({ root: r }) });
    await writer.start({ title: 'x', id: 'x' });
    const reader = new FileStore({ root: r });
    const seen: Array<{ sessionId: string; revision: number }> = [];
    stops.push(await reader.watch((c) => seen.push(c)));
    await writer.note('x', { text: 'one' });
    await until(() => seen.some((c) => c.revision === 2), 'revision 2');
    await writer.start({ title: 'y', id: 'y', switch: true });
    await until(() => seen.some((c) => c.sessionId === 'y' && c.revision === 1), 'the new session y');
    // A writer that has written only part of a line: nothing to report yet.
    const journal = path.join(r, 'sessions', 'y', 'journal.jsonl');
    const before = seen.length;
    const line = `${encodeRecord({ v: 1, seq: 2, type: 'note.added', time: new Date().toISOString(), actor: { agent: null, pid: 1, host: 'h' }, data: { noteId: 'note-1', text: 'hi', phaseId: null, agent: null } })}\n`;
    fs.appendFileSync(journal, line.slice(0, 40));
    await new Promise((res) => setTimeout(res, 300));
    expect(seen.length).toBe(before);
    fs.appendFileSync(journal, line.slice(40));
    await until(
      () => seen.some((c) => c.sessionId === 'y' && c.revision === 2),
      'revision 2 of y once its line was complete',
    );
  });

  it('the fallback poll reports changes by itself (no file-system events needed)', async () => {
    const r = root();
    const writer = new SessionManager({ store: new FileStore({ root: r }) });
    await writer.start({ title: 'x', id: 'x' });
    const seen: number[] = [];
    stops.push(await watchJournals(new Layout(r), (c) => seen.push(c.revision), { fsEvents: false, pollMs: 100 }));
    await writer.note('x', { text: 'one' });
    await until(() => seen.includes(2), 'revision 2');
  });
});

describe('watchSessions', () => {
  it('each event after the start once, in order; --session filters', async () => {
    const r = root();
    const writer = new SessionManager({ store: new FileStore({ root: r }) });
    await writer.start({ title: 'a', id: 'a' });
    await writer.note('a', { text: 'before' });
    await writer.start({ title: 'b', id: 'b', switch: true });
    const watcher = new SessionManager({ store: new FileStore({ root: r }) });
    const all: SessionChange[] = [];
    const onlyB: SessionChange[] = [];
    stops.push(await watcher.watch({ onChange: (c) => all.push(c) }));
    stops.push(
      await new SessionManager({ store: new FileStore({ root: r }) }).watch({
        sessionId: 'b',
        onChange: (c) => onlyB.push(c),
      }),
    );
    for (let i = 0; i < 20; i++) await writer.note(i % 2 ? 'a' : 'b', { text: `n${i}` });
    const seqs = (list: SessionChange[], id: string): number[] =>
      list.filter((c) => c.sessionId === id).flatMap((c) => c.events.map((e) => e.seq));
    const aFrom = 4; // created, note, paused (by the switch): revision 3 at the start
    await until(() => seqs(all, 'a').length === 10 && seqs(all, 'b').length === 10, 'twenty notes');
    expect(seqs(all, 'a')).toEqual(Array.from({ length: 10 }, (_, i) => aFrom + i));
    expect(seqs(all, 'b')).toEqual(Array.from({ length: 10 }, (_, i) => 2 + i));
    await until(() => seqs(onlyB, 'b').length === 10, 'the notes of b');
    expect(onlyB.every((c) => c.sessionId === 'b')).toBe(true);
    for (const c of all) expect(c.revision).toBe(c.events[c.events.length - 1]!.seq);
  });
});
