/**
 * `baton watch` as a real process: started, then sessions changed with the CLI from other
 * processes; its stdout is read line by line. Every event after the start is reported once,
 * in order, grouped per session; `--session` filters; SIGINT ends it with status 0. On the
 * file store always, on PostgreSQL when BATON_TEST_PG_URL is set.
 */
import { spawn } from 'node:child_process';
import type { ChildProcess } from 'node:child_process';
import { afterAll, describe, expect, it } from 'vitest';
import { PG_URL, dropSchema, freshSchema, needsRealServer, urlWith } from '../store/pg-helpers.js';
import { BATON, baseEnv, runBaton, workspace } from './helpers.js';
import type { Workspace } from './helpers.js';

interface ChangeJson {
  sessionId: string;
  revision: number;
  events: Array<{ seq: number; type: string }>;
}

/** A running `baton watch`: its stdout lines as they come. */
class Watcher {
  readonly child: ChildProcess;
  readonly lines: string[] = [];
  stderr = '';
  private waiters: Array<() => void> = [];
  readonly exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
  readonly ready: Promise<void>;

  constructor(ws: Workspace, env: Record<string, string>, args: string[]) {
    this.child = spawn(process.execPath, [BATON, 'watch', ...args], {
      cwd: ws.dir,
      env: baseEnv(env),
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let buf = '';
    this.child.stdout!.setEncoding('utf8').on('data', (c: string) => {
      buf += c;
      let nl: number;
      while ((nl = buf.indexOf('\n')) !== -1) {
        this.lines.push(buf.slice(0, nl));
        buf = buf.slice(nl + 1);
      }
      this.poke();
    });
    this.ready = new Promise<void>((resolve, reject) => {
      this.child.stderr!.setEncoding('utf8').on('data', (c: string) => {
        this.stderr += c;
        if (this.stderr.includes('baton: watching')) resolve();
      });
      this.child.once('exit', () => reject(new Error(`watch ended before it started: ${this.stderr}`)));
    });
    this.exited = new Promise((resolve) => this.child.once('exit', (code, signal) => resolve({ code, signal })));
  }

  private poke(): void {
    for (const w of this.waiters.splice(0)) w();
  }

  /** Waits until `pred` holds for the lines so far (or fails after `ms`). */
  async until(pred: (lines: string[]) => boolean, what: string, ms = 20_000): Promise<void> {
    const end = Date.now() + ms;
    while (!pred(this.lines)) {
      if (Date.now() > end)
        throw new Error(`watch never showed ${what}; lines:\n${this.lines.join('\n')}\nstderr: ${this.stderr}`);
      await new Promise<void>((r) => {
        const t = setTimeout(r, 200);
        this.waiters.push(() => (clearTimeout(t), r()));
      });
    }
  }
}

async function watchScenario(ws: Workspace, env: Record<string, string>): Promise<void> {
  const bat = async (args: string[]): Promise<void> => {
    const r = await runBaton(args, ws.dir, baseEnv(env));
    if (r.code !== 0) throw new Error(`baton ${args.join(' ')} → ${r.code}: ${r.stderr}`);
  };
  await bat(['start', 'first', '--id', 'w1', '--phases', 'build,test']);
  await bat(['note', 'add', 'before watching']);
  await bat(['start', 'second', '--id', 'w2', '--switch']);
  const base = { w1: 3, w2: 1 };
  const all = new Watcher(ws, env, ['--json']);
  const only = new Watcher(ws, env, ['--json', '--session', 'w2']);
  const human = new Watcher(ws, env, []);
  await Promise.all([all.ready, only.ready, human.ready]);

  await bat(['switch', 'w1']);
  await bat(['phase', 'start', 'build', '--session', 'w1']);
  await bat(['note', 'add', 'while watching', '--session', 'w1']);
  await bat(['tokens', 'add', '--agent', 'a', '--input', '5', '--output', '1', '--session', 'w2']);

  const logOf = async (id: string): Promise<Array<{ seq: number; type: string }>> => {
    const r = await runBaton(['log', '--session', id, '--json'], ws.dir, baseEnv(env));
    return JSON.parse(r.stdout) as Array<{ seq: number; type: string }>;
  };
  const w1 = await logOf('w1');
  const w2 = await logOf('w2');
  const seen = (lines: string[], id: string): Array<{ seq: number; type: string }> =>
    lines
      .map((l) => JSON.parse(l) as ChangeJson)
      .filter((c) => c.sessionId === id)
      .flatMap((c) => c.events.map((e) => ({ seq: e.seq, type: e.type })));
  // Everything after the start, once each, in order; nothing from before.
  const w1After = w1.filter((e) => e.seq > base.w1).map((e) => ({ seq: e.seq, type: e.type }));
  const w2After = w2.filter((e) => e.seq > base.w2).map((e) => ({ seq: e.seq, type: e.type }));
  await all.until(
    (l) => seen(l, 'w1').length >= w1After.length && seen(l, 'w2').length >= w2After.length,
    'every change',
  );
  expect(seen(all.lines, 'w1')).toEqual(w1After);
  expect(seen(all.lines, 'w2')).toEqual(w2After);
  for (const line of all.lines) {
    const c = JSON.parse(line) as ChangeJson;
    expect(c.revision).toBe(c.events[c.events.length - 1]!.seq);
  }
  expect(w1After.map((e) => e.type)).toEqual(['session.resumed', 'phase.started', 'note.added']);
  expect(w2After.map((e) => e.type)).toEqual(['session.paused', 'tokens.recorded']);

  await only.until((l) => seen(l, 'w2').length >= w2After.length, 'the changes of w2');
  expect(seen(only.lines, 'w2')).toEqual(w2After);
  expect(only.lines.every((l) => (JSON.parse(l) as ChangeJson).sessionId === 'w2')).toBe(true);

  await human.until((l) => l.some((x) => x.includes(' w2 ') && x.includes('tokens.recorded')), 'a human line for w2');
  expect(human.lines.some((x) => / w1 r\d+ .*phase\.started/.test(x))).toBe(true);
  expect(human.lines.every((x) => !x.startsWith('{'))).toBe(true);

  for (const w of [all, only, human]) w.child.kill('SIGINT');
  for (const w of [all, only, human]) expect(await w.exited).toEqual({ code: 0, signal: null });
}

describe('baton watch on the file store', () => {
  it('streams each change after it starts, once, in order; --session filters; human lines; SIGINT ends it with 0', async () => {
    await watchScenario(workspace(), {});
  }, 90_000);

  it('an unknown --session is NOT_FOUND', async () => {
    const ws = workspace();
    await ws.ok(['start', 'x', '--id', 'x1']);
    const r = await ws.run(['watch', '--session', 'nope']);
    expect(r.code).toBe(3);
    expect(r.stderr).toContain('error[NOT_FOUND]');
  }, 30_000);
});

describe.skipIf(!PG_URL)('baton watch on the PostgreSQL store (LISTEN/NOTIFY)', () => {
  needsRealServer({
    'streams each change after it starts, once, in order; --session filters; SIGINT ends it with 0':
      'LISTEN/NOTIFY between connections; the embedded server delivers NOTIFY to its one session',
  });
  const schemas: string[] = [];
  afterAll(async () => {
    for (const s of schemas.splice(0)) await dropSchema(s);
  });
  it('streams each change after it starts, once, in order; --session filters; SIGINT ends it with 0', async () => {
    const schema = freshSchema('watch');
    schemas.push(schema);
    await watchScenario(workspace(), { BATON_STORE: urlWith({ schema }) });
  }, 90_000);
});
