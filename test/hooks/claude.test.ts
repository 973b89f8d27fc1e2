/** What each Claude Code hook event records (payloads: test/fixtures/hooks/claude/). */
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { ROOT, hookLog, runFixture, sha, workspace } from './helpers.js';

const run = (name: string, dir: string, env: Record<string, string> = {}): Promise<string> =>
  runFixture('claude', name, dir, env);

describe('claude hooks', () => {
  it('SessionStart binds the conversation and returns the briefing as additionalContext', async () => {
    const w = await workspace();
    const out = await run('SessionStart', w.dir);
    const json = JSON.parse(out) as { hookSpecificOutput: { hookEventName: string; additionalContext: string } };
    expect(json.hookSpecificOutput.hookEventName).toBe('SessionStart');
    expect(json.hookSpecificOutput.additionalContext).toContain('baton session hooked');
    expect(json.hookSpecificOutput.additionalContext).toContain('phase build (Build)');
    const s = await w.m().get('hooked');
    expect(s.agentSessions).toEqual([
      expect.objectContaining({
        cli: 'claude',
        agentSessionId: '11111111-aaaa-4bbb-8ccc-000000000001',
        model: 'claude-sonnet-4-5',
        transcriptPath: `${w.dir}/.claude-transcript.jsonl`,
        ended: null,
      }),
    ]);
  });

  it('UserPromptSubmit stores nothing, unless prompts are opted in', async () => {
    const w = await workspace();
    await run('UserPromptSubmit', w.dir);
    const before = await w.m().get('hooked');
    expect(before.notes).toEqual([]);
    expect(before.agentSessions).toBeUndefined();
    await run('UserPromptSubmit', w.dir, { BATON_HOOK_CAPTURE: 'prompts' });
    const after = await w.m().get('hooked');
    expect(after.notes.map((n) => n.text)).toEqual(['prompt: Add a greeting module']);
  });

  it('PostToolUse Write records the file with its hash on the phase in progress', async () => {
    const w = await workspace();
    fs.mkdirSync(path.join(w.dir, 'src'), { recursive: true });
    fs.writeFileSync(path.join(w.dir, 'src', 'greet.txt'), 'hello\n');
    await run('PostToolUse-Write', w.dir);
    const s = await w.m().get('hooked');
    const build = s.phases.find((p) => p.id === 'build')!;
    expect(build.files).toEqual([
      expect.objectContaining({
        path: 'src/greet.txt',
        action: 'created',
        sha256: sha('hello\n'),
        size: 6,
        agent: 'claude',
      }),
    ]);
    // The tool is kept on the record, so a trace shows the call (docs/telemetry.md).
    const rec = (await w.m().log('hooked')).find((e) => e.type === 'file.recorded')!;
    expect(rec.data).toMatchObject({ path: 'src/greet.txt', tool: 'Write' });
  });

  it('PostToolUse Edit, MultiEdit and NotebookEdit record their files (an edit of a known file is modified)', async () => {
    const w = await workspace();
    fs.writeFileSync(path.join(w.dir, 'src', 'greet.txt'), 'hello\n');
    await run('PostToolUse-Write', w.dir);
    fs.writeFileSync(path.join(w.dir, 'src', 'greet.txt'), 'hello, world\n');
    await run('PostToolUse-Edit', w.dir);
    fs.writeFileSync(path.join(w.dir, 'src', 'multi.txt'), 'b\n');
    await run('PostToolUse-MultiEdit', w.dir);
    fs.writeFileSync(path.join(w.dir, 'nb.ipynb'), '{}\n');
    await run('PostToolUse-NotebookEdit', w.dir);
    const files = (await w.m().get('hooked')).phases[0]!.files;
    expect(files.map((f) => [f.path, f.action, f.sha256])).toEqual([
      ['src/greet.txt', 'modified', sha('hello, world\n')],
      ['src/multi.txt', 'modified', sha('b\n')],
      ['nb.ipynb', 'modified', sha('{}\n')],
    ]);
  });

  it('a file written inside a sub-agent is attributed to the sub-agent', async () => {
    const w = await workspace();
    fs.writeFileSync(path.join(w.dir, 'src', 'sub.txt'), 'from the sub-agent\n');
    await run('PostToolUse-Write-subagent', w.dir);
    const f = (await w.m().get('hooked')).phases[0]!.files[0]!;
    expect(f.agent).toBe('claude/general-purpose#a1b2c3d4');
  });

  it('PostToolUse TodoWrite records the steps of the phase and the step in progress as its sub-step', async () => {
    const w = await workspace();
    await run('PostToolUse-TodoWrite', w.dir);
    const s = await w.m().get('hooked');
    const build = s.phases[0]!;
    expect(build.steps).toEqual([
      { name: 'Write the greeting', status: 'completed' },
      { name: 'Test the greeting', status: 'in_progress' },
      { name: 'Document it', status: 'pending' },
    ]);
    expect(build.subStep).toBe('Test the greeting');
    // The same list again changes nothing.
    await run('PostToolUse-TodoWrite', w.dir);
    expect((await w.m().get('hooked')).revision).toBe(s.revision);
  });

  it('PostToolUse of another tool (Bash) records nothing and does not open the store', async () => {
    const w = await workspace();
    const before = (await w.m().get('hooked')).revision;
    await run('PostToolUse-Bash', w.dir);
    expect((await w.m().get('hooked')).revision).toBe(before);
  });

  it('PostToolUseFailure records an error of type tool on the phase in progress', async () => {
    const w = await workspace();
    await run('PostToolUseFailure', w.dir);
    const errors = (await w.m().get('hooked')).phases[0]!.errors;
    expect(errors).toEqual([
      expect.objectContaining({
        id: 'err-1',
        type: 'tool',
        message: 'Bash: Command failed with exit code 1: 3 tests failed',
        agent: 'claude',
        resolved: false,
      }),
    ]);
  });

  it('SubagentStart and SubagentStop record the sub-agent as an agent of the phase in progress', async () => {
    const w = await workspace();
    await run('SubagentStart', w.dir);
    await run('SubagentStop', w.dir);
    const s = await w.m().get('hooked');
    expect(s.phases[0]!.agents).toContain('claude/general-purpose#a1b2c3d4');
    expect(s.subagents).toEqual([
      expect.objectContaining({
        agentId: 'a1b2c3d4e5f6',
        agentType: 'general-purpose',
        phaseId: 'build',
        stoppedAt: expect.any(String),
      }),
    ]);
  });

  it('Stop records files changed by shell commands (git status + hashes) and leaves known ones alone', async () => {
    const w = await workspace();
    await run('SessionStart', w.dir);
    fs.writeFileSync(path.join(w.dir, 'src', 'greet.txt'), 'hello\n');
    await run('PostToolUse-Write', w.dir);
    fs.writeFileSync(path.join(w.dir, 'shell-made.txt'), 'by sed\n');
    fs.writeFileSync(path.join(w.dir, 'README.md'), 'changed by a shell\n');
    fs.rmSync(path.join(w.dir, 'old.txt'));
    await run('Stop', w.dir);
    const files = (await w.m().get('hooked')).phases[0]!.files;
    expect(Object.fromEntries(files.map((f) => [f.path, [f.action, f.sha256]]))).toEqual({
      'src/greet.txt': ['created', sha('hello\n')],
      'shell-made.txt': ['created', sha('by sed\n')],
      'README.md': ['modified', sha('changed by a shell\n')],
      'old.txt': ['deleted', null],
    });
    const rev = (await w.m().get('hooked')).revision;
    await run('Stop', w.dir);
    expect((await w.m().get('hooked')).revision).toBe(rev);
  });

  it('Stop leaves alone what was already changed before the conversation started', async () => {
    const w = await workspace();
    fs.writeFileSync(path.join(w.dir, 'README.md'), "the user's own edit\n");
    await run('SessionStart', w.dir);
    await run('Stop', w.dir);
    expect((await w.m().get('hooked')).phases[0]!.files).toEqual([]);
    // Touched (rewritten with the same bytes, a later mtime): still the user's, by content.
    const later = new Date(Date.now() + 60_000);
    fs.writeFileSync(path.join(w.dir, 'README.md'), "the user's own edit\n");
    fs.utimesSync(path.join(w.dir, 'README.md'), later, later);
    await run('Stop', w.dir);
    expect((await w.m().get('hooked')).phases[0]!.files).toEqual([]);
    // Its content changed since the conversation began: the agent's work.
    fs.writeFileSync(path.join(w.dir, 'README.md'), 'changed by the agent\n');
    await run('Stop', w.dir);
    expect((await w.m().get('hooked')).phases[0]!.files.map((f) => [f.path, f.action, f.sha256])).toEqual([
      ['README.md', 'modified', sha('changed by the agent\n')],
    ]);
  });

  it('PreCompact takes a checkpoint and writes a fresh handoff', async () => {
    const w = await workspace();
    await run('PreCompact', w.dir);
    const s = await w.m().get('hooked');
    expect(s.checkpoints?.map((c) => c.name)).toEqual(['before compaction (claude, auto)']);
    const handoff = fs.readFileSync(path.join(w.dir, '.baton', 'sessions', 'hooked', 'handoff.md'), 'utf8');
    expect(handoff).toContain('# Handoff: hooked work');
  });

  it('SessionEnd pauses the session (agent-session-end and the reason) and marks the conversation ended', async () => {
    const w = await workspace();
    await run('SessionStart', w.dir);
    await run('SessionEnd', w.dir);
    const s = await w.m().get('hooked');
    expect(s.status).toBe('paused');
    expect(s.statusCause).toEqual(
      expect.objectContaining({
        cause: 'agent-session-end',
        detail: expect.stringMatching(/^prompt_input_exit; claude conversation 11111111/),
      }),
    );
    // The conversation was a run, ended by its SessionEnd (the session paused: it was the last live run).
    expect(s.runs?.map((r) => [r.kind, r.ended?.how, r.ended?.cause])).toEqual([
      ['conversation', 'finished', 'agent-session-end'],
    ]);
    expect(s.agentSessions![0]!.ended).toEqual(expect.objectContaining({ reason: 'prompt_input_exit' }));
    expect(hookLog(w.dir).map((l) => l.code)).toEqual(['SESSION_START', 'SESSION_END']);
  });

  it('SessionStart (resume) after SessionEnd reopens the session; the briefing names the step to resume at', async () => {
    const w = await workspace();
    await run('SessionStart', w.dir);
    await run('PostToolUse-TodoWrite', w.dir);
    await run('SessionEnd', w.dir);
    const out = await run('SessionStart-resume', w.dir);
    const ctx = (JSON.parse(out) as { hookSpecificOutput: { additionalContext: string } }).hookSpecificOutput
      .additionalContext;
    expect(ctx).toContain('resume at step "Test the greeting"');
    expect(ctx).toContain('This is a resume of the conversation');
    expect((await w.m().get('hooked')).status).toBe('active');
  });

  it("Stop reads the tokens of the transcript once; SubagentStop reads the sub-agent's for the sub-agent", async () => {
    const w = await workspace();
    const tx = path.join(ROOT, 'test', 'fixtures', 'transcripts');
    fs.copyFileSync(path.join(tx, 'claude-main.jsonl'), path.join(w.dir, '.claude-transcript.jsonl'));
    fs.copyFileSync(
      path.join(tx, 'claude-subagent.jsonl'),
      path.join(w.dir, '.claude-transcript', 'subagents', 'agent-a1b2c3d4e5f6.jsonl'),
    );
    await run('SubagentStop', w.dir);
    await run('Stop', w.dir);
    const s = await w.m().get('hooked');
    expect(s.tokens.byAgent).toEqual({
      claude: expect.objectContaining({ input: 2222, output: 88, cached: 666 }),
      'claude/general-purpose#a1b2c3d4': expect.objectContaining({ input: 2222, output: 88, cached: 666 }),
    });
    expect(s.tokens.byPhase['build']).toEqual(expect.objectContaining({ input: 4444, output: 176 }));
    await run('Stop', w.dir);
    await run('PreCompact', w.dir);
    await run('SessionEnd', w.dir);
    expect((await w.m().get('hooked')).tokens.input).toBe(4444);
  });

  it('sub-agent transcript lines written after SubagentStop are read at Stop, once', async () => {
    const w = await workspace();
    const tx = path.join(ROOT, 'test', 'fixtures', 'transcripts');
    const sub = path.join(w.dir, '.claude-transcript', 'subagents', 'agent-a1b2c3d4e5f6.jsonl');
    // Claude Code appends the sub-agent's last response after SubagentStop has run.
    const lines = fs.readFileSync(path.join(tx, 'claude-subagent.jsonl'), 'utf8').split('\n');
    const late = lines.map((l) => l.includes('"usage"')).lastIndexOf(true);
    fs.writeFileSync(sub, `${lines.slice(0, late).join('\n')}\n`);
    await run('SubagentStop', w.dir);
    const early = (await w.m().get('hooked')).tokens.byAgent['claude/general-purpose#a1b2c3d4'];
    expect(early?.output ?? 0).toBeLessThan(88);
    fs.appendFileSync(sub, lines.slice(late).join('\n'));
    await run('Stop', w.dir);
    await run('Stop', w.dir);
    await run('SessionEnd', w.dir);
    expect((await w.m().get('hooked')).tokens.byAgent['claude/general-purpose#a1b2c3d4']).toEqual(
      expect.objectContaining({ input: 2222, output: 88, cached: 666 }),
    );
  });

  it('PreToolUse is ignored: nothing recorded, nothing printed', async () => {
    const w = await workspace();
    const before = (await w.m().get('hooked')).revision;
    expect(await run('PreToolUse', w.dir)).toBe('');
    expect((await w.m().get('hooked')).revision).toBe(before);
  });
});
