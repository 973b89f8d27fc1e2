/**
 * The PostgreSQL append path of issue 18: the acknowledgement waits for one statement, the
 * conditional insert, and nothing else; the registry row and the notification follow after
 * it (src/store/postgres/refresh.ts). Shown here: the one statement still refuses a stale
 * revision (CONFLICT) and a lost lease (FENCED) when writers race from separate handles
 * (separate pools, as separate processes); a refresh lost to a kill is repaired by the next
 * list (the row brought to the journal's head and stored); watchers see every change,
 * through the notification or, when a killed writer never sent it, through their poll.
 */
import { spawn } from 'node:child_process';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';
import { isBatonError } from '../../src/domain/errors.js';
import type { StoredEvent } from '../../src/domain/events.js';
import { SessionManager } from '../../src/manager/manager.js';
import { MIGRATIONS } from '../../src/store/postgres/migrations.js';
import { PostgresStore } from '../../src/store/postgres/store.js';
import { noteEvent, seed, stored, summaryOf } from '../../src/testing/fixtures.js';
import { PG_URL, admin, dropSchema, freshSchema, needsRealServer, urlWith } from './pg-helpers.js';

const REPO = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const schemas: string[] = [];
const stores: PostgresStore[] = [];

afterEach(async () => {
  for (const s of stores.splice(0)) await s.close();
  for (const s of schemas.splice(0)) await dropSchema(s);
});

/** `n` handles on one fresh schema (each with its own pool), and the schema's URL. */
function handles(n: number, o: { pingMs?: number } = {}): { url: string; schema: string; all: PostgresStore[] } {
  const schema = freshSchema('refresh');
  schemas.push(schema);
  const url = urlWith({ schema });
  const all = Array.from(
    { length: n },
    () => new PostgresStore({ url, ...(o.pingMs ? { watchTiming: { pingMs: o.pingMs, pingTimeoutMs: 5_000 } } : {}) }),
  );
  stores.push(...all);
  return { url, schema, all };
}

// Sessions are created with store.create (seed), not SessionManager.start: start holds the
// workspace lock while it writes, which the embedded test server cannot run (one session).

/** A handle whose refreshes never run: what a writer killed right after its acknowledgements leaves. */
function withoutRefresh(store: PostgresStore): PostgresStore {
  (store as unknown as { refresh: () => Promise<void> }).refresh = async () => undefined;
  return store;
}

/** The sessions table's bookkeeping of `id`, read behind the store's back. */
/**
 * Makes `schema` as the steps before those named by `skipped` (name prefixes, the newest
 * steps) left it, by running their SQL, and returns the events of a session `id` (seeded in a
 * scratch schema, two notes after) for the caller to store in it as that version would have.
 */
async function schemaBefore(
  c: Awaited<ReturnType<typeof admin>>,
  schema: string,
  skipped: string[],
  id: string,
): Promise<StoredEvent[]> {
  await c.query(`CREATE SCHEMA "${schema}"`);
  await c.query(
    `CREATE TABLE "${schema}".migrations (version integer PRIMARY KEY, name text NOT NULL, applied_at timestamptz NOT NULL DEFAULT now())`,
  );
  // The schema as the version before the first skipped step made it: that step and every later one are left to the migration under test.
  const before = MIGRATIONS.slice(
    0,
    MIGRATIONS.findIndex((m) => skipped.some((name) => m.name.startsWith(name))),
  );
  expect(MIGRATIONS.filter((m) => !before.includes(m) && skipped.some((name) => m.name.startsWith(name))).length).toBe(
    skipped.length,
  );
  for (const m of before) {
    await c.query(m.sql(`"${schema}"`));
    await c.query(`INSERT INTO "${schema}".migrations (version, name) VALUES ($1, $2)`, [m.version, m.name]);
  }
  const old = new PostgresStore({ url: urlWith({ schema: `${schema}_scratch` }) });
  schemas.push(`${schema}_scratch`);
  stores.push(old);
  const first = await seed(old, id);
  return [...first, ...stored([noteEvent(1), noteEvent(2)], first.length)];
}

/** The versions from the step named `name` on: what a schema made before it is migrated through. */
function versionsFrom(name: string): number[] {
  return MIGRATIONS.slice(MIGRATIONS.findIndex((m) => m.name.startsWith(name))).map((m) => m.version);
}

