/**
 * `baton tokens --by host`: on a shared store, each record carries the machine that made it
 * (the event's actor host) and the command sums them across machines, each priced by its
 * models. Two managers writing as two hosts on one store, the file store and PostgreSQL, then
 * the CLI run here reads them.
 */
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { SessionManager } from '../../src/manager/manager.js';
import { FileStore } from '../../src/store/file/store.js';
import { PostgresStore } from '../../src/store/postgres/store.js';
import type { SessionStore } from '../../src/store/types.js';
import { PG_URL, dropSchema, freshSchema, urlWith } from '../store/pg-helpers.js';
import { workspace } from './helpers.js';

interface ByHostJson {
  input: number;
  output: number;
  byHost: Record<string, { input: number; output: number; cached: number; cacheWrite?: number }>;
  cost: {
    total: { usd: number | null };
    byHost: Record<string, { usd: number | null; unpriced: { models: string[] } }>;
  };
}

/** Two machines record on one session of the store `open()` gives each. */
async function twoHosts(open: () => SessionStore, create = true): Promise<SessionStore[]> {
  const stores = [open(), open()];
  const [laptop, ci] = stores.map(
    (store, i) => new SessionManager({ store, host: i === 0 ? 'laptop' : 'ci-runner', pid: 500 + i }),
  );
  const actor = { agent: null, pid: 1, host: 'laptop' };
  if (create)
    await laptop!.createFrom('shared', [
      {
        type: 'session.created',
        time: new Date().toISOString(),
        actor,
        data: { title: 'Shared', idFormat: 'explicit', phases: [{ id: 'build', name: 'Build' }], budgetMax: null },
      },
    ]);
  // laptop: claude-sonnet-4-5, 1,000,000 in / 100,000 out = $3 + $1.50 = $4.50.
  await laptop!.tokens('shared', { agent: 'claude', model: 'claude-sonnet-4-5', input: 1_000_000, output: 100_000 });
  // ci-runner: gpt-5, 2,000,000 in / 200,000 out = $2.50 + $2 = $4.50; then 500 tokens of a model with no price.
  await ci!.tokens('shared', { agent: 'codex', model: 'gpt-5', input: 2_000_000, output: 200_000 });
  await ci!.tokens('shared', { agent: 'codex', model: 'house-model', input: 500, output: 0 });
  return stores;
}

async function check(ws: ReturnType<typeof workspace>, storeArgs: string[]): Promise<void> {
  const json = await ws.json<ByHostJson>(['tokens', '--by', 'host', '--session', 'shared', ...storeArgs]);
  expect(json.byHost).toEqual({
    laptop: { input: 1_000_000, output: 100_000, cached: 0 },
    'ci-runner': { input: 2_000_500, output: 200_000, cached: 0 },
  });
  expect(json.input).toBe(3_000_500);
  expect(json.cost.byHost['laptop']!.usd).toBe(4.5);
  // Not a guess: the unknown model is named and the host's cost is null.
  expect(json.cost.byHost['ci-runner']).toMatchObject({
    usd: null,
    pricedUsd: 4.5,
    unpriced: { models: ['house-model'] },
  });
  expect(json.cost.total.usd).toBeNull();
  const text = (await ws.ok(['tokens', '--by', 'host', '--session', 'shared', ...storeArgs])).stdout;
  expect(text).toMatch(/^ {2}HOST\s+INPUT\s+OUTPUT\s+CACHED\s+COST$/m);
  expect(text).toMatch(/^ {2}laptop\s+1,000,000\s+100,000\s+0\s+\$4\.50$/m);
  expect(text).toMatch(
    /^ {2}ci-runner\s+2,000,500\s+200,000\s+0\s+at least \$4\.50 \(500 tokens of house-model not priced\)$/m,
  );
}

describe('tokens --by host', () => {
  it('sums two machines’ records on one file store', async () => {
    const ws = workspace();
    await ws.ok(['start', 'Shared', '--id', 'shared', '--phases', 'build']);
    const root = path.join(ws.dir, '.baton');
    const stores = await twoHosts(() => new FileStore({ root }), false);
    for (const s of stores) await s.close();
    await check(ws, []);
  });

  it.skipIf(!PG_URL)(
    'sums two machines’ records on one PostgreSQL store',
    async () => {
      const schema = freshSchema('byhost');
      const url = urlWith({ schema });
      const stores = await twoHosts(() => new PostgresStore({ url }));
      try {
        await check(workspace(), ['--store', url]);
      } finally {
        for (const s of stores) await s.close();
        await dropSchema(schema);
      }
    },
    60_000,
  );
});
