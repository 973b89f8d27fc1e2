/**
 * What resuming a conversation will cost: from transcripts written here (context size at the
 * last turn, its time), through `manager.transcripts.ingest` and the resume plan, warm and cold,
 * each figure checked against a hand computation from the built-in pricing table (the numbers
 * in the comments, dollars per million tokens). Also: the lower bound a cut stream leaves.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { renderHandoff } from '../../src/domain/resume/handoff.js';
import { renderResumePlan } from '../../src/domain/resume/render-resume.js';
import { tokensLowerBound } from '../../src/domain/spend/spend-views.js';
import { SessionManager } from '../../src/manager/manager.js';
import { MemoryStore } from '../../src/store/memory.js';

const dirs: string[] = [];
afterEach(() => {
  for (const d of dirs.splice(0)) fs.rmSync(d, { recursive: true, force: true });
});

function tmp(): string {
  const d = fs.mkdtempSync(path.join(os.tmpdir(), 'baton-resume-cost-'));
  dirs.push(d);
  return d;
}

interface Turn {
  id: string;
  at: string;
  input: number;
  cacheRead: number;
  cacheWrite: number;
  output: number;
  model?: string;
  /** Cache writes that went to the one-hour cache. */
  oneHour?: boolean;
  /** null: the line was written before the final usage (a stream cut short). */
  stop?: string | null;
}

/** A Claude Code `assistant` line as Claude Code 2.1 writes it. */
function claudeLine(t: Turn): string {
  return JSON.stringify({
    type: 'assistant',
    timestamp: t.at,
    sessionId: 'c0ffee00-0000-4000-8000-000000000001',
    requestId: `req_${t.id}`,
    message: {
      id: t.id,
      role: 'assistant',
      model: t.model ?? 'claude-sonnet-4-5-20250929',
      stop_reason: t.stop === undefined ? 'end_turn' : t.stop,
      content: [{ type: 'text', text: 'ok' }],
      usage: {
        input_tokens: t.input,
        output_tokens: t.output,
        cache_read_input_tokens: t.cacheRead,
        cache_creation_input_tokens: t.cacheWrite,
        cache_creation: {
          ephemeral_5m_input_tokens: t.oneHour ? 0 : t.cacheWrite,
          ephemeral_1h_input_tokens: t.oneHour ? t.cacheWrite : 0,
        },
      },
    },
  });
}

const CLAUDE_ID = 'c0ffee00-0000-4000-8000-000000000001';

/** A manager on a memory store whose clock the test moves, with one session and one bound conversation. */
async function setup(
  cli: 'claude' | 'codex' | 'gemini',
  agentSessionId: string,
  file: string,
  env: Record<string, string> = {},
): Promise<{ m: SessionManager; at: (iso: string) => void }> {
  let now = new Date('2026-11-28T09:00:00Z');
  const m = new SessionManager({ store: new MemoryStore(), now: () => now, env });
  await m.start({ id: 's', title: 'Resume cost', phases: [{ id: 'build', name: 'Build' }] });
  await m.hooks.bind('s', { cli, agentSessionId, transcriptPath: file, model: null, cwd: null, agent: cli });
  await m.transcripts.ingest('s', { cli, path: file, agent: cli, agentSessionId });
  return {
    m,
    at: (iso) => {
      now = new Date(iso);
    },
  };
}

/** A Claude transcript whose last turn carries 45,000 tokens of context at 10:00:00 (an earlier turn had 10,000). */
function claudeTranscript(dir: string, o: { oneHour?: boolean; model?: string } = {}): string {
  const file = path.join(dir, `${CLAUDE_ID}.jsonl`);
  fs.writeFileSync(
    file,
    `${[
      claudeLine({
        id: 'msg_1',
        at: '2026-11-28T09:50:00.000Z',
        input: 9000,
        cacheRead: 0,
        cacheWrite: 800,
        output: 200,
      }),
      JSON.stringify({ type: 'user', message: { role: 'user', content: 'go on' } }),
      // 1,200 input + 40,000 cache read + 3,000 cache write + 800 output = 45,000 tokens of context.
      claudeLine({
        id: 'msg_2',
        at: '2026-11-28T10:00:00.000Z',
        input: 1200,
        cacheRead: 40000,
        cacheWrite: 3000,
        output: 800,
        ...(o.oneHour ? { oneHour: true } : {}),
        ...(o.model ? { model: o.model } : {}),
      }),
    ].join('\n')}\n`,
  );
  return file;
}

