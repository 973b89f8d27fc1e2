/**
 * A real Claude Code conversation killed mid-task (SIGKILL, no SessionEnd), with baton's
 * hooks installed: the mock model plans two tasks (TaskCreate), finishes the first
 * (TaskUpdate, Write), starts the second and writes half of it, then stops answering. Claude
 * is killed while it waits. Then, within the run's TTL plus a poll, `baton status --json`
 * reads interrupted naming that conversation; its tokens are in the session (salvaged from
 * its transcript: no Stop ever fired); the phase's steps show the first task completed and
 * the second in progress; the conversation's keeper exited on its own; and a second
 * conversation's briefing (in the mock's request log) names the dead one and the step to resume.
 */
import { execFileSync, spawn } from 'node:child_process';
import type { ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { baseEnv, runBaton, withBatonOnPath } from '../cli/helpers.js';
import { openManager } from '../../src/manager/index.js';
import type { Run } from '../../src/manager/index.js';
import type { AgentCli } from './agent-clis.js';
import { CLAUDE, CODEX, GEMINI, cliBin, runCli } from './agent-clis.js';
import type { Handler, Logged, ModelMock as Mock, Step } from './model-mocks.js';
import { ModelMock, USAGE, defaultScript } from './model-mocks.js';

/** The run's TTL (120 s) plus a poll: the longest a reader may wait to see the death. */
const DEATH_SEEN_WITHIN_MS = 125_000;

interface Body {
  model?: string;
  messages?: Array<{ role: string; content: string | Array<{ type: string; [k: string]: unknown }> }>;
  tools?: Array<{ name?: string }>;
}

type Call = { name: string; input: Record<string, unknown> } | 'hang';

/** The first conversation's calls, one per model turn; then it stops answering. */
function firstScript(dir: string): Call[] {
  return [
    {
      name: 'TaskCreate',
      input: { subject: 'Write the parser', description: 'parser.txt', activeForm: 'Writing the parser' },
    },
    {
      name: 'TaskCreate',
      input: { subject: 'Write the tests', description: 'tests.txt', activeForm: 'Writing the tests' },
    },
    { name: 'TaskUpdate', input: { taskId: '1', status: 'in_progress' } },
    { name: 'Write', input: { file_path: path.join(dir, 'parser.txt'), content: 'parser\n' } },
    { name: 'TaskUpdate', input: { taskId: '1', status: 'completed' } },
    { name: 'TaskUpdate', input: { taskId: '2', status: 'in_progress' } },
    { name: 'Write', input: { file_path: path.join(dir, 'tests.txt'), content: 'half of the tests\n' } },
    'hang',
  ];
}

const sse = (event: string, data: unknown): string => `event: ${event}\ndata: ${JSON.stringify(data)}\n\n`;

function toolResults(body: Body): number {
  let n = 0;
  for (const m of body.messages ?? [])
    if (m.role === 'user' && Array.isArray(m.content)) n += m.content.filter((b) => b.type === 'tool_result').length;
  return n;
}

/** Anthropic Messages, streamed: the main agent's turn N plays call N; a request of the second conversation gets a text. */
function handler(script: Call[]): Handler {
  return (req: Logged, mock: Mock) => {
    const url = req.url.split('?')[0];
    if (req.method === 'POST' && url === '/v1/messages/count_tokens')
      return { type: 'json', chunks: [{ input_tokens: 42 }] };
    if (req.method !== 'POST' || url !== '/v1/messages') return null;
    const body = (req.body ?? {}) as Body;
    const main = (body.tools ?? []).some((t) => t.name === 'Write');
    const second = JSON.stringify(body.messages ?? []).includes('SECOND-CONVERSATION');
    const call = main && !second ? script[Math.min(toolResults(body), script.length - 1)]! : null;
    if (call === 'hang') return { type: 'hang' };
    const id = mock.nextId('msg_kill_');
    const step: Step = call ? { kind: 'shell', command: call.name } : { kind: 'text', text: 'ok' };
    const u = mock.reply(main ? 'main' : 'aux', step, id);
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
            : { type: 'text_delta', text: 'Noted.' },
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

beforeAll(() => {
  const setup = inject('testClis');
  if (!setup.ok) throw new Error(`The real agent CLIs are not all installed:\n${setup.lines.join('\n')}`);
});

async function until<T>(
  what: string,
  fn: () => Promise<T | null | undefined | false>,
  ms: number,
  explain: () => string = () => '',
): Promise<T> {
  const end = Date.now() + ms;
  for (;;) {
    const v = await fn();
    if (v) return v;
    if (Date.now() > end) throw new Error(`${what}: not within ${ms} ms${explain()}`);
    await new Promise((r) => setTimeout(r, 250));
  }
}

interface Status {
  status: string;
  cause: { cause: string; detail: string | null } | null;
  phases: Array<{ id: string; steps?: Array<{ name: string; status: string }>; files: Array<{ path: string }> }>;
  tokens: { byAgent: Record<string, { input: number; output: number; cached?: number; cacheWrite?: number }> };
}

/** Pids of the keepers the hooks started in `work` (their pid files). */
function keepersIn(work: string): number[] {
  const dir = path.join(work, '.baton', 'hooks', 'keepers');
  return fs.existsSync(dir)
    ? fs
        .readdirSync(dir)
        .map((f) => Number(fs.readFileSync(path.join(dir, f), 'utf8')))
        .filter((n) => n > 0)
    : [];
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

/** Runs baton in `work`; its stdout, or a failure with everything it printed. */
async function batonOk(args: string[], work: string, env: NodeJS.ProcessEnv): Promise<string> {
  const r = await runBaton(args, work, env);
  if (r.code !== 0) throw new Error(`baton ${args.join(' ')} → ${r.code}\n${r.stdout}${r.stderr}`);
  return r.stdout;
}

/** The session's runs, read through the library (the store is the work tree's). */
async function runsIn(work: string): Promise<Run[]> {
  const m = openManager({ url: null, dir: path.join(work, '.baton'), cwd: work });
  try {
    return (await m.get('kill')).runs ?? [];
  } finally {
    await m.close();
  }
}

/** The hook log's end and the mock's replies, for a failure message. */
function explainRun(work: string, mock: ModelMock): string {
  const log = path.join(work, '.baton', 'hooks', 'hook.log');
  return `\n--- hook log ---\n${fs.existsSync(log) ? fs.readFileSync(log, 'utf8').slice(-5000) : '(none)'}\n--- mock replies ---\n${mock.replies.map((r) => `${r.role}:${r.step}`).join(' ')} (hangs ${mock.hangs})`;
}

describe('the real claude CLI killed mid-task', () => {
  let work = '';
  let home = '';
  let mock: ModelMock;
  let env: NodeJS.ProcessEnv = {};
  let claude: ChildProcess | null = null;
  const keepers = (): number[] => keepersIn(work);
  const baton = (args: string[]): Promise<string> => batonOk(args, work, env);
  const runs = (): Promise<Run[]> => runsIn(work);
  const explain = (): string => explainRun(work, mock);

  beforeAll(async () => {
    work = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'baton-e2e-kill-')));
    home = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'baton-e2e-kill-home-')));
    mock = await new ModelMock(
      { main: [], sub: [], subMarker: 'none' },
      handler(firstScript(work)),
      path.join(home, 'requests.ndjson'),
    ).start();
    env = withBatonOnPath(baseEnv(CLAUDE.prepare(home, work, mock.url)));
    execFileSync('git', ['init', '-q'], { cwd: work });
    execFileSync('git', ['-c', 'user.email=t@t', '-c', 'user.name=t', 'commit', '-q', '--allow-empty', '-m', 'start'], {
      cwd: work,
    });
    await baton(['init']);
    await baton(['start', 'Killed mid-task', '--id', 'kill', '--phases', 'build,verify']);
    await baton(['phase', 'start', 'build']);
    await baton(['hooks', 'install', 'claude']);
  }, 120_000);

  afterAll(async () => {
    claude?.kill('SIGKILL');
    // No keeper may outlive the tests.
    for (const pid of work ? keepers() : []) if (alive(pid)) process.kill(pid, 'SIGKILL');
    await mock?.close();
    for (const d of [work, home]) if (d) fs.rmSync(d, { recursive: true, force: true });
  });

  it('SIGKILL while the model hangs: interrupted naming the conversation, tokens, steps, keeper gone; the next conversation is briefed', async () => {
    const bin = await cliBin('claude');
    claude = spawn(bin, CLAUDE.first('Plan two tasks and do them.'), {
      cwd: work,
      env,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stderr = '';
    claude.stderr?.on('data', (d: Buffer) => (stderr += d.toString()));
    await until(
      'the model to be asked for the turn it never answers',
      async () => mock.hangs > 0,
      120_000,
      () => `${explain()}\n--- claude stderr ---\n${stderr.slice(-2000)}`,
    );
    const before = JSON.parse(await baton(['status', '--json'])) as Status;
    const run = (await runs()).find((r) => r.kind === 'conversation');
    expect(run, explain()).toBeDefined();
    // The run's process is the CLI itself, found by the hook walking up past its shell.
    expect(run!.process.pid).toBe(claude.pid);
    expect(before.status).toBe('active');
    expect(keepers().length, explain()).toBe(1);
    const keeper = keepers()[0]!;

    claude.kill('SIGKILL');
    await new Promise((r) => claude!.once('exit', r));
    const s = await until(
      'baton status to read interrupted',
      async () => {
        const x = JSON.parse(await baton(['status', '--json'])) as Status;
        return x.status === 'interrupted' ? x : null;
      },
      DEATH_SEEN_WITHIN_MS,
      explain,
    );
    const conversation = run!.agentSessionId!;
    expect(s.cause?.detail, explain()).toContain(`claude conversation ${conversation.slice(0, 8)}`);
    // The keeper recorded the death (with what it salvaged), then exited on its own.
    await until(
      'the death to be recorded',
      async () => (await runs()).find((r) => r.id === run!.id)?.ended?.how === 'died',
      30_000,
      explain,
    );
    await until('the keeper to exit', async () => !alive(keeper), 30_000, explain);
    const after = JSON.parse(await baton(['status', '--json'])) as Status;
    const dead = (await runs()).find((r) => r.id === run!.id)!;
    expect(dead.ended).toMatchObject({ how: 'died', cause: 'process-gone' });
    expect(dead.salvage?.lastTools?.at(-1)).toBe(`Write ${path.join(work, 'tests.txt')}`);
    // Tokens: no Stop ever fired; the transcript was read to the end once, with the death.
    const main = mock.total('main');
    expect(after.tokens.byAgent['claude'], explain()).toMatchObject({ input: main.input, output: main.output });
    expect(main.input).toBe(USAGE.main.input * 7);
    const build = after.phases.find((p) => p.id === 'build')!;
    expect(build.steps).toEqual([
      { name: 'Write the parser', status: 'completed' },
      { name: 'Write the tests', status: 'in_progress' },
    ]);
    expect(build.files.map((f) => f.path).sort()).toEqual(['parser.txt', 'tests.txt']);

    // A second conversation: its briefing names the dead one and where to resume.
    const r = await runCli(bin, CLAUDE.first('SECOND-CONVERSATION: carry on.'), work, env);
    expect(r.code, `${r.stdout}\n${r.stderr}`).toBe(0);
    const briefed = mock.requestsContaining('A run died: claude conversation');
    expect(briefed.length, explain()).toBeGreaterThan(0);
    const text = JSON.stringify(briefed[0]!.body);
    expect(text).toContain(`claude conversation ${conversation.slice(0, 8)}`);
    expect(text).toContain('resume at step \\"Write the tests\\"');
    // Its keeper exits when its CLI does (it ended with SessionEnd; then the process exits).
    await until('no keeper left', async () => keepers().every((pid) => !alive(pid)), 30_000, explain);
  }, 400_000);
});

