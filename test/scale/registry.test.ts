/**
 * The registry at scale (issue 17): the statements behind `list` and `claim` use an index
 * (EXPLAIN of the very statements baton prepares, over 20,000 sessions), a session's load
 * reads one partition of the events table through its primary key, and a store created
 * before workspaces and partitions migrates safely: every event kept, events partitioned,
 * the old store-wide active pointer adopted by the first workspace that asks.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { SessionManager } from '../../src/manager/manager.js';
import { MIGRATIONS, SCHEMA_VERSION } from '../../src/store/postgres/migrations.js';
import { EVENT_PARTITIONS } from '../../src/store/postgres/migrations-scale.js';
import { statements } from '../../src/store/postgres/sql.js';
import { PostgresStore } from '../../src/store/postgres/store.js';
import { PG_URL, admin, dropSchema, freshSchema, needsRealServer, urlWith } from '../store/pg-helpers.js';

type Plan = { 'Node Type': string; 'Index Name'?: string; 'Relation Name'?: string; Plans?: Plan[] };

/** Every node of a plan tree. */
function nodes(p: Plan): Plan[] {
  return [p, ...(p.Plans ?? []).flatMap(nodes)];
}

describe.skipIf(!PG_URL)('the registry at scale', () => {
  needsRealServer({
    'a version-1 store migrates safely: every event kept, events partitioned, the old active pointer adopted by the first workspace that asks':
      "two stores migrating at once: the second waits on the migration lock in a connection of its own, which the embedded server's one session cannot serve while the first holds its transaction",
  });
  const schemas: string[] = [];
  afterEach(async () => {
    for (const s of schemas.splice(0)) await dropSchema(s);
  });
  function fresh(): { schema: string; url: string } {
    const schema = freshSchema('reg');
    schemas.push(schema);
    return { schema, url: urlWith({ schema }) };
  }

  it('EXPLAIN: the list-by-workspace and claim statements use their indexes over 20,000 sessions; a load reads one events partition by its key', async () => {
    const { schema, url } = fresh();
    const store = new PostgresStore({ url });
    await store.prepare();
    const c = await admin();
    try {
      // Registry rows as baton writes them: 1 in 200 interrupted, the rest completed; 100 workspaces.
      await c.query(`
        INSERT INTO "${schema}".sessions (id, archived, summary, summary_revision)
        SELECT 'g-' || i, i % 10 < 3,
          '{"id":"g-' || i || '","title":"t","status":"' || CASE WHEN i % 200 = 7 THEN 'interrupted' ELSE 'completed' END ||
          '","archived":' || (i % 10 < 3)::text || ',"createdAt":"2026-01-01T00:00:00.000Z","leaseExpiresAt":null,"workspace":"ws-' || (i % 100) || '"}', 3
        FROM generate_series(1, 20000) i`);
      await c.query(
        `INSERT INTO "${schema}".events (session_id, seq, type, body) SELECT 'g-' || i, q, 't', '{}' FROM generate_series(1, 2000) i, generate_series(1, 3) q`,
      );
      await c.query(`ANALYZE "${schema}".sessions`);
      await c.query(`ANALYZE "${schema}".events`);
      const sql = statements(`"${schema}"`);
      const explain = async (name: string, text: string, types: string, values: string): Promise<Plan[]> => {
        await c.query(`PREPARE ${name}(${types}) AS ${text}`);
        // The generic plan is what a long-lived worker's prepared statement settles on.
        await c.query('SET plan_cache_mode = force_generic_plan');
        const r = await c.query<{ 'QUERY PLAN': Array<{ Plan: Plan }> }>(
          `EXPLAIN (FORMAT JSON) EXECUTE ${name}(${values})`,
        );
        await c.query('RESET plan_cache_mode');
        await c.query(`DEALLOCATE ${name}`);
        return nodes(r.rows[0]!['QUERY PLAN'][0]!.Plan);
      };
      const claim = await explain('claim_q', sql.claimable, 'text', "'2026-06-01T00:00:00.000Z'");
      expect(claim.map((n) => n['Index Name']).filter(Boolean)).toContain('sessions_claim');
      expect(claim.filter((n) => n['Node Type'] === 'Seq Scan')).toEqual([]);
      const byWorkspace = await explain('ws_q', sql.listWorkspace, 'text, boolean', "'ws-7', true");
      expect(byWorkspace.map((n) => n['Index Name']).filter(Boolean)).toContain('sessions_workspace');
      expect(byWorkspace.filter((n) => n['Node Type'] === 'Seq Scan')).toEqual([]);
      // And baton finds the same rows through them.
      const m = new SessionManager({ store });
      expect(await m.list({ workspace: 'ws-7', all: true })).toHaveLength(200);
      expect((await m.claims.candidates()).length).toBe(100); // i % 200 = 7: none archived
      const load = await explain('load_q', sql.load, 'text', "'g-42'");
      const scanned = new Set(
        load.filter((n) => n['Relation Name']?.startsWith('events')).map((n) => n['Relation Name']),
      );
      expect(scanned.size).toBe(1); // one partition, not the table
      expect(load.filter((n) => n['Node Type'] === 'Seq Scan' && n['Relation Name']?.startsWith('events'))).toEqual([]);
    } finally {
      await c.end();
      await store.close();
    }
  }, 60_000);

  it('a version-1 store migrates safely: every event kept, events partitioned, the old active pointer adopted by the first workspace that asks', async () => {
    const { schema, url } = fresh();
    const c = await admin();
    try {
      // The schema exactly as version 1 made it, with a session in it and its pointer.
      await c.query(`CREATE SCHEMA "${schema}"`);
      await c.query(
        `CREATE TABLE "${schema}".migrations (version integer PRIMARY KEY, name text NOT NULL, applied_at timestamptz NOT NULL DEFAULT now())`,
      );
      await c.query(MIGRATIONS[0]!.sql(`"${schema}"`));
      await c.query(`INSERT INTO "${schema}".migrations (version, name) VALUES (1, 'v1')`);
      const v1 = new PostgresStore({ url });
      // A v1 store is written with the v1 statements: only the registry row's shape matters here.
      await c.query(`INSERT INTO "${schema}".sessions (id, summary, summary_revision) VALUES ('old', NULL, NULL)`);
      await c.query(
        `INSERT INTO "${schema}".events (session_id, seq, type, body) SELECT 'old', q, CASE WHEN q = 1 THEN 'session.created' ELSE 'note.added' END,
           CASE WHEN q = 1 THEN '{"type":"session.created","data":{"title":"Old","idFormat":"explicit","phases":[],"budgetMax":null},"time":"2026-01-01T00:00:00.000Z","actor":{"agent":null,"pid":1,"host":"h"}}'
                ELSE '{"type":"note.added","data":{"id":"n-' || q || '","text":"note ' || q || '","phase":null,"agent":null},"time":"2026-01-01T00:00:00.000Z","actor":{"agent":null,"pid":1,"host":"h"}}' END
         FROM generate_series(1, 500) q`,
      );
      await c.query(`INSERT INTO "${schema}".settings (key, value) VALUES ('active', 'old')`);
      void v1;
      // Two workers of two workspaces open it at once: one migrates, both see everything.
      const a = new PostgresStore({ url, workspace: 'host-a' });
      const b = new PostgresStore({ url, workspace: 'host-b' });
      const [ra, rb] = await Promise.all([a.prepare(), b.prepare()]);
      expect([...ra, ...rb].sort()).toEqual(MIGRATIONS.slice(1).map((x) => x.version));
      expect((await c.query(`SELECT max(version) AS v FROM "${schema}".migrations`)).rows[0].v).toBe(SCHEMA_VERSION);
      const parts = await c.query(
        `SELECT count(*)::int AS n FROM pg_inherits WHERE inhparent = '"${schema}".events'::regclass`,
      );
      expect(parts.rows[0].n).toBe(EVENT_PARTITIONS);
      expect((await a.readEvents('old')).map((e) => e.seq)).toEqual(Array.from({ length: 500 }, (_, i) => i + 1));
      const m = new SessionManager({ store: b });
      expect((await m.get('old')).notes).toHaveLength(499);
      // The store-wide pointer goes to the first workspace that asks, and only to it.
      expect(await a.getActive()).toBe('old');
      expect(await b.getActive()).toBeNull();
      expect(await a.getActive()).toBe('old');
      // The migrated store takes new sessions and appends as before.
      await m.start({ title: 'New', id: 'new' });
      expect(await b.getActive()).toBe('new');
      expect((await m.list({ workspace: 'host-b' })).map((r) => r.id)).toEqual(['new']);
      await a.close();
      await b.close();
      await v1.close();
    } finally {
      await c.end();
    }
  }, 60_000);
});
