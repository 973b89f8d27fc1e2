/**
 * The one conformance suite every `SessionStore` must pass, with identical expectations for
 * every backend. A test file calls {@link runStoreConformance} with a factory that makes a
 * fresh, empty store per test. Anything that needs several processes or machines is gated on
 * `store.capabilities`, never on the store's name.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { fold } from '../domain/apply.js';
import { isBatonError } from '../domain/errors.js';
import type { ErrorCode } from '../domain/errors.js';
import type { Actor, NewEvent, StoredEvent } from '../domain/events.js';
import { newEvent } from '../domain/events.js';
import type { SessionState } from '../domain/state.js';
import { summarize } from '../domain/summary.js';
import type { SessionSummary } from '../domain/summary.js';
import type { Checkpoint, SessionStore } from '../store/types.js';

/** What a factory hands the suite for one test. */
export interface StoreUnderTest {
  store: SessionStore;
  /** Removes everything the store left behind (temp dirs, schemas…). Called after `store.close()`. */
  cleanup: () => Promise<void>;
  /**
   * Opens a second, independent handle on the same data, as another process would. Required
   * when the store declares `capabilities.multiProcess`; the cross-handle tests use it.
   */
  reopen?: () => Promise<SessionStore>;
}

/** Makes a fresh, empty store for one test. */
export type StoreFactory = () => Promise<StoreUnderTest>;

const ACTOR: Actor = { agent: 'conformance', pid: 4242, host: 'test-host' };
const T0 = Date.parse('2026-01-02T03:04:05.000Z');

/** A timestamp `i` seconds after a fixed origin, so runs are reproducible. */
function at(i: number): string {
  return new Date(T0 + i * 1000).toISOString();
}

/** A `session.created` event. */
export function createdEvent(title = 'Conformance session', phases: string[] = ['plan', 'build']): NewEvent {
  return newEvent(
    'session.created',
    { title, idFormat: 'explicit', phases: phases.map((p) => ({ id: p, name: p })), budgetMax: null, contextSummary: null, metadata: {} },
    at(0),
    ACTOR,
  );
}

/** A `note.added` event numbered `i`. */
export function noteEvent(i: number, text = `note ${i}`): NewEvent {
  return newEvent('note.added', { noteId: `note-${i}`, text, phaseId: null, agent: 'conformance' }, at(i), ACTOR);
}

/** A `tokens.recorded` event. */
export function tokensEvent(i: number, input = 1): NewEvent {
  return newEvent('tokens.recorded', { agent: 'conformance', phaseId: null, input, output: 0, cached: 0 }, at(i), ACTOR);
}

/** Gives new events the seqs they get when appended after `revision`. */
function stored(events: NewEvent[], revision = 0): StoredEvent[] {
  return events.map((e, i) => ({ ...e, seq: revision + i + 1 }) as StoredEvent);
}

/** The state a journal of `events` folds to. */
export function stateOf(id: string, events: StoredEvent[]): SessionState {
  const s = fold(null, events, id);
  if (!s) throw new Error('no session.created among the events');
  return s;
}

/** The registry row of a session whose journal is `events`. */
export function summaryOf(id: string, events: StoredEvent[]): SessionSummary {
  return summarize(stateOf(id, events));
}

/** Creates a session with a `session.created` event and `notes` notes; returns its events as stored. */
export async function seed(store: SessionStore, id: string, notes = 0): Promise<StoredEvent[]> {
  const events = [createdEvent(`Session ${id}`), ...Array.from({ length: notes }, (_, i) => noteEvent(i + 1))];
  const all = stored(events);
  const r = await store.create(id, events, summaryOf(id, all));
  expect(r.revision).toBe(events.length);
  return all;
}

/** A checkpoint of session `id` at the end of `events` (which must be its journal so far). */
export function checkpointOf(id: string, events: StoredEvent[], cpId: string, name = cpId): Checkpoint {
  const state = stateOf(id, events);
  return {
    id: cpId,
    sessionId: id,
    name,
    createdAt: at(events.length),
    revision: state.revision,
    state,
    git: { branch: 'main', head: '0123456789abcdef0123456789abcdef01234567', dirty: false },
    files: [{ path: 'src/a.ts', sha256: 'ab'.repeat(32), size: 12 }, { path: 'gone.txt', sha256: null, size: null }],
    trigger: 'manual',
    phaseId: null,
  };
}

/** Resolves with the error `p` rejects with, or fails the test when it resolves. */
export async function rejection(p: Promise<unknown>): Promise<unknown> {
  try {
    await p;
  } catch (e) {
    return e;
  }
  throw new Error('expected the call to be refused, but it succeeded');
}

/** Checks that `p` rejects with a `BatonError` of the given code. */
export async function expectCode(p: Promise<unknown>, code: ErrorCode): Promise<void> {
  const e = await rejection(p);
  if (!isBatonError(e, code)) {
    throw new Error(`expected BatonError ${code}, got ${isBatonError(e) ? `BatonError ${e.code}: ${e.message}` : String(e)}`);
  }
}

/** Checks that `events` carry seq `from`, `from + 1`, … with no gap or duplicate. */
export function expectContiguous(events: StoredEvent[], from = 1): void {
  expect(events.map((e) => e.seq)).toEqual(events.map((_, i) => from + i));
}

const BAD_IDS: Array<[string, string]> = [
  ['a path escape', '../x'],
  ['empty', ''],
  ['2,000 characters', 'a'.repeat(2000)],
  ['a separator', 'a/b'],
  ['a leading dot', '.hidden'],
];

