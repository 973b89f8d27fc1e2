/**
 * The pure mapping of a journal to spans (`planTrace`), on journals an agent CLI's hooks
 * write: conversations, sub-agents, tool calls and model calls in the right parents; spans
 * described only once closed, with the seq that closed them; a replay is identical.
 */
import { describe, expect, it } from 'vitest';
import type { StoredEvent } from '../../src/domain/events.js';
import { planTrace } from '../../src/domain/telemetry/trace-plan.js';
import type { SpanPlan } from '../../src/domain/telemetry/trace-plan.js';

const actor = { agent: null, pid: 1, host: 'h' };
let seq = 0;
function ev(type: string, data: Record<string, unknown>): StoredEvent {
  seq += 1;
  return {
    type,
    data,
    seq,
    time: new Date(Date.UTC(2026, 0, 1, 0, 0, seq)).toISOString(),
    actor,
  } as unknown as StoredEvent;
}

function journal(): StoredEvent[] {
  seq = 0;
  return [
    ev('session.created', {
      title: 'Hooked',
      idFormat: 'explicit',
      phases: [{ id: 'p1', name: 'Build it' }],
      budgetMax: null,
    }),
    ev('phase.started', { phaseId: 'p1', agent: 'claude', forced: false }),
    ev('agent.bound', {
      cli: 'claude',
      agentSessionId: 'conv-1',
      transcriptPath: null,
      model: 'claude-opus-4',
      cwd: null,
      dirtyAtStart: [],
    }),
    ev('file.recorded', {
      phaseId: 'p1',
      path: 'a.ts',
      action: 'created',
      sha256: null,
      size: null,
      agent: 'claude',
      tool: 'Write',
    }),
    ev('subagent.started', {
      phaseId: 'p1',
      agent: 'claude/explore#abcd1234',
      agentId: 'abcd1234',
      agentType: 'explore',
    }),
    ev('tokens.recorded', {
      agent: 'claude/explore#abcd1234',
      phaseId: 'p1',
      input: 10,
      output: 5,
      cached: 100,
      cacheWrite: 7,
      model: 'claude-haiku-4',
    }),
    ev('subagent.stopped', { phaseId: 'p1', agent: 'claude/explore#abcd1234', agentId: 'abcd1234' }),
    ev('error.recorded', { errorId: 'err-1', phaseId: 'p1', agent: 'claude', type: 'tool', message: 'Bash: exit 1' }),
    ev('tokens.recorded', { agent: 'claude', phaseId: 'p1', input: 1, output: 1, cached: 0, model: 'claude-opus-4' }),
    ev('steps.planned', {
      phaseId: 'p1',
      agent: 'claude',
      steps: [{ name: 'x', status: 'pending' }],
      tool: 'TodoWrite',
    }),
    ev('lease.renewed', { token: 1, expiresAt: '2026-01-01T01:00:00.000Z' }),
    ev('agent.ended', { cli: 'claude', agentSessionId: 'conv-1', reason: 'logout' }),
    ev('phase.completed', { phaseId: 'p1', agent: null }),
    ev('session.completed', { detail: null }),
    ev('session.archived', {}),
  ];
}

const named = (spans: SpanPlan[], name: string): SpanPlan => {
  const s = spans.find((x) => x.name === name);
  if (!s) throw new Error(`no span ${name} in ${spans.map((x) => x.name).join(', ')}`);
  return s;
};

describe('planTrace on a journal written by agent hooks', () => {
  it('puts conversations, sub-agents, tool calls and model calls under the right parents', () => {
    const { spans, open } = planTrace('s', journal());
    expect(open).toBe(0);
    const root = named(spans, 'invoke_workflow Hooked');
    const phase = named(spans, 'phase Build it');
    const conv = named(spans, 'invoke_agent claude');
    const sub = named(spans, 'invoke_agent explore');
    expect(root.parentKey).toBeNull();
    expect([phase.parentKey, conv.parentKey, sub.parentKey]).toEqual([root.key, root.key, phase.key]);
    expect(conv.attributes).toMatchObject({
      'gen_ai.agent.id': 'conv-1',
      'gen_ai.provider.name': 'anthropic',
      'gen_ai.request.model': 'claude-opus-4',
      'baton.end.reason': 'logout',
    });
    // A sub-agent's tokens go under the sub-agent; the main agent's under its conversation.
    const chats = spans.filter((s) => s.attributes['gen_ai.operation.name'] === 'chat');
    expect(chats.map((c) => [c.name, c.parentKey])).toEqual([
      ['chat claude-haiku-4', sub.key],
      ['chat claude-opus-4', conv.key],
    ]);
    expect(chats[0]!.attributes).toMatchObject({
      'gen_ai.usage.input_tokens': 117,
      'gen_ai.usage.output_tokens': 5,
      'gen_ai.usage.cache_read.input_tokens': 100,
      'gen_ai.usage.cache_creation.input_tokens': 7,
      'llm.token_count.total': 122,
    });
    // Tool calls the hooks recorded, with their tool; the failed one in error.
    const tools = spans.filter((s) => s.attributes['gen_ai.operation.name'] === 'execute_tool');
    expect(tools.map((t) => [t.name, t.parentKey, t.status.code])).toEqual([
      ['execute_tool Write', conv.key, 'unset'],
      ['execute_tool Bash', conv.key, 'error'],
      ['execute_tool TodoWrite', conv.key, 'unset'],
    ]);
    expect(phase.events.map((e) => e.name)).toEqual(['exception']);
  });

  it('describes a span once it is closed, with the seq that closed it, in closing order', () => {
    const events = journal();
    const whole = planTrace('s', events);
    expect(whole.spans.map((s) => s.closedAt)).toEqual([...whole.spans.map((s) => s.closedAt)].sort((a, b) => a - b));
    for (let n = 1; n <= events.length; n++) {
      const part = planTrace('s', events.slice(0, n));
      // A prefix of the journal gives exactly the spans closed by then, identical to the whole's.
      expect(part.spans).toEqual(whole.spans.filter((s) => s.closedAt <= n));
    }
    expect(planTrace('s', events.slice(0, 5)).open).toBe(4); // root, phase, conversation, sub-agent
  });

  it('is a pure function: the same journal gives the same plan', () => {
    expect(planTrace('s', journal())).toEqual(planTrace('s', journal()));
  });

  it('nothing rides on the root after the session ended; a restore ends the open attempts', () => {
    seq = 0;
    const events = [
      ev('session.created', { title: 'R', idFormat: 'explicit', phases: [{ id: 'a', name: 'A' }], budgetMax: null }),
      ev('phase.started', { phaseId: 'a', agent: null, forced: false }),
      ev('checkpoint.restored', {
        checkpointId: 'cp-1-x',
        name: 'x',
        revision: 1,
        state: {},
        supersedes: [],
        git: null,
      }),
      ev('session.abandoned', { detail: null }),
      ev('milestone.added', { milestoneId: 'm1', title: 'late', targetDate: null }),
    ];
    const { spans } = planTrace('s', events);
    expect(named(spans, 'phase A').attributes['baton.phase.outcome']).toBe('restored');
    const root = named(spans, 'invoke_workflow R');
    expect(root.attributes['baton.session.status']).toBe('abandoned');
    expect(root.events.map((e) => e.name)).toEqual(['baton.checkpoint.restored']);
  });
});
