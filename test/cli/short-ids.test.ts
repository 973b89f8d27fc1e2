/**
 * Issue 15, "Short ids": a unique prefix of a session id works wherever an id does (CLI
 * arguments, --session, BATON_SESSION, MCP tools, the library through the manager); an
 * ambiguous prefix is BAD_INPUT listing the matches and writes nothing.
 */
import { describe, expect, it } from 'vitest';
import { SessionManager } from '../../src/manager/manager.js';
import { MemoryStore } from '../../src/store/memory.js';
import { connect, ok, refused } from '../mcp/helpers.js';
import { expectError, workspace } from './helpers.js';

async function twoSessions() {
  const ws = workspace();
  await ws.ok(['start', 'Fix login', '--id', '2026-11-24-fix-login', '--phases', 'a']);
  await ws.ok(['start', 'Fix logout', '--id', '2026-11-24-fix-logout', '--phases', 'a', '--switch']);
  await ws.ok(['start', 'Docs', '--id', '2026-11-25-docs', '--switch']);
  return ws;
}

describe('session id prefixes on the command line', () => {
  it('--session, BATON_SESSION and positional ids take a unique prefix', async () => {
    const ws = await twoSessions();
    expect((await ws.status('2026-11-24-fix-logi')).id).toBe('2026-11-24-fix-login');
    expect((await ws.json<{ id: string }>(['status'], { env: { BATON_SESSION: '2026-11-24-fix-logo' } })).id).toBe(
      '2026-11-24-fix-logout',
    );
    expect((await ws.ok(['switch', '2026-11-24-fix-logi'])).stdout).toBe('Switched to 2026-11-24-fix-login\n');
    await ws.ok(['phase', 'start', 'a', '--session', '2026-11-24-fix-logi']);
    expect((await ws.status('2026-11-24-fix-login')).phases[0]!.status).toBe('in_progress');
    expect((await ws.ok(['pin', '2026-11-25'])).stdout).toContain('2026-11-25-docs');
    expect((await ws.ok(['resume', '2026-11-24-fix-logo'])).stdout).toContain('2026-11-24-fix-logout');
  });

  it('an ambiguous prefix is BAD_INPUT listing the matches, and nothing is written', async () => {
    const ws = await twoSessions();
    const before = await ws.status('2026-11-24-fix-login');
    for (const args of [
      ['status', '--session', '2026-11-24-fix'],
      ['switch', '2026-11-24-fix'],
      ['note', 'add', 'x', '--session', '2026-11-24'],
    ]) {
      const e = expectError(await ws.run(args), 'BAD_INPUT');
      expect(e.message).toBe(
        'Session "2026-11-24-fix" is ambiguous: it matches 2026-11-24-fix-login, 2026-11-24-fix-logout.'.replace(
          '"2026-11-24-fix"',
          JSON.stringify(args.at(-1)),
        ),
      );
    }
    expect((await ws.status('2026-11-24-fix-login')).revision).toBe(before.revision);
    expect((await ws.json<{ id: string }>(['status'])).id).toBe('2026-11-25-docs');
    // An id that is also the prefix of a longer one names itself.
    await ws.ok(['start', 'Short', '--id', '2026-11-24-fix', '--switch']);
    expect((await ws.status('2026-11-24-fix')).id).toBe('2026-11-24-fix');
    expectError(await ws.run(['status', '--session', 'nope']), 'NOT_FOUND');
  });

  it('archived sessions are found by prefix too', async () => {
    const ws = await twoSessions();
    await ws.ok(['archive', '2026-11-24-fix-logi']);
    expect((await ws.status('2026-11-24-fix-logi')).id).toBe('2026-11-24-fix-login');
  });
});

describe('session id prefixes in MCP and the library', () => {
  it('tools take a prefix in `session`; an ambiguous one is BAD_INPUT with the matches in details', async () => {
    const h = await connect();
    await ok(h.client, 'session_start', { title: 'One', id: 'alpha-one', phases: ['a'] });
    await ok(h.client, 'session_start', { title: 'Two', id: 'alpha-two', phases: ['a'], switch: true });
    expect((await ok(h.client, 'session_status', { session: 'alpha-o' }))['id']).toBe('alpha-one');
    expect((await ok(h.client, 'session_switch', { session: 'alpha-o' }))['session']).toBe('alpha-one');
    const e = await refused(h.client, 'session_status', { session: 'alpha' }, 'BAD_INPUT');
    expect(e.details).toMatchObject({ matches: ['alpha-one', 'alpha-two'] });
    await h.close();
  });

  it('manager.resolve expands a prefix, once, for every call after it', async () => {
    const m = new SessionManager({ store: new MemoryStore(), now: () => new Date('2026-01-01T00:00:00Z') });
    await m.start({ title: 'Lib', id: 'library-session' });
    expect(await m.resolve('lib')).toBe('library-session');
    expect(await m.resolve('library-session')).toBe('library-session');
    expect((await m.get(await m.resolve('library'))).title).toBe('Lib');
  });
});
