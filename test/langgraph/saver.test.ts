/**
 * BatonSaver as baton sees it: two workers racing a step of one thread end with one chain
 * (real store instances, one saver each, on the file store and on PostgreSQL); a thread is
 * a session whose journal shows the graph's steps; thread ids that are not session ids map
 * to one session, the same everywhere; serialized bytes come back exactly.
 */
import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { TASKS, emptyCheckpoint, uuid6 } from '@langchain/langgraph-checkpoint';
import type { Checkpoint, CheckpointMetadata, SerializerProtocol } from '@langchain/langgraph-checkpoint';
import { afterEach, describe, expect, it } from 'vitest';
import { BatonSaver, threadSessionId } from '../../src/langgraph/index.js';
import { baseEnv, runInProcess } from '../cli/helpers.js';
import { PG_URL, fileStorePlace, pgStorePlace } from './helpers.js';
import type { StorePlace } from './helpers.js';

const meta = (step: number, source = 'loop'): CheckpointMetadata =>
  ({ source, step, parents: {} }) as CheckpointMetadata;
const checkpoint = (values: Record<string, unknown> = {}): Checkpoint => ({
  ...emptyCheckpoint(),
  id: uuid6(-3),
  channel_values: values,
  channel_versions: Object.fromEntries(Object.keys(values).map((k) => [k, 1])),
});

const open: BatonSaver[] = [];
const placesToRemove: StorePlace[] = [];
afterEach(async () => {
  for (const s of open.splice(0)) await s.close();
  for (const p of placesToRemove.splice(0)) await p.remove();
});

function place(make: () => StorePlace): StorePlace {
  const p = make();
  placesToRemove.push(p);
  return p;
}
function saver(url: string, o: ConstructorParameters<typeof BatonSaver>[0] = {}): BatonSaver {
  const s = new BatonSaver({ ...o, url, env: {} });
  open.push(s);
  return s;
}

const STORES: Array<[string, () => StorePlace, boolean]> = [
  ['the file store', fileStorePlace, true],
  ['PostgreSQL', pgStorePlace, PG_URL !== undefined],
];