/**
 * Codex CLI and Gemini CLI, as far as they allow. Neither has Claude Code's task tools; each
 * has a plan tool that takes the whole list (Codex `update_plan`, Gemini CLI `write_todos`),
 * but neither offers it by default in the pinned versions: Codex 0.169's `exec` sends no
 * `update_plan` until `[tools.update_plan] enabled = true`, and Gemini CLI 0.61 offers
 * `write_todos` to Gemini 2 models only (its default model is a Gemini 3 one), so the test
 * switches them on (`PLAN_TOOL_ON`) and checks the tool is in the request the mock received.
 * The model delegates to a sub-agent, sets its plan (the first item completed, the second in
 * progress), writes notes.md, then stops answering; the CLI's process (the one the run
 * recorded: Codex's native binary under its Node wrapper, Gemini CLI's relaunched Node
 * process) is killed. The plan is recorded live, by the hooks (Codex PostToolUse, Gemini
 * AfterTool of the plan tool), before the kill; salvage from the transcript would find the
 * same list (test/hooks/salvage.test.ts, on the captured lines). Then: interrupted naming
 * the conversation, the main agent's tokens salvaged, the phase's steps, the keeper gone, and
 * the next conversation briefed about the dead one and the step to resume.
 */
const PLAN_TOOL_ON: Record<string, { tool: string; args: string[]; config: string }> = {
  codex: { tool: 'update_plan', args: [], config: '\n[tools.update_plan]\nenabled = true\n' },
  gemini: { tool: 'write_todos', args: ['-m', 'gemini-2.5-flash'], config: '' },
};

