/**
 * Folding keeps what it was given and records who worked: the agents of a phase are everyone
 * who recorded work on it, and an event type fold does not know only moves the revision.
 */
import { describe, expect, it } from 'vitest';
import { fold } from '../../src/domain/apply.js';
import { created, ev, rawEvent } from './helpers.js';

describe('folding', () => {
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
});
