/**
 * After `complete`: `status` and `archive` act on the session just finished; `list` says that
 * archived sessions are hidden.
 */
import { describe, expect, it } from 'vitest';
import { expectError, withSession, workspace } from './helpers.js';

describe('right after complete', () => {
  it('status shows the session just finished and says none is active; archive archives it', async () => {
    const ws = await withSession('done1', 'a');
    await ws.ok(['phase', 'start', 'a']);
    await ws.ok(['phase', 'complete', 'a']);
    await ws.ok(['complete']);
    const status = await ws.ok(['status']);
    expect(status.stdout).toContain('Session done1');
    expect(status.stdout).toContain('No session is active: done1 has completed.');
    const json = JSON.parse((await ws.ok(['status', '--json'])).stdout) as {
      id: string;
      active: boolean;
      note: string;
    };
    expect(json).toMatchObject({ id: 'done1', status: 'completed', active: false });
    // A change still needs a session: nothing is written to a finished session by accident.
    expectError(await ws.run(['note', 'add', 'x']), 'NO_ACTIVE_SESSION');
    expect((await ws.ok(['archive'])).stdout).toBe('Archived done1 (the session just finished; none is active)\n');
    expect(
      (await ws.json<Array<{ id: string; archived: boolean }>>(['list', '--all'])).find((r) => r.id === 'done1')
        ?.archived,
    ).toBe(true);
    // Archived, it is no longer the one just finished: back to the usual refusal.
    expectError(await ws.run(['status']), 'NO_ACTIVE_SESSION');
  });

  it('after fail and abandon too: always the session finished last, never the paused one', async () => {
    const ws = await withSession('p0');
    await ws.ok(['start', 'Failing', '--id', 'f1', '--switch']);
    await ws.ok(['fail', '--reason', 'broke']);
    expect((await ws.ok(['status'])).stdout).toContain('No session is active: f1 has failed.');
    await ws.ok(['start', 'Dropped', '--id', 'a1']);
    await ws.ok(['abandon']);
    expect((await ws.ok(['status'])).stdout).toContain('No session is active: a1 was abandoned.');
    expect((await ws.ok(['archive'])).stdout).toBe('Archived a1 (the session just finished; none is active)\n');
    expect((await ws.status('f1')).archived).toBe(false);
    expect((await ws.status('p0')).status).toBe('paused');
  });
});

describe('list with nothing to show', () => {
  it('names the archived sessions and --all', async () => {
    const ws = await withSession('arch1');
    await ws.ok(['complete']);
    await ws.ok(['archive', 'arch1']);
    expect((await ws.ok(['list'])).stdout).toBe('No sessions (1 archived: `baton list --all` shows it).\n');
    expect((await ws.ok(['list', '--all'])).stdout).toContain('arch1');
    expect((await workspace().ok(['init'], {})).code).toBe(0);
  });
});
