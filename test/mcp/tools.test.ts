/**
 * Every tool over an in-memory transport with the SDK's Client: the happy path, and each
 * error code it can return, as a coded isError result with a hint.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { openManager } from '../../src/manager/open.js';
import { SessionManager } from '../../src/manager/manager.js';
import { connect, connectTo, expectToolHint, invalidArgs, ok, refused } from './helpers.js';
import type { Harness } from './helpers.js';

const open: Array<Pick<Harness, 'close'>> = [];
afterEach(async () => {
  for (const h of open.splice(0)) await h.close();
});
async function harness(o: Parameters<typeof connect>[0] = {}): Promise<Harness> {
  const h = await connect(o);
  open.push(h);
  return h;
}

/** A client with session s1 started (phases design → build → test, build blocked by design). */
async function withSession(o: Parameters<typeof connect>[0] = {}): Promise<Harness> {
  const h = await harness(o);
  await ok(h.client, 'session_start', {
    title: 'Ship it',
    id: 's1',
    phases: [{ id: 'design', name: 'Design' }, { id: 'build', name: 'Build', blockedBy: ['design'] }, 'test'],
  });
  return h;
}

/** Minimal valid arguments of every tool that acts on a session (s1 as set up by `prepared`). */
const SESSION_TOOLS: Record<string, Record<string, unknown>> = {
  session_status: {},
  session_pause: {},
  session_complete: {},
  session_fail: {},
  session_abandon: {},
  session_resume: {},
  plan_add: { name: 'docs' },
  plan_remove: { phase: 'test' },
  plan_set: { phase: 'design', maxRetries: 3 },
  phase_start: { phase: 'design' },
  phase_complete: { phase: 'design' },
  phase_fail: { phase: 'design' },
  phase_skip: { phase: 'test' },
  phase_retry: { phase: 'design' },
  phase_claim: {},
  substep_reach: { phase: 'design', name: 'sketch' },
  file_record: { action: 'created', paths: ['a.txt'] },
  error_add: { phase: 'design', type: 'runtime', message: 'boom' },
  error_resolve: { errorId: 'err-1', resolution: 'fixed' },
  tokens_add: { input: 1 },
  budget_set: { tokens: 1000 },
  decision_add: { title: 'db', choice: 'sqlite' },
  finding_add: { text: 'flaky test' },
  finding_remove: { findingId: 'finding-1' },
  note_add: { text: 'hello' },
  milestone_add: { title: 'beta' },
  milestone_done: { milestone: 'beta' },
  artifact_add: { path: 'docs/design.md' },
  context_set: { summary: 'where we are' },
  checkpoint_create: {},
  checkpoint_list: {},
  checkpoint_restore: { checkpoint: 'cp-1' },
  resume_plan: {},
  handoff: {},
};
const READ_ONLY = new Set(['session_status', 'checkpoint_list', 'resume_plan', 'handoff']);
/** Tools that take `ifRevision` (strict compare-and-set). */
const STRICT = Object.keys(SESSION_TOOLS).filter((t) => !READ_ONLY.has(t) && t !== 'session_resume');

describe('tool list', () => {
  it('lists every tool with an input schema, an output schema and a description for the model', async () => {
    const { client } = await harness();
    const { tools } = await client.listTools();
    const names = tools.map((t) => t.name).sort();
    expect(names).toEqual(
      [...Object.keys(SESSION_TOOLS), 'session_start', 'session_list', 'session_switch', 'session_archive'].sort(),
    );
    for (const t of tools) {
      expect(t.inputSchema.type).toBe('object');
      expect(t.outputSchema?.type, t.name).toBe('object');
      expect(t.description!.length, t.name).toBeGreaterThan(60);
      expect(t.annotations?.readOnlyHint, t.name).toBe(READ_ONLY.has(t.name) || t.name === 'session_list');
    }
  });
});

/** Every property of a JSON schema, nested ones included, as [path, schema] pairs. */
function properties(schema: Record<string, any>, at: string): Array<[string, Record<string, any>]> {
  const out: Array<[string, Record<string, any>]> = [];
  for (const [k, v] of Object.entries((schema['properties'] ?? {}) as Record<string, Record<string, any>>)) {
    out.push([`${at}.${k}`, v], ...properties(v, `${at}.${k}`));
  }
  if (schema['items']) out.push(...properties(schema['items'], `${at}[]`));
  for (const alt of [...(schema['anyOf'] ?? []), ...(schema['oneOf'] ?? [])] as Array<Record<string, any>>)
    out.push(...properties(alt, at));
  return out;
}

describe('input descriptions', () => {
  it('every input property of every tool (nested ones too) has a description for the model', async () => {
    const { client } = await harness();
    const { tools } = await client.listTools();
    const missing: string[] = [];
    let count = 0;
    for (const t of tools) {
      for (const [at, p] of properties(t.inputSchema as Record<string, any>, t.name)) {
        count++;
        if (typeof p['description'] !== 'string' || p['description'].trim().length < 3) missing.push(at);
      }
    }
    expect(count).toBeGreaterThan(100);
    expect(missing).toEqual([]);
  });
});

