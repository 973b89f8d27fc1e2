/**
 * The contracts of the Claude Agent SDK's `SessionStore`, one test each, checked on
 * `BatonSessionStore` over the file store and PostgreSQL, each test on a fresh store.
 *
 * The npm package `@anthropic-ai/claude-agent-sdk` (0.3.332, the newest when written) ships no
 * conformance suite for stores (the SDK's repository keeps one beside its example adapters,
 * outside the package), so the contracts are those the package documents on `SessionStore`
 * in its `sdk.d.ts`, with the behaviours the SDK's published conformance suites check,
 * written here in our own tests:
 *
 *  C1  append then load returns the entries appended, deep-equal, in order.
 *  C2  load of a key never written returns null (a session, and a subpath of a written session).
 *  C3  several appends keep call order.
 *  C4  append of no entries writes nothing.
 *  C5  a subpath (a sub-agent's transcript) is kept apart from the main transcript.
 *  C6  projectKeys are isolated: one sessionId in two projects is two transcripts.
 *  C7  listSessions lists a project's sessionIds with an integer epoch-millisecond mtime, [] for an unknown project.
 *  C8  listSessions lists sessions, not subpaths.
 *  C9  delete of the main key: load returns null; delete of a key never written does nothing.
 *  C10 delete of the main key removes its subpaths, and nothing of other sessions or projects.
 *  C11 delete of a subpath removes only that subpath.
 *  C12 listSubkeys lists a session's subpaths, none of another session.
 *  C13 listSubkeys leaves out the main transcript; [] for a session never written.
 *  C14 `uuid` is an idempotency key: a batch appended again (a retry, an import replayed) loads
 *      once; entries without a `uuid` are appended without deduplication.
 *  C15 entries are JSON: any JSON-safe payload comes back deep-equal.
 *  C16 within one process, entries are kept in append-call order, even for calls not awaited one by one.
 *
 * `listSessionSummaries` is optional and not implemented (the SDK then lists with
 * listSessions and load), so its contract is not claimed.
 */
import { afterEach, describe, expect, it } from 'vitest';
import type { BatonSessionStore, SessionKey, SessionStoreEntry } from '../../src/claude-agent-sdk/index.js';
import { KINDS, storeAt } from './helpers.js';
import type { StorePlace } from './helpers.js';

const KEY: SessionKey = { projectKey: 'proj', sessionId: 'sess' };
const SUB1: SessionKey = { ...KEY, subpath: 'subagents/agent-1' };
const SUB2: SessionKey = { ...KEY, subpath: 'subagents/agent-2' };
const e = (fields: Record<string, unknown>): SessionStoreEntry => ({ type: 'x', ...fields });

