/**
 * Group commit and the read-free hot path: concurrent changes of one session in a process
 * share one append (one write, one fsync), each validated against the state the ones before
 * it left; the state the manager keeps is only a first guess, so a stale write is still
 * refused (CONFLICT for a named revision, FENCED for a lost lease) and a writer in another
 * process is never overwritten; and nothing is acknowledged before its fsync: a process
 * killed with SIGKILL while groups are being flushed loses no acknowledged change.
 */
import { spawn } from 'node:child_process';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';
import { BatonError, isBatonError } from '../../src/domain/errors.js';
import type { StoredEvent } from '../../src/domain/events.js';
import { SessionManager } from '../../src/manager/manager.js';
import { FileStore } from '../../src/store/file/store.js';
import { MemoryStore } from '../../src/store/memory.js';
import { expectContiguous } from '../../src/testing/conformance.js';
import { tempStoreDir } from '../store/helpers.js';

const REPO = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const dirs: Array<{ remove: () => void }> = [];
const stores: FileStore[] = [];
afterEach(async () => {
  for (const s of stores.splice(0)) await s.close();
  for (const d of dirs.splice(0)) d.remove();
});

/** A manager over a file store at `root`, counting the appends that reach the store. */
function managerAt(root: string, agent = 'a'): { m: SessionManager; appends: number[] } {
  const store = new FileStore({ root });
  stores.push(store);
  const appends: number[] = [];
  const inner = store.append.bind(store);
  store.append = (id, rev, events, o) => {
    appends.push(events.length);
    return inner(id, rev, events, o);
  };
  return { m: new SessionManager({ store, agent, derivedFiles: { handoff: false, mirrors: false } }), appends };
}

function freshStore(): string {
  const d = tempStoreDir('baton-group-');
  dirs.push(d);
  return d.root;
}

const notes = (events: StoredEvent[]): string[] =>
  events.filter((e) => e.type === 'note.added').map((e) => (e.data as { text: string }).text);

describe('group commit', () => {
  it('16 concurrent writers: every change lands once, in fewer appends than changes, each told its own seq', async () => {
    const { m, appends } = managerAt(freshStore());
    await m.start({ title: 'g', id: 'g1', phases: [{ id: 'p', name: 'p' }] });
    appends.length = 0;
    const told = new Map<string, number>();
    await Promise.all(
      Array.from({ length: 16 }, async (_, w) => {
        for (let n = 0; n < 20; n++) {
          const r = await m.note('g1', { text: `w${w}-${n}` });
          expect(r.events).toHaveLength(1);
          told.set(`w${w}-${n}`, r.events[0]!.seq);
          expect(r.state.revision).toBe(r.events[0]!.seq);
        }
      }),
    );
    const events = await m.store.readEvents('g1');
    expectContiguous(events);
    expect(notes(events).sort()).toEqual([...told.keys()].sort());
    for (const e of events)
      if (e.type === 'note.added') expect(told.get((e.data as { text: string }).text)).toBe(e.seq);
    expect(appends.reduce((a, b) => a + b, 0)).toBe(320);
    // Grouped: far fewer appends (each one write and one fsync) than changes.
    expect(appends.length).toBeLessThan(320 / 4);
    expect(Math.max(...appends)).toBeGreaterThan(1);
  });

  it('each change of a group is validated against the state the ones before it left; one refused alone', async () => {
    const { m } = managerAt(freshStore());
    await m.start({ title: 'g', id: 'g2', phases: [{ id: 'p', name: 'p' }] });
    const [a, b, c] = await Promise.allSettled([
      m.phase('g2', 'p', 'start'),
      m.phase('g2', 'p', 'start'),
      m.note('g2', { text: 'after' }),
    ]);
    expect(a.status).toBe('fulfilled');
    // The second start sees the phase the first one started, in the same group.
    expect(b.status).toBe('rejected');
    expect((b as PromiseRejectedResult).reason).toBeInstanceOf(BatonError);
    expect(c.status).toBe('fulfilled');
    const s = await m.get('g2');
    expect(s.phases[0]!.status).toBe('in_progress');
    expect(notes(await m.store.readEvents('g2'))).toEqual(['after']);
  });

  it('a named revision inside a group is judged against the changes before it (CONFLICT), the others go on', async () => {
    const { m } = managerAt(freshStore());
    const s = await m.start({ title: 'g', id: 'g3' });
    const [a, b] = await Promise.allSettled([
      m.note('g3', { text: 'one' }, { expectedRevision: s.revision }),
      m.note('g3', { text: 'two' }, { expectedRevision: s.revision }),
    ]);
    expect(a.status).toBe('fulfilled');
    expect(isBatonError((b as PromiseRejectedResult).reason, 'CONFLICT')).toBe(true);
    expect(notes(await m.store.readEvents('g3'))).toEqual(['one']);
  });
});

