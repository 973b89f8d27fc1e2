/*
 * `manager.plan` (the library door of `baton plan` and the plan_* tools): each change is
 * validated before anything is written, recorded as one event, and folds into the state.
 */
import { describe, expect, it } from 'vitest';
import { fold } from '../../src/domain/apply.js';
import { isBatonError } from '../../src/domain/errors.js';
import { SessionManager } from '../../src/manager/manager.js';
import { MemoryStore } from '../../src/store/memory.js';
import { expectCode } from '../../src/testing/conformance.js';
import { tickingClock } from '../support/clock.js';

async function session(): Promise<SessionManager> {
  const m = new SessionManager({
    store: new MemoryStore(),
    now: tickingClock(Date.parse('2026-05-01T10:00:00Z')),
    agent: 'tester',
    pid: 1,
    host: 'h',
    autoCheckpoint: false,
  });
  await m.start({
    title: 'Plan',
    id: 's',
    phases: [
      { id: 'design', name: 'Design' },
      { id: 'build', name: 'Build', blockedBy: ['design'] },
      { id: 'test', name: 'Test', blockedBy: ['build'] },
    ],
  });
  return m;
}

describe('manager.plan', () => {
  it('adds a phase where asked, with a unique id made from its name, and the fold of the journal agrees', async () => {
    const m = await session();
    const end = await m.plan.add('s', { name: 'Docs' });
    expect(end.result).toBe('docs');
    expect((await m.plan.add('s', { name: 'Design', before: 'design', maxRetries: '0' })).result).toBe('design-2');
    expect(
      (await m.plan.add('s', { name: 'Lint', after: 'build', blockedBy: ['Build'], agents: ['bob'] })).result,
    ).toBe('lint');
    const s = await m.get('s');
    expect(s.phases.map((p) => p.id)).toEqual(['design-2', 'design', 'build', 'lint', 'test', 'docs']);
    expect(s.phases[0]).toMatchObject({ status: 'pending', maxRetries: 0, blockedBy: [] });
    expect(s.phases[3]).toMatchObject({ blockedBy: ['build'], agents: ['bob'], maxRetries: 2 });
    expect(fold(null, await m.log('s'), 's')!.phases).toEqual(s.phases);
    await expectCode(m.plan.add('s', { name: 'X', id: 'build' }), 'EXISTS');
    await expectCode(m.plan.add('s', { name: 'X', after: 'design', before: 'test' }), 'BAD_INPUT');
    await expectCode(m.plan.add('s', { name: 'X', blockedBy: ['nope'] }), 'NOT_FOUND');
    await expectCode(m.plan.add('s', { name: 'X', id: 'x', blockedBy: ['x'] }), 'BAD_INPUT');
    await expectCode(m.plan.add('s', { name: 'X', maxRetries: 101 }), 'BAD_INPUT');
    await expectCode(m.plan.add('s', { name: 'X', id: '../x' }), 'BAD_INPUT');
    expect((await m.get('s')).revision).toBe(s.revision);
  });

  it('sets retry limits and dependencies, refusing a cycle; removes only a free pending phase', async () => {
    const m = await session();
    await m.plan.set('s', 'test', { maxRetries: 5, blockedBy: ['design', 'build'], reason: 'stricter' });
    expect((await m.get('s')).phases[2]).toMatchObject({ maxRetries: 5, blockedBy: ['design', 'build'] });
    expect((await m.log('s')).at(-1)).toMatchObject({
      type: 'phase.updated',
      data: { phaseId: 'test', maxRetries: 5, blockedBy: ['design', 'build'], reason: 'stricter' },
    });
    const cycle = await m.plan.set('s', 'design', { blockedBy: ['test'] }).catch((e: unknown) => e);
    expect(isBatonError(cycle, 'BAD_INPUT') && cycle.message).toContain('cycle: design → test → design');
    await expectCode(m.plan.set('s', 'design', {}), 'BAD_INPUT');

    const dep = await m.plan.remove('s', 'build').catch((e: unknown) => e);
    expect(isBatonError(dep, 'BAD_INPUT') && dep.hintAction).toEqual({
      action: 'plan.drop-dependency',
      args: { session: 's', changes: [{ phase: 'test', blockedBy: ['design'] }] },
    });
    await m.plan.set('s', 'test', { blockedBy: ['design'] });
    await m.phase('s', 'build', 'start', { force: true });
    await expectCode(m.plan.remove('s', 'build'), 'INVALID_TRANSITION');
    await m.plan.add('s', { name: 'Docs' });
    await m.files('s', 'created', ['docs/a.md'], 'docs');
    const recorded = await m.plan.remove('s', 'docs').catch((e: unknown) => e);
    expect(isBatonError(recorded, 'INVALID_TRANSITION') && recorded.message).toContain('1 file(s)');
    await m.plan.remove('s', 'test', { reason: 'not needed' });
    expect((await m.get('s')).phases.map((p) => p.id)).toEqual(['design', 'build', 'docs']);
    // A strict revision is honoured; an ended session takes no plan change.
    await expectCode(m.plan.add('s', { name: 'Y' }, { expectedRevision: 1 }), 'CONFLICT');
    await m.lifecycle('s', 'abandon', 'the user gave up');
    await expectCode(m.plan.add('s', { name: 'Y' }), 'INVALID_TRANSITION');
  });
});
