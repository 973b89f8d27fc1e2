/**
 * Durable steps in one process (docs/steps.md): run once and reuse, JSON only, retries and
 * recorded failures, waiting for another runner, large results beside the journal on the
 * file store and PostgreSQL, `status --json` and the handoff; find-or-create by key and
 * caller metadata. Across processes: steps-processes.test.ts.
 */
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { isBatonError } from '../../src/domain/errors.js';
import { SessionManager } from '../../src/manager/manager.js';
import { migrateStore } from '../../src/manager/upkeep/migrate.js';
import { MemoryStore, openStore } from '../../src/store/open.js';
import { withSession } from '../cli/helpers.js';
import { tempDir } from '../support/temp.js';
import { dropSchema, freshSchema, PG_URL, urlWith } from '../store/pg-helpers.js';

async function refusal(
  p: Promise<unknown>,
): Promise<{ code: string; message: string; details: Record<string, unknown> }> {
  try {
    await p;
  } catch (e) {
    if (isBatonError(e)) return { code: e.code, message: e.message, details: e.details as Record<string, unknown> };
    throw e;
  }
  throw new Error('expected a refusal');
}

async function memory(): Promise<{ m: SessionManager; id: string }> {
  const m = new SessionManager({ store: new MemoryStore() });
  const s = await m.start({ title: 'steps', phases: [{ id: 'build', name: 'Build' }] });
  return { m, id: s.id };
}

describe('manager.steps.run', () => {
  it('runs a step once and returns the recorded result on later calls (per phase too)', async () => {
    const { m, id } = await memory();
    let n = 0;
    const fn = (): { n: number; at: string } => ({ n: ++n, at: 'x' });
    expect(await m.steps.run(id, 'fetch', fn)).toEqual({ n: 1, at: 'x' });
    expect(await m.steps.run(id, 'fetch', fn)).toEqual({ n: 1, at: 'x' });
    // The same key in a phase is another step.
    expect(await m.steps.run(id, 'fetch', fn, { phase: 'build' })).toEqual({ n: 2, at: 'x' });
    expect(n).toBe(2);
    expect((await m.log(id)).map((e) => e.type).filter((t) => t.startsWith('step.'))).toEqual([
      'step.started',
      'step.completed',
      'step.started',
      'step.completed',
    ]);
    expect(await refusal(m.steps.run(id, 'x', fn, { phase: 'nope' }))).toMatchObject({ code: 'NOT_FOUND' });
  });

  it('refuses a result that is not JSON, naming the step and where, and records the failure', async () => {
    const { m, id } = await memory();
    const r = await refusal(m.steps.run(id, 'dates', () => ({ items: [1, { when: new Date(0) }] })));
    expect(r.code).toBe('BAD_INPUT');
    expect(r.message).toContain('step dates');
    expect(r.message).toContain('result.items[1].when (a Date)');
    expect((await m.steps.list(id))[0]).toMatchObject({ key: 'dates', status: 'failed', error: { code: 'BAD_INPUT' } });
    // Fixed, it runs again only when asked.
    expect(await refusal(m.steps.run(id, 'dates', () => 1))).toMatchObject({ code: 'RETRIES_EXHAUSTED' });
    expect(await m.steps.run(id, 'dates', () => ({ when: new Date(0).toISOString() }), { rerunFailed: true })).toEqual({
      when: '1970-01-01T00:00:00.000Z',
    });
  });

  it('retries with backoff, records the attempts, and rethrows a recorded failure', async () => {
    const { m, id } = await memory();
    let calls = 0;
    const flaky = (): string => {
      if (++calls < 3) throw new Error(`try ${calls}`);
      return 'ok';
    };
    expect(await m.steps.run(id, 'flaky', flaky, { retries: 2, backoffMs: 1 })).toBe('ok');
    expect((await m.steps.list(id))[0]).toMatchObject({ status: 'completed', attempts: 3 });

    const boom = new Error('always');
    await expect(
      m.steps.run(
        id,
        'broken',
        () => {
          throw boom;
        },
        { retries: 1, backoffMs: 1 },
      ),
    ).rejects.toBe(boom);
    const again = await refusal(m.steps.run(id, 'broken', () => 'never'));
    expect(again).toMatchObject({ code: 'RETRIES_EXHAUSTED', details: { attempts: 2, error: { message: 'always' } } });
  });

  it('a second caller waits for a running step, or is told who runs it (LOCKED) after waitMs', async () => {
    const { m, id } = await memory();
    let release!: (v: string) => void;
    const first = m.steps.run(id, 'slow', () => new Promise<string>((r) => (release = r)));
    await new Promise((r) => setTimeout(r, 50));
    const locked = await refusal(m.steps.run(id, 'slow', () => 'second', { waitMs: 30, pollMs: 10 }));
    expect(locked.code).toBe('LOCKED');
    expect(locked.message).toContain(`pid ${process.pid}`);
    const waiting = m.steps.run(id, 'slow', () => 'second', { pollMs: 10 });
    release('first');
    expect(await first).toBe('first');
    expect(await waiting).toBe('first');
  });

  it('takes over a step whose run ended, telling the function', async () => {
    const { m, id } = await memory();
    const run = (await m.runs.start(id, { kind: 'library', ttlMs: 60_000 })).result;
    // A runner that recorded step.started in its run, then its run ended without an end of the step.
    const stuck = m.steps.run(id, 'deploy', () => new Promise<never>(() => undefined), { run: run.id });
    await new Promise((r) => setTimeout(r, 50));
    await m.runs.end(id, run.id, { how: 'finished', cause: 'done' });
    void stuck;
    const seen: unknown[] = [];
    expect(await m.steps.run(id, 'deploy', (ctx) => (seen.push(ctx), 'redone'))).toBe('redone');
    expect(seen).toEqual([{ attempt: 1, claim: 2, takeover: true }]);
  });
});

