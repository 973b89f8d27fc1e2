/**
 * Checkpoints named by a prefix of their id, and completing a phase through the library.
 */
import { describe, expect, it } from 'vitest';
import { expectError, withSession } from './helpers.js';

describe('checkpoint id prefixes, and completing a phase in the library', () => {
  it('restore, checkpoint show and resume --from take a unique prefix of a checkpoint id; an ambiguous one is BAD_INPUT listing the matches', async () => {
    const ws = await withSession('px', 'a');
    for (let i = 1; i <= 11; i++) await ws.ok(['checkpoint', `step ${i}`]);
    const ids = (await ws.json<Array<{ id: string }>>(['checkpoints'])).map((c) => c.id);
    expect(ids[2]).toBe('cp-3-step-3');
    expect((await ws.ok(['restore', 'cp-3'])).stdout).toContain('cp-3-step-3');
    // `cp-1` ends where cp-1-step-1's number ends, so cp-10 and cp-11 do not make it ambiguous.
    expect(await ws.json(['checkpoint', 'show', 'cp-1'])).toMatchObject({ id: 'cp-1-step-1' });
    const e = expectError(await ws.run(['restore', 'cp-']), 'BAD_INPUT');
    expect(e.message).toBe(`Checkpoint "cp-" of session px is ambiguous: it matches ${ids.join(', ')}.`);
    expectError(await ws.run(['restore', 'cp-99']), 'NOT_FOUND');
  });

  it("the library speaks its own verbs: phase(id, p, 'complete') completes the phase; 'done' is refused naming them", async () => {
    const { openManager } = await import('../../src/index.js');
    const m = openManager({ url: 'memory:', cwd: process.cwd(), now: () => new Date('2026-01-01T00:00:00Z') });
    await m.start({ title: 'Lib', id: 'lib', phases: [{ id: 'a', name: 'A' }] });
    await m.phase('lib', 'a', 'start');
    // A JavaScript caller is not held to the type; the word of another surface is refused by name.
    const refused = await m.phase('lib', 'a', 'done' as never).catch((e: unknown) => e);
    expect(refused).toMatchObject({ code: 'BAD_INPUT', message: 'Unknown phase action "done".' });
    expect((refused as { hint?: unknown }).hint).toBe('Use one of: start, complete, fail, skip, retry.');
    const r = await m.phase('lib', 'a', 'complete');
    expect(r.state.phases[0]!.status).toBe('completed');
  });
});
