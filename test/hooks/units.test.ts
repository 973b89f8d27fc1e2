/** The hook's parts on their own: patch headers, output per CLI, the payload limit, the briefing's bound, every fixture normalised. */
import { describe, expect, it } from 'vitest';
import { normalise } from '../../src/hooks/normalise.js';
import { hookOutput } from '../../src/hooks/output.js';
import { patchFiles } from '../../src/hooks/patch.js';
import type { HookCli } from '../../src/hooks/model.js';
import { agentName } from '../../src/domain/agents/agent-name.js';
import { fixture, fixtureNames, hookInProcess, hookLog, workspace } from './helpers.js';

describe('hook parts', () => {
  it('patchFiles reads added, updated, moved and deleted files from the patch headers', () => {
    const p =
      '*** Begin Patch\n*** Add File: a.txt\n+x\n*** Update File: b.txt\n*** Move to: c.txt\n@@\n*** Delete File: d.txt\n*** End Patch';
    expect(patchFiles(p)).toEqual({
      written: ['a.txt', 'c.txt'],
      deleted: ['b.txt', 'd.txt'],
      created: ['a.txt', 'c.txt'],
    });
    expect(patchFiles('no patch here')).toEqual({ written: [], deleted: [], created: [] });
  });

  it('output: the briefing as SessionStart additionalContext; otherwise nothing, or {} for Gemini CLI', () => {
    expect(JSON.parse(hookOutput('claude', 'SessionStart', 'ctx'))).toEqual({
      hookSpecificOutput: { hookEventName: 'SessionStart', additionalContext: 'ctx' },
    });
    expect(hookOutput('claude', 'Stop', 'ctx')).toBe('');
    expect(hookOutput('codex', 'SessionStart', null)).toBe('');
    expect(hookOutput('gemini', 'AfterTool', null)).toBe('{}\n');
  });

  it('agent names: the CLI, or <cli>/<type>#<8 chars of the id>', () => {
    expect(agentName('claude')).toBe('claude');
    expect(agentName('claude', { agentId: 'abcdef0123456', agentType: 'Explore' })).toBe('claude/Explore#abcdef01');
    expect(agentName('codex', { agentId: 'abcdef0123456', agentType: null })).toBe('codex/agent#abcdef01');
  });

  it('every fixture of every CLI normalises to the action its event means', () => {
    const expected: Record<string, string> = {
      SessionStart: 'session-start',
      UserPromptSubmit: 'prompt',
      BeforeAgent: 'prompt',
      PostToolUseFailure: 'tool-failed',
      Stop: 'stop',
      AfterAgent: 'stop',
      SubagentStart: 'subagent-start',
      SubagentStop: 'subagent-stop',
      PreCompact: 'compact',
      PreCompress: 'compact',
      SessionEnd: 'session-end',
      PreToolUse: 'pre-tool',
      BeforeTool: 'pre-tool',
      BeforeModel: 'ignored',
    };
    const tools: Record<string, string> = {
      Write: 'files',
      Edit: 'files',
      MultiEdit: 'files',
      NotebookEdit: 'files',
      TodoWrite: 'plan',
      Bash: 'tool',
      apply_patch: 'files',
      update_plan: 'plan',
      write_file: 'files',
      replace: 'files',
      write_todos: 'plan',
      read_file: 'tool',
      invoke_agent: 'subagent-ran',
      TaskCreate: 'tasks',
      TaskUpdate: 'tasks',
      TaskList: 'tasks',
    };
    let n = 0;
    for (const cli of ['claude', 'codex', 'gemini'] as HookCli[]) {
      for (const name of fixtureNames(cli)) {
        const p = fixture(cli, name, '/w');
        const ev = normalise(cli, p);
        const event = String(p['hook_event_name']);
        const tool = String(p['tool_name'] ?? '');
        const failed = name.endsWith('-failed') || name.endsWith('-error');
        const want = failed ? 'tool-failed' : (expected[event] ?? tools[tool]);
        expect([cli, name, ev.action.kind]).toEqual([cli, name, want]);
        expect(ev.agentSessionId).toBe(p['session_id']);
        n++;
      }
    }
    expect(n).toBeGreaterThan(50);
  });

  it('a payload over BATON_HOOK_MAX_BYTES is skipped unread and logged', async () => {
    const w = await workspace();
    const r = await hookInProcess('claude', fixture('claude', 'PostToolUse-Write', w.dir), w.dir, {
      BATON_HOOK_MAX_BYTES: '100',
    });
    expect(r).toEqual({ code: 0, stdout: '' });
    expect(hookLog(w.dir).map((l) => l.code)).toEqual(['PAYLOAD_TOO_LARGE']);
  });

  it('the briefing stays within BATON_HOOK_BRIEFING_CHARS, cut by whole lines', async () => {
    const w = await workspace();
    const m = w.m();
    for (let i = 0; i < 40; i++)
      await m.error('hooked', { phase: 'build', type: 'tool', message: `failure number ${i} ${'x'.repeat(60)}` });
    await m.store.close();
    const r = await hookInProcess('claude', fixture('claude', 'SessionStart', w.dir), w.dir, {
      BATON_HOOK_BRIEFING_CHARS: '1200',
    });
    const ctx = (JSON.parse(r.stdout) as { hookSpecificOutput: { additionalContext: string } }).hookSpecificOutput
      .additionalContext;
    expect(ctx.length).toBeLessThanOrEqual(1200);
    expect(ctx).toMatch(/… \d+ more lines: run `baton resume` for the full plan\.\n$/);
    expect(ctx).toContain('err-1 tool: failure number 0');
  });
});