describe('the read-free hot path still refuses stale writes', () => {
  it('a writer in another store instance (another process) in between: caught, decided again, both kept', async () => {
    const root = freshStore();
    const { m: a, appends } = managerAt(root, 'a');
    const { m: b } = managerAt(root, 'b');
    await a.start({ title: 'h', id: 'h1' });
    await a.note('h1', { text: 'a1' }); // a keeps the state it wrote
    await b.note('h1', { text: 'b1' });
    appends.length = 0;
    const seen: number[] = [];
    const r = await a.change('h1', (s) => {
      seen.push(s.revision);
      return {
        events: [
          {
            type: 'note.added',
            data: { noteId: 'n-x', text: `a2 after ${s.notes.length}`, phaseId: null, agent: 'a' },
          },
        ],
        result: undefined,
      };
    });
    // First try against what a kept (revision 2), refused by the store; then against the journal.
    expect(seen).toEqual([2, 3]);
    expect(appends).toEqual([1, 1]);
    expect(r.events[0]!.seq).toBe(4);
    expect(notes(await a.store.readEvents('h1'))).toEqual(['a1', 'b1', 'a2 after 2']);
  });

  it('a named revision that another process moved past is CONFLICT, even though this manager kept the state', async () => {
    const root = freshStore();
    const { m: a } = managerAt(root, 'a');
    const { m: b } = managerAt(root, 'b');
    const s = await a.start({ title: 'h', id: 'h2' });
    await b.note('h2', { text: 'b1' });
    await expect(a.note('h2', { text: 'stale' }, { expectedRevision: s.revision })).rejects.toMatchObject({
      code: 'CONFLICT',
    });
    expect(notes(await a.store.readEvents('h2'))).toEqual(['b1']);
  });

  it('a lease taken over by another process fences the old holder, whose kept state still shows its own lease', async () => {
    const root = freshStore();
    const { m: a } = managerAt(root, 'a');
    const { m: b } = managerAt(root, 'b');
    await a.start({ title: 'h', id: 'h3' });
    const mine = (await a.leases.acquire('h3', { owner: 'run', ttlMs: 60_000 })).result;
    await a.note('h3', { text: 'while held' }, { fencingToken: mine.token });
    const theirs = (await b.leases.acquire('h3', { owner: 'run', ttlMs: 60_000, force: true })).result;
    expect(theirs.token).toBeGreaterThan(mine.token);
    await expect(a.note('h3', { text: 'stale holder' }, { fencingToken: mine.token })).rejects.toMatchObject({
      code: 'FENCED',
    });
    // Many stale writes at once (one group) are all refused.
    const all = await Promise.allSettled(
      Array.from({ length: 8 }, (_, i) => a.note('h3', { text: `stale ${i}` }, { fencingToken: mine.token })),
    );
    expect(all.every((x) => x.status === 'rejected' && isBatonError(x.reason, 'FENCED'))).toBe(true);
    expect(notes(await a.store.readEvents('h3'))).toEqual(['while held']);
  });

  it('two processes with 8 concurrent writers each on one session: nothing lost, nothing doubled', async () => {
    const root = freshStore();
    const { m: a } = managerAt(root, 'a');
    const { m: b } = managerAt(root, 'b');
    await a.start({ title: 'h', id: 'h4' });
    const writers = (m: SessionManager, tag: string) =>
      Array.from({ length: 8 }, async (_, w) => {
        for (let n = 0; n < 10; n++) await m.note('h4', { text: `${tag}${w}-${n}` });
      });
    await Promise.all([...writers(a, 'a'), ...writers(b, 'b')]);
    const events = await a.store.readEvents('h4');
    expectContiguous(events);
    expect(notes(events)).toHaveLength(160);
    expect(new Set(notes(events)).size).toBe(160);
  });
});

interface Acked {
  seq: number;
  text: string;
}

