/** What each Codex hook event records (payloads: test/fixtures/hooks/codex/). */
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { runFixture, workspace } from './helpers.js';

const run = (name: string, dir: string, env: Record<string, string> = {}): Promise<string> =>
  runFixture('codex', name, dir, env);

describe('codex hooks', () => {
  it('SessionStart binds the conversation (with its model) and returns the briefing', async () => {
    const w = await workspace();
    const out = JSON.parse(await run('SessionStart', w.dir)) as {
      hookSpecificOutput: { hookEventName: string; additionalContext: string };
    };
    expect(out.hookSpecificOutput.hookEventName).toBe('SessionStart');
    expect(out.hookSpecificOutput.additionalContext).toContain('baton session hooked');
    expect((await w.m().get('hooked')).agentSessions).toEqual([
      expect.objectContaining({
        cli: 'codex',
        agentSessionId: '22222222-bbbb-4ccc-8ddd-000000000002',
        model: 'gpt-5.5',
      }),
    ]);
  });

  it('UserPromptSubmit stores nothing by default', async () => {
    const w = await workspace();
    const rev = (await w.m().get('hooked')).revision;
    expect(await run('UserPromptSubmit', w.dir)).toBe('');
    expect((await w.m().get('hooked')).revision).toBe(rev);
  });

  it('PostToolUse apply_patch records the files of the patch: added, updated, moved, deleted', async () => {
    const w = await workspace();
    fs.writeFileSync(path.join(w.dir, 'src', 'new.txt'), 'new file\n');
    fs.writeFileSync(path.join(w.dir, 'README.md'), 'new\n');
    fs.rmSync(path.join(w.dir, 'old.txt'));
    fs.renameSync(path.join(w.dir, 'src', 'a.txt'), path.join(w.dir, 'src', 'b.txt'));
    await run('PostToolUse-apply_patch', w.dir);
    const files = (await w.m().get('hooked')).phases[0]!.files;
    expect(Object.fromEntries(files.map((f) => [f.path, [f.action, f.sha256 !== null, f.agent]]))).toEqual({
      'src/new.txt': ['created', true, 'codex'],
      'README.md': ['modified', true, 'codex'],
      'src/b.txt': ['created', true, 'codex'],
      'old.txt': ['deleted', false, 'codex'],
      'src/a.txt': ['deleted', false, 'codex'],
    });
  });

  it('PostToolUse update_plan records the steps of the phase in progress', async () => {
    const w = await workspace();
    await run('PostToolUse-update_plan', w.dir);
    const build = (await w.m().get('hooked')).phases[0]!;
    expect(build.steps?.map((x) => `${x.status}:${x.name}`)).toEqual([
      'completed:Read the module',
      'in_progress:Split the parser',
      'pending:Run the tests',
    ]);
    expect(build.subStep).toBe('Split the parser');
  });

  it('the update_plan PostToolUse captured from the real Codex CLI 0.169 records the steps', async () => {
    const w = await workspace();
    await run('captured-PostToolUse-update_plan', w.dir);
    const build = (await w.m().get('hooked')).phases[0]!;
    expect(build.steps).toEqual([
      { name: 'Write the notes', status: 'completed' },
      { name: 'Edit the notes', status: 'in_progress' },
    ]);
    expect(build.subStep).toBe('Edit the notes');
  });

  it('PostToolUse of a shell command records nothing; its output only when opted in', async () => {
    const w = await workspace();
    const rev = (await w.m().get('hooked')).revision;
    await run('PostToolUse-Bash', w.dir);
    expect((await w.m().get('hooked')).revision).toBe(rev);
    await run('PostToolUse-Bash', w.dir, { BATON_HOOK_CAPTURE: 'tool-outputs' });
    expect((await w.m().get('hooked')).notes.map((n) => n.text)).toEqual(['Bash output: src\n']);
  });

  it('a failed tool call (success: false) is an error of type tool', async () => {
    const w = await workspace();
    await run('PostToolUse-failed', w.dir);
    expect((await w.m().get('hooked')).phases[0]!.errors).toEqual([
      expect.objectContaining({ type: 'tool', message: 'Bash: error: 2 tests failed', agent: 'codex' }),
    ]);
  });

  it('SubagentStart and SubagentStop record the sub-agent on the phase', async () => {
    const w = await workspace();
    await run('SubagentStart', w.dir);
    await run('SubagentStop', w.dir);
    const s = await w.m().get('hooked');
    expect(s.phases[0]!.agents).toContain('codex/explorer#c0dexsub');
    expect(s.subagents?.[0]).toEqual(
      expect.objectContaining({ agent: 'codex/explorer#c0dexsub', stoppedAt: expect.any(String) }),
    );
  });

  it('Stop finds a file a shell command wrote', async () => {
    const w = await workspace();
    await run('SessionStart', w.dir);
    fs.writeFileSync(path.join(w.dir, 'hello.txt'), 'echo > hello.txt\n');
    await run('Stop', w.dir);
    expect((await w.m().get('hooked')).phases[0]!.files.map((f) => [f.path, f.action, f.agent])).toEqual([
      ['hello.txt', 'created', 'codex'],
    ]);
  });

  it('PreCompact takes a checkpoint', async () => {
    const w = await workspace();
    await run('PreCompact', w.dir);
    expect((await w.m().get('hooked')).checkpoints?.map((c) => c.name)).toEqual(['before compaction (codex, auto)']);
  });

  it('SessionEnd pauses with agent-session-end and releases a lease held for the conversation', async () => {
    const w = await workspace();
    const m = w.m();
    await m.change('hooked', (s) => ({
      events: [
        {
          type: 'lease.acquired',
          data: {
            owner: 'codex:22222222-bbbb-4ccc-8ddd-000000000002',
            pid: process.pid,
            host: 'h',
            token: (s.leaseToken ?? 0) + 1,
            expiresAt: new Date(Date.now() + 60_000).toISOString(),
            takeover: false,
          },
        },
      ],
      result: undefined,
    }));
    await m.store.close();
    await run('SessionEnd', w.dir);
    const s = await w.m().get('hooked');
    expect(s.lease).toBeNull();
    expect(s.statusCause).toEqual(expect.objectContaining({ cause: 'agent-session-end', detail: 'other' }));
  });

  it('PreToolUse is ignored', async () => {
    const w = await workspace();
    const rev = (await w.m().get('hooked')).revision;
    await run('PreToolUse', w.dir);
    expect((await w.m().get('hooked')).revision).toBe(rev);
  });
});
