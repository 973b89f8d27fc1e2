/**
 * The agents of a phase are everyone who worked on it: an agent that records files, sub-steps,
 * tokens, errors or completion is listed in status, handoff and status --json.
 */
import { describe, expect, it } from 'vitest';
import { phaseOf, withSession } from './helpers.js';

describe('the agents of a phase are everyone who worked on it', () => {
  it('an agent that records files, sub-steps, tokens, errors or completion is listed in status, handoff and status --json', async () => {
    const ws = await withSession('ag', 'a,b');
    await ws.ok(['phase', 'start', 'a', '--agent', 'alice']);
    await ws.ok(['file', 'created', 'f', '--agent', 'bob']);
    await ws.ok(['substep', 'a', 's', '--agent', 'carol']);
    await ws.ok(['tokens', 'add', '--agent', 'dave', '--phase', 'a', '--input', '10']);
    await ws.ok(['error', 'add', '--phase', 'a', '--agent', 'erin', '--type', 'lint', '--message', 'm']);
    await ws.ok(['phase', 'complete', 'a', '--agent', 'frank']);
    // Work on no phase, or on another one, makes nobody an agent of `a`.
    await ws.ok(['tokens', 'add', '--agent', 'gus', '--input', '5']);
    await ws.ok(['phase', 'start', 'b', '--agent', 'hal']);
    await ws.ok(['file', 'created', 'g', '--agent', 'alice']);

    const s = await ws.status();
    expect(phaseOf(s, 'a').agents).toEqual(['alice', 'bob', 'carol', 'dave', 'erin', 'frank']);
    expect(phaseOf(s, 'b').agents).toEqual(['hal', 'alice']);
    expect((await ws.ok(['status'])).stdout).toContain('agents: alice, bob, carol, dave, erin, frank');
    expect((await ws.ok(['handoff'])).stdout).toMatch(/\| a \| a \| [^|]+ \| alice, bob, carol, dave, erin, frank \|/);
  });
});