describe('errors every session tool shares', () => {
  it('NO_ACTIVE_SESSION without a session, naming the candidates', async () => {
    const empty = await harness();
    for (const [tool, args] of Object.entries(SESSION_TOOLS)) {
      const e = await refused(empty.client, tool, args, 'NO_ACTIVE_SESSION');
      expect(e.hint).toContain('`session_start`');
    }
  });

  it('BAD_INPUT for a path traversal or a malformed session id, NOT_FOUND for an unknown one', async () => {
    const { client } = await withSession();
    for (const [tool, args] of Object.entries(SESSION_TOOLS)) {
      for (const bad of ['../../etc', '../s1', 'a/b', '', '.hidden', 'x'.repeat(129)]) {
        const e = await refused(client, tool, { ...args, session: bad }, 'BAD_INPUT');
        expect(e.message).toMatch(/session id/);
      }
      const e = await refused(client, tool, { ...args, session: 'nope' }, 'NOT_FOUND');
      expect(e.message).toContain('nope');
    }
  });

  it('CONFLICT when ifRevision is not the current revision; nothing is written', async () => {
    const { client } = await withSession();
    const before = await ok(client, 'session_status', {});
    for (const tool of STRICT) {
      const e = await refused(
        client,
        tool,
        { ...SESSION_TOOLS[tool], ifRevision: before['revision'] + 100 },
        'CONFLICT',
      );
      expect(e.details['revision']).toBe(before['revision']);
    }
    expect((await ok(client, 'session_status', {}))['revision']).toBe(before['revision']);
  });

  it('INVALID_TRANSITION on a completed session, which takes no more changes', async () => {
    const { client } = await withSession();
    await ok(client, 'session_complete', { session: 's1', force: true });
    for (const tool of STRICT) {
      if (tool === 'session_complete' || tool === 'session_pause') continue;
      await refused(client, tool, { ...SESSION_TOOLS[tool], session: 's1' }, 'INVALID_TRANSITION');
    }
    await refused(client, 'session_pause', { session: 's1' }, 'INVALID_TRANSITION');
    await refused(client, 'session_complete', { session: 's1' }, 'INVALID_TRANSITION');
    await refused(client, 'session_resume', { session: 's1' }, 'INVALID_TRANSITION');
  });
});

/** A server over the file store of a fresh folder without `.baton`, opening its manager as `baton mcp` does. */
async function freshProject(): Promise<{ client: Client; dir: string }> {
  const dir = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'baton-mcp-')));
  let m: SessionManager | undefined;
  // As the CLI's context: opened on first use, created only when asked to (session_start).
  const manager = (create: boolean): SessionManager => (m ??= openManager({ cwd: dir, create }));
  const h = await connectTo({ manager });
  open.push({
    close: async () => {
      await h.close();
      fs.rmSync(dir, { recursive: true, force: true });
    },
  });
  return { client: h.client, dir };
}

describe('a fresh project without a store', () => {
  it('session_list, the resource list and baton://sessions are empty; reading a session or the prompt is not found', async () => {
    const { client, dir } = await freshProject();
    expect(await ok(client, 'session_list', {})).toEqual({ sessions: [], active: null });
    expect(await ok(client, 'session_list', { all: true, status: 'paused' })).toEqual({ sessions: [], active: null });
    expect((await client.listResources()).resources.map((r) => r.uri)).toEqual(['baton://sessions']);
    expect(
      JSON.parse(((await client.readResource({ uri: 'baton://sessions' })).contents[0] as { text: string }).text),
    ).toEqual({ active: null, sessions: [] });
    for (const read of [
      () => client.readResource({ uri: 'baton://sessions/s1' }),
      () => client.readResource({ uri: 'baton://sessions/s1/handoff' }),
      () => client.getPrompt({ name: 'resume_session', arguments: {} }),
    ]) {
      const e = (await read().then(
        () => null,
        (x: unknown) => x,
      )) as { code: number; data: { code: string; hint: string } };
      expect(e).toMatchObject({ code: -32002, data: { code: 'NO_STORE' } });
      expect(e.data.hint).toContain('`session_start`');
      await expectToolHint(client, e.data.hint);
    }
    // Nothing above created a store.
    expect(fs.existsSync(path.join(dir, '.baton'))).toBe(false);
  });

  it('NO_STORE from every tool on a session, with a hint to call session_start, which creates the store as `baton start` does', async () => {
    const { client, dir } = await freshProject();
    for (const [tool, args] of Object.entries(SESSION_TOOLS)) {
      const e = await refused(client, tool, args, 'NO_STORE');
      expect(e.hint, tool).toContain('`session_start`');
    }
    await refused(client, 'session_switch', { session: 's1' }, 'NO_STORE');
    await refused(client, 'session_archive', { session: 's1' }, 'NO_STORE');
    expect(fs.existsSync(path.join(dir, '.baton'))).toBe(false);
    await ok(client, 'session_start', { title: 'First', id: 'first', phases: ['a'] });
    expect(fs.existsSync(path.join(dir, '.baton', 'sessions'))).toBe(true);
    expect((await ok(client, 'session_list', {}))['sessions'].map((r: { id: string }) => r.id)).toEqual(['first']);
    expect((await client.listResources()).resources.map((r) => r.uri)).toEqual([
      'baton://sessions',
      'baton://sessions/first',
    ]);
  });
});

