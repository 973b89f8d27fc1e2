/**
 * Issue 16 on the PostgreSQL store: a session whose registry row or snapshot proves a
 * revision past its highest stored event (events deleted behind the store's back, one table
 * put back from an older copy) is CORRUPT naming what was lost, never a shorter session that
 * would hand out acknowledged seqs again; one without events is CORRUPT too. `doctor --fix`
 * recovers the state from the snapshot, records the lost seqs in a repair event and numbering
 * goes on above the highest revision ever acknowledged.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { isBatonError } from '../../src/domain/errors.js';
import type { BatonError } from '../../src/domain/errors.js';
import { SessionManager } from '../../src/manager/manager.js';
import { PostgresStore } from '../../src/store/postgres/store.js';
import { noteEvent, rejection, seed, stateOf } from '../../src/testing/conformance.js';
import { PG_URL, admin, dropSchema, freshSchema, needsRealServer, urlWith } from './pg-helpers.js';

const schemas: string[] = [];
const stores: PostgresStore[] = [];

function store(schema = freshSchema('lost')): { s: PostgresStore; schema: string } {
  if (!schemas.includes(schema)) schemas.push(schema);
  const s = new PostgresStore({ url: urlWith({ schema }) });
  stores.push(s);
  return { s, schema };
}

/**
 * Runs `text` behind the store's back, with every store closed first (the embedded test server
 * serves one connection at a time); returns a fresh store on the same schema.
 */
async function behindTheBack(schema: string, text: string, params: unknown[] = []): Promise<PostgresStore> {
  for (const s of stores.splice(0)) await s.close();
  await sql(text, params);
  return store(schema).s;
}

async function sql(text: string, params: unknown[] = []): Promise<void> {
  const c = await admin();
  try {
    await c.query(text, params);
  } finally {
    await c.end();
  }
}

async function expectCorrupt(p: Promise<unknown>): Promise<BatonError> {
  const e = await rejection(p);
  expect(isBatonError(e, 'CORRUPT'), String(e)).toBe(true);
  return e as BatonError;
}

afterEach(async () => {
  for (const s of stores.splice(0)) await s.close();
  for (const schema of schemas.splice(0)) await dropSchema(schema);
});

describe.skipIf(!PG_URL)('PostgreSQL: acknowledged events missing from the events table', () => {
  needsRealServer({
    'a registry row at a later revision than the events hold: load and readEvents are CORRUPT':
      'manager.start holds the workspace lock on one connection while it writes on another; the embedded server serves one at a time',
  });
  it('a registry row at a later revision than the events hold: load and readEvents are CORRUPT', async () => {
    const { s, schema } = store();
    const m = new SessionManager({ store: s, agent: 't' });
    await m.start({ title: 'reg', id: 'reg', switch: true });
    await m.lifecycle('reg', 'pause');
    const top = (await s.load('reg')).revision;
    const after = await behindTheBack(schema, `DELETE FROM "${schema}".events WHERE session_id = 'reg' AND seq > 1`);
    for (const read of [() => after.load('reg'), () => after.readEvents('reg')]) {
      const e = await expectCorrupt(read());
      expect(e.details).toMatchObject({ journalRevision: 1, provenRevision: top, lost: { from: 2, to: top } });
    }
  });

  it('a snapshot past the events: CORRUPT', async () => {
    const { s, schema } = store();
    await seed(s, 'snap', 9);
    await s.writeSnapshot('snap', { revision: 10, state: stateOf('snap', await s.readEvents('snap')) });
    const after = await behindTheBack(schema, `DELETE FROM "${schema}".events WHERE session_id = 'snap' AND seq > 5`);
    const e = await expectCorrupt(after.load('snap'));
    expect(e.details).toMatchObject({ journalRevision: 5, provenRevision: 10 });
  });

  it('a session without events is CORRUPT on every read', async () => {
    const { s, schema } = store();
    await seed(s, 'empty', 2);
    const after = await behindTheBack(schema, `DELETE FROM "${schema}".events WHERE session_id = 'empty'`);
    await expectCorrupt(after.load('empty'));
    await expectCorrupt(after.readEvents('empty'));
  });

  needsRealServer({
    'doctor --fix recovers from the snapshot past the events, records the lost seqs, numbers above them':
      'the manager holds the workspace lock on one connection while it reads on another; the embedded server serves one at a time',
    "doctor --fix with only a registry row as proof: the state is the events', numbering still goes on above it":
      'as above',
  });
  it('doctor --fix recovers from the snapshot past the events, records the lost seqs, numbers above them', async () => {
    const { s, schema } = store();
    await seed(s, 'back', 39);
    await s.writeSnapshot('back', { revision: 40, state: stateOf('back', await s.readEvents('back')) });
    // A restored backup of the events table: everything past revision 12 is gone.
    const after = await behindTheBack(schema, `DELETE FROM "${schema}".events WHERE session_id = 'back' AND seq > 12`);
    await expectCorrupt(after.load('back'));
    const m = new SessionManager({ store: after, agent: 't' });
    const report = await m.maintenance.doctor({ fix: true });
    expect(report.ok, JSON.stringify(report.problems, null, 1)).toBe(true);
    expect(report.problems.map((p) => p.message).join('\n')).toMatch(/seqs 13–40 were lost/);
    const r = await after.load('back');
    expect(r.revision).toBe(41);
    const lost = r.events.at(-1)!;
    expect(lost).toMatchObject({
      seq: 41,
      type: 'repair.events_lost',
      data: { from: 13, to: 40, recoveredFrom: { kind: 'snapshot', revision: 40 } },
    });
    // The state is the snapshot's: all 39 notes, though 28 of their events are gone.
    const state = await m.get('back');
    expect(state.notes).toHaveLength(39);
    expect(state.repairs.at(-1)).toMatchObject({ kind: 'events_lost', detail: { from: 13, to: 40 } });
    expect((await after.append('back', 41, [noteEvent(100)])).revision).toBe(42);
    const seqs = (await after.readEvents('back')).map((e) => e.seq);
    expect(seqs.filter((q) => q > 12 && q <= 40)).toEqual([]);
    expect(seqs.slice(-2)).toEqual([41, 42]);
    // A second doctor finds nothing left to fix.
    expect((await m.maintenance.doctor({ fix: false })).ok).toBe(true);
  });

  it("doctor --fix with only a registry row as proof: the state is the events', numbering still goes on above it", async () => {
    const { s, schema } = store();
    const m0 = new SessionManager({ store: s, agent: 't' });
    await m0.start({ title: 'reg', id: 'reg', switch: true });
    await m0.lifecycle('reg', 'pause');
    const top = (await s.load('reg')).revision;
    const after = await behindTheBack(schema, `DELETE FROM "${schema}".events WHERE session_id = 'reg' AND seq > 1`);
    const m = new SessionManager({ store: after, agent: 't' });
    const report = await m.maintenance.doctor({ fix: true });
    expect(report.ok, JSON.stringify(report.problems, null, 1)).toBe(true);
    const r = await after.load('reg');
    expect(r.events.at(-1)).toMatchObject({
      seq: top + 1,
      type: 'repair.events_lost',
      data: { from: 2, to: top, recoveredFrom: null },
    });
    await m.lifecycle('reg', 'pause');
    expect((await after.load('reg')).revision).toBe(top + 2);
  });
});
