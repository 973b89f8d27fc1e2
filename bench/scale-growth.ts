// Growth (issue 17): a store of 10 million events over 100,000 sessions, generated with SQL
// (generate_series) straight into a scratch schema, not through the API; load, list and the
// claim query timed against a store of 1,000 sessions built the same way, in the same run.
// Part of bench/scale.ts.
import type { Client } from 'pg';

/** One line of the results table (the same shape as bench/run.ts's rows). */
export interface ScaleRow {
  name: string;
  baton: string;
  baseline: string;
  ratio: number;
  target: string;
  pass: boolean;
}

function pct(xs: number[], p: number): number {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.floor((s.length * p) / 100))]!;
}

const T = "'2026-01-01T00:00:00.000Z'";

/**
 * Fills store schema `schema` (already migrated) with `sessions` sessions of `perSession`
 * events each, in chunks. 30 % archived (i % 10 < 3); one session in `sessions / 100` interrupted (100
 * claimable sessions whatever the size); 100 sessions per workspace.
 */
async function generate(
  c: Client,
  schema: string,
  sessions: number,
  perSession: number,
  log: (s: string) => void,
): Promise<void> {
  const s = `"${schema}"`;
  const every = sessions / 100;
  const workspaces = sessions / 100;
  const chunk = Math.min(sessions, 10_000);
  for (let from = 1; from <= sessions; from += chunk) {
    const to = Math.min(sessions, from + chunk - 1);
    await c.query(`
      INSERT INTO ${s}.sessions (id, archived, summary, summary_revision)
      SELECT 'g-' || i, i % 10 < 3,
        -- A registry row exactly as baton writes one (compact JSON, id first): list reads it as is.
        '{"id":"g-' || i || '","title":"session ' || i || '","status":"' ||
          CASE WHEN i % ${every} = 7 THEN 'interrupted' WHEN i % 10 = 5 THEN 'paused' ELSE 'completed' END ||
          '","cause":null,"archived":' || (i % 10 < 3)::text || ',"createdAt":"2026-01-01T00:00:00.000Z","updatedAt":"2026-01-01T00:00:00.000Z","revision":${perSession}' ||
          ',"phasesTotal":0,"phasesDone":0,"currentPhase":null,"progress":0,"leaseExpiresAt":null,"leaseToken":null,"pinned":false,"workspace":"ws-' || (i % ${workspaces}) || '"}',
        ${perSession}
      FROM generate_series(${from}, ${to}) i`);
    await c.query(`
      INSERT INTO ${s}.events (session_id, seq, type, body)
      SELECT 'g-' || i, q, CASE WHEN q = 1 THEN 'session.created' ELSE 'tokens.recorded' END,
        CASE WHEN q = 1 THEN json_build_object('type', 'session.created', 'data', json_build_object('title', 'session ' || i, 'idFormat', 'explicit',
               'phases', '[]'::json, 'budgetMax', NULL, 'contextSummary', NULL, 'metadata', '{}'::json, 'workspace', 'ws-' || (i % ${workspaces})),
               'time', ${T}, 'actor', json_build_object('agent', 'gen', 'pid', 1, 'host', 'gen'))::text
             ELSE json_build_object('type', 'tokens.recorded', 'data', json_build_object('agent', 'agent-' || (q % 4), 'phaseId', NULL, 'input', 10, 'output', 5, 'cached', 1),
               'time', ${T}, 'actor', json_build_object('agent', 'gen', 'pid', 1, 'host', 'gen'))::text END
      FROM generate_series(${from}, ${to}) i, generate_series(1, ${perSession}) q`);
    if (sessions >= 100_000 && ((to / chunk) % 2 === 0 || to === sessions))
      log(`  growth: ${to.toLocaleString('en-US')} of ${sessions.toLocaleString('en-US')} sessions generated`);
  }
  // Completed and paused sessions end as such in their journals too (the rows say so).
  await c.query(`ANALYZE ${s}.sessions`);
  await c.query(`ANALYZE ${s}.events`);
}

interface Timings {
  load: number;
  list: number;
  claim: number;
}

async function time(url: string, sessions: number): Promise<Timings> {
  const { SessionManager } = await import('../src/manager/manager.js');
  const { PostgresStore } = await import('../src/store/postgres/store.js');
  const m = new SessionManager({ store: new PostgresStore({ url }) });
  await m.store.list({ filter: { workspace: 'none' } });
  const loads: number[] = [];
  const lists: number[] = [];
  const claims: number[] = [];
  for (let i = 0; i < 100; i++) {
    const id = `g-${1 + ((i * 7919) % sessions)}`;
    const t0 = performance.now();
    await m.get(id);
    loads.push(performance.now() - t0);
  }
  for (let i = 0; i < 30; i++) {
    let t0 = performance.now();
    const rows = await m.list({ workspace: `ws-${i % 10}`, all: true });
    lists.push(performance.now() - t0);
    if (rows.length !== 100) throw new Error(`workspace ws-${i % 10} lists ${rows.length} sessions, not 100`);
    t0 = performance.now();
    const c = await m.claims.candidates();
    claims.push(performance.now() - t0);
    if (c.length !== 100) throw new Error(`${c.length} claim candidates, not 100`);
  }
  await m.store.close();
  return { load: pct(loads, 50), list: pct(lists, 50), claim: pct(claims, 50) };
}

