/**
 * Durable steps across real processes (test/fixtures/step-runner.ts): a runner SIGKILLed
 * between two steps, or inside one, and run again; two runners racing one step; two
 * processes finding or creating one session by key. On the file store and on PostgreSQL.
 */
import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { SessionManager } from '../../src/manager/manager.js';
import { openStore } from '../../src/store/open.js';
import { tempDir } from '../support/temp.js';
import { dropSchema, freshSchema, PG_URL, urlWith } from '../store/pg-helpers.js';

const REPO = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const RUNNER = path.join(REPO, 'test/fixtures/step-runner.ts');

interface Runner {
  child: ChildProcessWithoutNullStreams;
  lines: string[];
  /** Resolves with the first line starting with `prefix` (rejects if the process ends first). */
  line(prefix: string): Promise<string>;
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
}

function runner(store: string, key: string, counters: string, mode: string): Runner {
  const child = spawn(process.execPath, ['--import', 'tsx', RUNNER, store, key, counters, mode], {
    cwd: REPO,
    stdio: ['pipe', 'pipe', 'pipe'],
  });
  const lines: string[] = [];
  const waiters: Array<{ prefix: string; resolve: (l: string) => void; reject: (e: Error) => void }> = [];
  let stderr = '';
  let buf = '';
  child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
  child.stdout.on('data', (d: Buffer) => {
    buf += d.toString();
    let i: number;
    while ((i = buf.indexOf('\n')) !== -1) {
      const l = buf.slice(0, i);
      buf = buf.slice(i + 1);
      lines.push(l);
      for (const w of waiters.splice(0)) l.startsWith(w.prefix) ? w.resolve(l) : waiters.push(w);
    }
  });
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) =>
    child.on('exit', (code, signal) => resolve({ code, signal })),
  );
  void exited.then(() => {
    for (const w of waiters.splice(0))
      w.reject(new Error(`runner ${mode} ended before "${w.prefix}": ${lines.join(' | ')} ${stderr}`));
  });
  return {
    child,
    lines,
    exited,
    line: (prefix) =>
      new Promise((resolve, reject) => {
        const seen = lines.find((l) => l.startsWith(prefix));
        if (seen !== undefined) resolve(seen);
        else if (child.exitCode !== null || child.signalCode !== null)
          reject(new Error(`runner ${mode} ended before "${prefix}": ${lines.join(' | ')} ${stderr}`));
        else waiters.push({ prefix, resolve, reject });
      }),
  };
}

/** Runs a runner to its end; expects exit 0. */
async function finish(r: Runner): Promise<string[]> {
  const { code } = await r.exited;
  expect(code, r.lines.join('\n')).toBe(0);
  return r.lines;
}

async function kill(r: Runner): Promise<void> {
  r.child.kill('SIGKILL');
  expect((await r.exited).signal).toBe('SIGKILL');
}

const runs = (counters: string, step: string): number => {
  const f = path.join(counters, `${step}.count`);
  return fs.existsSync(f) ? fs.readFileSync(f, 'utf8').split('\n').filter(Boolean).length : 0;
};

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

describe.each(STORES)('durable steps across processes (%s)', (_name, newStore) => {
  it('a runner SIGKILLed between two steps: run again, the finished step is not run again, the next one is', async () => {
    const store = newStore();
    const counters = tempDir('baton-counters-');
    const first = runner(store, 'crash-between', counters, 'stop-between');
    const one = await first.line('one ');
    await first.line('between');
    await kill(first);
    expect([runs(counters, 'one'), runs(counters, 'two')]).toEqual([1, 0]);

    const lines = await finish(runner(store, 'crash-between', counters, 'full'));
    expect([runs(counters, 'one'), runs(counters, 'two')]).toEqual([1, 1]);
    // The second run returned the first run's recorded result for `one`.
    expect(lines).toContain(one);
    expect(lines.find((l) => l.startsWith('two '))).toMatch(/"made":"two"/);
    expect(lines).not.toContain('takeover');
  }, 60_000);

  it('a runner SIGKILLed inside a step (after its side effect): the step is taken over and run again', async () => {
    const store = newStore();
    const counters = tempDir('baton-counters-');
    const first = runner(store, 'crash-inside', counters, 'stop-inside');
    await first.line('inside');
    await kill(first);
    const lines = await finish(runner(store, 'crash-inside', counters, 'full'));
    // Idempotency inside a step is the caller's part: the taker runs it again, told so.
    expect([runs(counters, 'one'), runs(counters, 'two')]).toEqual([1, 2]);
    expect(lines).toContain('takeover');
  }, 60_000);

  it('two processes racing the same steps run each once and both get its result', async () => {
    const store = newStore();
    const counters = tempDir('baton-counters-');
    // The session exists first, so the two start their steps together.
    await finish(runner(store, 'race', counters, 'open-now'));
    const a = runner(store, 'race', counters, 'race');
    const b = runner(store, 'race', counters, 'race');
    await Promise.all([a.line('ready'), b.line('ready')]);
    a.child.stdin.end('go\n');
    b.child.stdin.end('go\n');
    const [la, lb] = await Promise.all([finish(a), finish(b)]);
    expect(Array.from({ length: 20 }, (_, i) => runs(counters, `slow-${i + 1}`))).toEqual(Array(20).fill(1));
    const ra = la.find((l) => l.startsWith('slow '));
    expect(ra).toBeDefined();
    expect(lb.find((l) => l.startsWith('slow '))).toBe(ra);
  }, 60_000);

  it('two processes finding or creating the same key get one session', async () => {
    const store = newStore();
    const counters = tempDir('baton-counters-');
    const a = runner(store, 'open race #7', counters, 'open');
    const b = runner(store, 'open race #7', counters, 'open');
    await Promise.all([a.line('ready'), b.line('ready')]);
    a.child.stdin.end('go\n');
    b.child.stdin.end('go\n');
    const [la, lb] = await Promise.all([finish(a), finish(b)]);
    const sa = la.find((l) => l.startsWith('session '))!.split(' ');
    const sb = lb.find((l) => l.startsWith('session '))!.split(' ');
    expect(sa[1]).toBe(sb[1]);
    expect([sa[2], sb[2]].sort()).toEqual(['false', 'true']);
    const m = new SessionManager({
      store: /^postgres/.test(store) ? openStore({ url: store, env: {} }) : openStore({ dir: store, env: {} }),
    });
    try {
      expect((await m.list({ all: true })).map((s) => s.id)).toEqual([sa[1]]);
    } finally {
      await m.close();
    }
  }, 60_000);
});
