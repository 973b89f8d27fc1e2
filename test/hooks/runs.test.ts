/**
 * Agent CLI conversations as runs, with played hook payloads: two real long-lived processes
 * stand in as the two CLIs (BATON_HOOK_AGENT_PID names each conversation's process, as the
 * hook finds it walking up from its parent). Each conversation takes its own phase through
 * its shell tool; files, steps and tokens land on its phase; a file written by both warns
 * the second and is recorded; the first to end leaves the session active; a conversation
 * killed without SessionEnd is found dead by the next hook and named in the next briefing.
 * Also: a conversation in a sibling git worktree records into the main work tree's session.
 */
import { execFileSync, spawn, spawnSync } from 'node:child_process';
import type { ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import type { Json } from '../../src/hooks/model.js';
import { BATON, fixture, hookEnv, hookInProcess, hookLog, tempDir, workspace } from './helpers.js';

const A = 'aaaaaaaa-1111-4aaa-8aaa-000000000001';
const B = 'bbbbbbbb-2222-4bbb-8bbb-000000000002';
const C = 'cccccccc-3333-4ccc-8ccc-000000000003';

const procs: ChildProcess[] = [];
/** A real process that lives until killed: it stands in for an agent CLI. */
function cliProcess(): ChildProcess {
  const p = spawn('sleep', ['600'], { stdio: 'ignore' });
  procs.push(p);
  return p;
}
afterAll(() => {
  for (const p of procs) p.kill('SIGKILL');
});

/** A Claude Code payload of conversation `sid` (its transcript in the work tree). */
function payload(dir: string, sid: string, event: string, extra: Json = {}): Json {
  return {
    session_id: sid,
    transcript_path: path.join(dir, `.claude-${sid.slice(0, 4)}.jsonl`),
    cwd: dir,
    permission_mode: 'default',
    hook_event_name: event,
    ...extra,
  };
}

/** One transcript line of a response with its usage, as Claude Code writes it. */
function usageLine(id: string, input: number, output: number): string {
  return `${JSON.stringify({ type: 'assistant', requestId: `req_${id}`, message: { id: `msg_${id}`, model: 'claude-sonnet-4-5', role: 'assistant', content: [{ type: 'text', text: 'ok' }], usage: { input_tokens: input, output_tokens: output, cache_read_input_tokens: 0, cache_creation_input_tokens: 0 } } })}\n`;
}

describe('two conversations at once, each a run on its own phase', () => {
  it('files, steps and tokens land on each run’s phase; a file written by both is a conflict; the first end leaves the session active; a killed one is found dead', async () => {
    const w = await workspace({ start: false });
    const m0 = w.m();
    await m0.start({
      title: 'team',
      id: 'team',
      phases: [
        { id: 'backend', name: 'Backend' },
        { id: 'frontend', name: 'Frontend' },
      ],
    });
    await m0.store.close();
    const [pa, pb, pc] = [cliProcess(), cliProcess(), cliProcess()];
    const envA = { BATON_HOOK_AGENT_PID: String(pa.pid) };
    const envB = { BATON_HOOK_AGENT_PID: String(pb.pid) };
    const hook = async (sid: string, env: Record<string, string>, event: string, extra: Json = {}) =>
      hookInProcess('claude', payload(w.dir, sid, event, extra), w.dir, env);
    for (const sid of [A, B]) fs.writeFileSync(path.join(w.dir, `.claude-${sid.slice(0, 4)}.jsonl`), '');
    fs.appendFileSync(path.join(w.dir, '.git', 'info', 'exclude'), '.claude-*\n');

    await hook(A, envA, 'SessionStart', { source: 'startup' });
    const startB = await hook(B, envB, 'SessionStart', { source: 'startup' });
    // B's briefing names the other live conversation.
    const briefB = (JSON.parse(startB.stdout) as { hookSpecificOutput: { additionalContext: string } })
      .hookSpecificOutput.additionalContext;
    expect(briefB).toContain('Other agents working now');
    expect(briefB).toContain(`claude conversation aaaaaaaa (claude-${A}, pid ${pa.pid}`);
    // Each model starts its phase through its shell tool: the command ran (as `baton phase start`), then its PostToolUse.
    // B claims the first free phase without naming it: the run takes the phase the command started.
    for (const [sid, env, phase, command] of [
      [A, envA, 'backend', 'baton phase start backend'],
      [B, envB, 'frontend', 'baton phase claim'],
    ] as const) {
      const m = w.m();
      await m.phase('team', phase, 'start');
      await m.store.close();
      await hook(sid, env, 'PostToolUse', {
        tool_name: 'Bash',
        tool_input: { command, description: 'take my phase' },
        tool_response: { stdout: `Started ${phase}`, stderr: '', interrupted: false },
        tool_use_id: `toolu_${phase}`,
      });
    }
    let s = await w.m().get('team');
    const runA = s.runs!.find((r) => r.agentSessionId === A)!;
    const runB = s.runs!.find((r) => r.agentSessionId === B)!;
    expect([runA.kind, runA.process.pid, runB.process.pid]).toEqual(['conversation', pa.pid, pb.pid]);
    expect(s.phases.map((p) => [p.id, p.status, p.owner])).toEqual([
      ['backend', 'in_progress', runA.id],
      ['frontend', 'in_progress', runB.id],
    ]);

    // Files, a plan and tokens of each conversation.
    const write = async (sid: string, env: Record<string, string>, rel: string, text: string) => {
      fs.writeFileSync(path.join(w.dir, rel), text);
      return hook(sid, env, 'PostToolUse', {
        tool_name: 'Write',
        tool_input: { file_path: path.join(w.dir, rel), content: text },
        tool_response: { type: 'create', filePath: path.join(w.dir, rel) },
        tool_use_id: `toolu_${rel}`,
      });
    };
    await write(A, envA, 'src/api.ts', 'api\n');
    await write(B, envB, 'src/ui.ts', 'ui\n');
    await hook(A, envA, 'PostToolUse', {
      tool_name: 'TaskCreate',
      tool_input: { subject: 'Write the API', description: 'api' },
      tool_response: { task: { id: '1', subject: 'Write the API' } },
      tool_use_id: 'toolu_t1',
    });
    await hook(B, envB, 'PostToolUse', {
      tool_name: 'TodoWrite',
      tool_input: { todos: [{ content: 'Draw the page', status: 'in_progress', activeForm: 'Drawing' }] },
      tool_response: {},
      tool_use_id: 'toolu_t2',
    });
    fs.appendFileSync(path.join(w.dir, `.claude-${A.slice(0, 4)}.jsonl`), usageLine('a1', 1000, 100));
    fs.appendFileSync(path.join(w.dir, `.claude-${B.slice(0, 4)}.jsonl`), usageLine('b1', 2000, 200));
    await hook(A, envA, 'Stop', { stop_hook_active: false });
    await hook(B, envB, 'Stop', { stop_hook_active: false });

    // B writes A's file: B is warned in its context, naming A's run and phase; the session records the conflict.
    const warned = await write(B, envB, 'src/api.ts', 'api, by the frontend\n');
    const out = JSON.parse(warned.stdout) as {
      hookSpecificOutput: { hookEventName: string; additionalContext: string };
    };
    expect(out.hookSpecificOutput.hookEventName).toBe('PostToolUse');
    expect(out.hookSpecificOutput.additionalContext).toContain(
      `src/api.ts was last written by claude conversation aaaaaaaa (${runA.id}`,
    );
    expect(out.hookSpecificOutput.additionalContext).toContain('working on phase backend');

    s = await w.m().get('team');
    const byPhase = (id: string) => s.phases.find((p) => p.id === id)!;
    expect(byPhase('backend').files.map((f) => [f.path, f.run])).toEqual([['src/api.ts', runA.id]]);
    expect(byPhase('frontend').files.map((f) => [f.path, f.run])).toEqual([
      ['src/ui.ts', runB.id],
      ['src/api.ts', runB.id],
    ]);
    expect(s.conflicts).toEqual([
      expect.objectContaining({
        path: 'src/api.ts',
        runId: runB.id,
        phaseId: 'frontend',
        otherRunId: runA.id,
        otherPhaseId: 'backend',
      }),
    ]);
    // The resume plan shows it too: the next agent checks the file before building on it.
    const mp = w.m();
    const { plan } = await mp.recovery.plan('team');
    await mp.store.close();
    expect(plan.warnings.filter((x) => x.startsWith('Conflict: '))).toEqual([
      expect.stringMatching(
        /^Conflict: src\/api\.ts was written by .*\(phase frontend\) over the work of .*\(phase backend\);/,
      ),
    ]);
    expect(byPhase('backend').steps).toEqual([{ name: 'Write the API', status: 'pending' }]);
    expect(byPhase('frontend').steps).toEqual([{ name: 'Draw the page', status: 'in_progress' }]);
    expect(s.tokens.byPhase['backend']).toMatchObject({ input: 1000, output: 100 });
    expect(s.tokens.byPhase['frontend']).toMatchObject({ input: 2000, output: 200 });

    // A ends: its run only; the session stays active while B lives.
    await hook(A, envA, 'SessionEnd', { reason: 'prompt_input_exit' });
    s = await w.m().get('team');
    expect(s.status).toBe('active');
    expect(s.runs!.find((r) => r.id === runA.id)!.ended).toMatchObject({ how: 'finished', cause: 'agent-session-end' });

    // B's CLI is killed (no SessionEnd): readers see the session interrupted at once.
    pb.kill('SIGKILL');
    await new Promise((r) => pb.once('exit', r));
    const m1 = w.m();
    expect(m1.runs.status(await m1.get('team'))).toMatchObject({ status: 'interrupted', cause: { cause: 'run-died' } });
    await m1.store.close();
    // So do the commands that read the session on this host (before anything is written).
    for (const args of [
      ['status', '--json'],
      ['resume', '--json'],
    ]) {
      const r = spawnSync(process.execPath, [BATON, ...args], {
        cwd: w.dir,
        encoding: 'utf8',
        env: hookEnv() as NodeJS.ProcessEnv,
      });
      const v = JSON.parse(r.stdout) as {
        status: string;
        cause?: { cause: string; detail: string } | null;
        statusCause?: { cause: string; detail: string } | null;
      };
      expect([args[0], v.status, (v.cause ?? v.statusCause)?.cause], r.stderr).toEqual([
        args[0],
        'interrupted',
        'run-died',
      ]);
      expect((v.cause ?? v.statusCause)?.detail).toContain(`claude conversation bbbbbbbb (${runB.id}`);
    }
    // A third conversation's first hook records the death and is told about it in its briefing.
    const r = await hook(C, { BATON_HOOK_AGENT_PID: String(pc.pid) }, 'SessionStart', { source: 'startup' });
    s = await w.m().get('team');
    expect(s.runs!.find((x) => x.id === runB.id)!.ended).toMatchObject({ how: 'died', cause: 'process-gone' });
    expect(s.status).toBe('active');
    const briefing = (JSON.parse(r.stdout) as { hookSpecificOutput: { additionalContext: string } }).hookSpecificOutput
      .additionalContext;
    expect(briefing).toContain(`A run died: claude conversation bbbbbbbb (${runB.id}`);
    expect(briefing).toContain('on phase frontend, step "Draw the page"; files it wrote last: src/ui.ts, src/api.ts');
    expect(briefing).toContain('resume at step "Draw the page"');
    expect(hookLog(w.dir).filter((l) => l.level === 'error')).toEqual([]);
  });
});

describe('BATON_PHASE in the CLI’s environment', () => {
  it('the run takes that phase when it starts (read from /proc/<cli pid>/environ), and records go there', async () => {
    const w = await workspace();
    // As `baton run --phase test -- claude …` would start it: the hook's own environment does not have it.
    const cli = spawn('sleep', ['600'], { stdio: 'ignore', env: { ...process.env, BATON_PHASE: 'test' } });
    procs.push(cli);
    fs.writeFileSync(path.join(w.dir, 'src', 'greet.txt'), 'hello\n');
    await hookInProcess('claude', fixture('claude', 'PostToolUse-Write', w.dir), w.dir, {
      BATON_HOOK_AGENT_PID: String(cli.pid),
    });
    const s = await w.m().get('hooked');
    const run = s.runs![0]!;
    expect(s.phases.map((p) => [p.id, p.status, p.owner ?? null])).toEqual([
      ['build', 'in_progress', null],
      ['test', 'in_progress', run.id],
    ]);
    expect(s.phases[1]!.files.map((f) => f.path)).toEqual(['src/greet.txt']);
    expect(s.phases[0]!.files).toEqual([]);
  });
});

describe('a conversation in a sibling git worktree', () => {
  it('records into the main work tree’s store and session; its run names the worktree', async () => {
    const w = await workspace();
    const wt = path.join(tempDir('baton-wt-'), 'sibling');
    execFileSync('git', ['worktree', 'add', '-q', wt], { cwd: w.dir });
    fs.writeFileSync(path.join(wt, 'src', 'from-worktree.txt'), 'hi\n');
    const p = fixture('claude', 'PostToolUse-Write', wt);
    const r = await hookInProcess(
      'claude',
      {
        ...p,
        transcript_path: null,
        tool_input: { file_path: path.join(wt, 'src', 'from-worktree.txt'), content: 'hi\n' },
      },
      wt,
    );
    expect(r.code).toBe(0);
    expect(fs.existsSync(path.join(wt, '.baton'))).toBe(false);
    const s = await w.m().get('hooked');
    expect(s.phases[0]!.files.map((f) => f.path)).toEqual([path.join(wt, 'src', 'from-worktree.txt')]);
    expect(s.runs?.map((x) => [x.kind, x.worktree])).toEqual([['conversation', wt]]);
    // Every command run in the worktree finds the main work tree's store too.
    const st = spawnSync(process.execPath, [BATON, 'status', '--json'], {
      cwd: wt,
      encoding: 'utf8',
      env: hookEnv() as NodeJS.ProcessEnv,
    });
    expect([st.status, (JSON.parse(st.stdout) as { id: string }).id], st.stderr).toEqual([0, 'hooked']);
    expect(hookLog(w.dir).filter((l) => l.level !== 'info')).toEqual([]);
  });
});