/** Generates both stores, times them, measures dropping archived sessions; the rows and a paragraph. */
export async function growth(
  admin: Client,
  url: (schema: string) => string,
  quick: boolean,
  log: (s: string) => void = console.log,
): Promise<{ rows: ScaleRow[]; text: string }> {
  const { PostgresStore } = await import('../src/store/postgres/store.js');
  const big = quick ? 10_000 : 100_000;
  const perSession = 100;
  const small = 1_000;
  for (const [schema, n] of [
    ['scale_growth', big],
    ['scale_small', small],
  ] as const) {
    await admin.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`);
    const store = new PostgresStore({ url: url(schema) });
    await store.prepare();
    await store.close();
    const t0 = performance.now();
    await generate(admin, schema, n, perSession, log);
    if (n === big)
      log(
        `  growth: ${(n * perSession).toLocaleString('en-US')} events generated in ${((performance.now() - t0) / 1000).toFixed(0)} s`,
      );
  }
  const b = await time(url('scale_growth'), big);
  const s = await time(url('scale_small'), small);
  // Dropping 1,000 archived sessions with their events: by session, no table-wide rewrite
  // (every partition keeps its file: relfilenode unchanged).
  const files = async (): Promise<string> =>
    (
      await admin.query<{ f: string }>(
        `SELECT string_agg(relfilenode::text, ',' ORDER BY relname) AS f FROM pg_class WHERE relnamespace = 'scale_growth'::regnamespace AND relname LIKE 'events_p%' AND relkind = 'r'`,
      )
    ).rows[0]!.f;
  const before = await files();
  const t0 = performance.now();
  const dropped = await admin.query(
    `DELETE FROM scale_growth.sessions WHERE id IN (SELECT id FROM scale_growth.sessions WHERE archived ORDER BY id LIMIT 1000)`,
  );
  const dropMs = performance.now() - t0;
  const rewritten = before !== (await files());
  const size = (
    await admin.query<{ s: string }>(
      `SELECT pg_size_pretty(sum(pg_total_relation_size(c.oid))) AS s FROM pg_class c WHERE c.relnamespace = 'scale_growth'::regnamespace AND c.relname LIKE 'events_p%' AND c.relkind = 'r'`,
    )
  ).rows[0]!.s;
  await admin.query('DROP SCHEMA scale_growth CASCADE');
  await admin.query('DROP SCHEMA scale_small CASCADE');
  const n = (big * perSession).toLocaleString('en-US');
  const text = `${n} events over ${big.toLocaleString('en-US')} sessions (${size} in 16 hash partitions), generated with \`generate_series\`, against ${(small * perSession).toLocaleString('en-US')} events over ${small.toLocaleString('en-US')} sessions built the same way: load of a 100-event session p50 ${b.load.toFixed(2)} ms vs ${s.load.toFixed(2)} ms; \`list --workspace\` (100 sessions) p50 ${b.list.toFixed(2)} ms vs ${s.list.toFixed(2)} ms; claim candidates (the claim query, 100 claimable) p50 ${b.claim.toFixed(2)} ms vs ${s.claim.toFixed(2)} ms. Dropping ${dropped.rowCount} archived sessions with their ${((dropped.rowCount ?? 0) * perSession).toLocaleString('en-US')} events took ${dropMs.toFixed(0)} ms, ${rewritten ? '**and rewrote a partition**' : 'and no partition was rewritten (every relfilenode unchanged)'}.`;
  return {
    text,
    rows: [
      {
        name: `Load at ${n} events (p50, vs ${small.toLocaleString('en-US')} sessions)`,
        baton: `${b.load.toFixed(2)} ms`,
        baseline: `${s.load.toFixed(2)} ms small store`,
        ratio: b.load / s.load,
        target: '≤ 2×',
        pass: b.load / s.load <= 2,
      },
      {
        name: `\`list --workspace\` at ${n} events (p50)`,
        baton: `${b.list.toFixed(2)} ms`,
        baseline: `${s.list.toFixed(2)} ms small store`,
        ratio: b.list / s.list,
        target: '≤ 2×',
        pass: b.list / s.list <= 2,
      },
      {
        name: `Claim query at ${n} events (p50)`,
        baton: `${b.claim.toFixed(2)} ms`,
        baseline: `${s.claim.toFixed(2)} ms small store`,
        ratio: b.claim / s.claim,
        target: '≤ 2×',
        pass: b.claim / s.claim <= 2 && !rewritten,
      },
    ],
  };
}