describe.each(KINDS)('SessionStore contracts on %s', (_label, makePlace) => {
  const open: Array<{ store: BatonSessionStore; place: StorePlace }> = [];
  const fresh = (): BatonSessionStore => {
    const place = makePlace();
    const store = storeAt(place.url);
    open.push({ store, place });
    return store;
  };
  afterEach(async () => {
    for (const { store, place } of open.splice(0)) {
      await store.close();
      await place.remove();
    }
  });

  it('C1: append then load returns the entries, deep-equal, in order', async () => {
    const s = fresh();
    await s.append(KEY, [e({ uuid: 'b', n: 1 }), e({ uuid: 'a', n: 2 })]);
    expect(await s.load(KEY)).toEqual([e({ uuid: 'b', n: 1 }), e({ uuid: 'a', n: 2 })]);
  });

  it('C2: load of a key never written returns null', async () => {
    const s = fresh();
    expect(await s.load({ projectKey: 'proj', sessionId: 'nope' })).toBeNull();
    await s.append(KEY, [e({ uuid: 'x' })]);
    expect(await s.load({ ...KEY, subpath: 'nope' })).toBeNull();
  });

  it('C3: several appends keep call order', async () => {
    const s = fresh();
    await s.append(KEY, [e({ uuid: 'z', n: 1 })]);
    await s.append(KEY, [e({ uuid: 'a', n: 2 }), e({ uuid: 'm', n: 3 })]);
    await s.append(KEY, [e({ uuid: 'b', n: 4 })]);
    expect((await s.load(KEY))?.map((x) => x['n'])).toEqual([1, 2, 3, 4]);
  });

  it('C4: append of no entries writes nothing', async () => {
    const s = fresh();
    await s.append({ projectKey: 'proj', sessionId: 'empty' }, []);
    expect(await s.load({ projectKey: 'proj', sessionId: 'empty' })).toBeNull();
    expect(await s.listSessions('proj')).toEqual([]);
    await s.append(KEY, [e({ uuid: 'a' })]);
    const revision = (await s.manager.get(s.sessionIdOf(KEY))).revision;
    await s.append(KEY, []);
    expect(await s.load(KEY)).toEqual([e({ uuid: 'a' })]);
    expect((await s.manager.get(s.sessionIdOf(KEY))).revision).toBe(revision);
  });

  it('C5: a subpath is kept apart from the main transcript', async () => {
    const s = fresh();
    await s.append(KEY, [e({ uuid: 'm' })]);
    await s.append(SUB1, [e({ uuid: 's' })]);
    expect(await s.load(KEY)).toEqual([e({ uuid: 'm' })]);
    expect(await s.load(SUB1)).toEqual([e({ uuid: 's' })]);
  });

  it('C6: one sessionId in two projects is two transcripts', async () => {
    const s = fresh();
    await s.append({ projectKey: 'A', sessionId: 's1' }, [e({ from: 'A' })]);
    await s.append({ projectKey: 'B', sessionId: 's1' }, [e({ from: 'B' })]);
    expect(await s.load({ projectKey: 'A', sessionId: 's1' })).toEqual([e({ from: 'A' })]);
    expect(await s.load({ projectKey: 'B', sessionId: 's1' })).toEqual([e({ from: 'B' })]);
    expect((await s.listSessions('A')).map((x) => x.sessionId)).toEqual(['s1']);
    expect((await s.listSessions('B')).map((x) => x.sessionId)).toEqual(['s1']);
  });

  it('C7: listSessions lists the project sessionIds with an epoch-ms mtime', async () => {
    const s = fresh();
    const before = Date.now();
    await s.append({ projectKey: 'proj', sessionId: 'a' }, [e({ n: 1 })]);
    await s.append({ projectKey: 'proj', sessionId: 'b' }, [e({ n: 1 })]);
    await s.append({ projectKey: 'other', sessionId: 'c' }, [e({ n: 1 })]);
    const listed = await s.listSessions('proj');
    expect(listed.map((x) => x.sessionId).sort()).toEqual(['a', 'b']);
    for (const { mtime } of listed) {
      expect(Number.isInteger(mtime)).toBe(true);
      expect(mtime).toBeGreaterThanOrEqual(before - 5_000);
      expect(mtime).toBeLessThanOrEqual(Date.now() + 5_000);
    }
    expect(await s.listSessions('never-appended-project')).toEqual([]);
  });

  it('C8: listSessions lists sessions, not subpaths', async () => {
    const s = fresh();
    await s.append({ projectKey: 'proj', sessionId: 'main' }, [e({ n: 1 })]);
    await s.append({ projectKey: 'proj', sessionId: 'main', subpath: 'subagents/agent-1' }, [e({ n: 1 })]);
    expect((await s.listSessions('proj')).map((x) => x.sessionId)).toEqual(['main']);
  });

  it('C9: delete of the main key, then load returns null; a key never written is no error', async () => {
    const s = fresh();
    await s.delete({ projectKey: 'proj', sessionId: 'never-written' });
    await s.append(KEY, [e({ n: 1 })]);
    await s.delete(KEY);
    expect(await s.load(KEY)).toBeNull();
    expect(await s.listSessions('proj')).toEqual([]);
  });

  it('C10: delete of the main key removes its subpaths and nothing else', async () => {
    const s = fresh();
    const other = { projectKey: 'proj', sessionId: 'sess2' };
    const otherProject = { projectKey: 'other-proj', sessionId: KEY.sessionId };
    for (const k of [KEY, SUB1, SUB2, other, otherProject]) await s.append(k, [e({ n: 1 })]);
    await s.delete(KEY);
    for (const k of [KEY, SUB1, SUB2]) expect(await s.load(k)).toBeNull();
    expect(await s.load(other)).toHaveLength(1);
    expect(await s.load(otherProject)).toHaveLength(1);
    expect(await s.listSubkeys(KEY)).toEqual([]);
    expect((await s.listSessions('proj')).map((x) => x.sessionId)).toEqual(['sess2']);
  });

  it('C11: delete of a subpath removes only that subpath', async () => {
    const s = fresh();
    for (const k of [KEY, SUB1, SUB2]) await s.append(k, [e({ n: 1 })]);
    await s.delete(SUB1);
    expect(await s.load(SUB1)).toBeNull();
    expect(await s.load(SUB2)).toHaveLength(1);
    expect(await s.load(KEY)).toHaveLength(1);
    expect(await s.listSubkeys(KEY)).toEqual(['subagents/agent-2']);
  });

  it("C12: listSubkeys lists the session's subpaths only", async () => {
    const s = fresh();
    await s.append(KEY, [e({ n: 1 })]);
    await s.append(SUB1, [e({ n: 1 })]);
    await s.append(SUB2, [e({ n: 1 })]);
    await s.append({ projectKey: 'proj', sessionId: 'other-sess', subpath: 'subagents/agent-x' }, [e({ n: 1 })]);
    expect((await s.listSubkeys(KEY)).sort()).toEqual(['subagents/agent-1', 'subagents/agent-2']);
  });

  it('C13: listSubkeys leaves out the main transcript', async () => {
    const s = fresh();
    await s.append(KEY, [e({ n: 1 })]);
    expect(await s.listSubkeys(KEY)).toEqual([]);
    expect(await s.listSubkeys({ projectKey: 'proj', sessionId: 'never-appended' })).toEqual([]);
  });

  it('C14: uuid is an idempotency key; entries without one are not deduplicated', async () => {
    const s = fresh();
    const batch = [e({ uuid: 'u1', n: 1 }), e({ uuid: 'u2', n: 2 })];
    await s.append(KEY, batch);
    await s.append(KEY, batch); // the SDK's retry of a batch whose first try did land
    await s.append(KEY, [e({ uuid: 'u2', n: 2 }), e({ uuid: 'u3', n: 3 })]);
    await s.append(KEY, [e({ type: 'custom-title', title: 't' }), e({ type: 'custom-title', title: 't' })]);
    expect(await s.load(KEY)).toEqual([
      e({ uuid: 'u1', n: 1 }),
      e({ uuid: 'u2', n: 2 }),
      e({ uuid: 'u3', n: 3 }),
      { type: 'custom-title', title: 't' },
      { type: 'custom-title', title: 't' },
    ]);
  });

  it('C15: any JSON-safe entry comes back deep-equal', async () => {
    const s = fresh();
    const entry = e({
      uuid: 'j',
      timestamp: '2026-11-24T04:21:43.887Z',
      text: 'quotes " backslash \\ newline \n tab \t emoji 🎉 accents éü',
      nested: { zeta: 1, alpha: [1, 2.5, -3e-7, null, true, { deep: ['x'] }], empty: {}, list: [] },
      big: 2 ** 53 - 1,
    });
    await s.append(KEY, [entry]);
    expect(await s.load(KEY)).toEqual([entry]);
  });

  it('C16: within one process, append-call order holds for calls not awaited one by one', async () => {
    const s = fresh();
    await Promise.all(
      Array.from({ length: 30 }, (_, i) => s.append(KEY, [e({ uuid: `a${i}`, i }), e({ uuid: `b${i}`, i })])),
    );
    expect((await s.load(KEY))?.map((x) => x['i'])).toEqual(Array.from({ length: 30 }, (_, i) => [i, i]).flat());
  });
});

describe('bad input', () => {
  it('names the problem and the way out, and writes nothing', async () => {
    const [, makePlace] = KINDS[0]!;
    const place = makePlace();
    const s = storeAt(place.url);
    try {
      await expect(s.append({ projectKey: '', sessionId: 's' }, [e({})])).rejects.toMatchObject({
        code: 'BAD_INPUT',
        message: expect.stringContaining('projectKey'),
      });
      await expect(s.append({ ...KEY, subpath: '../escape' }, [e({})])).rejects.toMatchObject({ code: 'BAD_INPUT' });
      await expect(s.append(KEY, [{ uuid: 'no-type' } as never])).rejects.toMatchObject({
        code: 'BAD_INPUT',
        message: expect.stringContaining('"type"'),
      });
      expect(await s.listSessions(KEY.projectKey)).toEqual([]);
      expect(() => storeAt(place.url, { project: '' })).toThrow(/project option/);
    } finally {
      await s.close();
      await place.remove();
    }
  });
});
