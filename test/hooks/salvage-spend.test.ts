/**
 * Cost counted right when a conversation dies: its CLI process is really killed mid-turn (no
 * Stop, no SubagentStop, no SessionEnd). The next conversation's first hook finds it dead and
 * salvages it: the sub-agent's transcript is read to its end under the sub-agent's name, the
 * main transcript's response that was cut mid-stream is counted as a lower bound and marked
 * so, and `baton tokens` says "at least".
 */
import { spawn } from 'node:child_process';
import type { ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { tokensLowerBound } from '../../src/domain/spend/spend-views.js';
import { runInProcess } from '../cli/helpers.js';
import { hookEnv, hookInProcess, workspace } from './helpers.js';

type Json = Record<string, unknown>;
const A = 'aaaaaaaa-1111-4aaa-8aaa-000000000001';
const C = 'cccccccc-3333-4ccc-8ccc-000000000003';
const SUB = 'a1b2c3d4e5f60718';

const procs: ChildProcess[] = [];
afterAll(() => {
  for (const p of procs) p.kill('SIGKILL');
});

/** A Claude Code `assistant` line; `stop: null` is a line written before the stream's final usage. */
function line(id: string, input: number, output: number, stop: string | null = 'end_turn'): string {
  return `${JSON.stringify({
    type: 'assistant',
    timestamp: '2026-11-28T10:00:00.000Z',
    requestId: `req_${id}`,
    message: {
      id: `msg_${id}`,
      model: 'claude-sonnet-4-5',
      role: 'assistant',
      stop_reason: stop,
      content: [{ type: 'text', text: 'ok' }],
      usage: { input_tokens: input, output_tokens: output, cache_read_input_tokens: 0, cache_creation_input_tokens: 0 },
    },
  })}\n`;
}

describe('a conversation killed mid-turn', () => {
  it('salvage reads its sub-agent’s transcript to the end and counts the cut response as a lower bound', async () => {
    const w = await workspace();
    const transcript = path.join(w.dir, `.claude-${A}.jsonl`);
    const subFile = path.join(w.dir, `.claude-${A}`, 'subagents', `agent-${SUB}.jsonl`);
    fs.appendFileSync(path.join(w.dir, '.git', 'info', 'exclude'), '.claude-*\n');
    fs.writeFileSync(transcript, '');
    const cli = spawn('sleep', ['600'], { stdio: 'ignore' });
    procs.push(cli);
    const env = { BATON_HOOK_AGENT_PID: String(cli.pid) };
    const payload = (sid: string, event: string, extra: Json = {}): Json => ({
      session_id: sid,
      transcript_path: sid === A ? transcript : path.join(w.dir, `.claude-${sid}.jsonl`),
      cwd: w.dir,
      permission_mode: 'default',
      hook_event_name: event,
      ...extra,
    });
    await hookInProcess('claude', payload(A, 'SessionStart', { source: 'startup' }), w.dir, env);
    await hookInProcess(
      'claude',
      payload(A, 'SubagentStart', { agent_id: SUB, agent_type: 'general-purpose' }),
      w.dir,
      env,
    );
    // The turn goes on: a complete response, the sub-agent working, then a response cut mid-stream.
    fs.mkdirSync(path.dirname(subFile), { recursive: true });
    fs.writeFileSync(subFile, line('sub1', 3000, 300) + line('sub2', 4000, 400));
    fs.appendFileSync(transcript, line('main1', 1000, 100) + line('main2', 2000, 1, null));
    cli.kill('SIGKILL');
    await new Promise((r) => cli.once('exit', r));

    // Another conversation starts: its first hook finds the dead run and salvages it.
    const other = spawn('sleep', ['600'], { stdio: 'ignore' });
    procs.push(other);
    fs.writeFileSync(path.join(w.dir, `.claude-${C}.jsonl`), '');
    await hookInProcess('claude', payload(C, 'SessionStart', { source: 'startup' }), w.dir, {
      BATON_HOOK_AGENT_PID: String(other.pid),
    });
    const s = await w.m().get(w.id!);
    const run = s.runs!.find((r) => r.agentSessionId === A)!;
    expect(run.ended).toMatchObject({ how: 'died' });
    // 3,000 + 300 + 4,000 + 400 from the sub-agent, 1,000 + 100 + 2,000 + 1 from the conversation.
    expect(run.salvage?.tokens).toBe(10801);
    expect(s.tokens.byAgent['claude/general-purpose#a1b2c3d4']).toMatchObject({ input: 7000, output: 700 });
    expect(s.tokens.byAgent['claude']).toMatchObject({ input: 3000, output: 101 });
    expect(tokensLowerBound(s)).toEqual({ responses: 1, agents: ['claude'] });

    const r = await runInProcess(['tokens'], w.dir, hookEnv() as NodeJS.ProcessEnv);
    expect(r.stdout.split('\n')[0]).toBe(
      'Total: at least 10,000 in / 801 out / 0 cached (1 response cut before its final usage: claude)',
    );
    const json = JSON.parse((await runInProcess(['tokens', '--json'], w.dir, hookEnv() as NodeJS.ProcessEnv)).stdout);
    expect(json.lowerBound).toEqual({ responses: 1, agents: ['claude'] });
  }, 60_000);
});