/** Runs the group writer and SIGKILLs it `afterMs` after it has written its first group. */
function runAndKill(
  root: string,
  tag: string,
  afterMs: number,
): Promise<{ acks: Acked[]; groups: number; signal: NodeJS.Signals | null; stderr: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(
      process.execPath,
      ['--import', 'tsx', path.join(REPO, 'test/fixtures/group-writer.ts'), root, 'crash', tag],
      { cwd: REPO, stdio: ['ignore', 'pipe', 'pipe'] },
    );
    const acks: Acked[] = [];
    let groups = 0;
    let stderr = '';
    let buffered = '';
    let timer: NodeJS.Timeout | null = null;
    const guard = setTimeout(() => child.kill('SIGKILL'), 20_000);
    child.stdout.setEncoding('utf8');
    child.stdout.on('data', (chunk: string) => {
      buffered += chunk;
      const lines = buffered.split('\n');
      buffered = lines.pop()!; // only complete lines count
      for (const line of lines) {
        const [word, a, b] = line.split(' ');
        if (word === 'ack') acks.push({ seq: Number(a), text: b! });
        else if (word === 'group') {
          groups += 1;
          timer ??= setTimeout(() => child.kill('SIGKILL'), afterMs);
        }
      }
    });
    child.stderr.setEncoding('utf8');
    child.stderr.on('data', (c: string) => (stderr += c));
    child.on('error', reject);
    child.on('exit', (_code, signal) => {
      clearTimeout(guard);
      if (timer) clearTimeout(timer);
      resolve({ acks, groups, signal, stderr });
    });
  });
}

describe('group commit crash safety (SIGKILL)', () => {
  it('a process killed while 16 writers flush groups loses no acknowledged change', async () => {
    const root = freshStore();
    {
      const { m } = managerAt(root);
      await m.start({ title: 'crash', id: 'crash' });
    }
    const acked: Acked[] = [];
    let groups = 0;
    for (let k = 0; k < 6; k++) {
      const run = await runAndKill(root, `r${k}`, 30 + Math.random() * 150);
      expect(run.signal, run.stderr).toBe('SIGKILL');
      expect(run.stderr).toBe('');
      groups += run.groups;
      acked.push(...run.acks);
      // A fresh store (the next open) repairs a torn tail and must hold every acknowledged change at its seq.
      const store = new FileStore({ root });
      try {
        await store.load('crash');
        const events = await store.readEvents('crash');
        expectContiguous(events);
        const bySeq = new Map(events.map((e) => [e.seq, e]));
        for (const a of acked)
          expect((bySeq.get(a.seq)?.data as { text?: string } | undefined)?.text, `seq ${a.seq}`).toBe(a.text);
      } finally {
        await store.close();
      }
    }
    expect(acked.length).toBeGreaterThan(100);
    expect(groups).toBeGreaterThan(6);
  }, 60_000);
});

/** A manager (a snapshot every 5 events) over a memory store whose snapshots wait for `release()`; `written` lists the revisions that landed. */
function heldSnapshots(): { store: MemoryStore; m: SessionManager; written: number[]; release: () => void } {
  const store = new MemoryStore();
  let release!: () => void;
  const gate = new Promise<void>((r) => (release = r));
  const written: number[] = [];
  const inner = store.writeSnapshot.bind(store);
  store.writeSnapshot = async (id, snap) => {
    await gate;
    await inner(id, snap);
    written.push(snap.revision);
  };
  const m = new SessionManager({
    store,
    agent: 'a',
    snapshotEvery: 5,
    derivedFiles: { handoff: false, mirrors: false },
  });
  return { store, m, written, release };
}

describe('snapshots off the acknowledgement path', () => {
  it('a change is answered before its snapshot lands; the next load uses it; close() waits for it', async () => {
    const { store, m, written, release } = heldSnapshots();
    const s = await m.start({ title: 'snap', id: 'snap' });
    // Revision 5 reaches the snapshot interval: answered while its snapshot is held back.
    for (let i = 0; i < 6; i++) await m.tokens(s.id, { input: 1 });
    expect(written).toEqual([]);
    let closed = false;
    const closing = m.close().then(() => (closed = true));
    await new Promise((r) => setTimeout(r, 20));
    expect(closed).toBe(false);
    release();
    await closing;
    // One snapshot at a time: the one started at revision 5, not one per change after it.
    expect(written).toEqual([5]);
    expect((await store.load('snap')).snapshot?.revision).toBe(5);
  });

  it('a snapshot that lands after more changes still counts: the next is due snapshotEvery after it', async () => {
    const { m, written, release } = heldSnapshots();
    const s = await m.start({ title: 'snap', id: 'late' });
    for (let i = 0; i < 6; i++) await m.tokens(s.id, { input: 1 }); // revision 7; the snapshot at 5 is held back
    release();
    await new Promise((r) => setTimeout(r, 10));
    expect(written).toEqual([5]);
    // Revisions 8 and 9 are less than 5 past it; 10 is due.
    for (let i = 0; i < 3; i++) await m.tokens(s.id, { input: 1 });
    await m.close();
    expect(written).toEqual([5, 10]);
  });
});