describe('sessions', () => {
  it('session_start: creates the active session; ACTIVE_EXISTS, EXISTS and bad plans are refused', async () => {
    const { client, manager } = await harness();
    const s = await ok(client, 'session_start', { title: 'A', id: 'a', phases: ['one', 'two'], budget: 1000 });
    expect(s).toMatchObject({ session: 'a', revision: 1, status: 'active', title: 'A' });
    expect(s['phases'].map((p: { id: string }) => p.id)).toEqual(['one', 'two']);
    expect(await manager.store.getActive()).toBe('a');
    const e = await refused(client, 'session_start', { title: 'B', id: 'b' }, 'ACTIVE_EXISTS');
    expect(e.details['active']).toBe('a');
    expect(e.hint).toContain('`switch: true`');
    await ok(client, 'session_start', { title: 'B', id: 'b', switch: true });
    expect((await manager.get('a')).status).toBe('paused');
    await refused(client, 'session_start', { title: 'again', id: 'a', switch: true }, 'EXISTS');
    await refused(client, 'session_start', { title: 'C', id: '../../etc', switch: true }, 'BAD_INPUT');
    await refused(
      client,
      'session_start',
      { title: 'C', id: 'c', switch: true, phases: [{ id: 'x', name: 'X', blockedBy: ['y'] }] },
      'BAD_INPUT',
    );
    await refused(
      client,
      'session_start',
      {
        title: 'C',
        id: 'c',
        switch: true,
        phases: [
          { id: 'x', name: 'X' },
          { id: 'x', name: 'Y' },
        ],
      },
      'BAD_INPUT',
    );
    await refused(client, 'session_start', { title: '', id: 'c', switch: true }, 'BAD_INPUT');
    await invalidArgs(client, 'session_start', { title: 'C', budget: -5 });
    expect((await manager.list({})).map((r) => r.id).sort()).toEqual(['a', 'b']);
  });

  it('session_list: rows newest first and the active one; status filter; a bad status is BAD_INPUT', async () => {
    const { client } = await withSession();
    await ok(client, 'session_start', { title: 'Two', id: 's2', switch: true });
    const l = await ok(client, 'session_list', {});
    expect(l['active']).toBe('s2');
    expect(l['sessions'].map((r: { id: string }) => r.id)).toEqual(['s2', 's1']);
    const paused = await ok(client, 'session_list', { status: 'paused' });
    expect(paused['sessions'].map((r: { id: string }) => r.id)).toEqual(['s1']);
    await invalidArgs(client, 'session_list', { status: 'sleeping' });
  });

  it('session_status: the status view of the active or a named session', async () => {
    const { client } = await withSession();
    const s = await ok(client, 'session_status', {});
    // Revision 2: the connection that started the session holds a run on it (run.started).
    expect(s).toMatchObject({ id: 's1', title: 'Ship it', status: 'active', revision: 2 });
    expect(s['phases'].map((p: { id: string }) => p.id)).toEqual(['design', 'build', 'test']);
    expect(s['tokens']['budget']).toBeDefined();
  });

  it('session_switch: pauses the active one and reopens the target; NOT_FOUND, BAD_INPUT, INVALID_TRANSITION', async () => {
    const { client, manager } = await withSession();
    await ok(client, 'session_start', { title: 'Two', id: 's2', switch: true });
    const r = await ok(client, 'session_switch', { session: 's1' });
    expect(r).toMatchObject({ session: 's1', status: 'active' });
    expect((await manager.get('s2')).status).toBe('paused');
    expect(await manager.store.getActive()).toBe('s1');
    await refused(client, 'session_switch', { session: 'ghost' }, 'NOT_FOUND');
    await refused(client, 'session_switch', { session: '../../etc' }, 'BAD_INPUT');
    await ok(client, 'session_complete', { session: 's2' });
    await refused(client, 'session_switch', { session: 's2' }, 'INVALID_TRANSITION');
  });

  it('session_pause and session_complete change the status; a completed session stops being active', async () => {
    const { client, manager } = await withSession();
    expect(await ok(client, 'session_pause', { reason: 'lunch' })).toMatchObject({ session: 's1', status: 'paused' });
    await refused(client, 'session_pause', {}, 'INVALID_TRANSITION');
    // Unfinished phases: refused, naming them, with the way out worded for a tool caller.
    const e = await refused(client, 'session_complete', {}, 'BLOCKED');
    expect(e.message).toMatch(/^Session s1 has unfinished phases: /);
    expect(e.hint).toContain('`force: true`');
    expect((await manager.get('s1')).status).toBe('paused');
    expect(await ok(client, 'session_complete', { force: true })).toMatchObject({ status: 'completed' });
    expect((await manager.get('s1')).statusCause?.detail).toMatch(/^left unfinished: /);
    expect(await manager.store.getActive()).toBeNull();
  });

  it('session_resume: reopens a paused session (live by default); on an active one live changes nothing; unknown options are refused', async () => {
    const { client, manager } = await withSession();
    const revision = (await manager.get('s1')).revision;
    expect(await ok(client, 'session_resume', {})).toMatchObject({
      session: 's1',
      status: 'active',
      appliedFrom: 'live',
      changed: false,
      revision,
    });
    await refused(client, 'session_resume', { from: 'fresh' }, 'INVALID_TRANSITION');
    await ok(client, 'session_pause', {});
    await refused(client, 'session_resume', { from: 'yesterday' }, 'BAD_INPUT');
    await refused(client, 'session_resume', { from: 'checkpoint:cp-9' }, 'NOT_FOUND');
    const r = await ok(client, 'session_resume', {});
    expect(r).toMatchObject({ session: 's1', status: 'active', appliedFrom: 'live', changed: true });
    expect(r['plan']).toMatchObject({ sessionId: 's1', status: 'paused' });
    expect((await manager.get('s1')).status).toBe('active');
  });
});

