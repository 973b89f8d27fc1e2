/**
 * Gemini CLI sub-agents (no sub-agent hook events: `invoke_agent`'s AfterTool), from payloads
 * and chats captured from the real CLI 0.61.0 (test/fixtures/hooks/gemini/AfterTool-invoke_agent.json,
 * test/fixtures/hooks/gemini-chats/): the sub-agent as an agent of the phase, its file
 * attributed to it, and its chat's tokens counted once under its name.
 */
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { FIXTURES, fixture, hookInProcess, workspace } from './helpers.js';
import type { Json } from '../../src/hooks/model.js';

const SUB = 'gemini/generalist#95e144f8';
const SUB_CHAT = path.join(
  '.gemini-chats',
  'cbc3e006-38ab-48a9-b196-b7374770b547',
  '95e144f8-9d52-4f8c-944e-2f65603854bd.jsonl',
);

/** A workspace holding the captured chats where the payloads' transcript_path says, ignored by git. */
async function geminiWorkspace(): Promise<Awaited<ReturnType<typeof workspace>>> {
  const w = await workspace();
  fs.appendFileSync(path.join(w.dir, '.git', 'info', 'exclude'), '.gemini-chats/\n');
  fs.cpSync(path.join(FIXTURES, 'gemini-chats'), path.join(w.dir, '.gemini-chats'), { recursive: true });
  // The CLI wrote the file before the hooks ran.
  fs.writeFileSync(path.join(w.dir, 'from-subagent.txt'), 'written by the sub-agent\n');
  return w;
}

const hook = async (w: { dir: string }, payload: Json): Promise<void> => {
  const r = await hookInProcess('gemini', payload, w.dir);
  expect(r.code).toBe(0);
};

/** A chat line of one more response, as the CLI writes them. */
const response = (id: string, input: number, output: number, cached: number): string =>
  `${JSON.stringify({
    id,
    timestamp: '2026-11-24T05:59:40.000Z',
    type: 'gemini',
    content: 'late',
    thoughts: [],
    tokens: { input, output, cached, thoughts: 0, tool: 0, total: input + output },
    model: 'gemini-3.8-flash',
  })}\n`;

describe('gemini sub-agents (invoke_agent)', () => {
  it('AfterTool invoke_agent records the sub-agent on the phase, its file under its name, and its chat tokens', async () => {
    const w = await geminiWorkspace();
    // The sub-agent's own write_file hook carries the parent's session id: the main agent's at first.
    await hook(w, fixture('gemini', 'AfterTool-subagent-write_file', w.dir));
    expect((await w.m().get('hooked')).phases[0]!.files.map((f) => [f.path, f.agent])).toEqual([
      ['from-subagent.txt', 'gemini'],
    ]);
    await hook(w, fixture('gemini', 'AfterTool-invoke_agent', w.dir));
    const s = await w.m().get('hooked');
    expect(s.subagents).toEqual([expect.objectContaining({ agent: SUB, agentType: 'generalist', phaseId: 'build' })]);
    expect(s.subagents?.[0]?.stoppedAt).not.toBeNull();
    expect(s.phases[0]!.agents).toContain(SUB);
    expect(s.phases[0]!.files.map((f) => [f.path, f.action, f.agent])).toEqual([['from-subagent.txt', 'created', SUB]]);
    // The chat's three responses (804 in of which 101 cached, 27 out + 4 thoughts each): what the mock reported.
    expect(s.tokens.byAgent[SUB]).toMatchObject({ input: 2109, output: 93, cached: 303 });
    expect(s.tokens.byAgent['gemini']).toBeUndefined();
  });

  it('without an id in the payload, the chat is found by its task in the chats folder', async () => {
    const w = await geminiWorkspace();
    const p = fixture('gemini', 'AfterTool-invoke_agent', w.dir);
    const display = (p['tool_response'] as Json)['returnDisplay'] as Json;
    display['recentActivity'] = [];
    await hook(w, p);
    const s = await w.m().get('hooked');
    expect(s.subagents?.map((x) => x.agent)).toEqual([SUB]);
    expect(s.tokens.byAgent[SUB]).toMatchObject({ input: 2109, output: 93 });
  });

  it('late chat lines are counted at AfterAgent and SessionEnd, each response exactly once', async () => {
    const w = await geminiWorkspace();
    await hook(w, fixture('gemini', 'AfterTool-invoke_agent', w.dir));
    fs.appendFileSync(path.join(w.dir, SUB_CHAT), response('late-1', 500, 20, 100));
    const end = {
      ...fixture('gemini', 'AfterTool-invoke_agent', w.dir),
      tool_name: undefined,
      tool_input: undefined,
      tool_response: undefined,
    };
    await hook(w, {
      ...end,
      hook_event_name: 'AfterAgent',
      prompt: 'go',
      prompt_response: 'done',
      stop_hook_active: false,
    });
    expect((await w.m().get('hooked')).tokens.byAgent[SUB]).toMatchObject({ input: 2509, output: 113, cached: 403 });
    // Again, and at the end of the conversation: nothing new, nothing counted twice.
    await hook(w, {
      ...end,
      hook_event_name: 'AfterAgent',
      prompt: 'go',
      prompt_response: 'done',
      stop_hook_active: false,
    });
    await hook(w, fixture('gemini', 'AfterTool-invoke_agent', w.dir));
    await hook(w, { ...end, hook_event_name: 'SessionEnd', reason: 'exit' });
    const s = await w.m().get('hooked');
    expect(s.tokens.byAgent[SUB]).toMatchObject({ input: 2509, output: 113, cached: 403 });
    expect(s.subagents).toHaveLength(1);
    expect(s.statusCause?.cause).toBe('agent-session-end');
  });
});