function sleep(ms: number): Promise<void> {
  return new Promise((r) => setTimeout(r, ms));
}

/**
 * Registers the conformance tests for one store. `makeStore` is called once per test and must
 * return an empty store; the suite closes it and then calls `cleanup`.
 */
export function runStoreConformance(name: string, makeStore: StoreFactory): void {
  describe(`SessionStore conformance: ${name}`, () => {
    let sut: StoreUnderTest;
    let store: SessionStore;
    const extra: SessionStore[] = [];

    beforeEach(async () => {
      sut = await makeStore();
      store = sut.store;
    });

    afterEach(async () => {
      for (const s of extra.splice(0)) await s.close();
      await store.close();
      await sut.cleanup();
    });

    /** A second handle on the same data; fails the test when the factory gives none. */
    async function second(): Promise<SessionStore> {
      if (!sut.reopen) throw new Error(`${name} declares multiProcess but its factory gives no reopen()`);
      const s = await sut.reopen();
      extra.push(s);
      return s;
    }

    describe('create and load', () => {
      it('declares its capabilities', () => {
        expect(typeof store.kind).toBe('string');
        expect(typeof store.location).toBe('string');
        expect(store.capabilities).toEqual({
          multiProcess: expect.any(Boolean),
          multiMachine: expect.any(Boolean),
          durable: expect.any(Boolean),
        });
        if (store.capabilities.multiMachine) expect(store.capabilities.multiProcess).toBe(true);
      });

      it('create then load returns every event with seq 1..n', async () => {
        const events = [createdEvent(), noteEvent(1), tokensEvent(2, 5), noteEvent(3)];
        const r = await store.create('s-1', events, summaryOf('s-1', stored(events)));
        expect(r).toEqual({ revision: 4 });
        const loaded = await store.load('s-1');
        expect(loaded.snapshot).toBeNull();
        expect(loaded.revision).toBe(4);
        expect(loaded.repairs).toEqual([]);
        expectContiguous(loaded.events);
        loaded.events.forEach((e, i) => expect(e).toMatchObject({ ...events[i], seq: i + 1 }));
        expect(stateOf('s-1', loaded.events).tokens.input).toBe(5);
        expect(await store.exists('s-1')).toBe(true);
        expect(await store.exists('s-2')).toBe(false);
      });

      it('keeps sessions apart', async () => {
        await seed(store, 'a', 2);
        await seed(store, 'b', 5);
        expect((await store.load('a')).revision).toBe(3);
        expect((await store.load('b')).revision).toBe(6);
        await store.append('a', 3, [noteEvent(9)]);
        expect((await store.load('b')).revision).toBe(6);
        expect((await store.readEvents('a')).map((e) => e.seq)).toEqual([1, 2, 3, 4]);
      });

      it('refuses to create an existing id with EXISTS and changes nothing', async () => {
        const before = await seed(store, 'dup', 2);
        await expectCode(store.create('dup', [createdEvent('other')], summaryOf('dup', stored([createdEvent('other')]))), 'EXISTS');
        const after = await store.readEvents('dup');
        expect(after).toHaveLength(before.length);
        expect(after[0]).toMatchObject({ type: 'session.created', data: { title: 'Session dup' } });
      });

      it('answers NOT_FOUND for an unknown id', async () => {
        await seed(store, 'known');
        expect(await store.exists('unknown')).toBe(false);
        await expectCode(store.load('unknown'), 'NOT_FOUND');
        await expectCode(store.readEvents('unknown'), 'NOT_FOUND');
        await expectCode(store.append('unknown', 0, [noteEvent(1)]), 'NOT_FOUND');
        await expectCode(store.append('unknown', 1, [noteEvent(1)]), 'NOT_FOUND');
        await expectCode(store.writeSnapshot('unknown', { revision: 1, state: stateOf('unknown', stored([createdEvent()])) }), 'NOT_FOUND');
        await expectCode(store.archive('unknown'), 'NOT_FOUND');
        await expectCode(store.isArchived('unknown'), 'NOT_FOUND');
        await expectCode(store.repair!('unknown'), 'NOT_FOUND');
        await expectCode(store.setActive('unknown'), 'NOT_FOUND');
        expect(await store.exists('unknown')).toBe(false);
        expect((await store.list()).summaries.map((s) => s.id)).toEqual(['known']);
      });

      for (const [what, bad] of BAD_IDS) {
        it(`refuses an invalid id (${what}) with BAD_INPUT everywhere`, async () => {
          await seed(store, 'x', 1);
          const ev = [createdEvent()];
          const state = stateOf('x', stored(ev));
          await expectCode(store.create(bad, ev, { ...summaryOf('x', stored(ev)), id: bad }), 'BAD_INPUT');
          await expectCode(store.exists(bad), 'BAD_INPUT');
          await expectCode(store.load(bad), 'BAD_INPUT');
          await expectCode(store.readEvents(bad), 'BAD_INPUT');
          await expectCode(store.append(bad, 1, [noteEvent(1)]), 'BAD_INPUT');
          await expectCode(store.writeSnapshot(bad, { revision: 1, state }), 'BAD_INPUT');
          await expectCode(store.archive(bad), 'BAD_INPUT');
          await expectCode(store.isArchived(bad), 'BAD_INPUT');
          await expectCode(store.repair!(bad), 'BAD_INPUT');
          await expectCode(store.setActive(bad), 'BAD_INPUT');
          // Nothing was created by any of these, and the real session is untouched.
          expect((await store.list()).summaries.map((s) => s.id)).toEqual(['x']);
          expect((await store.list()).missing).toEqual([]);
          expect((await store.load('x')).revision).toBe(2);
          expect(await store.getActive()).toBeNull();
        });
      }
    });

    describe('conditional append', () => {
      it('appends after the expected revision and gives the next seqs', async () => {
        await seed(store, 's');
        expect(await store.append('s', 1, [noteEvent(1)])).toEqual({ revision: 2 });
        expect(await store.append('s', 2, [noteEvent(2), tokensEvent(3), noteEvent(4)])).toEqual({ revision: 5 });
        const events = await store.readEvents('s');
        expectContiguous(events);
        expect(events.map((e) => e.type)).toEqual(['session.created', 'note.added', 'note.added', 'tokens.recorded', 'note.added']);
        expect(events[4]).toMatchObject({ ...noteEvent(4), seq: 5 });
      });

      it('refuses a stale or future expectedRevision with CONFLICT and writes nothing', async () => {
        await seed(store, 's', 3);
        const before = await store.readEvents('s');
        for (const expected of [0, 1, 3, 5, 100]) {
          const e = await rejection(store.append('s', expected, [noteEvent(50), noteEvent(51)]));
          expect(isBatonError(e, 'CONFLICT')).toBe(true);
        }
        expect(await store.readEvents('s')).toEqual(before);
        const loaded = await store.load('s');
        expect(loaded.revision).toBe(4);
        // The right revision still works afterwards.
        expect(await store.append('s', 4, [noteEvent(52)])).toEqual({ revision: 5 });
        expectContiguous(await store.readEvents('s'));
      });

      it('lets exactly one of 10 concurrent appends expecting the same revision win', async () => {
        await seed(store, 'race', 1);
        const results = await Promise.allSettled(Array.from({ length: 10 }, (_, i) => store.append('race', 2, [noteEvent(100 + i)])));
        const won = results.filter((r) => r.status === 'fulfilled');
        const lost = results.filter((r): r is PromiseRejectedResult => r.status === 'rejected');
        expect(won).toHaveLength(1);
        expect((won[0] as PromiseFulfilledResult<{ revision: number }>).value).toEqual({ revision: 3 });
        expect(lost).toHaveLength(9);
        for (const r of lost) expect(isBatonError(r.reason, 'CONFLICT')).toBe(true);
        const events = await store.readEvents('race');
        expect(events).toHaveLength(3);
        expectContiguous(events);
      });

      it('keeps every concurrent commuting change when each writer retries on CONFLICT', async () => {
        await seed(store, 'retry');
        const writer = async (w: number): Promise<void> => {
          for (let i = 0; i < 5; i++) {
            for (;;) {
              const { revision } = await store.load('retry');
              try {
                await store.append('retry', revision, [tokensEvent(w * 10 + i, 1)]);
                break;
              } catch (e) {
                if (!isBatonError(e, 'CONFLICT')) throw e;
                await sleep(Math.random() * 3);
              }
            }
          }
        };
        await Promise.all(Array.from({ length: 4 }, (_, w) => writer(w)));
        const events = await store.readEvents('retry');
        expect(events).toHaveLength(21);
        expectContiguous(events);
        expect(stateOf('retry', events).tokens.input).toBe(20);
      });
    });

    describe('unknown fields', () => {
      it('preserves unknown fields and event types through load and readEvents', async () => {
        const created = { ...createdEvent(), futureTop: { nested: [1, 'two', null] } } as unknown as NewEvent;
        await store.create('u', [created], summaryOf('u', stored([createdEvent()])));
        const withExtras = {
          ...noteEvent(1),
          data: { ...(noteEvent(1).data as object), futureData: 'kept', deep: { a: 1 } },
          futureTop: 42,
          trace: { span: 'abc' },
        } as unknown as NewEvent;
        const unknownType = { type: 'future.event', time: at(2), actor: ACTOR, data: { anything: true }, ext: 'x' } as unknown as NewEvent;
        await store.append('u', 1, [withExtras, unknownType]);
        const loaded = await store.load('u');
        const read = await store.readEvents('u');
        for (const events of [loaded.events, read]) {
          expect(events[0]).toMatchObject({ futureTop: { nested: [1, 'two', null] } });
          expect(events[1]).toMatchObject({ futureTop: 42, trace: { span: 'abc' }, data: { futureData: 'kept', deep: { a: 1 }, text: 'note 1' } });
          expect(events[2]).toMatchObject({ type: 'future.event', seq: 3, data: { anything: true }, ext: 'x' });
        }
        // The fold ignores what it does not know.
        expect(stateOf('u', read).notes).toHaveLength(1);
      });

      it('keeps any text exactly: accents, emoji, quotes, newlines, control characters', async () => {
        const text = 'héllo ✓ 😀 "quoted" \\ back\nslash\r\n\t\u0000\u2028 end';
        await seed(store, 'text');
        await store.append('text', 1, [noteEvent(2, text)]);
        for (const events of [(await store.load('text')).events, await store.readEvents('text')]) {
          expect((events[1]!.data as { text: string }).text).toBe(text);
        }
      });

      it('returns copies: changing a loaded event does not change the store', async () => {
        await seed(store, 'c', 1);
        const first = await store.load('c');
        (first.events[1]!.data as { text: string }).text = 'mutated';
        first.events.pop();
        const again = await store.load('c');
        expect(again.events).toHaveLength(2);
        expect((again.events[1]!.data as { text: string }).text).toBe('note 1');
      });
    });

    describe('snapshots', () => {
      it('load returns the snapshot plus only the later events', async () => {
        const events = await seed(store, 'snap', 4);
        const state5 = stateOf('snap', events);
        await store.writeSnapshot('snap', { revision: 5, state: state5 });
        let loaded = await store.load('snap');
        expect(loaded.snapshot?.revision).toBe(5);
        expect(loaded.snapshot?.state).toEqual(state5);
        expect(loaded.events).toEqual([]);
        expect(loaded.revision).toBe(5);

        await store.append('snap', 5, [noteEvent(6), tokensEvent(7, 3)]);
        loaded = await store.load('snap');
        expect(loaded.snapshot?.revision).toBe(5);
        expect(loaded.events.map((e) => e.seq)).toEqual([6, 7]);
        expect(loaded.revision).toBe(7);
        const all = await store.readEvents('snap');
        expect(fold(loaded.snapshot!.state, loaded.events, 'snap')).toEqual(stateOf('snap', all));
        // The journal is untouched by snapshots.
        expect(all).toHaveLength(7);
        expectContiguous(all);
      });

      it('accepts a snapshot of an earlier revision and replays from there', async () => {
        const events = await seed(store, 'old', 6);
        const state3 = stateOf('old', events.slice(0, 3));
        await store.writeSnapshot('old', { revision: 3, state: state3 });
        const loaded = await store.load('old');
        expect(loaded.snapshot?.revision).toBe(3);
        expect(loaded.snapshot?.state).toEqual(state3);
        expect(loaded.events.map((e) => e.seq)).toEqual([4, 5, 6, 7]);
        expect(loaded.revision).toBe(7);
      });

      it('uses the newest snapshot written', async () => {
        let events = await seed(store, 'newest', 2);
        await store.writeSnapshot('newest', { revision: 3, state: stateOf('newest', events) });
        await store.append('newest', 3, [noteEvent(4), noteEvent(5)]);
        events = await store.readEvents('newest');
        await store.writeSnapshot('newest', { revision: 5, state: stateOf('newest', events) });
        await store.append('newest', 5, [noteEvent(6)]);
        const loaded = await store.load('newest');
        expect(loaded.snapshot?.revision).toBe(5);
        expect(loaded.events.map((e) => e.seq)).toEqual([6]);
        expect(loaded.repairs).toEqual([]);
      });

      it('refuses a snapshot past the journal end with BAD_INPUT', async () => {
        const events = await seed(store, 'past', 1);
        await expectCode(store.writeSnapshot('past', { revision: 3, state: { ...stateOf('past', events), revision: 3 } }), 'BAD_INPUT');
        const loaded = await store.load('past');
        expect(loaded.snapshot).toBeNull();
        expect(loaded.revision).toBe(2);
      });
    });

    describe('readEvents', () => {
      it('returns the events after a seq, in order', async () => {
        await seed(store, 'r', 5);
        expect((await store.readEvents('r')).map((e) => e.seq)).toEqual([1, 2, 3, 4, 5, 6]);
        expect((await store.readEvents('r', 0)).map((e) => e.seq)).toEqual([1, 2, 3, 4, 5, 6]);
        expect((await store.readEvents('r', 2)).map((e) => e.seq)).toEqual([3, 4, 5, 6]);
        expect((await store.readEvents('r', 5)).map((e) => e.seq)).toEqual([6]);
        expect(await store.readEvents('r', 6)).toEqual([]);
        expect(await store.readEvents('r', 60)).toEqual([]);
      });

      it('reads every event even when a snapshot exists', async () => {
        const events = await seed(store, 'rs', 3);
        await store.writeSnapshot('rs', { revision: 4, state: stateOf('rs', events) });
        expect((await store.readEvents('rs')).map((e) => e.seq)).toEqual([1, 2, 3, 4]);
        expect((await store.readEvents('rs', 3)).map((e) => e.seq)).toEqual([4]);
      });
    });

    describe('registry', () => {
      it('lists the rows given at create time, with nothing missing', async () => {
        const a = await seed(store, 'list-a');
        const b = await seed(store, 'list-b', 3);
        const r = await store.list();
        expect(r.missing).toEqual([]);
        const byId = Object.fromEntries(r.summaries.map((s) => [s.id, s]));
        expect(Object.keys(byId).sort()).toEqual(['list-a', 'list-b']);
        expect(byId['list-a']).toEqual(summaryOf('list-a', a));
        expect(byId['list-b']).toEqual(summaryOf('list-b', b));
      });

      it('takes rows from putSummaries and from append options', async () => {
        const events = await seed(store, 'p', 1);
        const paused: SessionSummary = { ...summaryOf('p', events), status: 'paused', revision: 2, updatedAt: at(5) };
        await store.putSummaries([paused, { ...paused, id: 'ghost', title: 'no such session' }]);
        let r = await store.list();
        expect(r.summaries).toEqual([paused]);
        expect(r.missing).toEqual([]);

        const next = [...events, ...stored([noteEvent(2)], 2)];
        const row = { ...summaryOf('p', next), title: 'renamed', updatedAt: at(6) };
        await store.append('p', 2, [noteEvent(2)], { summary: row });
        r = await store.list();
        expect(r.summaries).toEqual([row]);
        // An append without a row leaves the row alone.
        await store.append('p', 3, [noteEvent(3)]);
        expect((await store.list()).summaries).toEqual([row]);
      });

      it('accounts for every session exactly once, as a row or as missing, even when rebuilding', async () => {
        const ids = ['acc-1', 'acc-2', 'acc-3'];
        for (const id of ids) await seed(store, id, 1);
        await store.archive('acc-2');
        for (const rebuild of [false, true, false]) {
          const r = await store.list({ rebuild });
          const seen = [...r.summaries.map((x) => x.id), ...r.missing];
          expect(seen.sort(), `rebuild: ${rebuild}`).toEqual(ids);
          // Rows handed back for the missing ones are listed from then on.
          const rows = await Promise.all(r.missing.map(async (id) => summaryOf(id, await store.readEvents(id))));
          await store.putSummaries(rows);
          const after = await store.list();
          expect(after.missing).toEqual([]);
          expect(after.summaries.map((x) => x.id).sort()).toEqual(ids);
          expect(after.summaries.find((x) => x.id === 'acc-2')?.archived).toBe(true);
        }
      });

      it('lists an empty store as empty', async () => {
        const r = await store.list();
        expect(r.summaries).toEqual([]);
        expect(r.missing).toEqual([]);
      });
    });

    describe('active pointer', () => {
      it('gets, sets and clears the active session', async () => {
        expect(await store.getActive()).toBeNull();
        await seed(store, 'one');
        await seed(store, 'two');
        await store.setActive('one');
        expect(await store.getActive()).toBe('one');
        await store.setActive('two');
        expect(await store.getActive()).toBe('two');
        await store.setActive(null);
        expect(await store.getActive()).toBeNull();
        await store.setActive(null);
        expect(await store.getActive()).toBeNull();
      });

      it('refuses to point at a session that does not exist', async () => {
        await seed(store, 'one');
        await store.setActive('one');
        await expectCode(store.setActive('nope'), 'NOT_FOUND');
        expect(await store.getActive()).toBe('one');
      });
    });

    describe('archive', () => {
      it('moves a session to the archive; it still loads, lists and blocks its id', async () => {
        await seed(store, 'arch', 2);
        await seed(store, 'live');
        expect(await store.isArchived('arch')).toBe(false);
        await store.archive('arch');
        expect(await store.isArchived('arch')).toBe(true);
        expect(await store.isArchived('live')).toBe(false);
        expect(await store.exists('arch')).toBe(true);
        const loaded = await store.load('arch');
        expect(loaded.revision).toBe(3);
        expectContiguous(loaded.events);
        expect((await store.readEvents('arch', 1)).map((e) => e.seq)).toEqual([2, 3]);
        const r = await store.list();
        expect(r.missing).toEqual([]);
        expect(r.summaries.find((s) => s.id === 'arch')?.archived).toBe(true);
        expect(r.summaries.find((s) => s.id === 'live')?.archived).toBe(false);
        await expectCode(store.create('arch', [createdEvent()], summaryOf('arch', stored([createdEvent()]))), 'EXISTS');
        // Archiving twice is harmless.
        await store.archive('arch');
        expect(await store.isArchived('arch')).toBe(true);
        expect((await store.load('arch')).revision).toBe(3);
      });

      it('keeps the snapshot usable after archiving', async () => {
        const events = await seed(store, 'as', 3);
        await store.writeSnapshot('as', { revision: 4, state: stateOf('as', events) });
        await store.archive('as');
        const loaded = await store.load('as');
        expect(loaded.revision).toBe(4);
        expect(fold(loaded.snapshot?.state ?? null, loaded.events, 'as')).toEqual(stateOf('as', events));
      });
    });

    describe('delete and tombstones', () => {
      const info = (title: string, status = 'completed') => ({ deletedAt: at(100), title, status });

      it('deletes a live session: unknown afterwards, no row, a tombstone instead', async () => {
        await seed(store, 'gone', 2);
        await seed(store, 'stays');
        expect(await store.listTombstones()).toEqual([]);
        const t = await store.delete('gone', 3, info('Gone for good'));
        expect(t).toEqual({ id: 'gone', deletedAt: at(100), title: 'Gone for good', status: 'completed', archived: false });
        expect(await store.exists('gone')).toBe(false);
        await expectCode(store.load('gone'), 'NOT_FOUND');
        await expectCode(store.readEvents('gone'), 'NOT_FOUND');
        await expectCode(store.append('gone', 3, [noteEvent(4)]), 'NOT_FOUND');
        const r = await store.list();
        expect(r.summaries.map((x) => x.id)).toEqual(['stays']);
        expect(r.missing).toEqual([]);
        const rebuilt = await store.list({ rebuild: true });
        expect([...rebuilt.summaries.map((x) => x.id), ...rebuilt.missing]).toEqual(['stays']);
        expect(await store.listTombstones()).toEqual([t]);
        expect((await store.load('stays')).revision).toBe(1);
      });

      it('deletes an archived session, and says it was archived', async () => {
        await seed(store, 'old', 1);
        await store.archive('old');
        const t = await store.delete('old', 2, info('Old', 'abandoned'));
        expect(t.archived).toBe(true);
        expect(await store.exists('old')).toBe(false);
        expect((await store.list()).summaries).toEqual([]);
        expect(await store.listTombstones()).toEqual([{ id: 'old', deletedAt: at(100), title: 'Old', status: 'abandoned', archived: true }]);
      });

      it('deletes only at the expected revision: CONFLICT otherwise, and nothing is removed', async () => {
        await seed(store, 'busy', 2);
        await expectCode(store.delete('busy', 2, info('Busy')), 'CONFLICT');
        await expectCode(store.delete('busy', 4, info('Busy')), 'CONFLICT');
        expect((await store.load('busy')).revision).toBe(3);
        expect(await store.listTombstones()).toEqual([]);
        expect((await store.list()).summaries.map((x) => x.id)).toEqual(['busy']);
      });

      it('answers NOT_FOUND for an unknown session and BAD_INPUT for an invalid id', async () => {
        await expectCode(store.delete('nobody', 1, info('x')), 'NOT_FOUND');
        await expectCode(store.delete('../x', 1, info('x')), 'BAD_INPUT');
        expect(await store.listTombstones()).toEqual([]);
      });

      it('frees the id: a new session may take it, the tombstones stay, oldest first', async () => {
        await seed(store, 'again');
        await store.delete('again', 1, { deletedAt: at(10), title: 'first', status: 'completed' });
        await seed(store, 'again', 1);
        expect((await store.load('again')).revision).toBe(2);
        await store.delete('again', 2, { deletedAt: at(20), title: 'second', status: 'failed' });
        expect((await store.listTombstones()).map((t) => [t.id, t.title, t.deletedAt])).toEqual([
          ['again', 'first', at(10)],
          ['again', 'second', at(20)],
        ]);
        expect(await store.exists('again')).toBe(false);
      });

      it('keeps checkpoints of other sessions, and returns copies', async () => {
        const events = await seed(store, 'keep', 1);
        await store.saveCheckpoint('keep', checkpointOf('keep', events, 'cp-1'));
        await seed(store, 'drop', 1);
        await store.saveCheckpoint('drop', checkpointOf('drop', await store.readEvents('drop'), 'cp-1'));
        await store.delete('drop', 2, info('Drop'));
        await expectCode(store.listCheckpoints('drop'), 'NOT_FOUND');
        expect((await store.listCheckpoints('keep')).map((c) => c.id)).toEqual(['cp-1']);
        const [t] = await store.listTombstones();
        t!.title = 'changed';
        expect((await store.listTombstones())[0]!.title).toBe('Drop');
      });

      it('a second handle sees the deletion and its tombstone (multiProcess stores)', async (ctx) => {
        if (!store.capabilities.multiProcess) ctx.skip();
        await seed(store, 'shared', 1);
        const other = await second();
        expect((await other.load('shared')).revision).toBe(2);
        await store.delete('shared', 2, info('Shared'));
        await expectCode(other.load('shared'), 'NOT_FOUND');
        await expectCode(other.append('shared', 2, [noteEvent(3)]), 'NOT_FOUND');
        expect((await other.listTombstones()).map((t) => t.id)).toEqual(['shared']);
        expect((await other.list()).summaries).toEqual([]);
      });

      it('of two handles deleting one session, exactly one succeeds (multiProcess stores)', async (ctx) => {
        if (!store.capabilities.multiProcess) ctx.skip();
        await seed(store, 'race', 1);
        const other = await second();
        const results = await Promise.allSettled([store.delete('race', 2, info('Race')), other.delete('race', 2, info('Race'))]);
        expect(results.filter((r) => r.status === 'fulfilled')).toHaveLength(1);
        const lost = results.find((r) => r.status === 'rejected') as PromiseRejectedResult;
        expect(isBatonError(lost.reason, 'NOT_FOUND')).toBe(true);
        expect(await store.listTombstones()).toHaveLength(1);
      });

      it('a reopened store keeps the tombstones (durable stores)', async (ctx) => {
        if (!store.capabilities.durable || !sut.reopen) ctx.skip();
        await seed(store, 'd1');
        await store.delete('d1', 1, info('Durable'));
        await store.close();
        const again = await second();
        expect(await again.listTombstones()).toEqual([{ id: 'd1', deletedAt: at(100), title: 'Durable', status: 'completed', archived: false }]);
        expect(await again.exists('d1')).toBe(false);
      });
    });

    describe('repair', () => {
      it('reports nothing and changes nothing on a healthy session', async () => {
        await seed(store, 'ok', 3);
        const before = await store.readEvents('ok');
        expect(await store.repair!('ok')).toEqual([]);
        expect(await store.readEvents('ok')).toEqual(before);
      });
    });

    describe('checkpoints', () => {
      it('saves a checkpoint and reads it back whole, valid, from list and read', async () => {
        const events = await seed(store, 'c', 2);
        const cp = checkpointOf('c', events, 'cp-1-first', 'First: «ünïcode» ✓');
        await store.saveCheckpoint('c', cp);
        expect(await store.readCheckpoint('c', 'cp-1-first')).toEqual({ id: 'cp-1-first', valid: true, checkpoint: cp });
        expect(await store.listCheckpoints('c')).toEqual([{ id: 'cp-1-first', valid: true, checkpoint: cp }]);
        // The state inside folds from the same journal.
        const r = await store.readCheckpoint('c', 'cp-1-first');
        expect(r.valid && r.checkpoint.state).toEqual(stateOf('c', events));
      });

      it('lists nothing for a session without checkpoints, and keeps sessions apart', async () => {
        const a = await seed(store, 'a', 1);
        await seed(store, 'b', 1);
        expect(await store.listCheckpoints('a')).toEqual([]);
        await store.saveCheckpoint('a', checkpointOf('a', a, 'cp-1'));
        expect(await store.listCheckpoints('b')).toEqual([]);
        await expectCode(store.readCheckpoint('b', 'cp-1'), 'NOT_FOUND');
      });

      it('lists checkpoints in creation order (numbers compared as numbers)', async () => {
        const events = await seed(store, 'o', 1);
        for (const n of [10, 2, 1, 11]) await store.saveCheckpoint('o', checkpointOf('o', events, `cp-${n}-x`));
        expect((await store.listCheckpoints('o')).map((r) => r.id)).toEqual(['cp-1-x', 'cp-2-x', 'cp-10-x', 'cp-11-x']);
      });

      it('never overwrites a checkpoint: EXISTS, and the first one stays', async () => {
        const events = await seed(store, 'e', 1);
        await store.saveCheckpoint('e', checkpointOf('e', events.slice(0, 1), 'cp-1', 'one'));
        await expectCode(store.saveCheckpoint('e', checkpointOf('e', events, 'cp-1', 'two')), 'EXISTS');
        const r = await store.readCheckpoint('e', 'cp-1');
        expect(r.valid && r.checkpoint.name).toBe('one');
        expect(await store.listCheckpoints('e')).toHaveLength(1);
      });

      it('answers NOT_FOUND for an unknown session or checkpoint', async () => {
        const events = await seed(store, 'k', 1);
        await expectCode(store.saveCheckpoint('nope', checkpointOf('nope', events, 'cp-1')), 'NOT_FOUND');
        await expectCode(store.listCheckpoints('nope'), 'NOT_FOUND');
        await expectCode(store.readCheckpoint('nope', 'cp-1'), 'NOT_FOUND');
        await expectCode(store.readCheckpoint('k', 'cp-9'), 'NOT_FOUND');
      });

      for (const [what, bad] of BAD_IDS) {
        it(`refuses an invalid checkpoint id (${what}) with BAD_INPUT and writes nothing`, async () => {
          const events = await seed(store, 'v', 1);
          const before = await store.readEvents('v');
          await expectCode(store.saveCheckpoint('v', checkpointOf('v', events, bad)), 'BAD_INPUT');
          await expectCode(store.readCheckpoint('v', bad), 'BAD_INPUT');
          await expectCode(store.listCheckpoints(bad), 'BAD_INPUT');
          expect(await store.listCheckpoints('v')).toEqual([]);
          expect(await store.readEvents('v')).toEqual(before);
        });
      }

      it('refuses a checkpoint of another session or of a revision the journal does not have', async () => {
        const events = await seed(store, 'r', 1);
        await seed(store, 'other', 1);
        await expectCode(store.saveCheckpoint('r', checkpointOf('other', events, 'cp-1')), 'BAD_INPUT');
        const ahead = checkpointOf('r', [...events, ...stored([noteEvent(9)], events.length)], 'cp-2');
        await expectCode(store.saveCheckpoint('r', ahead), 'BAD_INPUT');
        expect(await store.listCheckpoints('r')).toEqual([]);
      });

      it('never changes the journal, and stays with the session when it is archived', async () => {
        const events = await seed(store, 'j', 2);
        const before = await store.readEvents('j');
        await store.saveCheckpoint('j', checkpointOf('j', events, 'cp-1'));
        expect(await store.readEvents('j')).toEqual(before);
        expect((await store.load('j')).revision).toBe(3);
        await store.archive('j');
        expect((await store.listCheckpoints('j')).map((r) => [r.id, r.valid])).toEqual([['cp-1', true]]);
        expect((await store.readCheckpoint('j', 'cp-1')).valid).toBe(true);
      });

      it('returns copies: changing a read checkpoint does not change the store', async () => {
        const events = await seed(store, 'cp', 1);
        await store.saveCheckpoint('cp', checkpointOf('cp', events, 'cp-1'));
        const r = await store.readCheckpoint('cp', 'cp-1');
        if (!r.valid) throw new Error('expected a valid checkpoint');
        r.checkpoint.state.title = 'changed';
        r.checkpoint.files.length = 0;
        const again = await store.readCheckpoint('cp', 'cp-1');
        expect(again.valid && again.checkpoint.state.title).toBe('Session cp');
        expect(again.valid && again.checkpoint.files).toHaveLength(2);
      });
    });

    describe('workspace lock', () => {
      it('serialises two concurrent critical sections', async () => {
        const log: string[] = [];
        let inside = 0;
        let overlap = false;
        const section = (name: string) => async (): Promise<string> => {
          inside += 1;
          if (inside > 1) overlap = true;
          log.push(`${name}:in`);
          await sleep(30);
          await Promise.resolve();
          await sleep(5);
          log.push(`${name}:out`);
          inside -= 1;
          return name;
        };
        const results = await Promise.all([store.withWorkspaceLock(section('a')), store.withWorkspaceLock(section('b'))]);
        expect(results).toEqual(['a', 'b']);
        expect(overlap).toBe(false);
        expect(log).toHaveLength(4);
        expect(log[0]!.endsWith(':in') && log[1]!.endsWith(':out') && log[0]!.split(':')[0] === log[1]!.split(':')[0]).toBe(true);
      });

      it('releases the lock when a section throws', async () => {
        const boom = store.withWorkspaceLock(async () => {
          await sleep(5);
          throw new Error('boom');
        });
        const after = store.withWorkspaceLock(async () => 'after');
        await expect(boom).rejects.toThrow('boom');
        expect(await after).toBe('after');
        expect(await store.withWorkspaceLock(async () => 'again')).toBe('again');
      });

      it('lets a critical section use the store', async () => {
        await seed(store, 'w');
        const id = await store.withWorkspaceLock(async () => {
          await store.setActive('w');
          await store.append('w', 1, [noteEvent(1)]);
          return store.getActive();
        });
        expect(id).toBe('w');
        expect((await store.load('w')).revision).toBe(2);
      });
    });

    describe('several handles on one store (multiProcess stores)', () => {
      it('a second handle sees the first one’s writes and conflicts with it', async (ctx) => {
        if (!store.capabilities.multiProcess) ctx.skip();
        await seed(store, 'shared', 1);
        const other = await second();
        expect((await other.load('shared')).revision).toBe(2);
        await other.append('shared', 2, [noteEvent(2)]);
        expect((await store.load('shared')).revision).toBe(3);
        await expectCode(store.append('shared', 2, [noteEvent(99)]), 'CONFLICT');
        await store.append('shared', 3, [noteEvent(3)]);
        await expectCode(other.append('shared', 3, [noteEvent(99)]), 'CONFLICT');
        const events = await other.readEvents('shared');
        expect(events).toHaveLength(4);
        expectContiguous(events);
        expect((await other.list()).summaries.map((s) => s.id)).toEqual(['shared']);
      });

      it('lets exactly one of two handles win a race for the same revision', async (ctx) => {
        if (!store.capabilities.multiProcess) ctx.skip();
        await seed(store, 'duel');
        const other = await second();
        for (let round = 0; round < 5; round++) {
          const { revision } = await store.load('duel');
          const results = await Promise.allSettled([
            store.append('duel', revision, [noteEvent(10 + round)]),
            other.append('duel', revision, [noteEvent(20 + round)]),
          ]);
          expect(results.filter((r) => r.status === 'fulfilled')).toHaveLength(1);
          const lost = results.find((r): r is PromiseRejectedResult => r.status === 'rejected');
          expect(isBatonError(lost?.reason, 'CONFLICT')).toBe(true);
        }
        const events = await store.readEvents('duel');
        expect(events).toHaveLength(6);
        expectContiguous(events);
      });

      it('serialises the workspace lock across handles', async (ctx) => {
        if (!store.capabilities.multiProcess) ctx.skip();
        const other = await second();
        let inside = 0;
        let overlap = false;
        const section = async (): Promise<void> => {
          inside += 1;
          if (inside > 1) overlap = true;
          await sleep(25);
          inside -= 1;
        };
        await Promise.all([store.withWorkspaceLock(section), other.withWorkspaceLock(section), store.withWorkspaceLock(section)]);
        expect(overlap).toBe(false);
      });

      it('shares checkpoints across handles; of two racing for one id exactly one wins', async (ctx) => {
        if (!store.capabilities.multiProcess) ctx.skip();
        const events = await seed(store, 'cps', 1);
        const other = await second();
        await store.saveCheckpoint('cps', checkpointOf('cps', events, 'cp-1'));
        expect((await other.listCheckpoints('cps')).map((r) => r.id)).toEqual(['cp-1']);
        for (let round = 2; round < 6; round++) {
          const results = await Promise.allSettled([
            store.saveCheckpoint('cps', checkpointOf('cps', events, `cp-${round}`, 'mine')),
            other.saveCheckpoint('cps', checkpointOf('cps', events, `cp-${round}`, 'theirs')),
          ]);
          expect(results.filter((r) => r.status === 'fulfilled')).toHaveLength(1);
          const lost = results.find((r): r is PromiseRejectedResult => r.status === 'rejected');
          expect(isBatonError(lost?.reason, 'EXISTS')).toBe(true);
        }
        const all = await store.listCheckpoints('cps');
        expect(all.map((r) => [r.id, r.valid])).toEqual([1, 2, 3, 4, 5].map((n) => [`cp-${n}`, true]));
      });

      it('shares the active pointer and the archive across handles', async (ctx) => {
        if (!store.capabilities.multiProcess) ctx.skip();
        await seed(store, 'ptr');
        const other = await second();
        await store.setActive('ptr');
        expect(await other.getActive()).toBe('ptr');
        await other.archive('ptr');
        expect(await store.isArchived('ptr')).toBe(true);
        expect((await store.load('ptr')).revision).toBe(1);
        await store.append('ptr', 1, [noteEvent(1)]);
        expect((await other.readEvents('ptr')).map((e) => e.seq)).toEqual([1, 2]);
      });
    });

    describe('durability (durable stores)', () => {
      it('a reopened store holds every acknowledged append', async (ctx) => {
        if (!store.capabilities.durable || !sut.reopen) ctx.skip();
        const events = await seed(store, 'd', 3);
        await store.writeSnapshot('d', { revision: 4, state: stateOf('d', events) });
        await store.append('d', 4, [noteEvent(5)]);
        await store.setActive('d');
        await store.saveCheckpoint('d', checkpointOf('d', events, 'cp-1'));
        await store.close();
        const again = await second();
        expect(await again.readCheckpoint('d', 'cp-1')).toEqual({ id: 'cp-1', valid: true, checkpoint: checkpointOf('d', events, 'cp-1') });
        const loaded = await again.load('d');
        expect(loaded.revision).toBe(5);
        expect(loaded.snapshot?.revision).toBe(4);
        expect(await again.getActive()).toBe('d');
        expect((await again.list()).summaries.map((s) => s.id)).toEqual(['d']);
      });
    });
  });
}
