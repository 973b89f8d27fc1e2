/**
 * Budgets enforced by the real Claude Code through baton's PreToolUse hook, offline against
 * the Anthropic mock: a conversation that keeps calling tools (a shell command each turn,
 * each response reporting 1,201 input and 57 output tokens) on a session with a budget of a
 * few thousand tokens. With policy `ask`, the tool call after the budget is exceeded is put
 * to the user (in print mode there is no one to answer, so Claude Code does not run it and
 * hands the reason to the model); with
 * `stop` it is refused and the reason, naming the budget, the spend and the command that
 * raises it, reaches the model (the mock's request log holds it as the tool result); once the
 * budget is raised the next call runs.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { baseEnv, runBaton, withBatonOnPath } from '../cli/helpers.js';
import { CLAUDE, cliBin, runCli } from './agent-clis.js';
import type { Logged, Step } from './model-mocks.js';
import { ModelMock } from './model-mocks.js';

beforeAll(() => {
  const setup = inject('testClis');
  if (!setup.ok) throw new Error(`The real agent CLIs are not all installed:\n${setup.lines.join('\n')}`);
});

/** Six shell calls (`call-N.txt` each), then a final text. */
function script(): { main: Step[]; sub: Step[]; subMarker: string } {
  const main: Step[] = [1, 2, 3, 4, 5, 6].map((n) => ({ kind: 'shell', command: `printf '${n}' > call-${n}.txt` }));
  main.push({ kind: 'text', text: 'Done.' });
  return { main, sub: [], subMarker: 'BATON-BUDGET-SUBTASK' };
}

/** The text of every tool result a request carries back to the model. */
function toolResults(req: Logged): string[] {
  const body = (req.body ?? {}) as { messages?: Array<{ role: string; content: unknown }> };
  const out: string[] = [];
  for (const m of body.messages ?? [])
    if (m.role === 'user' && Array.isArray(m.content))
      for (const b of m.content as Array<{ type: string; content?: unknown }>)
        if (b.type === 'tool_result') out.push(typeof b.content === 'string' ? b.content : JSON.stringify(b.content));
  return out;
}

describe('the real Claude Code with a token budget enforced by the PreToolUse hook', () => {
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
  const ran = (): number[] => [1, 2, 3, 4, 5, 6].filter((n) => fs.existsSync(path.join(work, `call-${n}.txt`)));
  const clean = () => {
    for (const n of [1, 2, 3, 4, 5, 6]) fs.rmSync(path.join(work, `call-${n}.txt`), { force: true });
  };
  const claude = async (prompt: string) => {
    const before = mock.requests.length;
    const r = await runCli(await cliBin('claude'), CLAUDE.first(prompt), work, env);
    expect(r.code, `${r.stdout}\n${r.stderr}\n${hookLog().slice(-3000)}`).toBe(0);
    return mock.requests.slice(before);
  };

  beforeAll(async () => {
    work = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'baton-budget-')));
    home = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'baton-budget-home-')));
    mock = await new ModelMock(script(), CLAUDE.handler, path.join(home, 'mock-requests.ndjson')).start();
    env = withBatonOnPath(baseEnv(CLAUDE.prepare(home, work, mock.url)));
    await baton(['init']);
    await baton(['start', 'Budget e2e', '--id', 'budget', '--phases', 'build']);
    await baton(['phase', 'start', 'build']);
    await baton(['hooks', 'install', 'claude']);
    await baton(['budget', 'set', '3000', '--on-exceed', 'ask']);
  }, 120_000);

  afterAll(async () => {
    await mock?.close();
    for (const d of [work, home]) if (d) fs.rmSync(d, { recursive: true, force: true });
  });

  it('ask: the calls before the budget ran; past it, the call is put to the user, not run; the running total reached the model at 80 %', async () => {
    const reqs = await claude('Run the shell commands you are given.');
    // Responses 1 and 2 (2,516 tokens, 84 %) let calls 1 and 2 run; response 3 (3,774) is past 3,000.
    expect(ran(), hookLog().slice(-3000)).toEqual([1, 2]);
    expect(hookLog()).toMatch(/put to the user/);
    // Print mode has no one to ask: Claude Code does not run the call and hands the ask's reason to the model.
    const asked = reqs.flatMap(toolResults).filter((t) => t.includes('policy ask'));
    expect(asked[0]).toBe(
      "baton: the session's token budget is exceeded (3,774 of 3,000 tokens (125.8%); policy ask). Allow this tool call to spend more, or raise the budget (`baton budget set <tokens> --session budget`).",
    );
    const context = reqs.filter((q) =>
      JSON.stringify(q.body).includes("[baton] Budget: the session's token budget warning"),
    );
    expect(context.length, 'the 80 % notice in a model request').toBeGreaterThan(0);
    const s = JSON.parse(await baton(['budget', '--json'])) as { verdict: { action: string } };
    expect(s.verdict.action).toBe('ask');
  }, 240_000);

  it('stop: the next call is refused and the reason, naming budget, spend and the way to raise it, reaches the model', async () => {
    clean();
    await baton(['budget', 'set', '--on-exceed', 'stop']);
    const reqs = await claude('Run the shell commands you are given.');
    expect(ran()).toEqual([]);
    const results = reqs.flatMap(toolResults);
    const refusal = results.find((t) => t.includes("the session's token budget is exceeded"));
    expect(refusal, JSON.stringify(results).slice(0, 2000)).toBeDefined();
    expect(refusal).toMatch(/policy stop/);
    expect(refusal).toMatch(/of 3,000 tokens/);
    expect(refusal).toContain('baton budget set <tokens> --session budget');
  }, 240_000);

  it('raising the budget lets the next call through', async () => {
    clean();
    await baton(['budget', 'set', '100000']);
    await claude('Run the shell commands you are given.');
    expect(ran()).toEqual([1, 2, 3, 4, 5, 6]);
    const log = await baton(['log', '--json']);
    const sets = (JSON.parse(log) as Array<{ type: string; data: Record<string, unknown> }>).filter(
      (e) => e.type === 'budget.set',
    );
    expect(sets.map((e) => e.data)).toEqual([{ max: 3000, onExceed: 'ask' }, { onExceed: 'stop' }, { max: 100000 }]);
  }, 240_000);
});