describe('phases', () => {
  it('phase_start: starts a pending phase; BLOCKED names the phases that may start; NOT_FOUND lists the phases', async () => {
    const { client } = await withSession();
    const b = await refused(client, 'phase_start', { phase: 'build' }, 'BLOCKED');
    expect(b.details['startable']).toEqual(['design', 'test']);
    expect(b.hint).toContain('Phases that may be started now: design, test');
    expect(b.hint).toContain('`force: true`');
    expect(b.hint).not.toContain('--force');
    const nf = await refused(client, 'phase_start', { phase: 'deploy' }, 'NOT_FOUND');
    expect(nf.hint).toContain('design, build, test');
    const r = await ok(client, 'phase_start', { phase: 'design' });
    expect(r['phase']).toMatchObject({ id: 'design', status: 'in_progress' });
    const again = await refused(client, 'phase_start', { phase: 'design' }, 'INVALID_TRANSITION');
    expect(again.details['startable']).toEqual(['test']);
    expect(await ok(client, 'phase_start', { phase: 'Build', force: true })).toMatchObject({
      phase: { id: 'build', status: 'in_progress' },
    });
  });

  it('phase_start on a paused session is INVALID_TRANSITION pointing to resume', async () => {
    const { client } = await withSession();
    await ok(client, 'session_pause', {});
    const e = await refused(client, 'phase_start', { phase: 'design', session: 's1' }, 'INVALID_TRANSITION');
    expect(e.hint).toMatch(/resume/);
  });

  it('phase_complete, phase_fail, phase_skip: the allowed moves; INVALID_TRANSITION names what is allowed', async () => {
    const { client } = await withSession();
    const e = await refused(client, 'phase_complete', { phase: 'design' }, 'INVALID_TRANSITION');
    expect(e.details['allowed']).toEqual(expect.arrayContaining(['start', 'skip']));
    await refused(client, 'phase_fail', { phase: 'design' }, 'INVALID_TRANSITION');
    await ok(client, 'phase_start', { phase: 'design' });
    await refused(client, 'phase_skip', { phase: 'design' }, 'INVALID_TRANSITION');
    expect((await ok(client, 'phase_complete', { phase: 'design' }))['phase']['status']).toBe('completed');
    expect((await ok(client, 'phase_skip', { phase: 'test', reason: 'no tests' }))['phase']['status']).toBe('skipped');
    await ok(client, 'phase_start', { phase: 'build' });
    expect((await ok(client, 'phase_fail', { phase: 'build', reason: 'compile error' }))['phase']['status']).toBe(
      'failed',
    );
  });

  it('phase_retry: counts retries; RETRIES_EXHAUSTED past the limit; INVALID_TRANSITION on a pending phase', async () => {
    const { client } = await harness();
    await ok(client, 'session_start', { title: 'R', id: 'r', phases: [{ id: 'p', name: 'P', maxRetries: 1 }, 'q'] });
    await refused(client, 'phase_retry', { phase: 'p' }, 'INVALID_TRANSITION');
    await ok(client, 'phase_start', { phase: 'p' });
    await ok(client, 'phase_fail', { phase: 'p' });
    expect((await ok(client, 'phase_retry', { phase: 'p' }))['phase']).toMatchObject({
      status: 'in_progress',
      retryCount: 1,
    });
    await ok(client, 'phase_fail', { phase: 'p' });
    const e = await refused(client, 'phase_retry', { phase: 'p' }, 'RETRIES_EXHAUSTED');
    expect(e.details).toMatchObject({ retryCount: 1, maxRetries: 1, startable: ['q'] });
  });

  it("a phase named like another phase's id: the id wins, and the result shows the phase that changed", async () => {
    const { client, manager } = await harness();
    await ok(client, 'session_start', {
      title: 'Ids',
      id: 'ids',
      phases: [
        { id: 'a', name: 'b' },
        { id: 'b', name: 'Second' },
      ],
    });
    const r = await ok(client, 'phase_start', { phase: 'b' });
    expect(r['phase']).toMatchObject({ id: 'b', status: 'in_progress' });
    expect((await manager.get('ids')).phases.map((p) => [p.id, p.status])).toEqual([
      ['a', 'pending'],
      ['b', 'in_progress'],
    ]);
    expect((await ok(client, 'substep_reach', { phase: 'b', name: 'half way' }))['phase']).toMatchObject({
      id: 'b',
      subStep: 'half way',
    });
    expect((await ok(client, 'phase_complete', { phase: 'b' }))['phase']).toMatchObject({
      id: 'b',
      status: 'completed',
    });
  });

  it('substep_reach: records the resume point of a phase in progress only', async () => {
    const { client, manager } = await withSession();
    await refused(client, 'substep_reach', { phase: 'design', name: 'x' }, 'INVALID_TRANSITION');
    await ok(client, 'phase_start', { phase: 'design' });
    expect((await ok(client, 'substep_reach', { phase: 'design', name: 'wireframes' }))['phase']['subStep']).toBe(
      'wireframes',
    );
    expect((await manager.get('s1')).phases[0]!.subStep).toBe('wireframes');
    await refused(client, 'substep_reach', { phase: 'nope', name: 'x' }, 'NOT_FOUND');
  });
});

