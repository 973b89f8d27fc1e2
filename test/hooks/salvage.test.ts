/**
 * Salvage from transcripts and Claude Code's task tools, on what the real CLIs wrote: the
 * tool calls of each CLI's transcript, the plan folded from TaskCreate / TaskUpdate /
 * TaskList, the last tool calls; the captured Task* payloads played through the hook become
 * the phase's steps; a shell command naming `baton phase start|claim`.
 */
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { phaseFromCommand } from '../../src/domain/runs/conversation-runs.js';
import {
  foldTasks,
  lastPlan,
  lastTools,
  transcriptCalls,
  writtenFiles,
} from '../../src/domain/agents/transcript-salvage.js';
import { FIXTURES, ROOT, fixture, hookInProcess, workspace } from './helpers.js';

const transcript = (name: string): string[] =>
  fs.readFileSync(path.join(ROOT, 'test', 'fixtures', 'transcripts', name), 'utf8').split('\n');

describe('what a transcript still tells', () => {
  it('Claude Code 2.1 (captured): the plan is the fold of its task tools; the last tool calls and files', () => {
    const calls = transcriptCalls('claude', transcript('claude-tasks.jsonl'));
    expect(calls.map((c) => c.tool)).toEqual([
      'TaskCreate',
      'TaskCreate',
      'TaskUpdate',
      'Write',
      'TaskUpdate',
      'TaskUpdate',
      'TaskList',
      'Bash',
    ]);
    expect(lastPlan(calls)).toEqual([
      { name: 'Write the parser', status: 'completed' },
      { name: 'Write the tests', status: 'in_progress' },
    ]);
    // Without TaskList (a transcript cut before it), the fold of creates and updates says the same.
    expect(foldTasks(calls.filter((c) => c.tool !== 'TaskList'))).toEqual(lastPlan(calls));
    expect(lastTools(calls, 2)).toEqual(['TaskList', 'Bash `echo $PPID; cat /proc/$PPID/comm`']);
    expect(writtenFiles(calls)).toEqual(['undefined/parser.txt']);
  });

  it('a call whose result was never written (the CLI was killed) is marked so; a deleted task leaves the plan', () => {
    const lines = transcript('claude-tasks.jsonl');
    const cut = lines.findIndex((l) => l.includes('"toolu_msg_6"') && l.includes('"tool_result"'));
    const calls = transcriptCalls('claude', lines.slice(0, cut));
    expect(lastTools(calls, 1)).toEqual(['TaskUpdate (no result)']);
    // Its input was written: the plan counts the change (the CLI made it before the result line).
    expect(lastPlan(calls)).toEqual([
      { name: 'Write the parser', status: 'completed' },
      { name: 'Write the tests', status: 'in_progress' },
    ]);
    const plan = foldTasks([
      ...calls,
      { id: 'x', tool: 'TaskUpdate', input: { taskId: '1', status: 'deleted' }, response: null },
    ]);
    expect(plan).toEqual([{ name: 'Write the tests', status: 'in_progress' }]);
  });

  it('Codex and Gemini CLI transcripts (captured): their tool calls', () => {
    expect(
      transcriptCalls('codex', transcript('codex-rollout.jsonl')).map((c) => [c.tool, c.response !== null]),
    ).toEqual([['exec_command', true]]);
    const gemini = transcriptCalls('gemini', transcript('gemini-chat.jsonl'));
    expect(gemini.map((c) => c.tool)).toEqual(['write_file']);
    expect(lastTools(gemini)[0]).toMatch(/^write_file \/.*hello\.txt$/);
  });

  it('update_plan and write_todos as the real CLIs wrote them (captured) are the plan', () => {
    const plan = [
      { name: 'Write the notes', status: 'completed' },
      { name: 'Edit the notes', status: 'in_progress' },
    ];
    const codex = transcriptCalls('codex', transcript('codex-update-plan.jsonl'));
    expect(codex.map((c) => [c.tool, c.response !== null])).toEqual([['update_plan', true]]);
    expect(lastPlan(codex)).toEqual(plan);
    const gemini = transcriptCalls('gemini', transcript('gemini-write-todos.jsonl'));
    expect(gemini.map((c) => c.tool)).toEqual(['write_todos']);
    expect(lastPlan(gemini)).toEqual(plan);
  });

  it('update_plan and write_todos lists are the plan', () => {
    const codex = transcriptCalls('codex', [
      JSON.stringify({
        type: 'response_item',
        payload: {
          type: 'function_call',
          name: 'update_plan',
          call_id: 'c1',
          arguments: JSON.stringify({
            plan: [
              { step: 'Parse', status: 'completed' },
              { step: 'Test', status: 'in_progress' },
            ],
          }),
        },
      }),
    ]);
    expect(lastPlan(codex)).toEqual([
      { name: 'Parse', status: 'completed' },
      { name: 'Test', status: 'in_progress' },
    ]);
    const gemini = transcriptCalls('gemini', [
      JSON.stringify({
        id: 'g',
        type: 'gemini',
        toolCalls: [
          {
            id: 't1',
            name: 'write_todos',
            args: { todos: [{ description: 'Draw', status: 'in_progress' }] },
            status: 'success',
          },
        ],
      }),
    ]);
    expect(lastPlan(gemini)).toEqual([{ name: 'Draw', status: 'in_progress' }]);
  });

  it('a shell command that starts or claims a phase', () => {
    expect(phaseFromCommand('baton phase start backend')).toEqual({ verb: 'start', phase: 'backend' });
    expect(phaseFromCommand('cd x && npx baton --session s1 phase claim frontend --json')).toEqual({
      verb: 'claim',
      phase: 'frontend',
    });
    expect(phaseFromCommand('node /opt/baton/dist/baton.cjs phase start --agent me build')).toEqual({
      verb: 'start',
      phase: 'build',
    });
    expect(phaseFromCommand('baton phase claim')).toEqual({ verb: 'claim', phase: null });
    expect(phaseFromCommand('baton phase complete build')).toBeNull();
    expect(phaseFromCommand('echo baton phase start x')).toBeNull();
  });
});