describe.each(STORES)('two workers racing one thread on %s', (_label, makePlace, available) => {
  it.skipIf(!available)(
    'one put from the shared parent wins, the other is refused with CONFLICT, and the thread keeps one chain',
    async () => {
      const { url } = place(makePlace);
      const a = saver(url, { agent: 'worker-a' });
      const b = saver(url, { agent: 'worker-b' });
      const thread = { configurable: { thread_id: 'race-1', checkpoint_ns: '' } };
      const root = await a.put(thread, checkpoint(), meta(-1, 'input'), {});
      // Both workers read the thread at the same checkpoint, then both write the next step.
      const [seenA, seenB] = await Promise.all([a.getTuple(thread), b.getTuple(thread)]);
      expect(seenA!.config).toEqual(root);
      expect(seenB!.config).toEqual(root);
      const results = await Promise.allSettled([
        a.put(seenA!.config, checkpoint(), meta(0), {}),
        b.put(seenB!.config, checkpoint(), meta(0), {}),
      ]);

      const won = results.filter((r) => r.status === 'fulfilled');
      const lost = results.filter((r): r is PromiseRejectedResult => r.status === 'rejected');
      expect(won).toHaveLength(1);
      expect(lost).toHaveLength(1);
      expect(lost[0]!.reason).toMatchObject({ code: 'CONFLICT' });
      expect(String(lost[0]!.reason.message)).toMatch(/another worker advanced it/);

      // One chain, read by a third saver: root, then the winner's checkpoint as its only child.
      const reader = saver(url);
      const chain = [];
      for await (const t of reader.list(thread)) chain.push(t);
      expect(chain).toHaveLength(2);
      const winner = (won[0] as PromiseFulfilledResult<{ configurable: { checkpoint_id: string } }>).value.configurable
        .checkpoint_id;
      expect(chain[0]!.checkpoint.id).toBe(winner);
      expect(chain[0]!.parentConfig).toEqual(root);
      expect(chain[1]!.config).toEqual(root);

      // The loser carries on from the thread's newest checkpoint, as the refusal's hint says.
      const fresh = await b.getTuple(thread);
      await expect(b.put(fresh!.config, checkpoint(), meta(1), {})).resolves.toBeDefined();
    },
  );

  it.skipIf(!available)(
    'two worker processes, each with its own store handle, race the same step: one chain',
    async () => {
      const { url } = place(makePlace);
      const thread = { configurable: { thread_id: 'race-processes', checkpoint_ns: '' } };
      const root = await saver(url).put(thread, checkpoint(), meta(-1, 'input'), {});
      const worker = fileURLToPath(new URL('./race-worker.ts', import.meta.url));
      const kids = [0, 1].map(() =>
        spawn(process.execPath, ['--import', 'tsx', worker, url, 'race-processes'], {
          stdio: ['pipe', 'pipe', 'inherit'],
        }),
      );
      const lines = kids.map((k) => {
        const got: string[] = [];
        let buf = '';
        const ready = new Promise<void>((resolve) => {
          k.stdout!.on('data', (b: Buffer) => {
            buf += b.toString('utf8');
            while (buf.includes('\n')) {
              got.push(buf.slice(0, buf.indexOf('\n')));
              buf = buf.slice(buf.indexOf('\n') + 1);
              if (got.length === 1) resolve();
            }
          });
        });
        const done = new Promise<string[]>((resolve) => k.on('close', () => resolve(got)));
        return { ready, done };
      });
      // Both have read the thread at the root before either writes.
      await Promise.all(lines.map((l) => l.ready));
      for (const k of kids) k.stdin!.end('go\n');
      const outcomes = (await Promise.all(lines.map((l) => l.done))).map(
        (got) => JSON.parse(got[1]!) as { ok: boolean; code?: string; checkpointId?: string },
      );
      expect(outcomes.filter((o) => o.ok)).toHaveLength(1);
      expect(outcomes.filter((o) => !o.ok)).toEqual([{ ok: false, code: 'CONFLICT' }]);
      const chain = [];
      for await (const t of saver(url).list(thread)) chain.push(t);
      expect(chain.map((t) => t.checkpoint.id)).toEqual([
        outcomes.find((o) => o.ok)!.checkpointId,
        root.configurable!['checkpoint_id'],
      ]);
    },
  );

  it.skipIf(!available)(
    "with forks: 'allow' both puts land: the thread branches (LangGraph's own savers' behaviour)",
    async () => {
      const { url } = place(makePlace);
      const a = saver(url, { forks: 'allow' });
      const b = saver(url, { forks: 'allow' });
      const thread = { configurable: { thread_id: 'race-2', checkpoint_ns: '' } };
      const root = await a.put(thread, checkpoint(), meta(-1, 'input'), {});
      const results = await Promise.allSettled([
        a.put(root, checkpoint(), meta(0), {}),
        b.put(root, checkpoint(), meta(0), {}),
      ]);
      expect(results.map((r) => r.status)).toEqual(['fulfilled', 'fulfilled']);
      const tuples = [];
      for await (const t of a.list(thread)) tuples.push(t);
      expect(
        tuples.filter((t) => t.parentConfig?.configurable?.['checkpoint_id'] === root.configurable!['checkpoint_id']),
      ).toHaveLength(2);
    },
  );
});

describe('branching on purpose', () => {
  it('a run that passes baton_fork: true may branch from an older checkpoint; without it the same put is refused', async () => {
    const { url } = place(fileStorePlace);
    const s = saver(url);
    const root = await s.put({ configurable: { thread_id: 'travel' } }, checkpoint(), meta(-1, 'input'), {});
    const next = await s.put(root, checkpoint(), meta(0), {});
    await expect(s.put(root, checkpoint(), meta(0), {})).rejects.toMatchObject({ code: 'CONFLICT' });
    const branch = await s.put(
      { configurable: { ...root.configurable, baton_fork: true } },
      checkpoint(),
      meta(0, 'fork'),
      {},
    );
    expect((await s.getTuple(branch))!.parentConfig).toEqual(root);
    // The branch is the thread's newest checkpoint now: its next step goes on without the flag.
    await expect(s.put(branch, checkpoint(), meta(1), {})).resolves.toBeDefined();
    await expect(s.put(next, checkpoint(), meta(1), {})).rejects.toMatchObject({ code: 'CONFLICT' });
  });
});