describe('records', () => {
  it('file_record: records files against the phase in progress; NOT_FOUND phase, BAD_INPUT without paths or a phase', async () => {
    const { client, manager } = await withSession();
    await refused(client, 'file_record', { action: 'created', paths: ['a.txt'], phase: 'nope' }, 'NOT_FOUND');
    await invalidArgs(client, 'file_record', { action: 'created', paths: [] });
    await invalidArgs(client, 'file_record', { action: 'renamed', paths: ['a'] });
    await ok(client, 'phase_start', { phase: 'design' });
    const r = await ok(client, 'file_record', { action: 'created', paths: ['a.txt', 'b.txt'] });
    expect(r['files'].map((f: { path: string; phaseId: string }) => [f.path, f.phaseId])).toEqual([
      ['a.txt', 'design'],
      ['b.txt', 'design'],
    ]);
    expect((await manager.get('s1')).phases[0]!.files.map((f) => f.path)).toEqual(['a.txt', 'b.txt']);
    // Both phases are this connection's run's: a file naming none goes to the one it started last (docs/runs.md).
    await ok(client, 'phase_start', { phase: 'test' });
    const last = await ok(client, 'file_record', { action: 'modified', paths: ['a.txt'] });
    expect(last['files'][0].phaseId).toBe('test');
  });

  it('error_add and error_resolve: ids, NOT_FOUND phase or error, INVALID_TRANSITION when already resolved', async () => {
    const { client, manager } = await withSession();
    const r = await ok(client, 'error_add', { phase: 'design', type: 'timeout', message: 'slow' });
    expect(r['errorId']).toMatch(/^err-/);
    await refused(client, 'error_add', { phase: 'nope', type: 'x', message: 'y' }, 'NOT_FOUND');
    await refused(client, 'error_resolve', { errorId: 'err-99', resolution: 'x' }, 'NOT_FOUND');
    await ok(client, 'error_resolve', { errorId: r['errorId'], resolution: 'raised the timeout' });
    expect((await manager.get('s1')).phases[0]!.errors[0]).toMatchObject({
      resolved: true,
      resolution: 'raised the timeout',
    });
    await refused(client, 'error_resolve', { errorId: r['errorId'], resolution: 'again' }, 'INVALID_TRANSITION');
  });

  it('tokens_add: totals and budget; BAD_INPUT for negative, fractional or huge counts and an unknown phase', async () => {
    const { client } = await harness();
    await ok(client, 'session_start', { title: 'T', id: 't', phases: ['p'], budget: 100 });
    const r = await ok(client, 'tokens_add', { input: 50, output: 30, cached: 5, phase: 'p' });
    expect(r['tokens']).toMatchObject({ input: 50, output: 30, cached: 5 });
    expect(r['tokens']['budget']).toMatchObject({ max: 100, used: 80, level: 'warning' });
    await invalidArgs(client, 'tokens_add', { input: -1 });
    await invalidArgs(client, 'tokens_add', { input: 1.5 });
    await refused(client, 'tokens_add', { input: 1e30 }, 'BAD_INPUT');
    await refused(client, 'tokens_add', { input: 1, phase: 'nope' }, 'NOT_FOUND');
  });

  it('tokens_add with a model and cache writes: the estimated cost, by model; an unknown model has no price', async () => {
    const { client, manager } = await harness();
    await ok(client, 'session_start', { title: 'T', id: 't', phases: ['p'] });
    // gpt-5: $1.25 per million input, $10 output, $0.125 cached.
    const r = await ok(client, 'tokens_add', {
      input: 1_000_000,
      output: 100_000,
      cached: 2_000_000,
      cacheWrite: 0,
      model: 'gpt-5',
      phase: 'p',
    });
    expect(r['tokens']['cost']).toEqual({ usd: 2.5, pricedUsd: 2.5, unpriced: { tokens: 0, models: [] } });
    const u = await ok(client, 'tokens_add', { input: 10, cacheWrite: 3, model: 'house-model-1' });
    expect(u['tokens']).toMatchObject({
      cacheWrite: 3,
      cost: { usd: null, pricedUsd: 2.5, unpriced: { tokens: 13, models: ['house-model-1'] } },
    });
    expect((await manager.get('t')).tokens.byModel).toEqual({
      'gpt-5': { input: 1_000_000, output: 100_000, cached: 2_000_000 },
      'house-model-1': { input: 10, output: 0, cached: 0, cacheWrite: 3 },
    });
    const status = await ok(client, 'session_status', {});
    expect(status['tokens']['cost']['byModel']['gpt-5']).toEqual({
      usd: 2.5,
      pricedUsd: 2.5,
      unpriced: { tokens: 0, models: [] },
    });
  });

  it('decision_add: id and content; BAD_INPUT for an empty title or choice', async () => {
    const { client, manager } = await withSession();
    const r = await ok(client, 'decision_add', {
      title: 'storage',
      choice: 'files',
      rationale: 'no server',
      alternatives: ['sqlite'],
      phase: 'design',
    });
    expect(r['decisionId']).toBeTruthy();
    expect((await manager.get('s1')).decisions[0]).toMatchObject({
      title: 'storage',
      choice: 'files',
      alternatives: ['sqlite'],
    });
    await invalidArgs(client, 'decision_add', { title: '', choice: 'x' });
    await refused(client, 'decision_add', { title: 'x', choice: '' }, 'BAD_INPUT');
  });

  it('finding_add and finding_remove; NOT_FOUND for an unknown finding', async () => {
    const { client, manager } = await withSession();
    const r = await ok(client, 'finding_add', { text: 'flaky', severity: 'high' });
    await refused(client, 'finding_remove', { findingId: 'nope' }, 'NOT_FOUND');
    await ok(client, 'finding_remove', { findingId: r['findingId'] });
    await refused(client, 'finding_remove', { findingId: r['findingId'] }, 'NOT_FOUND');
    expect((await manager.get('s1')).findings.filter((f) => !f.removed)).toEqual([]);
  });

  it('note_add: BAD_INPUT for an empty note; an oversized one is refused by the schema (the SDK names the field)', async () => {
    const { client, manager } = await withSession();
    expect((await ok(client, 'note_add', { text: 'started' }))['noteId']).toBeTruthy();
    expect((await manager.get('s1')).notes.map((n) => n.text)).toEqual(['started']);
    await refused(client, 'note_add', { text: '' }, 'BAD_INPUT');
    const e = await invalidArgs(client, 'note_add', { text: 'x'.repeat(2_000_000) });
    expect(e).toMatch(/text/);
    expect((await manager.get('s1')).notes).toHaveLength(1);
  });

  it('milestone_add and milestone_done; BAD_INPUT date, NOT_FOUND, INVALID_TRANSITION when done twice', async () => {
    const { client } = await withSession();
    const r = await ok(client, 'milestone_add', { title: 'beta', targetDate: '2026-12-01' });
    await refused(client, 'milestone_add', { title: 'x', targetDate: 'someday' }, 'BAD_INPUT');
    await refused(client, 'milestone_done', { milestone: 'gamma' }, 'NOT_FOUND');
    await ok(client, 'milestone_done', { milestone: r['milestoneId'] });
    await refused(client, 'milestone_done', { milestone: 'beta' }, 'INVALID_TRANSITION');
  });

  it('artifact_add and context_set', async () => {
    const { client, manager } = await withSession();
    expect(
      (await ok(client, 'artifact_add', { path: 'docs/d.md', kind: 'design-doc', description: 'the design' }))[
        'artifactId'
      ],
    ).toBeTruthy();
    await ok(client, 'context_set', { summary: 'design done, build next' });
    const s = await manager.get('s1');
    expect(s.artifacts[0]).toMatchObject({ path: 'docs/d.md', kind: 'design-doc' });
    expect(s.contextSummary).toBe('design done, build next');
    await invalidArgs(client, 'artifact_add', { path: '' });
    await invalidArgs(client, 'context_set', { summary: 'x'.repeat(100_001) });
  });
});

