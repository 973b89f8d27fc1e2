/**
 * Two real Claude Code conversations at once on one session, with baton's hooks installed,
 * each taking its own phase through its shell tool (`baton phase start build`, `… docs`).
 * Conversation A plans a task, writes api.txt and shared.txt, then its model stops answering;
 * B plans a task, writes guide.txt, waits in its shell tool for a gate, reads and writes
 * shared.txt over A's (warned in its context, naming A's run and phase; recorded as a
 * conflict), waits at a second gate, then writes faq.txt and ends. A is killed with SIGKILL
 * mid-task while B goes on. Then: every file, step and token is recorded on its own conversation's phase and
 * in its own run; A is recorded dead with what was salvaged (its last tool call), while the
 * session stays active because B is live; B's later file still lands on docs; when B ends,
 * the session is paused.
 */
import { execFileSync, spawn } from 'node:child_process';
import type { ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { BATON, baseEnv, runBaton, withBatonOnPath } from '../cli/helpers.js';
import { openManager } from '../../src/manager/index.js';
import type { SessionState } from '../../src/manager/index.js';
import { CLAUDE, cliBin } from './agent-clis.js';
import type { Handler, Logged, ModelMock as Mock } from './model-mocks.js';
import { ModelMock, USAGE } from './model-mocks.js';

type Call = { name: string; input: Record<string, unknown> } | 'hang';
interface Body {
  model?: string;
  messages?: Array<{ role: string; content: string | Array<{ type: string; [k: string]: unknown }> }>;
  tools?: Array<{ name?: string }>;
}

const sse = (event: string, data: unknown): string => `event: ${event}\ndata: ${JSON.stringify(data)}\n\n`;

function toolResults(body: Body): number {
  let n = 0;
  for (const m of body.messages ?? [])
    if (m.role === 'user' && Array.isArray(m.content)) n += m.content.filter((b) => b.type === 'tool_result').length;
  return n;
}

/** Anthropic Messages, streamed: the conversation whose prompt holds a marker of `scripts` plays its call N at turn N. */
function handler(scripts: Record<string, Call[]>): Handler {
  return (req: Logged, mock: Mock) => {
    const url = req.url.split('?')[0];
    if (req.method === 'POST' && url === '/v1/messages/count_tokens')
      return { type: 'json', chunks: [{ input_tokens: 42 }] };
    if (req.method !== 'POST' || url !== '/v1/messages') return null;
    const body = (req.body ?? {}) as Body;
    const main = (body.tools ?? []).some((t) => t.name === 'Write');
    const text = JSON.stringify(body.messages ?? []);
    const script = main ? Object.entries(scripts).find(([marker]) => text.includes(marker))?.[1] : undefined;
    const call = script ? (script[toolResults(body)] ?? null) : null;
    if (call === 'hang') return { type: 'hang' };
    const id = mock.nextId('msg_par_');
    const u = mock.reply(
      main ? 'main' : 'aux',
      call ? { kind: 'shell', command: call.name } : { kind: 'text', text: 'ok' },
      id,
    );
    const usage = {
      input_tokens: u.input,
      cache_creation_input_tokens: u.cacheWrite,
      cache_read_input_tokens: u.cacheRead,
    };
    const block = call
      ? { type: 'tool_use', id: `toolu_${id}`, name: call.name, input: {} }
      : { type: 'text', text: '' };
    return {
      type: 'sse',
      chunks: [
        sse('message_start', {
          type: 'message_start',
          message: {
            id,
            type: 'message',
            role: 'assistant',
            model: body.model ?? 'claude-mock',
            content: [],
            stop_reason: null,
            stop_sequence: null,
            usage: { ...usage, output_tokens: 1 },
          },
        }),
        sse('content_block_start', { type: 'content_block_start', index: 0, content_block: block }),
        sse('content_block_delta', {
          type: 'content_block_delta',
          index: 0,
          delta: call
            ? { type: 'input_json_delta', partial_json: JSON.stringify(call.input) }
            : { type: 'text_delta', text: 'Done.' },
        }),
        sse('content_block_stop', { type: 'content_block_stop', index: 0 }),
        sse('message_delta', {
          type: 'message_delta',
          delta: { stop_reason: call ? 'tool_use' : 'end_turn', stop_sequence: null },
          usage: { output_tokens: u.output },
        }),
        sse('message_stop', { type: 'message_stop' }),
      ],
    };
  };
}

async function until<T>(
  what: string,
  fn: () => Promise<T | null | undefined | false>,
  ms: number,
  explain = (): string => '',
): Promise<T> {
  const end = Date.now() + ms;
  for (;;) {
    const v = await fn();
    if (v) return v;
    if (Date.now() > end) throw new Error(`${what}: not within ${ms} ms${explain()}`);
    await new Promise((r) => setTimeout(r, 250));
  }
}

beforeAll(() => {
  const setup = inject('testClis');
  if (!setup.ok) throw new Error(`The real agent CLIs are not all installed:\n${setup.lines.join('\n')}`);
});

describe('two real claude conversations at once on one session, one killed', () => {
  let work = '';
  const homes: string[] = [];
  let mock: ModelMock;
  const procs: ChildProcess[] = [];
  // Outside the work tree: a file appearing there during a shell command would be recorded as B's.
  const gate = (n: number): string => path.join(homes[1]!, `gate${n}`);
  const env = (home: string): NodeJS.ProcessEnv => withBatonOnPath(baseEnv(CLAUDE.prepare(home, work, mock.url)));
  const state = async (): Promise<SessionState> => {
    const m = openManager({ url: null, dir: path.join(work, '.baton'), cwd: work });
    try {
      return await m.get('par');
    } finally {
      await m.close();
    }
  };
  const explain = (): string => {
    const log = path.join(work, '.baton', 'hooks', 'hook.log');
    return `\n--- hook log ---\n${fs.existsSync(log) ? fs.readFileSync(log, 'utf8').slice(-4000) : '(none)'}\n--- replies ---\n${mock.replies.map((r) => r.step).join(' ')} (hangs ${mock.hangs})`;
  };

  beforeAll(async () => {
    work = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'baton-e2e-par-')));
    for (const n of ['a', 'b'])
      homes.push(fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), `baton-e2e-par-${n}-`))));
    // The built CLI by its full path: Claude Code's shell tool runs a login shell, whose
    // profile sets PATH afresh (Debian's /etc/profile does for root), dropping the folder
    // withBatonOnPath puts first; a user's `baton` is installed on that PATH.
    const batonCommand = `node '${BATON}'`;
    const wait = (n: number): Call => ({
      name: 'Bash',
      input: { command: `until [ -f ${gate(n)} ]; do sleep 0.2; done` },
    });
    const task = (subject: string): Call => ({
      name: 'TaskCreate',
      input: { subject, description: subject, activeForm: subject },
    });
    const write = (file: string): Call => ({
      name: 'Write',
      input: { file_path: path.join(work, file), content: `${file}\n` },
    });
    mock = await new ModelMock(
      { main: [], sub: [], subMarker: 'none' },
      handler({
        'ALPHA-BUILD': [
          { name: 'Bash', input: { command: `${batonCommand} phase start build` } },
          task('Write the API'),
          write('api.txt'),
          write('shared.txt'),
          'hang',
        ],
        'BRAVO-DOCS': [
          { name: 'Bash', input: { command: `${batonCommand} phase start docs` } },
          task('Write the docs'),
          write('guide.txt'),
          wait(1),
          // Claude Code overwrites only a file its conversation has read.
          { name: 'Read', input: { file_path: path.join(work, 'shared.txt') } },
          write('shared.txt'),
          wait(2),
          write('faq.txt'),
        ],
      }),
      path.join(homes[0]!, 'requests.ndjson'),
    ).start();
    execFileSync('git', ['init', '-q'], { cwd: work });
    execFileSync('git', ['-c', 'user.email=t@t', '-c', 'user.name=t', 'commit', '-q', '--allow-empty', '-m', 'start'], {
      cwd: work,
    });
    const e = withBatonOnPath(baseEnv());
    for (const args of [
      ['init'],
      ['start', 'Parallel', '--id', 'par', '--phases', 'build,docs'],
      ['hooks', 'install', 'claude'],
    ]) {
      const r = await runBaton(args, work, e);
      if (r.code !== 0) throw new Error(`baton ${args.join(' ')}: ${r.stderr}`);
    }
  }, 120_000);

  afterAll(async () => {
    for (const p of procs) if (p.exitCode === null && p.signalCode === null) p.kill('SIGKILL');
    const k = path.join(work, '.baton', 'hooks', 'keepers');
    if (fs.existsSync(k))
      for (const f of fs.readdirSync(k)) {
        const pid = Number(fs.readFileSync(path.join(k, f), 'utf8'));
        try {
          if (pid > 0) process.kill(pid, 'SIGKILL');
        } catch {
          // gone
        }
      }
    await mock?.close();
    if (!process.env['KEEP_E2E'])
      for (const d of [work, ...homes]) if (d) fs.rmSync(d, { recursive: true, force: true });
  });

  it('each records on its own phase in its own run; A killed: dead with salvage, the session active while B goes on', async () => {
    const bin = await cliBin('claude');
    const start = (prompt: string, home: string): ChildProcess => {
      const p = spawn(bin, CLAUDE.first(prompt), {
        cwd: work,
        env: env(home),
        stdio: ['ignore', 'pipe', 'pipe'],
      });
      procs.push(p);
      return p;
    };
    const a = start('ALPHA-BUILD: write the API.', homes[0]!);
    const b = start('BRAVO-DOCS: write the docs.', homes[1]!);
    const bExit = new Promise<number | null>((r) => b.once('exit', (code) => r(code)));
    // Both at work: A hangs after its writes, B waits at the first gate in its shell tool after its first write.
    const files = (s: SessionState, phase: string): string[] =>
      s.phases
        .find((p) => p.id === phase)!
        .files.map((f) => f.path)
        .sort();
    const s1 = await until(
      'both conversations to write their first file',
      async () => {
        const s = await state();
        return (
          mock.hangs > 0 && files(s, 'build').includes('shared.txt') && files(s, 'docs').includes('guide.txt') && s
        );
      },
      180_000,
      explain,
    );
    const convs = (s1.runs ?? []).filter((r) => r.kind === 'conversation');
    expect(convs.map((r) => [r.process.pid, r.phases])).toEqual(
      expect.arrayContaining([
        [a.pid, ['build']],
        [b.pid, ['docs']],
      ]),
    );
    const runA = convs.find((r) => r.process.pid === a.pid)!;
    const runB = convs.find((r) => r.process.pid === b.pid)!;
    expect(s1.status).toBe('active');
    const steps = (s: SessionState, phase: string) => s.phases.find((p) => p.id === phase)!.steps;
    expect(steps(s1, 'build')).toEqual([{ name: 'Write the API', status: 'pending' }]);
    expect(steps(s1, 'docs')).toEqual([{ name: 'Write the docs', status: 'pending' }]);

    // B writes shared.txt over A's while both live: warned in its context, and recorded.
    fs.writeFileSync(gate(1), '');
    const warning = `shared.txt was last written by claude conversation ${runA.agentSessionId!.slice(0, 8)}`;
    await until('B to be warned', async () => mock.requestsContaining(warning).length > 0, 60_000, explain);
    expect(JSON.stringify(mock.requestsContaining(warning)[0]!.body)).toContain('working on phase build');
    expect((await state()).conflicts).toEqual([
      expect.objectContaining({
        path: 'shared.txt',
        runId: runB.id,
        phaseId: 'docs',
        otherRunId: runA.id,
        otherPhaseId: 'build',
      }),
    ]);

    a.kill('SIGKILL');
    await new Promise((r) => a.once('exit', r));
    const s2 = await until(
      "A's death to be recorded",
      async () => {
        const s = await state();
        return s.runs?.find((r) => r.id === runA.id)?.ended && s;
      },
      60_000,
      explain,
    );
    const deadA = s2.runs!.find((r) => r.id === runA.id)!;
    expect(deadA.ended).toMatchObject({ how: 'died', cause: 'process-gone' });
    expect(deadA.salvage?.lastTools?.at(-1)).toBe(`Write ${path.join(work, 'shared.txt')}`);
    // B is live: the session stays active, and B's work goes on to its phase.
    expect(s2.status).toBe('active');
    expect(s2.runs!.find((r) => r.id === runB.id)!.ended).toBeNull();
    fs.writeFileSync(gate(2), '');
    expect(await bExit).toBe(0);
    const s3 = await state();
    expect(files(s3, 'build')).toEqual(['api.txt', 'shared.txt']);
    expect(files(s3, 'docs')).toEqual(['faq.txt', 'guide.txt', 'shared.txt']);
    // Tokens: A answered four turns, B nine. Each one's first turn (the one that asked for
    // `baton phase start`) is read before its phase is taken (the budget check before the
    // shell call reads the transcript): the session's, never the other run's phase even when
    // that one already started. The rest land on each one's phase, A's last ones salvaged at
    // its death.
    expect(s3.tokens.byPhase['build'], explain()).toMatchObject({ input: USAGE.main.input * 3 });
    expect(s3.tokens.byPhase['docs'], explain()).toMatchObject({ input: USAGE.main.input * 8 });
    expect(s3.tokens.input, explain()).toBe(USAGE.main.input * 13);
    // Every file record was made in its own conversation's run.
    const m = openManager({ url: null, dir: path.join(work, '.baton'), cwd: work });
    const log = await m.log('par');
    await m.close();
    const runOf = Object.fromEntries(
      log.filter((e) => e.type === 'file.recorded').map((e) => [(e.data as { path: string }).path, e.actor?.run]),
    );
    expect(runOf).toMatchObject({ 'api.txt': runA.id, 'guide.txt': runB.id, 'faq.txt': runB.id });
    // B ended by its choice (SessionEnd) and no run is left live: paused.
    expect(s3.runs!.find((r) => r.id === runB.id)!.ended).toMatchObject({
      how: 'finished',
      cause: 'agent-session-end',
    });
    expect(s3.status).toBe('paused');
  }, 400_000);
});