describe('resume cost: the first resumed turn, warm and cold', () => {
  it('Claude, five-minute cache: warm within five minutes of the last turn, cold after, each priced by hand', async () => {
    const file = claudeTranscript(tmp());
    const { m, at } = await setup('claude', CLAUDE_ID, file);
    // claude-sonnet-4-5: input $3, cache read $0.30, cache write (5 min) $3.75 per million.
    // warm = 45,000 × 0.30 / 1e6 = $0.0135; cold = 45,000 × 3.75 / 1e6 = $0.16875.
    at('2026-11-28T10:03:00Z');
    let { plan, state } = await m.recovery.plan('s');
    const c = plan.continueWith![0]!;
    expect(c.lastTurn).toEqual({ context: 45000, at: '2026-11-28T10:00:00.000Z', model: 'claude-sonnet-4-5-20250929' });
    expect(c.resumeCost).toMatchObject({
      tokens: 45000,
      ageSeconds: 180,
      ttlSeconds: 300,
      ttlFrom: 'default',
      cache: 'warm',
      warmUsd: 0.0135,
      coldUsd: 0.16875,
      usd: 0.0135,
    });
    expect(renderResumePlan(plan)).toContain(
      `claude --resume ${CLAUDE_ID}: about 45,000 tokens, about $0.01 if resumed now, the cache likely warm (last turn 3 min ago, cache 5 min; $0.17 once cold)`,
    );

    at('2026-11-28T10:10:00Z');
    ({ plan, state } = await m.recovery.plan('s'));
    expect(plan.continueWith![0]!.resumeCost).toMatchObject({ cache: 'cold', ageSeconds: 600, usd: 0.16875 });
    const line = `about 45,000 tokens, about $0.17 if resumed now, the cache likely cold (last turn 10 min ago; $0.01 while warm)`;
    expect(renderResumePlan(plan)).toContain(`claude --resume ${CLAUDE_ID}: ${line}`);
    // The handoff (and the dashboard, which shows it) say the same with the command.
    const { markdown } = await m.recovery.handoff('s');
    expect(markdown).toContain(`- Continue the claude conversation: \`claude --resume ${CLAUDE_ID}\`: ${line}`);
    expect(renderHandoff({ state, plan, now: m.time(), cost: null })).toContain(line);
  });

  it("a new conversation's SessionStart briefing names the earlier one with what resuming it would cost now", async () => {
    const { m, at } = await setup('claude', CLAUDE_ID, claudeTranscript(tmp()));
    at('2026-11-28T10:10:00Z');
    const other = 'c0ffee00-0000-4000-8000-000000000002';
    const a = { cli: 'claude', agentSessionId: other, transcriptPath: null, model: null, cwd: null, agent: 'claude' };
    const { briefing } = await m.hooks.sessionStart('s', a, 'startup', 20_000);
    // cold: 45,000 × $3.75 / 1e6 = $0.16875; warm: 45,000 × $0.30 / 1e6 = $0.0135.
    expect(briefing).toContain(
      `Earlier conversation: \`claude --resume ${CLAUDE_ID}\`: about 45,000 tokens, about $0.17 if resumed now, the cache likely cold (last turn 10 min ago; $0.01 while warm).`,
    );
    // The conversation being briefed is not offered to itself.
    const again = await m.hooks.sessionStart('s', { ...a, agentSessionId: CLAUDE_ID }, 'resume', 20_000);
    expect(again.briefing).not.toContain('Earlier conversation');
  });

  it('Claude, one-hour cache written (the provider says so in the usage): warm for an hour, cold at twice the input price', async () => {
    const file = claudeTranscript(tmp(), { oneHour: true });
    const { m, at } = await setup('claude', CLAUDE_ID, file);
    at('2026-11-28T10:40:00Z');
    let { plan } = await m.recovery.plan('s');
    // warm = 45,000 × 0.30 / 1e6 = $0.0135; cold (1 h write = 2 × $3) = 45,000 × 6 / 1e6 = $0.27.
    expect(plan.continueWith![0]!.resumeCost).toMatchObject({
      ttlSeconds: 3600,
      ttlFrom: 'transcript',
      cache: 'warm',
      usd: 0.0135,
      coldUsd: 0.27,
    });
    at('2026-11-28T11:30:00Z');
    ({ plan } = await m.recovery.plan('s'));
    expect(plan.continueWith![0]!.resumeCost).toMatchObject({ cache: 'cold', ageSeconds: 5400, usd: 0.27 });
  });

  it('BATON_CACHE_TTL sets the time to live per CLI; a bad value is named in a warning, the plan still built', async () => {
    const file = claudeTranscript(tmp());
    const { m, at } = await setup('claude', CLAUDE_ID, file, { BATON_CACHE_TTL: 'codex=5m,claude=1h' });
    at('2026-11-28T10:10:00Z');
    const { plan } = await m.recovery.plan('s');
    expect(plan.continueWith![0]!.resumeCost).toMatchObject({
      ttlSeconds: 3600,
      ttlFrom: 'setting',
      cache: 'warm',
      usd: 0.0135,
      coldUsd: 0.27,
    });

    const bad = await setup('claude', CLAUDE_ID, claudeTranscript(tmp()), { BATON_CACHE_TTL: 'soon' });
    const r = await bad.m.recovery.plan('s');
    expect(r.plan.continueWith![0]!.resumeCost).toBeUndefined();
    expect(r.plan.warnings.join('\n')).toContain('BATON_CACHE_TTL is not a cache time to live: "soon"');
  });

  it('a model the table does not know: no price, named, never guessed', async () => {
    const file = claudeTranscript(tmp(), { model: 'claude-mock-9' });
    const { m, at } = await setup('claude', CLAUDE_ID, file);
    at('2026-11-28T10:10:00Z');
    const { plan } = await m.recovery.plan('s');
    expect(plan.continueWith![0]!.resumeCost).toMatchObject({ tokens: 45000, warmUsd: null, coldUsd: null, usd: null });
    expect(renderResumePlan(plan)).toContain(
      'about 45,000 tokens, cost unknown (claude-mock-9 has no price), last turn 10 min ago',
    );
  });

  it('Codex: the rollout’s last response (input includes the cached part); cold is plain input', async () => {
    const dir = tmp();
    const id = '01a20bc8-ff6c-7110-a266-7fba956e6333';
    const file = path.join(dir, `rollout-2026-11-28T09-59-00-${id}.jsonl`);
    const rec = (n: number, at: string, input: number, cached: number, output: number): string =>
      JSON.stringify({
        timestamp: at,
        type: 'token_usage_record',
        payload: {
          response_id: `resp_${n}`,
          usage: { input_tokens: input, cached_input_tokens: cached, output_tokens: output },
        },
      });
    fs.writeFileSync(
      file,
      `${[
        JSON.stringify({ timestamp: '2026-11-28T09:59:00.000Z', type: 'turn_context', payload: { model: 'gpt-5' } }),
        rec(1, '2026-11-28T09:59:30.000Z', 5000, 0, 100),
        // 20,000 input (18,000 of them cached) + 500 output = 20,500 tokens of context.
        rec(2, '2026-11-28T10:00:00.000Z', 20000, 18000, 500),
      ].join('\n')}\n`,
    );
    const { m, at } = await setup('codex', id, file);
    at('2026-11-28T10:20:00Z');
    const { plan } = await m.recovery.plan('s');
    // gpt-5: input $1.25, cache read $0.125 per million (a cache write is billed as input).
    // warm = 20,500 × 0.125 / 1e6 = $0.0025625 (costs are kept to the micro-dollar: 0.002563);
    // cold = 20,500 × 1.25 / 1e6 = $0.025625.
    expect(plan.continueWith![0]!.command).toBe(`codex resume ${id}`);
    expect(plan.continueWith![0]!.resumeCost).toMatchObject({
      tokens: 20500,
      model: 'gpt-5',
      cache: 'cold',
      warmUsd: 0.002563,
      coldUsd: 0.025625,
      usd: 0.025625,
    });
    expect(renderResumePlan(plan)).toContain(`codex resume ${id}: about 20,500 tokens, about $0.03 if resumed now`);
  });

  it('Gemini CLI: the chat’s last message (input includes cached; thoughts are output)', async () => {
    const dir = tmp();
    const id = '33333333-cccc-4ddd-8eee-000000000003';
    const file = path.join(dir, `session-2026-11-28T09-59-33333333.jsonl`);
    fs.writeFileSync(
      file,
      `${[
        JSON.stringify({ sessionId: id, kind: 'main' }),
        // input 30,000 (25,000 cached) + output 1,000 + thoughts 200 = 31,200 tokens of context.
        JSON.stringify({
          id: 'g1',
          timestamp: '2026-11-28T10:00:00.000Z',
          type: 'gemini',
          content: 'ok',
          model: 'gemini-2.5-pro',
          tokens: { input: 30000, output: 1000, cached: 25000, thoughts: 200, tool: 0 },
        }),
      ].join('\n')}\n`,
    );
    const { m, at } = await setup('gemini', id, file);
    at('2026-11-28T10:02:00Z');
    const { plan } = await m.recovery.plan('s');
    // gemini-2.5-pro: input $1.25, cache read $0.125 per million.
    // warm = 31,200 × 0.125 / 1e6 = $0.0039; cold = 31,200 × 1.25 / 1e6 = $0.039.
    expect(plan.continueWith![0]!.command).toBe(`gemini --resume ${id}`);
    expect(plan.continueWith![0]!.resumeCost).toMatchObject({
      tokens: 31200,
      cache: 'warm',
      warmUsd: 0.0039,
      coldUsd: 0.039,
      usd: 0.0039,
    });
  });
});