describe("Claude Code's task tools through the hook", () => {
  it('the captured TaskCreate / TaskUpdate / TaskList payloads become the phase’s steps, the task in progress its sub-step', async () => {
    const w = await workspace();
    const names = [
      'TaskCreate',
      'TaskCreate2',
      'TaskUpdate-in_progress',
      'TaskUpdate-completed',
      'TaskUpdate-in_progress2',
    ];
    const seen: unknown[] = [];
    for (const n of names) {
      const p = fixture('claude', `captured-PostToolUse-${n}`, w.dir);
      // The hook folds the calls the transcript holds with this one: here the transcript is not there.
      await hookInProcess('claude', { ...p, transcript_path: path.join(w.dir, 'no-such-transcript.jsonl') }, w.dir);
      seen.push((await w.m().get('hooked')).phases[0]!.steps);
    }
    // Without a transcript, the phase's steps (in creation order) are the tasks the calls change.
    expect(seen.at(-1)).toEqual([
      { name: 'Write the parser', status: 'completed' },
      { name: 'Write the tests', status: 'in_progress' },
    ]);
    const withTranscript = await workspace();
    const t = path.join(withTranscript.dir, '.claude-transcript.jsonl');
    const lines = transcript('claude-tasks.jsonl');
    // The transcript as it stood at the last TaskUpdate's PostToolUse (its tool_use written, its result not yet).
    const cut = lines.findIndex((l) => l.includes('"toolu_msg_6"') && l.includes('"tool_result"'));
    fs.writeFileSync(t, `${lines.slice(0, cut).join('\n')}\n`);
    await hookInProcess(
      'claude',
      { ...fixture('claude', 'captured-PostToolUse-TaskUpdate-in_progress2', withTranscript.dir), transcript_path: t },
      withTranscript.dir,
    );
    const s = await withTranscript.m().get('hooked');
    expect(s.phases[0]!.steps).toEqual([
      { name: 'Write the parser', status: 'completed' },
      { name: 'Write the tests', status: 'in_progress' },
    ]);
    expect(s.phases[0]!.subStep).toBe('Write the tests');
    expect(fs.existsSync(path.join(FIXTURES, 'claude', 'captured-PostToolUse-TaskList.json'))).toBe(true);
  });
});
