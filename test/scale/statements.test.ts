/**
 * Past one server, checked (issue 17; docs/scale.md): on a PostgreSQL sharded by session id
 * (Citus), a statement that names one session runs on one shard. Every statement of the
 * store's statement sets filters each table it reads or changes by the session id (or
 * inserts rows keyed by it), except the registry and claim statements, which docs/scale.md
 * lists by name; and every other SQL text in the store's sources is one of the few
 * table-less or schema-maintenance statements named here and in the doc.
 */
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { statements } from '../../src/store/postgres/sql.js';
import { registryStatements } from '../../src/store/postgres/sql-registry.js';
import { ROOT } from '../cli/helpers.js';

const S = '"sch"';
const SESSION_TABLES = ['events', 'sessions', 'snapshots', 'checkpoints'];
const NOT_ALIAS = /^(WHERE|LEFT|JOIN|ON|SET|GROUP|ORDER|UNION|WITH|SELECT|VALUES|AS|FOR|AND|RETURNING|SELECT)$/i;

/** Table references of a statement: the table, its alias, and the text up to the next reference. */
function references(sql: string): Array<{ table: string; verb: string; alias: string | null; scope: string }> {
  const found = [...sql.matchAll(/\b(FROM|JOIN|UPDATE|INTO)\s+"sch"\.(\w+)(?:\s+(\w+))?/g)];
  return found.map((m, i) => ({
    verb: m[1]!,
    table: m[2]!,
    alias: m[3] && !NOT_ALIAS.test(m[3]) ? m[3] : null,
    scope: sql.slice(m.index! + m[0].length, found[i + 1]?.index ?? sql.length),
  }));
}

/** Why `sql` is not single-session, or null. */
function notKeyed(sql: string): string | null {
  const refs = references(sql);
  if (!refs.length) return 'it reads no table';
  const aliases = refs.map((r) => r.alias).filter((a): a is string => a !== null);
  // The key compared with $1, or with the key of another table of the statement (a join).
  const value = `(?:\\$1\\b${aliases.length ? `|(?:${aliases.join('|')})\\.(?:session_id|id)\\b` : ''})`;
  for (const r of refs) {
    if (!SESSION_TABLES.includes(r.table) && r.table !== 'tombstones')
      return `it touches ${r.table}, which is not keyed by session`;
    if (r.verb === 'INTO') {
      // An insert is keyed when its key comes from $1 or from a row the statement keyed.
      if (!/VALUES\s*\(\s*\$1\b/.test(r.scope) && !/^\s*\([^)]*\)\s*SELECT\s+(?:\$1|\w+\.id|id)\b/.test(r.scope))
        return `its INSERT INTO ${r.table} is not keyed by $1`;
      if (!/\$1\b/.test(sql)) return 'nothing in it names the session';
      continue;
    }
    const keyed = r.alias
      ? new RegExp(`\\b${r.alias}\\.(?:session_id|id)\\s*=\\s*${value}`).test(sql)
      : new RegExp(`(?<![.\\w])(?:session_id|id)\\s*=\\s*${value}`).test(r.scope);
    if (!keyed) return `its ${r.verb} ${r.table} is not filtered by the session id: ${r.scope.trim().slice(0, 80)}`;
  }
  return null;
}

