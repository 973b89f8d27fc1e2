/** What each Gemini CLI hook event records (payloads: test/fixtures/hooks/gemini/). */
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { runFixture, sha, workspace } from './helpers.js';

const run = (name: string, dir: string, env: Record<string, string> = {}): Promise<string> =>
  runFixture('gemini', name, dir, env);

describe('gemini hooks', () => {
  it('SessionStart returns the briefing as JSON additionalContext and binds the conversation', async () => {
    const w = await workspace();
    const out = JSON.parse(await run('SessionStart', w.dir)) as { hookSpecificOutput: { additionalContext: string } };
    expect(out.hookSpecificOutput.additionalContext).toContain('baton session hooked');
    expect((await w.m().get('hooked')).agentSessions?.[0]).toEqual(
      expect.objectContaining({ cli: 'gemini', agentSessionId: '33333333-cccc-4ddd-8eee-000000000003' }),
    );
  });

  it('every other event prints {} (stdout must be JSON) and BeforeAgent stores no prompt', async () => {
    const w = await workspace();
    const rev = (await w.m().get('hooked')).revision;
    expect(await run('BeforeAgent', w.dir)).toBe('{}\n');
    expect(await run('BeforeModel', w.dir)).toBe('{}\n');
    expect((await w.m().get('hooked')).revision).toBe(rev);
  });

  it('AfterTool write_file and replace record the file with its hash', async () => {
    const w = await workspace();
    fs.mkdirSync(path.join(w.dir, 'docs'));
    fs.writeFileSync(path.join(w.dir, 'docs', 'guide.md'), '# Guide\n');
    await run('AfterTool-write_file', w.dir);
    fs.writeFileSync(path.join(w.dir, 'docs', 'guide.md'), '# User guide\n');
    await run('AfterTool-replace', w.dir);
    const files = (await w.m().get('hooked')).phases[0]!.files;
    expect(files.map((f) => [f.path, f.action, f.sha256, f.agent])).toEqual([
      ['docs/guide.md', 'modified', sha('# User guide\n'), 'gemini'],
    ]);
  });

  it('AfterTool write_todos records the steps', async () => {
    const w = await workspace();
    await run('AfterTool-write_todos', w.dir);
    const build = (await w.m().get('hooked')).phases[0]!;
    expect(build.steps?.map((x) => x.status)).toEqual(['completed', 'in_progress', 'pending']);
    expect(build.subStep).toBe('Write the install section');
  });

  it('the write_todos AfterTool captured from the real Gemini CLI 0.61 records the steps', async () => {
    const w = await workspace();
    await run('captured-AfterTool-write_todos', w.dir);
    const build = (await w.m().get('hooked')).phases[0]!;
    expect(build.steps).toEqual([
      { name: 'Write the notes', status: 'completed' },
      { name: 'Edit the notes', status: 'in_progress' },
    ]);
    expect(build.subStep).toBe('Edit the notes');
  });

  it('AfterTool with an error records an error of type tool; a read records nothing', async () => {
    const w = await workspace();
    await run('AfterTool-read_file', w.dir);
    await run('AfterTool-error', w.dir);
    expect((await w.m().get('hooked')).phases[0]!.errors.map((e) => [e.type, e.message])).toEqual([
      ['tool', "run_shell_command: make: *** No rule to make target 'docs'"],
    ]);
  });

  it('AfterAgent is the end of a turn: shell changes are swept', async () => {
    const w = await workspace();
    await run('SessionStart', w.dir);
    fs.writeFileSync(path.join(w.dir, 'made-by-shell.txt'), 'x\n');
    await run('AfterAgent', w.dir);
    expect((await w.m().get('hooked')).phases[0]!.files.map((f) => f.path)).toEqual(['made-by-shell.txt']);
  });

  it('PreCompress takes one checkpoint, not one per turn when only tokens were recorded since; again after work', async () => {
    const w = await workspace();
    await run('PreCompress', w.dir);
    const m = w.m();
    await m.tokens('hooked', { agent: 'gemini', input: 10, output: 5 });
    await m.store.close();
    await run('PreCompress', w.dir);
    expect((await w.m().get('hooked')).checkpoints?.map((c) => c.name)).toEqual(['before compaction (gemini, auto)']);
    await run('AfterTool-write_todos', w.dir);
    await run('PreCompress', w.dir);
    expect((await w.m().get('hooked')).checkpoints).toHaveLength(2);
  });

  it('SessionEnd pauses the session with the reason', async () => {
    const w = await workspace();
    await run('SessionEnd', w.dir);
    const s = await w.m().get('hooked');
    expect([s.status, s.statusCause?.cause, s.statusCause?.detail]).toEqual(['paused', 'agent-session-end', 'exit']);
  });
});