const schemas: string[] = [];
afterAll(async () => {
  for (const s of schemas) await dropSchema(s);
});
const STORES: Array<[string, () => string]> = [['file store', () => path.join(tempDir('baton-steps-'), '.baton')]];
if (PG_URL) {
  STORES.push([
    'PostgreSQL',
    () => {
      const s = freshSchema('steps');
      schemas.push(s);
      return urlWith({ schema: s });
    },
  ]);
}
const open = (where: string) =>
  where.startsWith('postgres') ? openStore({ url: where, env: {} }) : openStore({ dir: where, create: true, env: {} });

describe.each(STORES)('a large step result (%s)', (_name, newStore) => {
  it('is kept beside the journal (its hash in the event) and read back by another manager', async () => {
    const where = newStore();
    const big = { rows: Array.from({ length: 3000 }, (_, i) => ({ i, text: `row ${i} `.repeat(5) })) };
    const a = new SessionManager({ store: open(where) });
    const { state } = await a.startOrGet({ key: 'big', title: 'big result' });
    expect(await a.steps.run(state.id, 'dump', () => big)).toEqual(big);
    const done = (await a.log(state.id)).find((e) => e.type === 'step.completed')!;
    const data = done.data as { size: number; resultRef?: { sha256: string; size: number }; result?: unknown };
    expect(data.size).toBeGreaterThan(64 * 1024);
    expect(data.resultRef).toEqual({ sha256: expect.stringMatching(/^[0-9a-f]{64}$/), size: data.size });
    expect(data.result).toBeUndefined();
    await a.close();

    const b = new SessionManager({ store: open(where) });
    try {
      expect(await b.steps.run(state.id, 'dump', () => ({ other: true }))).toEqual(big);
      expect((await b.steps.list(state.id))[0]).toMatchObject({
        status: 'completed',
        size: data.size,
        resultRef: data.resultRef,
      });
    } finally {
      await b.close();
    }
  });
});

describe('migrate-store', () => {
  it('carries a large step result kept beside the journal to the other store', async () => {
    const from = open(path.join(tempDir('baton-steps-'), '.baton'));
    const to = open(path.join(tempDir('baton-steps-'), '.baton'));
    const m = new SessionManager({ store: from });
    const { state } = await m.startOrGet({ key: 'carried', title: 'carried' });
    const big = 'b'.repeat(80_000);
    await m.steps.run(state.id, 'dump', () => big);
    await m.derivedFiles.settled();
    await migrateStore(from, to);
    const n = new SessionManager({ store: to });
    try {
      expect(await n.steps.run(state.id, 'dump', () => 'not again')).toBe(big);
    } finally {
      await n.close();
      await m.close();
    }
  });
});

describe('a large result on the file store', () => {
  it('damaged beside the journal is reported CORRUPT, not returned', async () => {
    const where = path.join(tempDir('baton-steps-'), '.baton');
    const m = new SessionManager({ store: open(where) });
    const { state } = await m.startOrGet({ key: 'dmg', title: 'damaged' });
    await m.steps.run(state.id, 'dump', () => 'x'.repeat(70_000));
    const folder = path.join(where, 'sessions', state.id);
    const file = fs.readdirSync(folder).find((f) => f.startsWith('step-'))!;
    fs.writeFileSync(path.join(folder, file), JSON.stringify('y'.repeat(70_000)));
    const r = await refusal(m.steps.run(state.id, 'dump', () => 'z'));
    expect(r.code).toBe('CORRUPT');
    expect(r.message).toContain('step dump');
    await m.close();
  });
});

describe('steps in status --json and the handoff', () => {
  it('lists key, status, attempts and size (never the value), and a handoff section', async () => {
    const ws = await withSession('s1', 'build');
    const m = new SessionManager({ store: openStore({ dir: ws.store, env: {} }) });
    await m.steps.run('s1', 'fetch', () => ({ secret: 'value' }));
    await m.steps
      .run('s1', 'push', () => {
        throw new Error('remote said no');
      })
      .catch(() => undefined);
    await m.setMetadata('s1', 'ticket', { id: 'T-1' });
    const handoff = (await m.recovery.handoff('s1')).markdown;
    await m.close();
    const st = (await ws.status()) as unknown as {
      durableSteps: Array<Record<string, unknown>>;
      metadata: Record<string, unknown>;
    };
    expect(st.durableSteps.map((s) => [s['key'], s['status'], s['attempts'], s['size']])).toEqual([
      ['fetch', 'completed', 1, 18],
      ['push', 'failed', 1, null],
    ]);
    expect(JSON.stringify(st.durableSteps)).not.toContain('value');
    expect(st.metadata['ticket']).toEqual({ id: 'T-1' });
    expect((await ws.ok(['status'])).stdout).toContain('Durable steps: 1 completed · 1 failed');
    expect(handoff).toContain('## Durable steps');
    expect(handoff).toContain('- `fetch`: completed (1 attempt, result 18 bytes): not run again');
    expect(handoff).toContain('- `push`: failed after 1 attempt: remote said no');
  });
});