/** Every SQL text given to `query(`, `q(` in the store's sources other than the statement sets. */
function inlineSql(): string[] {
  const dir = path.join(ROOT, 'src', 'store', 'postgres');
  const out: string[] = [];
  for (const f of fs.readdirSync(dir).filter((x) => x.endsWith('.ts') && !x.startsWith('sql'))) {
    const text = fs.readFileSync(path.join(dir, f), 'utf8');
    for (const m of text.matchAll(/\b(?:query|q)(?:<[^>]*>)?\(\s*(['"`])((?:(?!\1)[\s\S])*)\1/g))
      out.push(`${f}: ${m[2]!.replace(/\$\{[^}]*\}/g, '${…}')}`);
  }
  return out.sort();
}

/** The SQL text outside the statement sets, each with why it needs no session id. */
const OTHER_SQL: Record<string, string> = {
  'cursors.ts: INSERT INTO ${…}.cursors (name, value) VALUES ($1, $2) ON CONFLICT (name) DO NOTHING':
    "a reader's cursor, keyed by the reader's name",
  'cursors.ts: SELECT name, value FROM ${…}.cursors WHERE starts_with(name, $1) ORDER BY name COLLATE "C"':
    "readers' cursors by name prefix",
  'cursors.ts: SELECT value FROM ${…}.cursors WHERE name = $1': "a reader's cursor, keyed by the reader's name",
  'cursors.ts: UPDATE ${…}.cursors SET value = $2, updated_at = now() WHERE name = $1 AND value = $3':
    "a reader's cursor, keyed by the reader's name",
  'migrations.ts: CREATE SCHEMA IF NOT EXISTS ${…}': 'schema maintenance, once per version',
  'migrations.ts: CREATE TABLE IF NOT EXISTS ${…}.migrations (version integer PRIMARY KEY, name text NOT NULL, applied_at timestamptz NOT NULL DEFAULT now())':
    'schema maintenance',
  'migrations.ts: INSERT INTO ${…}.migrations (version, name) VALUES ($1, $2)': 'schema maintenance',
  'migrations.ts: SELECT max(version) AS v FROM ${…}.migrations': 'schema version, once per process',
  'migrations.ts: SELECT pg_advisory_xact_lock(hashtextextended($1, 0))': 'the migration lock (no table)',
  'pool.ts: BEGIN': 'transaction control',
  'pool.ts: COMMIT': 'transaction control',
  'pool.ts: ROLLBACK': 'transaction control',
  'step-results.ts: INSERT INTO ${…}.step_results (session_id, sha256, body) SELECT $1, $2, $3 WHERE EXISTS (SELECT 1 FROM ${…}.sessions WHERE id = $1) ON CONFLICT (session_id, sha256) DO NOTHING':
    "a durable step's large result, keyed by its session",
  'step-results.ts: SELECT 1 AS x FROM ${…}.sessions WHERE id = $1':
    'whether the session of a step result exists, keyed by its id',
  'step-results.ts: SELECT body FROM ${…}.step_results WHERE session_id = $1 AND sha256 = $2':
    "a durable step's large result, keyed by its session",
  'store.ts: SELECT (extract(epoch FROM clock_timestamp()) * 1000)::float8 AS ms': "the server's clock (no table)",
  "workspace-lock.ts: SELECT set_config('lock_timeout', $1, true)": 'a setting of the transaction (no table)',
  'workspace-lock.ts: SELECT pg_advisory_xact_lock(hashtextextended($1, 0))': 'the workspace lock (no table)',
  'watch.ts: LISTEN ${…}': 'the change feed (no table)',
  'watch.ts: SELECT now() AS t': 'the change feed and its poll (no table)',
};

describe('every statement names one session, except the documented registry and claim statements', () => {
  const all = statements(S);
  const registry = Object.keys(registryStatements(S));
  const session = Object.entries(all).filter(([k]) => !registry.includes(k));

  it('each session statement filters every table it reads or changes by the session id', () => {
    expect(session.length).toBeGreaterThan(10);
    const problems = session.map(([k, sql]) => [k, notKeyed(sql)]).filter(([, why]) => why !== null);
    expect(problems).toEqual([]);
  });

  it('the checker tells a keyed statement from one that is not', () => {
    expect(notKeyed(`SELECT 1 FROM "sch".events WHERE session_id = $1`)).toBeNull();
    expect(notKeyed(`SELECT 1 FROM "sch".events WHERE seq = $1`)).toMatch(/not filtered/);
    expect(
      notKeyed(`SELECT x.id FROM "sch".sessions x WHERE x.id = $1 AND (SELECT max(seq) FROM "sch".events) > 0`),
    ).toMatch(/events is not filtered/);
    expect(notKeyed(`INSERT INTO "sch".events (session_id, seq) VALUES ($2, $1)`)).toMatch(/not keyed/);
    for (const k of registry) expect(notKeyed((all as Record<string, string>)[k]!), k).not.toBeNull();
  });

  it('docs/scale.md lists exactly the registry and claim statements, and every other SQL text of the store', () => {
    const doc = fs.readFileSync(path.join(ROOT, 'docs', 'scale.md'), 'utf8');
    const listed = [...doc.matchAll(/^\| `(\w+)` \| registry/gm)].map((m) => m[1]);
    expect(listed.sort()).toEqual([...registry].sort());
    expect(inlineSql()).toEqual(Object.keys(OTHER_SQL).sort());
    for (const text of Object.keys(OTHER_SQL))
      expect(doc, text).toContain(
        text
          .replace(/^[\w-]+\.ts: /, '')
          .split(' ')[0]!
          .replace('${…}', ''),
      );
  });
});