async function rowOf(
  schema: string,
  id: string,
): Promise<{ summary_revision: number | null; refreshed_revision: number | null; head: number | null }> {
  const c = await admin();
  try {
    const r = await c.query(
      `SELECT summary_revision, refreshed_revision, (SELECT max(seq) FROM "${schema}".events WHERE session_id = $1) AS head FROM "${schema}".sessions WHERE id = $1`,
      [id],
    );
    return r.rows[0];
  } finally {
    await c.end();
  }
}

/** The highest event of `id` marked as changing its row (null: none), and how many events are marked. */
async function marksOf(schema: string, id: string): Promise<{ last: number | null; n: number }> {
  const c = await admin();
  try {
    const r = await c.query(
      `SELECT max(seq) AS last, count(*)::int AS n FROM "${schema}".events WHERE session_id = $1 AND row_changed`,
      [id],
    );
    return r.rows[0];
  } finally {
    await c.end();
  }
}

function notes(events: StoredEvent[]): string[] {
  return events.filter((e) => e.type === 'note.added').map((e) => String((e.data as { text: string }).text));
}

async function until<T>(what: string, fn: () => Promise<T | null | undefined | false>, ms = 20_000): Promise<T> {
  const end = Date.now() + ms;
  for (;;) {
    const v = await fn();
    if (v) return v;
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

describe.skipIf(!PG_URL)('PostgreSQL: nothing but the journal on the acknowledgement path', () => {
  needsRealServer({
    'a writer killed between its acknowledgements and their refresh: the next list brings the row to the journal head':
      'the writer is a second process on the same server',
  });

  it('writers racing from 8 handles at one revision: exactly one wins each round, the others get CONFLICT with the actual revision', async () => {
    const { all } = handles(8);
    const [first] = all as [PostgresStore];
    await seed(first, 'race');
    let revision = 1;
    for (let round = 0; round < 12; round++) {
      // One- and two-event appends race (the two statements of the append path).
      const results = await Promise.allSettled(
        all.map((s, i) =>
          s.append(
            'race',
            revision,
            i % 2 ? [noteEvent(round * 100 + i)] : [noteEvent(round * 100 + i), noteEvent(round * 100 + i + 50)],
          ),
        ),
      );
      const won = results.filter((r) => r.status === 'fulfilled') as Array<
        PromiseFulfilledResult<{ revision: number }>
      >;
      expect(won, `round ${round}`).toHaveLength(1);
      const next = won[0]!.value.revision;
      for (const r of results) {
        if (r.status === 'fulfilled') continue;
        expect(isBatonError(r.reason, 'CONFLICT'), String(r.reason)).toBe(true);
        expect(r.reason.details).toMatchObject({ expectedRevision: revision, revision: next });
      }
      revision = next;
    }
    const events = await first.readEvents('race');
    expect(events.map((e) => e.seq)).toEqual(Array.from({ length: revision }, (_, i) => i + 1));
    // A revision behind and one ahead of the journal: refused, nothing written.
    await expect(first.append('race', revision - 1, [noteEvent(1)])).rejects.toMatchObject({
      code: 'CONFLICT',
      details: { revision },
    });
    await expect(all[1]!.append('race', revision + 3, [noteEvent(1), noteEvent(2)])).rejects.toMatchObject({
      code: 'CONFLICT',
      details: { revision },
    });
    expect((await first.readEvents('race')).length).toBe(revision);
  });

  it('a lease taken over from another handle while the old holder writes: every write of the old holder after the takeover is FENCED', async () => {
    const { all } = handles(2);
    const a = new SessionManager({ store: all[0]!, agent: 'a' });
    const b = new SessionManager({ store: all[1]!, agent: 'b' });
    await seed(all[0]!, 'f');
    const mine = (await a.leases.acquire('f', { owner: 'run', ttlMs: 60_000 })).result;
    await a.note('f', { text: 'held' }, { fencingToken: mine.token });
    // The takeover races a burst of the old holder's writes (the holder's kept state still shows its own lease).
    const burst = Array.from({ length: 12 }, (_, i) => a.note('f', { text: `old ${i}` }, { fencingToken: mine.token }));
    const theirs = (await b.leases.acquire('f', { owner: 'run', ttlMs: 60_000, force: true })).result;
    const settled = await Promise.allSettled(burst);
    for (const r of settled)
      if (r.status === 'rejected') expect(isBatonError(r.reason, 'FENCED'), String(r.reason)).toBe(true);
    expect(theirs.token).toBeGreaterThan(mine.token);
    await expect(a.note('f', { text: 'after' }, { fencingToken: mine.token })).rejects.toMatchObject({
      code: 'FENCED',
    });
    const events = await all[1]!.readEvents('f');
    const takeover = [...events].reverse().find((e) => e.type === 'lease.acquired')!;
    // Nothing of the old holder's lands after the takeover; what it was told succeeded is stored.
    expect(notes(events.filter((e) => e.seq > takeover.seq))).toEqual([]);
    const acked = settled.filter((r) => r.status === 'fulfilled').length;
    expect(notes(events).filter((t) => t.startsWith('old ')).length).toBe(acked);
  });

  it('the registry row follows the acknowledgement: the same handle lists its own writes, another handle lists the journal head', async () => {
    const { schema, all } = handles(2);
    const a = new SessionManager({ store: all[0]!, agent: 'a' });
    const b = new SessionManager({ store: all[1]!, agent: 'b' });
    await seed(all[0]!, 'r');
    for (let i = 0; i < 30; i++) await a.tokens('r', { agent: 'a', input: 1 });
    // A change the row shows (its lease), right after a stream of changes it does not.
    const lease = (await a.leases.acquire('r', { owner: 'run', ttlMs: 60_000 })).result;
    const head = (await all[0]!.load('r')).revision;
    // Read-your-writes in one handle: list waits for this handle's refreshes.
    expect((await a.list()).find((s) => s.id === 'r')).toMatchObject({ revision: head, leaseToken: lease.token });
    // Another handle lists the same row, whether the refresh landed or the row lagged and was derived from the journal.
    expect((await b.list()).find((s) => s.id === 'r')).toMatchObject({ revision: head, leaseToken: lease.token });
    await all[0]!.settle();
    expect(await rowOf(schema, 'r')).toEqual({ summary_revision: head, refreshed_revision: head, head });
    // Changes the row does not show leave the sessions table alone (no refresh of the row,
    // nothing marked), and the row is not stale.
    const marked = await marksOf(schema, 'r');
    expect(marked.last).toBe(head);
    for (let i = 0; i < 5; i++) await a.tokens('r', { agent: 'a', input: 1 });
    await all[0]!.settle();
    expect(await rowOf(schema, 'r')).toEqual({ summary_revision: head, refreshed_revision: head, head: head + 5 });
    expect(await marksOf(schema, 'r')).toEqual(marked);
    expect((await all[1]!.listRows()).missing).toEqual([]);
  });

  it('token records whose refresh never ran: the row is not stale, no list derives it', async () => {
    const { schema, all } = handles(2);
    const writer = new SessionManager({ store: all[0]!, agent: 'w' });
    await seed(all[0]!, 't');
    await all[0]!.settle();
    const row = await rowOf(schema, 't');
    withoutRefresh(all[0]!);
    for (let i = 0; i < 20; i++) await writer.tokens('t', { agent: 'w', input: 1 });
    expect(await rowOf(schema, 't')).toEqual({ ...row, head: row.head! + 20 });
    expect(await marksOf(schema, 't')).toEqual({ last: null, n: 0 });
    // Neither another handle nor the writer's own finds anything to derive.
    expect((await all[1]!.listRows()).missing).toEqual([]);
    expect((await all[0]!.listRows()).missing).toEqual([]);
    const listed = (await new SessionManager({ store: all[1]!, agent: 'r' }).list()).find((s) => s.id === 't')!;
    expect(listed.revision).toBe(row.summary_revision);
    expect(await rowOf(schema, 't')).toEqual({ ...row, head: row.head! + 20 });
  });

  it('a refresh that never ran (the writer gone right after its acknowledgement): the next list derives the row at the journal head and stores it', async () => {
    const { schema, all } = handles(2);
    const writer = new SessionManager({ store: all[0]!, agent: 'w' });
    await seed(all[0]!, 'l');
    await all[0]!.settle();
    withoutRefresh(all[0]!);
    for (let i = 0; i < 5; i++) await writer.tokens('l', { agent: 'w', input: 1 });
    // A change the row shows, whose refresh never runs either.
    await writer.pin('l', 'keep');
    for (let i = 0; i < 3; i++) await writer.tokens('l', { agent: 'w', input: 1 });
    const before = await rowOf(schema, 'l');
    expect((await marksOf(schema, 'l')).last).toBe(before.head! - 3);
    expect(before.head).toBeGreaterThan(before.summary_revision!);
    const reader = new SessionManager({ store: all[1]!, agent: 'r' });
    const row = (await reader.list()).find((s) => s.id === 'l')!;
    expect(row.revision).toBe(before.head);
    expect(await rowOf(schema, 'l')).toMatchObject({ summary_revision: before.head, head: before.head });
    // Stored: the next list reads it as it is.
    expect((await all[1]!.listRows()).missing).toEqual([]);
  });

  it('a writer killed between its acknowledgements and their refresh: the next list brings the row to the journal head', async () => {
    let staleTrials = 0;
    for (let trial = 0; trial < 3; trial++) {
      const { url, schema, all } = handles(1);
      const m = new SessionManager({ store: all[0]!, agent: 'parent' });
      await seed(all[0]!, 'k');
      void m;
      await all[0]!.settle();
      const child = spawn(
        process.execPath,
        ['--import', 'tsx', path.join(REPO, 'test/store/pg-refresh-writer.ts'), url, 'k'],
        { cwd: REPO, stdio: ['ignore', 'pipe', 'pipe'] },
      );
      let acked = 0;
      let stderr = '';
      child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
      const exited = new Promise<void>((r) => child.on('exit', () => r()));
      await new Promise<void>((resolve, reject) => {
        let buf = '';
        const guard = setTimeout(() => reject(new Error(`the writer acknowledged nothing: ${stderr}`)), 30_000);
        child.stdout.on('data', (d: Buffer) => {
          buf += d.toString();
          const lines = buf.split('\n');
          buf = lines.pop()!;
          for (const l of lines) acked = Math.max(acked, Number(l));
          // Killed at a different point of the stream each trial.
          if (acked >= 20 + trial * 17) {
            clearTimeout(guard);
            child.kill('SIGKILL');
            resolve();
          }
        });
      });
      await exited;
      // The statement of an append in flight at the kill may still commit on the server: wait for the backend to go.
      await until('the killed writer to leave the server', async () => {
        const c = await admin();
        try {
          return (
            (
              await c.query(
                `SELECT count(*)::int AS n FROM pg_stat_activity WHERE state = 'active' AND query LIKE $1 AND pid <> pg_backend_pid()`,
                [`%"${schema}".events%`],
              )
            ).rows[0].n === 0
          );
        } finally {
          await c.end();
        }
      });
      const left = await rowOf(schema, 'k');
      // Nothing acknowledged is lost; the row may lag (it usually does: the kill lands between two refreshes).
      expect(left.head).toBeGreaterThanOrEqual(acked);
      const fresh = new PostgresStore({ url });
      stores.push(fresh);
      const stale = ((await marksOf(schema, 'k')).last ?? 0) > (left.summary_revision ?? 0);
      const row = (await new SessionManager({ store: fresh, agent: 'next' }).list()).find((s) => s.id === 'k')!;
      // A lagging row is derived at the head and stored; one whose refresh landed is read as it is.
      if (stale) {
        expect(row.revision).toBe(left.head);
        expect(await rowOf(schema, 'k')).toMatchObject({
          summary_revision: left.head,
          refreshed_revision: left.head,
          head: left.head,
        });
      }
      expect((await fresh.listRows()).missing).toEqual([]);
      staleTrials += stale ? 1 : 0;
    }
    // The kill lands between two refreshes (20 ms apart) far more often than not.
    expect(staleTrials).toBeGreaterThan(0);
  }, 120_000);

  it('watchers see every change: through the notifications while the writer lives, through their poll when a killed writer never sent them', async () => {
    const { all } = handles(3, { pingMs: 300 });
    const [watched, writer, silent] = all as [PostgresStore, PostgresStore, PostgresStore];
    const w = new SessionManager({ store: writer, agent: 'w' });
    await seed(writer, 'wa');
    await writer.settle();
    const watcher = new SessionManager({ store: watched, agent: 'watcher' });
    const seen: StoredEvent[] = [];
    const stop = await watcher.watch({ sessionId: 'wa', onChange: (c) => seen.push(...c.events) });
    try {
      for (let i = 0; i < 40; i++) await w.note('wa', { text: `n${i}` });
      const head = (await writer.load('wa')).revision;
      await until('every event', async () => seen.length && seen.at(-1)!.seq === head);
      // Every event once, in order, coalesced notifications or not.
      expect(seen.map((e) => e.seq)).toEqual(Array.from({ length: seen.length }, (_, i) => seen[0]!.seq + i));
      expect(notes(seen)).toEqual(Array.from({ length: 40 }, (_, i) => `n${i}`));
      // A writer whose refreshes never run (killed after the acknowledgement): no notification, the poll finds it.
      withoutRefresh(silent);
      await silent.append('wa', head, [noteEvent(1, 'never announced')]);
      await until('the poll to report the unannounced event', async () => seen.at(-1)?.seq === head + 1);
      expect(notes(seen).at(-1)).toBe('never announced');
    } finally {
      await stop();
    }
  }, 60_000);

  it('the migration to the refreshed revision, by two workers at once: sessions stored before it are current, not derived again', async () => {
    const { schema, url } = handles(0);
    const c = await admin();
    try {
      // The schema as the step before made it, written as that version wrote: the row at the
      // last append that changed it, later appends without one.
      const events = await schemaBefore(c, schema, ['sessions.refreshed_revision', 'events.row_changed'], 'o');
      const row = summaryOf('o', events.slice(0, 2));
      await c.query(`INSERT INTO "${schema}".sessions (id, summary, summary_revision) VALUES ('o', $1, 2)`, [
        JSON.stringify(row),
      ]);
      for (const e of events) {
        const { seq, ...body } = e;
        await c.query(`INSERT INTO "${schema}".events (session_id, seq, type, body) VALUES ('o', $1, $2, $3)`, [
          seq,
          e.type,
          JSON.stringify(body),
        ]);
      }
      const [a, b] = [new PostgresStore({ url }), new PostgresStore({ url })];
      stores.push(a, b);
      const applied = [...(await a.prepare()), ...(await Promise.all([b.prepare()])).flat()];
      expect(applied).toEqual(versionsFrom('sessions.refreshed_revision'));
      expect(await rowOf(schema, 'o')).toEqual({
        summary_revision: 2,
        refreshed_revision: events.length,
        head: events.length,
      });
      expect(await marksOf(schema, 'o')).toEqual({ last: null, n: 0 });
      const listed = await a.listRows();
      expect(listed.missing).toEqual([]);
      expect(listed.rows.map((r) => r.id)).toEqual(['o']);
    } finally {
      await c.end();
    }
  });
  it('the migration to marked events, by two workers at once: a row whose refresh was lost before it is derived once, the others are not', async () => {
    const { schema, url } = handles(0);
    const c = await admin();
    try {
      // The schema as the step before made it (refreshed_revision), with two sessions: one
      // refreshed up to its head, one whose writer was killed before its last refresh.
      const events = await schemaBefore(c, schema, ['events.row_changed'], 'p');
      for (const [id, refreshed] of [
        ['p', events.length],
        ['q', 2],
      ] as const) {
        await c.query(
          `INSERT INTO "${schema}".sessions (id, summary, summary_revision, refreshed_revision) VALUES ($1, $2, 2, $3)`,
          [id, JSON.stringify(summaryOf(id, events.slice(0, 2))), refreshed],
        );
        for (const e of events) {
          const { seq, ...body } = e;
          await c.query(`INSERT INTO "${schema}".events (session_id, seq, type, body) VALUES ($1, $2, $3, $4)`, [
            id,
            seq,
            e.type,
            JSON.stringify(body),
          ]);
        }
      }
      const [a, b] = [new PostgresStore({ url }), new PostgresStore({ url })];
      stores.push(a, b);
      const applied = (await Promise.all([a.prepare(), b.prepare()])).flat();
      expect(applied).toEqual(versionsFrom('events.row_changed'));
      expect(await marksOf(schema, 'p')).toEqual({ last: null, n: 0 });
      expect(await marksOf(schema, 'q')).toEqual({ last: events.length, n: 1 });
      expect((await a.listRows()).missing).toEqual(['q']);
      const listed = await new SessionManager({ store: a, agent: 'up' }).list();
      expect(listed.map((s) => [s.id, s.revision])).toEqual([
        ['p', 2],
        ['q', events.length],
      ]);
      expect((await b.listRows()).missing).toEqual([]);
    } finally {
      await c.end();
    }
  });
});