describe('cost counted right: a stream cut short is a lower bound', () => {
  it('a response whose last line has no final usage is marked "at least" until its final line is read', async () => {
    const dir = tmp();
    const file = path.join(dir, `${CLAUDE_ID}.jsonl`);
    const done = claudeLine({
      id: 'msg_1',
      at: '2026-11-28T09:50:00.000Z',
      input: 100,
      cacheRead: 0,
      cacheWrite: 0,
      output: 50,
    });
    // The CLI died while the second response streamed: its line was written with the usage of
    // the stream's start (output 1) and no stop_reason, and nothing after it.
    const cut = claudeLine({
      id: 'msg_2',
      at: '2026-11-28T10:00:00.000Z',
      input: 200,
      cacheRead: 0,
      cacheWrite: 0,
      output: 1,
      stop: null,
    });
    fs.writeFileSync(file, `${done}\n${cut}\n`);
    const { m } = await setup('claude', CLAUDE_ID, file);
    let s = await m.get('s');
    expect(s.tokens).toMatchObject({ input: 300, output: 51 });
    expect(tokensLowerBound(s)).toEqual({ responses: 1, agents: ['claude'] });

    // A later read sees the response finished (the stream had not been cut after all).
    const final = claudeLine({
      id: 'msg_2',
      at: '2026-11-28T10:00:05.000Z',
      input: 200,
      cacheRead: 0,
      cacheWrite: 0,
      output: 90,
    });
    fs.appendFileSync(file, `${final}\n`);
    await m.transcripts.ingest('s', { cli: 'claude', path: file, agent: 'claude', agentSessionId: CLAUDE_ID });
    s = await m.get('s');
    expect(s.tokens).toMatchObject({ input: 300, output: 140 });
    expect(tokensLowerBound(s)).toBeNull();
  });

  it('complete transcripts are not marked (the real Claude Code transcript fixture)', async () => {
    const fixture = path.resolve(
      path.dirname(new URL(import.meta.url).pathname),
      '../fixtures/transcripts/claude-main.jsonl',
    );
    const file = path.join(tmp(), '7011dc8b-afa6-4eb4-9723-a9f0fa8eb295.jsonl');
    fs.copyFileSync(fixture, file);
    const { m } = await setup('claude', '7011dc8b-afa6-4eb4-9723-a9f0fa8eb295', file);
    const s = await m.get('s');
    expect(s.tokens.input).toBeGreaterThan(0);
    expect(tokensLowerBound(s)).toBeNull();
  });
});
