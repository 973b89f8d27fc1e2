/** Which baton session a conversation's events go to, and what the session keeps of it. */
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { spawnSync } from 'node:child_process';
import { BATON, fixture, fixtureNames, hookEnv, hookInProcess, hookLog, workspace } from './helpers.js';

describe('binding a conversation to a session', () => {
  it('BATON_SESSION wins over the active session', async () => {
    const w = await workspace();
    const m = w.m();
    await m.start({ title: 'other', id: 'other', switch: true });
    await m.store.close();
    await hookInProcess('claude', fixture('claude', 'SessionStart', w.dir), w.dir, { BATON_SESSION: 'hooked' });
    expect((await w.m().get('hooked')).agentSessions?.length).toBe(1);
    expect((await w.m().get('other')).agentSessions).toBeUndefined();
  });

  it('an earlier binding wins over the active session, even after switching', async () => {
    const w = await workspace();
    await hookInProcess('claude', fixture('claude', 'SessionStart', w.dir), w.dir);
    const m = w.m();
    await m.start({ title: 'other', id: 'other', switch: true });
    await m.store.close();
    fs.writeFileSync(path.join(w.dir, 'src', 'greet.txt'), 'hello\n');
    // The binding index is only a cache: without it, the sessions themselves are searched.
    fs.rmSync(path.join(w.dir, '.baton', 'hooks', 'bindings.json'));
    await hookInProcess('claude', fixture('claude', 'PostToolUse-Write', w.dir), w.dir);
    expect((await w.m().get('hooked')).phases.flatMap((p) => p.files)).toHaveLength(1);
    expect((await w.m().get('other')).phases.flatMap((p) => p.files)).toEqual([]);
    expect((await w.m().get('other')).looseFiles).toBeUndefined();
  });

  it('a binding to a session that has since been completed is dropped: events go to the active session', async () => {
    const w = await workspace();
    await hookInProcess('claude', fixture('claude', 'SessionStart', w.dir), w.dir);
    const m = w.m();
    await m.lifecycle('hooked', 'complete', null, { force: true });
    await m.start({ title: 'next', id: 'next', phases: [{ id: 'p', name: 'P' }] });
    await m.phase('next', 'p', 'start');
    await m.store.close();
    fs.writeFileSync(path.join(w.dir, 'src', 'greet.txt'), 'hello\n');
    const r = await hookInProcess('claude', fixture('claude', 'PostToolUse-Write', w.dir), w.dir);
    expect(r.code).toBe(0);
    expect((await w.m().get('next')).phases[0]!.files.map((f) => f.path)).toEqual(['src/greet.txt']);
    expect(hookLog(w.dir).filter((l) => l.level !== 'info')).toEqual([]);
  });

  it('with no phase in progress, files go to the session itself', async () => {
    const w = await workspace({ phases: false });
    fs.writeFileSync(path.join(w.dir, 'src', 'greet.txt'), 'hello\n');
    await hookInProcess('claude', fixture('claude', 'PostToolUse-Write', w.dir), w.dir);
    expect((await w.m().get('hooked')).looseFiles).toEqual([
      expect.objectContaining({ path: 'src/greet.txt', agent: 'claude' }),
    ]);
  });

  it('with no session, nothing is recorded and the SessionStart says so in the log', async () => {
    const w = await workspace({ start: false });
    const r = await hookInProcess('claude', fixture('claude', 'SessionStart', w.dir), w.dir);
    expect(r).toEqual({ code: 0, stdout: '' });
    expect((await w.m().list()).length).toBe(0);
    expect(hookLog(w.dir).map((l) => [l.level, l.code])).toEqual([['info', 'NO_SESSION']]);
  });

  it('BATON_HOOK_AUTOSTART=1 starts a session per conversation, which later events find again', async () => {
    const w = await workspace({ start: false });
    await hookInProcess('codex', fixture('codex', 'SessionStart', w.dir), w.dir, { BATON_HOOK_AUTOSTART: '1' });
    await hookInProcess('codex', fixture('codex', 'PostToolUse-update_plan', w.dir), w.dir, {
      BATON_HOOK_AUTOSTART: '1',
    });
    const list = await w.m().list();
    expect(list.map((s) => s.title)).toEqual(['codex conversation 22222222']);
    const s = await w.m().get(list[0]!.id);
    expect(s.steps?.length).toBe(3);
  });

  it('the resume plan (text and --json) and the handoff name the command that continues the conversation', async () => {
    const w = await workspace();
    await hookInProcess('gemini', fixture('gemini', 'SessionStart', w.dir), w.dir);
    await hookInProcess('gemini', fixture('gemini', 'AfterTool-write_todos', w.dir), w.dir);
    const m = w.m();
    const { renderResumePlan } = await import('../../src/manager/index.js');
    const { plan } = await m.recovery.plan('hooked');
    expect(plan.continueWith).toEqual([
      expect.objectContaining({
        cli: 'gemini',
        command: 'gemini --resume 33333333-cccc-4ddd-8eee-000000000003',
        ended: false,
      }),
    ]);
    expect(plan.inFlight[0]!.resumeStep).toEqual({ name: 'Write the install section', status: 'in_progress' });
    expect(renderResumePlan(plan)).toContain('  gemini --resume 33333333-cccc-4ddd-8eee-000000000003');
    const { markdown } = await m.recovery.handoff('hooked');
    expect(markdown).toContain(
      'Continue the gemini conversation: `gemini --resume 33333333-cccc-4ddd-8eee-000000000003`',
    );
    expect(markdown).toContain('[>] Write the install section  ← resume here');
  });

  it('status --json carries the conversations (with their resume command), the sub-agents and the steps; resume --json continueWith', async () => {
    const w = await workspace();
    await hookInProcess('claude', fixture('claude', 'SessionStart', w.dir), w.dir);
    await hookInProcess('claude', fixture('claude', 'SubagentStart', w.dir), w.dir);
    await hookInProcess('claude', fixture('claude', 'PostToolUse-TodoWrite', w.dir), w.dir);
    const status = JSON.parse(runCli(['status', '--json'], w.dir)) as Record<string, unknown> & {
      phases: Array<{ steps?: unknown[] }>;
    };
    expect(status['agentSessions']).toEqual([
      expect.objectContaining({
        cli: 'claude',
        agentSessionId: '11111111-aaaa-4bbb-8ccc-000000000001',
        command: 'claude --resume 11111111-aaaa-4bbb-8ccc-000000000001',
      }),
    ]);
    expect(status['subagents']).toEqual([
      expect.objectContaining({ agent: 'claude/general-purpose#a1b2c3d4', phaseId: 'build' }),
    ]);
    expect(status.phases[0]!.steps).toHaveLength(3);
    const resume = JSON.parse(runCli(['resume', '--json'], w.dir)) as {
      continueWith: Array<{ command: string }>;
      inFlight: Array<{ resumeStep: unknown }>;
    };
    expect(resume.continueWith.map((c) => c.command)).toEqual(['claude --resume 11111111-aaaa-4bbb-8ccc-000000000001']);
    expect(resume.inFlight[0]!.resumeStep).toEqual({ name: 'Test the greeting', status: 'in_progress' });
  });

  it('the payloads captured from the real CLIs record the file they wrote and the end of the conversation', async () => {
    for (const cli of ['claude', 'codex', 'gemini']) {
      const w = await workspace();
      for (const name of fixtureNames(cli)
        .filter((n) => n.startsWith('real-'))
        .sort((a, b) => order(cli, a) - order(cli, b))) {
        // The CLI (its file tool, or Codex's shell command) wrote the file before this event.
        if (name === 'real-PostToolUse' || name === 'real-AfterTool')
          fs.writeFileSync(path.join(w.dir, 'hello.txt'), 'hello from the mock model\n');
        const r = await hookInProcess(cli, fixture(cli, name, w.dir), w.dir);
        expect(r.code).toBe(0);
      }
      const s = await w.m().get('hooked');
      expect(s.phases[0]!.files.map((f) => f.path)).toEqual(['hello.txt']);
      expect(s.statusCause?.cause).toBe('agent-session-end');
      expect(s.agentSessions?.[0]?.cli).toBe(cli);
    }
  });
});

function runCli(args: string[], cwd: string): string {
  const r = spawnSync(process.execPath, [BATON, ...args], {
    cwd,
    encoding: 'utf8',
    env: hookEnv() as NodeJS.ProcessEnv,
  });
  if (r.status !== 0) throw new Error(r.stderr);
  return r.stdout;
}

/** The order the real CLIs sent their events in (file names sort otherwise). */
function order(cli: string, name: string): number {
  const seq: Record<string, string[]> = {
    claude: ['SessionStart', 'UserPromptSubmit', 'PreToolUse', 'PostToolUse', 'Stop', 'SessionEnd'],
    codex: ['SessionStart', 'UserPromptSubmit', 'PreToolUse', 'PostToolUse', 'Stop', 'SessionEnd'],
    gemini: [
      'SessionStart',
      'BeforeAgent',
      'PreCompress',
      'BeforeTool',
      'AfterTool',
      'PreCompress-2',
      'AfterAgent',
      'SessionEnd',
    ],
  };
  return seq[cli]!.indexOf(name.replace(/^real-/, ''));
}
