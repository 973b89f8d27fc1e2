/**
 * Issue 16 on the PostgreSQL store: a session whose registry row or snapshot proves a
 * revision past its highest stored event (events deleted behind the store's back, one table
 * put back from an older copy) is CORRUPT naming what was lost, never a shorter session that
 * would hand out acknowledged seqs again; one without events is CORRUPT too.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { isBatonError } from '../../src/domain/errors.js';
import type { BatonError } from '../../src/domain/errors.js';
import { SessionManager } from '../../src/manager/manager.js';
import { PostgresStore } from '../../src/store/postgres/store.js';
import { rejection, seed, stateOf } from '../../src/testing/conformance.js';
import { PG_URL, admin, dropSchema, freshSchema, urlWith } from './pg-helpers.js';

const schemas: string[] = [];
const stores: PostgresStore[] = [];

function store(): { s: PostgresStore; schema: string } {
  const schema = freshSchema('lost');
  schemas.push(schema);
  const s = new PostgresStore({ url: urlWith({ schema }) });
  stores.push(s);
  return { s, schema };
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
  it('a registry row at a later revision than the events hold: load and readEvents are CORRUPT', async () => {
    const { s, schema } = store();
    const m = new SessionManager({ store: s, agent: 't' });
    await m.start({ title: 'reg', id: 'reg', switch: true });
    await m.lifecycle('reg', 'pause');
    const top = (await s.load('reg')).revision;
    await sql(`DELETE FROM "${schema}".events WHERE session_id = 'reg' AND seq > 1`);
    for (const read of [() => s.load('reg'), () => s.readEvents('reg')]) {
      const e = await expectCorrupt(read());
      expect(e.details).toMatchObject({ journalRevision: 1, provenRevision: top, lost: { from: 2, to: top } });
    }
  });

  it('a snapshot past the events: CORRUPT, and nothing is appended at a lower revision', async () => {
    const { s, schema } = store();
    await seed(s, 'snap', 9);
    await s.writeSnapshot('snap', { revision: 10, state: stateOf('snap', await s.readEvents('snap')) });
    await sql(`DELETE FROM "${schema}".events WHERE session_id = 'snap' AND seq > 5`);
    const e = await expectCorrupt(s.load('snap'));
    expect(e.details).toMatchObject({ journalRevision: 5, provenRevision: 10 });
  });

  it('a session without events is CORRUPT on every read', async () => {
    const { s, schema } = store();
    await seed(s, 'empty', 2);
    await sql(`DELETE FROM "${schema}".events WHERE session_id = 'empty'`);
    await expectCorrupt(s.load('empty'));
    await expectCorrupt(s.readEvents('empty'));
  });
});