/** The text a preact element tree renders (a component called as a function, no DOM needed). */
function textOf(node: unknown): string {
  if (node === null || node === undefined || typeof node === 'boolean') return '';
  if (typeof node === 'string' || typeof node === 'number') return String(node);
  if (Array.isArray(node)) return node.map(textOf).join('');
  const v = node as { type: unknown; props: { children?: unknown } };
  if (typeof v.type === 'function') return textOf((v.type as (p: unknown) => unknown)(v.props));
  const inner = textOf(v.props.children);
  return v.type === 'tr' ? `${inner}\n` : v.type === 'td' || v.type === 'th' ? `${inner} | ` : inner;
}

describe('a large step result in status, the handoff and the dashboard', () => {
  it('each says the step completed, its size and that it is kept beside the journal, never its value', async () => {
    const ws = await withSession('s2', 'build');
    const m = new SessionManager({ store: openStore({ dir: ws.store, env: {} }) });
    await m.steps.run('s2', 'dump', () => ({ rows: 'r'.repeat(70_000), secret: 'hidden' }), { phase: 'build' });
    await m.steps.run('s2', 'fetch', () => ({ secret: 'hidden' }));
    await m.steps
      .run('s2', 'push', () => {
        throw new Error('remote said no');
      })
      .catch(() => undefined);
    const page = await m.dashboard.session('s2');
    const handoff = (await m.recovery.handoff('s2')).markdown;
    await m.close();
    const beside = 'completed (1 attempt, result 70,029 bytes, kept beside the journal): not run again';

    const text = (await ws.ok(['status'])).stdout;
    expect(text).toContain('Durable steps: 2 completed · 1 failed');
    // Failed first (it needs a look), then the completed ones in order.
    expect(text).toContain(
      `  push: failed after 1 attempt: remote said no\n  build/dump: ${beside}\n  fetch: completed (1 attempt, result 19 bytes): not run again\n`,
    );
    expect(handoff).toContain(`- \`dump\` [build]: ${beside}`);

    expect(page.steps.map((d) => [d.key, d.phaseId, d.status, d.outcome])).toEqual([
      ['dump', 'build', 'completed', beside],
      ['fetch', null, 'completed', 'completed (1 attempt, result 19 bytes): not run again'],
      ['push', null, 'failed', 'failed after 1 attempt: remote said no'],
    ]);
    // The page's component, called as a function (its JSX is the web page's; the root tsconfig has none).
    const web = '../../src/ui/web/steps.js';
    const { DurableSteps } = (await import(web)) as { DurableSteps: (p: { page: typeof page }) => unknown };
    const table = textOf(DurableSteps({ page }));
    expect(table).toContain(`dump | build | completed | ${beside} | `);
    expect(table).toContain('push | — | failed | failed after 1 attempt: remote said no | ');
    expect(`${text}${handoff}${JSON.stringify(page.steps)}${table}`).not.toContain('hidden');
  });
});

describe('manager.startOrGet and setMetadata', () => {
  it('finds the session of a key, or starts it; a key that is no id gets a readable hashed id', async () => {
    const m = new SessionManager({ store: new MemoryStore() });
    const a = await m.startOrGet({ key: 'nightly', title: 'Nightly' });
    const b = await m.startOrGet({ key: 'nightly', title: 'ignored' });
    expect([a.created, b.created, b.state.id, b.state.title]).toEqual([true, false, 'nightly', 'Nightly']);
    const c = await m.startOrGet({ key: 'Build #42 / main', title: 'odd key', switch: true });
    expect(c.state.id).toMatch(/^build-42-main-[0-9a-f]{16}$/);
    expect(c.state.metadata['sessionKey']).toBe('Build #42 / main');
    expect((await m.startOrGet({ key: 'Build #42 / main', title: 'x' })).state.id).toBe(c.state.id);
  });

  it("sets caller metadata as JSON, refusing baton's own keys and values that are not JSON", async () => {
    const { m, id } = await memory();
    await m.setMetadata(id, 'owner', { team: 'infra', ids: [1, 2] });
    expect((await m.get(id)).metadata['owner']).toEqual({ team: 'infra', ids: [1, 2] });
    expect(await refusal(m.setMetadata(id, 'mirror', null))).toMatchObject({ code: 'BAD_INPUT' });
    expect(await refusal(m.setMetadata(id, 'when', new Date(0)))).toMatchObject({
      code: 'BAD_INPUT',
      message: expect.stringContaining('value (a Date)'),
    });
  });
});