describe('a thread is a session', () => {
  it("the session's journal and state show the graph's steps, and its writes", async () => {
    const { url } = place(fileStorePlace);
    const s = saver(url);
    let config = await s.put({ configurable: { thread_id: 'steps' } }, checkpoint({ n: 0 }), meta(-1, 'input'), {
      n: 1,
    });
    await s.putWrites(config, [['n', 1]], 'task-a');
    config = await s.put(config, checkpoint(), meta(0), {});
    config = await s.put(config, checkpoint(), meta(1), {});

    const state = await s.manager.get('steps');
    expect(state.title).toBe('LangGraph thread steps');
    expect(state.graph).toEqual({
      checkpoints: 3,
      writes: 1,
      latest: { '': { checkpointId: config.configurable!['checkpoint_id'], step: 1, source: 'loop' } },
    });
    const log = await s.manager.log('steps');
    expect(log.map((e) => e.type)).toEqual([
      'session.created',
      'graph.checkpoint',
      'graph.writes',
      'graph.checkpoint',
      'graph.checkpoint',
    ]);
    expect(log.filter((e) => e.type === 'graph.checkpoint').map((e) => (e.data as { step: number }).step)).toEqual([
      -1, 0, 1,
    ]);
    expect(log[1]!.actor.agent).toBe('langgraph');
    // What a person sees: `baton status` and `baton log` of the thread's session.
    const status = await runInProcess(['status', '--session', 'steps', '--dir', url], url, baseEnv());
    expect(status.stdout).toContain('Graph: 3 checkpoints, 1 pending write; at step 1 (loop)');
    const shown = await runInProcess(['log', '--session', 'steps', '--dir', url], url, baseEnv());
    expect(shown.stdout).toMatch(/graph\.checkpoint +step -1 \(input\) /);
    expect(shown.stdout).toMatch(/graph\.writes +task task-a: n/);
    // Only sessions that are threads are listed as threads; other sessions are left alone.
    await s.manager.start({ title: 'not a thread', id: 'plain' });
    const all = [];
    for await (const t of s.list({ configurable: {} })) all.push(t.config.configurable!['thread_id']);
    expect(new Set(all)).toEqual(new Set(['steps']));
    expect(await s.getTuple({ configurable: { thread_id: 'plain' } })).toBeUndefined();
    await expect(s.put({ configurable: { thread_id: 'plain' } }, checkpoint(), meta(0), {})).rejects.toMatchObject({
      code: 'EXISTS',
    });
  });

  it('a thread id that is not a session id maps to one readable session id, the same every time, and round-trips', async () => {
    const weird = 'user/42 chat: ünïcode..and more';
    const id = threadSessionId(weird);
    expect(id).toMatch(/^user-42-chat-n-code\.and-more-[0-9a-f]{16}$/);
    expect(threadSessionId(weird)).toBe(id);
    expect(threadSessionId(`${weird}!`)).not.toBe(id);
    expect(threadSessionId('a'.repeat(300)).length).toBeLessThanOrEqual(128);
    expect(threadSessionId('0b6c2e4a-thread.1_x')).toBe('0b6c2e4a-thread.1_x');

    const { url } = place(fileStorePlace);
    const s = saver(url);
    const cfg = await s.put({ configurable: { thread_id: weird } }, checkpoint(), meta(-1, 'input'), {});
    expect(cfg.configurable!['thread_id']).toBe(weird);
    expect((await s.getTuple({ configurable: { thread_id: weird } }))!.config).toEqual(cfg);
    expect((await s.manager.get(id)).metadata['langgraphThread']).toBe(weird);
    await s.deleteThread(weird);
    expect(await s.getTuple({ configurable: { thread_id: weird } })).toBeUndefined();
  });

  it("keeps the serde's bytes exactly, whatever they are", async () => {
    // A serde whose bytes are not text: each value comes back only if every byte does.
    const serde: SerializerProtocol = {
      dumpsTyped: async (v: unknown) => [
        'bin',
        new Uint8Array([0, 255, 128, 10, 13, ...Buffer.from(JSON.stringify(v) ?? 'null')]),
      ],
      loadsTyped: async (type: string, data: Uint8Array | string) => {
        const b = Buffer.from(data as Uint8Array);
        if (type !== 'bin' || b[0] !== 0 || b[1] !== 255 || b[2] !== 128 || b[3] !== 10 || b[4] !== 13)
          throw new Error('bytes changed');
        return JSON.parse(b.subarray(5).toString('utf8'));
      },
    };
    const { url } = place(fileStorePlace);
    const s = saver(url, { serde });
    const cfg = await s.put(
      { configurable: { thread_id: 'bytes' } },
      checkpoint({ text: 'line\r\nbreak \u0000 ✓' }),
      meta(-1, 'input'),
      { text: 1 },
    );
    await s.putWrites(cfg, [[TASKS, { to: 'x' }]], 't');
    const back = await saver(url, { serde }).getTuple(cfg);
    expect(back!.checkpoint.channel_values).toEqual({ text: 'line\r\nbreak \u0000 ✓' });
    expect(back!.pendingWrites).toEqual([['t', TASKS, { to: 'x' }]]);
  });
});
