/**
 * Budgets enforced by the real Codex CLI (`PreToolUse`) and Gemini CLI (`BeforeTool`) through
 * baton's hook, offline against their model mocks: a conversation that keeps calling a shell
 * tool, on a session whose budget is already exceeded. With `stop` the call is refused and
 * the refusal reason (budget, spend, the command that raises it) reaches the model in the
 * tool result the mock receives (Codex: "Command blocked by PreToolUse hook: …", Gemini CLI:
 * "Tool execution blocked: …"); a raise lets the calls through. Neither CLI can put a call to
 * the user (Codex does not act on `permissionDecision: "ask"` and runs the call; Gemini CLI's
 * `decision: "ask"` in `-p` mode waits for a confirmation no one can give), so on `ask` baton
 * refuses the call with a reason saying so, and that reason reaches the model.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { baseEnv, runBaton, withBatonOnPath } from '../cli/helpers.js';
import type { AgentCli } from './agent-clis.js';
import { CODEX, cliBin, GEMINI, runCli } from './agent-clis.js';
import type { Logged, Step } from './model-mocks.js';
import { ModelMock } from './model-mocks.js';

beforeAll(() => {
  const setup = inject('testClis');
  if (!setup.ok) throw new Error(`The real agent CLIs are not all installed:\n${setup.lines.join('\n')}`);
});

const CALLS = [1, 2, 3];

/** Three shell calls (`call-N.txt` each), then a final text. */
function script(): { main: Step[]; sub: Step[]; subMarker: string } {
  const main: Step[] = CALLS.map((n) => ({ kind: 'shell', command: `printf '${n}' > call-${n}.txt` }));
  main.push({ kind: 'text', text: 'Done.' });
  return { main, sub: [], subMarker: 'BATON-BUDGET-SUBTASK' };
}

/** The tool results a request carries back to the model (Responses `*_call_output`, Gemini `functionResponse`), as text. */
function toolResults(req: Logged): string[] {
  const body = (req.body ?? {}) as {
    input?: Array<{ type?: string; output?: unknown }>;
    contents?: Array<{ parts?: Array<{ functionResponse?: unknown }> }>;
  };
  const out: string[] = [];
  for (const i of body.input ?? []) if (/_call_output$/.test(i.type ?? '')) out.push(JSON.stringify(i.output));
  for (const c of body.contents ?? [])
    for (const p of c.parts ?? []) if (p.functionResponse) out.push(JSON.stringify(p.functionResponse));
  return out;
}

describe.each([
  ['codex', CODEX],
  ['gemini', GEMINI],
] as Array<[string, AgentCli]>)('the real %s with an exceeded token budget', (name, agent) => {
  let work = '';
  let home = '';
  let mock: ModelMock;
  let env: NodeJS.ProcessEnv = {};
  const baton = async (args: string[]) => {
    const r = await runBaton(args, work, env);
    if (r.code !== 0) throw new Error(`baton ${args.join(' ')} → ${r.code}\n${r.stdout}${r.stderr}`);
    return r.stdout;
  };
  const hookLog = (): string => {
    const f = path.join(work, '.baton', 'hooks', 'hook.log');
    return fs.existsSync(f) ? fs.readFileSync(f, 'utf8') : '';
  };
  const ran = (): number[] => CALLS.filter((n) => fs.existsSync(path.join(work, `call-${n}.txt`)));
  const clean = () => {
    for (const n of CALLS) fs.rmSync(path.join(work, `call-${n}.txt`), { force: true });
  };
  const run = async (prompt: string) => {
    const before = mock.requests.length;
    const r = await runCli(await cliBin(agent.cli), agent.first(prompt), work, env);
    return { r, reqs: mock.requests.slice(before) };
  };

  beforeAll(async () => {
    work = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), `baton-budget-${name}-`)));
    home = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), `baton-budget-${name}-home-`)));
    mock = await new ModelMock(script(), agent.handler, path.join(home, 'mock-requests.ndjson')).start();
    env = withBatonOnPath(baseEnv(agent.prepare(home, work, mock.url)));
    await baton(['init']);
    await baton(['start', 'Budget e2e', '--id', 'budget', '--phases', 'build']);
    await baton(['phase', 'start', 'build']);
    await baton(['hooks', 'install', agent.cli]);
    // Already spent: the first tool call of the next conversation is past the budget.
    await baton(['tokens', 'add', '--agent', 'earlier', '--input', '5000', '--output', '100']);
    await baton(['budget', 'set', '3000', '--on-exceed', 'stop']);
  }, 120_000);

  afterAll(async () => {
    await mock?.close();
    for (const d of [work, home]) if (d) fs.rmSync(d, { recursive: true, force: true });
  });

  it('stop: no call runs and the refusal, naming budget, spend and the way to raise it, reaches the model', async () => {
    const { r, reqs } = await run('Run the shell commands you are given.');
    expect(r.code, `${r.stdout}\n${r.stderr}`).toBe(0);
    expect(ran()).toEqual([]);
    const refusal = reqs.flatMap(toolResults).find((t) => t.includes('policy stop'));
    expect(refusal, JSON.stringify(reqs.flatMap(toolResults)).slice(0, 2000)).toBeDefined();
    expect(refusal).toContain('baton budget set <tokens> --session budget');
  }, 240_000);

  // Neither CLI can put a call to the user (Codex ignores "ask", Gemini CLI -p waits forever on it),
  // so baton answers ask with a refusal that says so.
  it('ask: refused, as this CLI cannot put a call to the user; the reason saying so reaches the model', async () => {
    clean();
    await baton(['budget', 'set', '--on-exceed', 'ask']);
    const { r, reqs } = await run('Run the shell commands you are given.');
    expect(r.code, `${r.stdout}\n${r.stderr}`).toBe(0);
    expect(ran()).toEqual([]);
    expect(hookLog()).toMatch(/: refused\. baton: .*policy ask/);
    const refusal = reqs.flatMap(toolResults).find((t) => t.includes('policy ask'));
    expect(refusal, JSON.stringify(reqs.flatMap(toolResults)).slice(0, 2000)).toBeDefined();
    expect(refusal).toContain(`${name === 'codex' ? 'Codex' : 'Gemini CLI'} cannot put a tool call to the user`);
    expect(refusal).toContain('baton budget set --on-exceed warn --session budget');
  }, 240_000);

  it('raising the budget lets the calls through', async () => {
    clean();
    await baton(['budget', 'set', '1000000']);
    const { r } = await run('Run the shell commands you are given.');
    expect(r.code, `${r.stdout}\n${r.stderr}`).toBe(0);
    expect(ran()).toEqual(CALLS);
  }, 240_000);
});