/** The plan the model sets before its write: the item it writes half of is the one to resume. */
const PLAN: Step = {
  kind: 'plan',
  items: [
    { name: 'Outline the notes', status: 'completed' },
    { name: 'Write the notes', status: 'in_progress' },
  ],
};

describe.each([CODEX, GEMINI])('the real $cli CLI killed while its model hangs', (agent: AgentCli) => {
  let work = '';
  let home = '';
  let mock: ModelMock;
  let env: NodeJS.ProcessEnv = {};
  let child: ChildProcess | null = null;
  let hung = false;
  const plan = PLAN_TOOL_ON[agent.cli]!;
  const keepers = (): number[] => keepersIn(work);
  const baton = (args: string[]): Promise<string> => batonOk(args, work, env);
  const runs = (): Promise<Run[]> => runsIn(work);
  const explain = (): string => explainRun(work, mock);

  beforeAll(async () => {
    work = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), `baton-e2e-kill-${agent.cli}-`)));
    home = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), `baton-e2e-kill-home-${agent.cli}-`)));
    // The usual script with the plan set before the write, except that the main agent's turn
    // after its write is never answered (once).
    const hangAfterWrite: Handler = (req, m) => {
      const out = agent.handler(req, m);
      const last = m.replies.at(-1);
      if (!hung && out && last?.role === 'main' && last.step === 'edit') {
        hung = true;
        m.replies.pop();
        return { type: 'hang' };
      }
      return out;
    };
    const script = defaultScript(work, true);
    script.main.splice(1, 0, PLAN);
    mock = await new ModelMock(script, hangAfterWrite, path.join(home, 'requests.ndjson')).start();
    env = withBatonOnPath(baseEnv(agent.prepare(home, work, mock.url)));
    if (agent.cli === 'codex') fs.appendFileSync(path.join(home, 'codex', 'config.toml'), plan.config);
    execFileSync('git', ['init', '-q'], { cwd: work });
    execFileSync('git', ['-c', 'user.email=t@t', '-c', 'user.name=t', 'commit', '-q', '--allow-empty', '-m', 'start'], {
      cwd: work,
    });
    await baton(['init']);
    await baton(['start', `Killed ${agent.cli}`, '--id', 'kill', '--phases', 'build,verify']);
    await baton(['phase', 'start', 'build']);
    await baton(['hooks', 'install', agent.cli]);
  }, 120_000);

  afterAll(async () => {
    child?.kill('SIGKILL');
    for (const pid of work ? keepers() : []) if (alive(pid)) process.kill(pid, 'SIGKILL');
    for (const r of work ? await runs().catch(() => []) : [])
      if (!r.ended && alive(r.process.pid)) process.kill(r.process.pid, 'SIGKILL');
    await mock?.close();
    if (!process.env['KEEP_E2E']) for (const d of [work, home]) if (d) fs.rmSync(d, { recursive: true, force: true });
  });

  it('interrupted naming the conversation, its tokens salvaged, its steps, its keeper gone; the next conversation is briefed', async () => {
    const bin = await cliBin(agent.cli);
    child = spawn(
      bin,
      [...agent.first('Do the task: write notes.md, edit it, and make shell-out.txt.'), ...plan.args],
      {
        cwd: work,
        env,
        stdio: ['ignore', 'pipe', 'pipe'],
      },
    );
    let stderr = '';
    child.stderr?.on('data', (d: Buffer) => (stderr += d.toString()));
    await until(
      'the model to be asked for the turn it never answers',
      async () => mock.hangs > 0,
      150_000,
      () => `${explain()}\n--- stderr ---\n${stderr.slice(-2000)}`,
    );
    const run = await until(
      'the conversation run',
      async () => (await runs()).find((r) => r.kind === 'conversation' && !r.ended),
      30_000,
      explain,
    );
    expect(keepers().length, explain()).toBe(1);
    const keeper = keepers()[0]!;
    // The CLI offered its plan tool, the model called it, and the hook recorded it live.
    const offered = mock.requests.filter((q) =>
      JSON.stringify((q.body as { tools?: unknown } | null)?.tools ?? []).includes(`"${plan.tool}"`),
    );
    expect(offered.length, explain()).toBeGreaterThan(0);
    expect(
      mock.replies.map((x) => `${x.role}:${x.step}`),
      explain(),
    ).toContain('main:plan');
    const steps = [
      { name: 'Outline the notes', status: 'completed' },
      { name: 'Write the notes', status: 'in_progress' },
    ];
    const before = JSON.parse(await baton(['status', '--json'])) as Status;
    expect(before.phases.find((p) => p.id === 'build')!.steps, explain()).toEqual(steps);
    // The process the hook found (the CLI's, not its shell): kill it, as a crash would.
    process.kill(run.process.pid, 'SIGKILL');
    const s = await until(
      'baton status to read interrupted',
      async () => {
        const x = JSON.parse(await baton(['status', '--json'])) as Status;
        return x.status === 'interrupted' ? x : null;
      },
      DEATH_SEEN_WITHIN_MS,
      explain,
    );
    expect(s.cause?.detail, explain()).toContain(`${agent.cli} conversation ${run.agentSessionId!.slice(0, 8)}`);
    await until(
      'the death to be recorded',
      async () => (await runs()).find((r) => r.id === run.id)?.ended?.how === 'died',
      30_000,
      explain,
    );
    await until('the keeper to exit', async () => !alive(keeper), 30_000, explain);
    child.kill('SIGKILL');
    const after = JSON.parse(await baton(['status', '--json'])) as Status;
    const main = mock.total('main');
    expect(after.tokens.byAgent[agent.cli], explain()).toMatchObject({ input: main.input, output: main.output });
    const build = after.phases.find((p) => p.id === 'build')!;
    expect(build.files.map((f) => f.path)).toContain('notes.md');
    expect(build.steps).toEqual(steps);

    const r = await runCli(bin, [...agent.first('SECOND-CONVERSATION: carry on.'), ...plan.args], work, env);
    expect(r.code, `${r.stdout}\n${r.stderr}`).toBe(0);
    const briefed = mock.requestsContaining(`A run died: ${agent.cli} conversation ${run.agentSessionId!.slice(0, 8)}`);
    expect(briefed.length, explain()).toBeGreaterThan(0);
    expect(JSON.stringify(briefed[0]!.body)).toContain('resume at step \\"Write the notes\\"');
    await until('no keeper left', async () => keepers().every((pid) => !alive(pid)), 30_000, explain);
  }, 500_000);
});