describe('checkpoints, resume plan, handoff', () => {
  it('checkpoint_create, checkpoint_list, checkpoint_restore; NOT_FOUND and BAD_INPUT (traversal) ids', async () => {
    const { client, manager } = await withSession();
    const c = await ok(client, 'checkpoint_create', { name: 'before build' });
    expect(c['checkpoint']).toMatchObject({ name: 'before build', valid: true });
    await ok(client, 'phase_start', { phase: 'design' });
    const l = await ok(client, 'checkpoint_list', {});
    expect(l['checkpoints'].map((x: { id: string }) => x.id)).toEqual([c['checkpoint']['id']]);
    await refused(client, 'checkpoint_restore', { checkpoint: 'cp-404' }, 'NOT_FOUND');
    await refused(client, 'checkpoint_restore', { checkpoint: '../../etc/passwd' }, 'BAD_INPUT');
    const r = await ok(client, 'checkpoint_restore', { checkpoint: c['checkpoint']['id'] });
    expect(r['checkpoint']['id']).toBe(c['checkpoint']['id']);
    expect((await manager.get('s1')).phases[0]!.status).toBe('pending');
  });

  it('resume_plan: the plan and its text, changing nothing; handoff: the Markdown briefing', async () => {
    const { client, manager } = await withSession();
    await ok(client, 'phase_start', { phase: 'design' });
    await ok(client, 'substep_reach', { phase: 'design', name: 'wireframes' });
    const rev = (await manager.get('s1')).revision;
    const p = await ok(client, 'resume_plan', {});
    expect(p['text']).toContain('wireframes');
    expect(JSON.stringify(p['plan'])).toContain('wireframes');
    const h = await ok(client, 'handoff', { session: 's1' });
    expect(h['markdown']).toMatch(/^# /);
    expect(h['markdown']).toContain('Ship it');
    expect((await manager.get('s1')).revision).toBe(rev);
  });
});

describe('attribution', () => {
  const agentsOf = async (h: Harness): Promise<Array<string | null>> =>
    (await h.manager.log('s1')).map((e) => e.actor.agent);

  it('the tool input agent, else the server fallback (--agent), else the client name', async () => {
    const viaClient = await withSession({ clientName: 'claude-code' });
    await ok(viaClient.client, 'note_add', { text: 'a' });
    await ok(viaClient.client, 'note_add', { text: 'b', agent: 'reviewer' });
    // session.created, run.started (the connection's run), then the notes.
    expect(await agentsOf(viaClient)).toEqual(['claude-code', 'claude-code', 'claude-code', 'reviewer']);

    const viaFlag = await withSession({ clientName: 'claude-code', agentFallback: 'planner' });
    await ok(viaFlag.client, 'tokens_add', { input: 3 });
    await ok(viaFlag.client, 'tokens_add', { input: 4, agent: 'coder' });
    expect(await agentsOf(viaFlag)).toEqual(['planner', 'planner', 'planner', 'coder']);
    expect(Object.keys((await viaFlag.manager.get('s1')).tokens.byAgent).sort()).toEqual(['coder', 'planner']);
  });

  it('a server session (BATON_SESSION) is used when a call names none', async () => {
    const h = await withSession();
    await ok(h.client, 'session_start', { title: 'Other', id: 's2', switch: true });
    const pinned = await connect({ manager: h.manager, session: 's1' });
    open.push(pinned);
    expect((await ok(pinned.client, 'session_status', {}))['id']).toBe('s1');
    expect((await ok(h.client, 'session_status', {}))['id']).toBe('s2');
  });
});

describe('leases', () => {
  it("a server running under a run's lease (BATON_SESSION + BATON_LEASE_TOKEN) is FENCED once another run took the session over", async () => {
    const h = await withSession();
    const first = await h.manager.leases.acquire('s1', { owner: 'run-1', ttlMs: 60_000 });
    const underRun = await connect({ manager: h.manager, session: 's1', fencingToken: first.result.token });
    open.push(underRun);
    await ok(underRun.client, 'note_add', { text: 'while the lease is held' });
    // Writes to another session do not carry the run's token.
    // force: the first connection's run still works on s1 (else LOCKED).
    await ok(underRun.client, 'session_start', { title: 'Side', id: 'side', switch: true, force: true });
    await ok(underRun.client, 'note_add', { text: 'side note', session: 'side' });
    await h.manager.leases.acquire('s1', { owner: 'run-2', ttlMs: 60_000, force: true });
    const e = await refused(underRun.client, 'note_add', { text: 'zombie write' }, 'FENCED');
    expect(e.details).toMatchObject({ token: first.result.token });
    await refused(underRun.client, 'phase_start', { phase: 'design' }, 'FENCED');
    expect((await h.manager.get('s1')).notes.map((n) => n.text)).toEqual(['while the lease is held']);
  });
});

describe('bad arguments never crash the server', () => {
  const survive = async (client: Client): Promise<void> => {
    expect((await ok(client, 'session_status', {}))['id']).toBe('s1');
  };

  it('wrong types, unknown and missing arguments, unknown tools are refused by the SDK with a text naming the problem', async () => {
    const { client } = await withSession();
    const wrongType = await invalidArgs(client, 'note_add', { text: 42 });
    expect(wrongType).toMatch(/text/);
    await invalidArgs(client, 'phase_start', { phase: ['design'] });
    await invalidArgs(client, 'tokens_add', { input: '12' });
    await invalidArgs(client, 'session_list', { all: 'yes' });
    const unknown = await invalidArgs(client, 'note_add', { text: 'x', sesion: 's1' });
    expect(unknown).toMatch(/sesion/);
    await invalidArgs(client, 'error_add', { phase: 'design' });
    await invalidArgs(client, 'session_switch', {});
    await invalidArgs(client, 'no_such_tool', {});
    await survive(client);
  });

  it('huge strings and huge arrays are refused with a clear message', async () => {
    const { client } = await withSession();
    const big = 'a'.repeat(5_000_000);
    for (const [tool, args] of [
      ['session_status', { session: big }],
      ['note_add', { text: big }],
      ['phase_start', { phase: big }],
      ['file_record', { action: 'created', paths: [big] }],
      ['file_record', { action: 'created', paths: Array.from({ length: 30_000 }, (_, i) => `f${i}`) }],
      ['session_start', { title: big }],
      ['checkpoint_restore', { checkpoint: big }],
    ] as const) {
      const e = await invalidArgs(client, tool, args as Record<string, unknown>);
      expect(e.length).toBeLessThan(3000);
    }
    await survive(client);
  });

  it('an unexpected failure is INTERNAL (its stack logged), a file-system refusal STORE_UNAVAILABLE; the server goes on', async () => {
    const h = await withSession();
    const store = h.manager.store;
    let fail: Error | null = null;
    const broken = new Proxy(store, {
      get(target, prop, receiver) {
        const v = Reflect.get(target, prop, receiver) as unknown;
        if (prop === 'append' && fail) return () => Promise.reject(fail);
        return typeof v === 'function' ? (v as (...a: unknown[]) => unknown).bind(target) : v;
      },
    });
    const warnings: string[] = [];
    const m = new SessionManager({ store: broken, pid: 1, host: 'h' });
    const c = await connect({ manager: m, onWarning: (w) => warnings.push(w) });
    open.push(c);
    fail = new TypeError('boom');
    const internal = await refused(c.client, 'note_add', { text: 'x', session: 's1' }, 'INTERNAL');
    expect(internal.message).toContain('boom');
    expect(warnings.join('\n')).toMatch(/note_add failed unexpectedly: TypeError: boom/);
    fail = Object.assign(new Error('EACCES: permission denied, open journal.jsonl'), { code: 'EACCES' });
    await refused(c.client, 'note_add', { text: 'x', session: 's1' }, 'STORE_UNAVAILABLE');
    fail = null;
    await ok(c.client, 'note_add', { text: 'fine again', session: 's1' });
    expect((await h.manager.get('s1')).notes.map((n) => n.text)).toEqual(['fine again']);
  });

  it('protocol errors stay protocol errors: an unknown method is rejected by JSON-RPC, not as a tool result', async () => {
    const { client } = await withSession();
    await expect(
      client.request(
        { method: 'no/such/method', params: {} } as never,
        (await import('@modelcontextprotocol/sdk/types.js')).EmptyResultSchema,
      ),
    ).rejects.toThrow(/Method not found/);
    await survive(client);
  });
});

describe('error codes of each tool family', () => {
  it('FENCED: writes of a run that lost its lease are refused by session, phase, record and checkpoint tools; nothing is written', async () => {
    const h = await withSession();
    const cp = await ok(h.client, 'checkpoint_create', { name: 'before' });
    await ok(h.client, 'phase_start', { phase: 'design' });
    const first = await h.manager.leases.acquire('s1', { owner: 'run-1', ttlMs: 60_000 });
    const underRun = await connect({ manager: h.manager, session: 's1', fencingToken: first.result.token });
    open.push(underRun);
    await h.manager.leases.acquire('s1', { owner: 'run-2', ttlMs: 60_000, force: true });
    const revision = (await h.manager.get('s1')).revision;
    for (const [tool, args] of [
      // force: past the first connection's live run; the fence still refuses.
      ['session_pause', { force: true }],
      ['session_complete', {}],
      ['phase_complete', { phase: 'design' }],
      ['phase_fail', { phase: 'design' }],
      ['phase_skip', { phase: 'test' }],
      ['substep_reach', { phase: 'design', name: 'x' }],
      ['file_record', { action: 'deleted', paths: ['gone.txt'] }],
      ['error_add', { phase: 'design', type: 'runtime', message: 'x' }],
      ['tokens_add', { input: 5 }],
      ['decision_add', { title: 'x', choice: 'y' }],
      ['finding_add', { text: 'x' }],
      ['milestone_add', { title: 'x' }],
      ['artifact_add', { path: 'x.md' }],
      ['context_set', { summary: 'x' }],
      ['checkpoint_create', { name: 'zombie' }],
      ['checkpoint_restore', { checkpoint: cp['checkpoint']['id'] }],
    ] as const) {
      const e = await refused(underRun.client, tool, args, 'FENCED');
      expect(e.hint, tool).toContain('`session_status`');
    }
    expect((await h.manager.get('s1')).revision).toBe(revision);
  });

  it('session_resume: LOCKED while a live run holds the lease, which stays with that run; nothing changes, and force takes it over', async () => {
    const h = await withSession();
    await ok(h.client, 'session_pause', {});
    await h.manager.leases.acquire('s1', { owner: 'run-1', ttlMs: 60_000 });
    const before = await h.manager.get('s1');
    const e = await refused(h.client, 'session_resume', {}, 'LOCKED');
    expect(e.hint).toContain('`force: true`');
    expect(e.details['lease']).toMatchObject({ owner: 'run-1' });
    const after = await h.manager.get('s1');
    expect(after.lease).toMatchObject({ owner: 'run-1' });
    // A refused resume leaves the session as it was: still paused, not a single event more.
    expect([after.status, after.revision]).toEqual(['paused', before.revision]);
    await ok(h.client, 'session_resume', { force: true });
    expect((await h.manager.get('s1')).status).toBe('active');
  });

  it('NOT_FOUND for an unknown phase from every phase verb and every record that names a phase', async () => {
    const { client } = await withSession();
    await ok(client, 'phase_start', { phase: 'design' });
    for (const [tool, args] of [
      ['phase_start', {}],
      ['phase_complete', {}],
      ['phase_fail', {}],
      ['phase_skip', {}],
      ['phase_retry', {}],
      ['substep_reach', { name: 'x' }],
      ['decision_add', { title: 'x', choice: 'y' }],
      ['finding_add', { text: 'x' }],
      ['note_add', { text: 'x' }],
      ['artifact_add', { path: 'x.md' }],
      ['error_add', { type: 'runtime', message: 'x' }],
      ['tokens_add', { input: 1 }],
      ['file_record', { action: 'created', paths: ['a.txt'] }],
    ] as const) {
      const e = await refused(client, tool, { ...args, phase: 'deploy' }, 'NOT_FOUND');
      expect(e.message, tool).toContain('deploy');
      expect(e.hint, tool).toContain('design, build, test');
    }
  });

  it('CORRUPT: a damaged line in the middle of the journal refuses session_status, resume_plan, handoff and the state resource', async () => {
    const { client, dir } = await freshProject();
    await ok(client, 'session_start', { title: 'Journal', id: 'j', phases: ['a'] });
    for (const text of ['n1', 'n2', 'n3']) await ok(client, 'note_add', { text });
    const file = path.join(dir, '.baton', 'sessions', 'j', 'journal.jsonl');
    const lines = fs.readFileSync(file, 'utf8').split('\n');
    const at = lines.findIndex((l) => l.includes('"text":"n2"'));
    expect(at).toBeGreaterThan(0);
    expect(at).toBeLessThan(lines.length - 2);
    lines[at] = lines[at]!.replace('"text":"n2"', '"text":"nX"');
    fs.writeFileSync(file, lines.join('\n'));
    for (const tool of ['session_status', 'resume_plan', 'handoff']) {
      const e = await refused(client, tool, {}, 'CORRUPT');
      expect(e.message, tool).toContain('j');
      expect(e.hint, tool).toMatch(/ask a person/);
    }
    await expect(client.readResource({ uri: 'baton://sessions/j' })).rejects.toMatchObject({
      data: { code: 'CORRUPT' },
    });
  });

  it('checkpoint_restore: CORRUPT for a damaged checkpoint, naming the previous valid one', async () => {
    const { client, dir } = await freshProject();
    await ok(client, 'session_start', { title: 'Cps', id: 'c', phases: ['a'] });
    const good = await ok(client, 'checkpoint_create', { name: 'good' });
    await ok(client, 'note_add', { text: 'x' });
    const bad = await ok(client, 'checkpoint_create', { name: 'bad' });
    const cpDir = path.join(dir, '.baton', 'sessions', 'c', 'checkpoints');
    const file = path.join(cpDir, fs.readdirSync(cpDir).find((f) => f.startsWith(bad['checkpoint']['id']))!);
    const bytes = fs.readFileSync(file);
    bytes[bytes.indexOf('"name":"bad"') + 9] = 'B'.charCodeAt(0);
    fs.writeFileSync(file, bytes);
    const e = await refused(client, 'checkpoint_restore', { checkpoint: bad['checkpoint']['id'] }, 'CORRUPT');
    expect(e.hint).toContain(good['checkpoint']['id']);
    expect(e.hint).toContain('`checkpoint_restore`');
    expect((await ok(client, 'checkpoint_list', {}))['checkpoints'].map((c: { valid: boolean }) => c.valid)).toEqual([
      true,
      false,
    ]);
  });
});
