/** Resources (session list, state, handoff, events) and the resume prompt, over an in-memory transport. */
import { afterEach, describe, expect, it } from 'vitest';
import { connect, ok } from './helpers.js';
import type { Harness } from './helpers.js';

const open: Harness[] = [];
afterEach(async () => {
  for (const h of open.splice(0)) await h.close();
});

async function started(): Promise<Harness> {
  const h = await connect({ clientName: 'gemini-cli' });
  open.push(h);
  await ok(h.client, 'session_start', { title: 'Port the parser', id: 's1', phases: ['design', 'build'] });
  await ok(h.client, 'phase_start', { phase: 'design' });
  await ok(h.client, 'substep_reach', { phase: 'design', name: 'grammar drafted' });
  await ok(h.client, 'error_add', { phase: 'design', type: 'validation', message: 'ambiguous rule' });
  await ok(h.client, 'session_pause', {});
  return h;
}

const text = (r: { contents: Array<{ text?: unknown; uri: string; mimeType?: string }> }): string =>
  String(r.contents[0]!.text);

describe('resources', () => {
  it('lists the session list and one state resource per session; templates for handoff and events', async () => {
    const { client } = await started();
    const { resources } = await client.listResources();
    expect(resources.map((r) => r.uri).sort()).toEqual(['baton://sessions', 'baton://sessions/s1']);
    const { resourceTemplates } = await client.listResourceTemplates();
    expect(resourceTemplates.map((t) => t.uriTemplate).sort()).toEqual([
      'baton://sessions/{id}',
      'baton://sessions/{id}/events',
      'baton://sessions/{id}/handoff',
    ]);
  });

  it('reads the list, a session state, its handoff Markdown and its event log', async () => {
    const { client, manager } = await started();
    const list = JSON.parse(text(await client.readResource({ uri: 'baton://sessions' })));
    expect(list.sessions.map((r: { id: string; status: string }) => [r.id, r.status])).toEqual([['s1', 'paused']]);
    const state = JSON.parse(text(await client.readResource({ uri: 'baton://sessions/s1' })));
    expect(state).toMatchObject({ id: 's1', status: 'paused', revision: (await manager.get('s1')).revision });
    const handoff = await client.readResource({ uri: 'baton://sessions/s1/handoff' });
    expect(handoff.contents[0]!.mimeType).toBe('text/markdown');
    expect(text(handoff)).toContain('grammar drafted');
    expect(text(handoff)).toContain('ambiguous rule');
    const events = JSON.parse(text(await client.readResource({ uri: 'baton://sessions/s1/events' })));
    // The connection that started the session held a run on it; the pause ended that run.
    expect(events.map((e: { type: string }) => e.type)).toEqual([
      'session.created',
      'run.started',
      'phase.started',
      'substep.reached',
      'error.recorded',
      'session.paused',
      'run.ended',
    ]);
    expect(events[2].actor.agent).toBe('gemini-cli');
  });

  it('an unknown session or a traversal is a JSON-RPC error carrying the baton code', async () => {
    const { client } = await started();
    await expect(client.readResource({ uri: 'baton://sessions/ghost' })).rejects.toMatchObject({
      code: -32002,
      data: { code: 'NOT_FOUND' },
    });
    // The client reads the message prefixed once (issue 25: it read `MCP error -32002: MCP error -32002: …`).
    const e = (await client.readResource({ uri: 'baton://sessions/ghost' }).catch((x: unknown) => x)) as Error;
    expect(e.message).toMatch(/^MCP error -32002: error\[NOT_FOUND\]: /);
    expect(e.message.match(/MCP error/g)).toHaveLength(1);
    await expect(client.readResource({ uri: 'baton://sessions/..%2F..%2Fetc/events' })).rejects.toMatchObject({
      data: { code: 'BAD_INPUT' },
    });
    await expect(client.readResource({ uri: 'baton://sessions/..%2F..%2Fetc' })).rejects.toMatchObject({
      code: -32602,
      data: { code: 'BAD_INPUT' },
    });
    expect((await ok(client, 'session_status', { session: 's1' }))['id']).toBe('s1');
  });

  it('a malformed percent-escape in the URI is BAD_INPUT naming the escape, not an internal error', async () => {
    const { client } = await started();
    for (const uri of [
      'baton://sessions/%E0%A4%A',
      'baton://sessions/%E0%A4%A/handoff',
      'baton://sessions/%E0%A4%A/events',
    ]) {
      const e = await client.readResource({ uri }).then(
        () => null,
        (x: unknown) => x as { code: number; message: string; data: { code: string; details: { escape: string } } },
      );
      expect(e, uri).toMatchObject({ code: -32602, data: { code: 'BAD_INPUT', details: { escape: '%E0%A4%A' } } });
      expect(e!.message).toContain('%E0%A4%A');
    }
    await expect(client.readResource({ uri: 'baton://sessions/s%zz1' })).rejects.toMatchObject({
      code: -32602,
      data: { code: 'BAD_INPUT', details: { escape: '%' } },
    });
    expect(JSON.parse(text(await client.readResource({ uri: 'baton://sessions/s%31' })))).toMatchObject({ id: 's1' });
  });
});

describe('prompts', () => {
  it('resume_session: a briefing built from the resume plan, naming the tool calls to continue', async () => {
    const { client } = await started();
    const { prompts } = await client.listPrompts();
    expect(prompts.map((p) => p.name)).toEqual(['resume_session']);
    const r = await client.getPrompt({ name: 'resume_session', arguments: { session: 's1' } });
    const body = (r.messages[0]!.content as { text: string }).text;
    expect(r.messages[0]!.role).toBe('user');
    expect(body).toContain('"s1"');
    expect(body).toContain('grammar drafted');
    expect(body).toContain('ambiguous rule');
    expect(body).toContain('session_resume');
    // Without an argument: the workspace's session (s1 is paused but still the active pointer).
    const d = await client.getPrompt({ name: 'resume_session', arguments: {} });
    expect((d.messages[0]!.content as { text: string }).text).toContain('"s1"');
  });

  it('an unknown session is a JSON-RPC error', async () => {
    const { client } = await started();
    await expect(client.getPrompt({ name: 'resume_session', arguments: { session: 'ghost' } })).rejects.toMatchObject({
      data: { code: 'NOT_FOUND' },
    });
  });
});
