/** Bugs found by review of the domain, each pinned by the input that showed it. */
import { describe, expect, it } from 'vitest';
import { fold } from '../../src/domain/apply.js';
import { tokenCount, positive } from '../../src/domain/decide.js';
import { BatonError } from '../../src/domain/errors.js';
import { validateId } from '../../src/domain/ids.js';
import { parsePlan } from '../../src/domain/plan.js';
import { created, ev, rawEvent } from './helpers.js';

function codeOf(fn: () => unknown): { code: string; message: string } {
  try {
    fn();
  } catch (e) {
    if (e instanceof BatonError) return { code: e.code, message: e.message };
    return { code: `not a BatonError: ${String(e)}`, message: '' };
  }
  return { code: 'no error', message: '' };
}

describe('domain regressions', () => {
  it('folding does not change the agents array of the session.created event', () => {
    const c = created([{ id: 'p', name: 'P', agents: ['alice'], blockedBy: [] }]);
    const s = fold(null, [c, ev('phase.started', { phaseId: 'p', agent: 'bob', forced: false }, 2)], 'x')!;
    expect(s.phases[0]!.agents).toEqual(['alice', 'bob']);
    expect((c.data as { phases: Array<{ agents: string[] }> }).phases[0]!.agents).toEqual(['alice']);
  });

  it('every agent that records work on a phase becomes one of its agents, in first-seen order (issue 15, bug 1)', () => {
    const by = (agent: string, e: ReturnType<typeof ev>): ReturnType<typeof ev> => ({
      ...e,
      actor: { ...e.actor, agent },
    });
    const s = fold(
      null,
      [
        created([
          { id: 'p', name: 'P', agents: ['alice'], blockedBy: [] },
          { id: 'q', name: 'Q', blockedBy: [] },
        ]),
        ev('phase.started', { phaseId: 'p', agent: 'bob', forced: false }, 2),
        // A sub-step carries no agent of its own: the one who recorded it reached it.
        by('carol', ev('substep.reached', { phaseId: 'p', name: 's' }, 3)),
        ev('file.recorded', { phaseId: 'p', path: 'f', action: 'created', sha256: null, size: null, agent: 'dave' }, 4),
        ev('file.recorded', { phaseId: null, path: 'g', action: 'created', sha256: null, size: null, agent: 'zed' }, 5),
        ev('tokens.recorded', { agent: 'erin', phaseId: 'p', input: 1, output: 0, cached: 0 }, 6),
        ev('tokens.recorded', { agent: 'zoe', phaseId: null, input: 1, output: 0, cached: 0 }, 7),
        ev('error.recorded', { errorId: 'err-1', phaseId: 'p', agent: 'bob', type: 't', message: 'm' }, 8),
        ev('phase.failed', { phaseId: 'p', agent: 'frank', reason: null }, 9),
        ev('phase.retried', { phaseId: 'p', agent: 'alice', forced: false, attempt: 1 }, 10),
        ev('phase.completed', { phaseId: 'p', agent: 'gina' }, 11),
      ],
      'x',
    )!;
    expect(s.phases[0]!.agents).toEqual(['alice', 'bob', 'carol', 'dave', 'erin', 'frank', 'gina']);
    expect(s.phases[1]!.agents).toEqual([]);
  });

  it.each(['hasOwnProperty', 'valueOf', '__proto__', 'toString'])(
    'an unknown event type %s only moves the revision',
    (type) => {
      const s = fold(null, [created([]), rawEvent(type, {}, 2)], 'x')!;
      expect(s.revision).toBe(2);
    },
  );

  it.each([
    [{ phases: [{ id: 'a' }] }, 'phases.0.name'],
    [{ phases: [{ name: 5 }] }, 'phases.0.name'],
    [{ phases: [{ name: 'A', id: true }] }, 'phases.0.id'],
    [{ phases: [{ name: 'A', agents: 'bob' }] }, 'phases.0.agents'],
  ])('a bad phase field is named in the message (%j)', (doc, where) => {
    const r = codeOf(() => parsePlan(doc, 'p.json'));
    expect(r.code).toBe('BAD_INPUT');
    expect(r.message).toContain(`p.json`);
    expect(r.message).toContain(where);
  });

  it('dependency errors in a plan name the plan file', () => {
    const r = codeOf(() => parsePlan({ phases: [{ id: 'a', name: 'A', blockedBy: ['zz'] }] }, 'plan.yaml'));
    expect(r.code).toBe('BAD_INPUT');
    expect(r.message).toMatch(/^Plan plan\.yaml: .*zz/);
  });

  it('bigint, NaN and Infinity token counts are BAD_INPUT with the value shown', () => {
    expect(codeOf(() => tokenCount(12n, 'input'))).toMatchObject({
      code: 'BAD_INPUT',
      message: expect.stringContaining('got 12'),
    });
    expect(codeOf(() => tokenCount(Number.NaN, 'input')).message).toContain('got NaN');
    expect(codeOf(() => positive(Number.POSITIVE_INFINITY, 'budget')).message).toContain('got Infinity');
  });

  it('a non-string id is refused as not text, not as empty', () => {
    const r = codeOf(() => validateId(42));
    expect(r.code).toBe('BAD_INPUT');
    expect(r.message).toContain('must be text');
  });
});
