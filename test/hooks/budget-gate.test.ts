/**
 * What each CLI's hook answers before a tool call on an exceeded budget (docs/budgets.md):
 * Claude Code is asked (`permissionDecision: "ask"`) on `ask` and refused on `stop`; Codex
 * and Gemini CLI cannot put a call to the user (Codex runs it anyway, Gemini CLI `-p` hangs),
 * so on `ask` they get a refusal whose reason says why and how to go on.
 */
import fs from 'node:fs';
import { describe, expect, it } from 'vitest';
import { fixture, hookInProcess, hookLog, workspace } from './helpers.js';

const EVENTS = { claude: 'PreToolUse', codex: 'PreToolUse', gemini: 'real-BeforeTool' } as const;

/** A workspace whose session spent 5,100 tokens against a 3,000 budget with `onExceed`. */
async function overBudget(onExceed: 'ask' | 'stop'): Promise<{ dir: string }> {
  const w = await workspace();
  const m = w.m();
  await m.tokens('hooked', { agent: 'earlier', phase: null, input: 5000, output: 100, cached: 0 });
  await m.budgets.set('hooked', { tokens: 3000, onExceed });
  await m.store.close();
  return w;
}

/** Runs the CLI's before-tool fixture against `dir` and returns the decision and its reason, in that CLI's words. */
async function gate(cli: keyof typeof EVENTS, dir: string): Promise<{ decision: string; reason: string }> {
  const payload = fixture(cli, EVENTS[cli], dir) as Record<string, unknown>;
  if (cli === 'gemini') payload['transcript_path'] = `${dir}/.gemini-chat.jsonl`;
  const r = await hookInProcess(cli, payload, dir);
  expect(r.code).toBe(0);
  const out = JSON.parse(r.stdout) as {
    decision?: string;
    reason?: string;
    hookSpecificOutput?: { permissionDecision: string; permissionDecisionReason: string };
  };
  if (cli === 'gemini') return { decision: out.decision!, reason: out.reason! };
  return {
    decision: out.hookSpecificOutput!.permissionDecision,
    reason: out.hookSpecificOutput!.permissionDecisionReason,
  };
}

describe('the before-tool hook on an exceeded budget', () => {
  it('Claude Code: ask puts the call to the user, naming the budget, the spend and the raise', async () => {
    const w = await overBudget('ask');
    expect(await gate('claude', w.dir)).toEqual({
      decision: 'ask',
      reason:
        "baton: the session's token budget is exceeded (5,100 of 3,000 tokens (170%); policy ask). Allow this tool call to spend more, or raise the budget (`baton budget set <tokens> --session hooked`).",
    });
    expect(hookLog(w.dir).map((l) => l.message)).toContainEqual(expect.stringMatching(/^Write: put to the user\./));
  });

  it.each([
    ['codex', 'Codex'],
    ['gemini', 'Gemini CLI'],
  ] as const)('%s: ask is answered with a refusal saying the CLI cannot ask, and how to go on', async (cli, name) => {
    const w = await overBudget('ask');
    const g = await gate(cli, w.dir);
    expect(g).toEqual({
      decision: 'deny',
      reason: `baton: the session's token budget is exceeded (5,100 of 3,000 tokens (170%); policy ask), and ${name} cannot put a tool call to the user, so this tool call was refused. Stop and tell the user; it goes on once they raise the budget (\`baton budget set <tokens> --session hooked\`) or let it be exceeded with a warning only (\`baton budget set --on-exceed warn --session hooked\`).`,
    });
    expect(hookLog(w.dir).map((l) => l.message)).toContainEqual(expect.stringMatching(/: refused\. baton: /));
  });

  it('Claude Code: the call is judged with the response that asks for it, written to the transcript as the hook fires', async () => {
    const w = await workspace();
    const m = w.m();
    await m.tokens('hooked', { agent: 'earlier', phase: null, input: 2000, output: 0, cached: 0 });
    await m.budgets.set('hooked', { tokens: 3000, onExceed: 'ask' });
    await m.store.close();
    const payload = fixture('claude', 'PreToolUse', w.dir) as Record<string, unknown>;
    const transcript = payload['transcript_path'] as string;
    const line = (id: string, call: string, input: number): string =>
      `${JSON.stringify({
        type: 'assistant',
        uuid: `u-${id}`,
        sessionId: payload['session_id'],
        timestamp: new Date().toISOString(),
        message: {
          id,
          role: 'assistant',
          model: 'claude-sonnet-4-5',
          content: [{ type: 'tool_use', id: call, name: 'Write', input: {} }],
          usage: { input_tokens: input, output_tokens: 0, cache_read_input_tokens: 0, cache_creation_input_tokens: 0 },
        },
      })}\n`;
    fs.writeFileSync(transcript, line('msg_1', 'toolu_01', 500));
    // The response asking for this call (1,500 tokens more: past the budget) lands just after the hook started.
    const late = setTimeout(
      () => fs.appendFileSync(transcript, line('msg_2', String(payload['tool_use_id']), 1500)),
      150,
    );
    try {
      const r = await hookInProcess('claude', payload, w.dir);
      expect(r.code).toBe(0);
      const out = JSON.parse(r.stdout) as { hookSpecificOutput?: { permissionDecision: string } };
      expect(out.hookSpecificOutput?.permissionDecision).toBe('ask');
    } finally {
      clearTimeout(late);
    }
  });

  it.each(['claude', 'codex', 'gemini'] as const)('%s: stop refuses the call', async (cli) => {
    const w = await overBudget('stop');
    const g = await gate(cli, w.dir);
    expect(g.decision).toBe('deny');
    expect(g.reason).toContain('(5,100 of 3,000 tokens (170%); policy stop), so this tool call was refused.');
  });

  it("an agent's budget holds for that agent's calls only", async () => {
    const w = await workspace();
    const m = w.m();
    await m.tokens('hooked', { agent: 'claude', phase: null, input: 800, output: 0, cached: 0 });
    await m.tokens('hooked', { agent: 'codex', phase: null, input: 100, output: 0, cached: 0 });
    await m.budgets.set('hooked', { tokens: 500, agent: 'claude', onExceed: 'stop' });
    await m.budgets.set('hooked', { tokens: 500, agent: 'codex', onExceed: 'stop' });
    await m.store.close();
    const g = await gate('claude', w.dir);
    expect(g.decision).toBe('deny');
    expect(g.reason).toContain("agent claude's token budget is exceeded (800 of 500 tokens (160%); policy stop)");
    expect(g.reason).toContain('`baton budget set <tokens> --agent claude --session hooked`');
    // Codex's own budget is not exceeded: its hook says nothing.
    const r = await hookInProcess('codex', fixture('codex', 'PreToolUse', w.dir), w.dir);
    expect(r.stdout).toBe('');
  });

  it('a phase budget with ask names the phase in both ways on', async () => {
    const w = await workspace();
    const m = w.m();
    await m.tokens('hooked', { agent: 'earlier', phase: 'build', input: 800, output: 0, cached: 0 });
    await m.budgets.set('hooked', { tokens: 500, phase: 'build', onExceed: 'ask' });
    await m.store.close();
    const g = await gate('codex', w.dir);
    expect(g.decision).toBe('deny');
    expect(g.reason).toContain('`baton budget set <tokens> --phase build --session hooked`');
    expect(g.reason).toContain('`baton budget set --phase build --on-exceed warn --session hooked`');
  });
});
