/** Events as sentences for people (the dashboard's event log): every type reads as text, never as JSON. */
import { describe, expect, it } from 'vitest';
import { eventSentence } from '../../src/domain/event-sentence.js';
import { EVENT_TYPES } from '../../src/domain/events.js';

describe('eventSentence', () => {
  it('says what happened, naming the agent, with money and numbers as people read them', () => {
    expect(eventSentence({ type: 'phase.started', data: { phaseId: 'build', agent: 'bob', forced: false } })).toBe(
      'bob started phase build.',
    );
    expect(
      eventSentence({ type: 'phase.completed', data: { phaseId: 'build', agent: null }, actor: { agent: 'ci' } }),
    ).toBe('ci completed phase build.');
    expect(
      eventSentence({ type: 'phase.failed', data: { phaseId: 'test', agent: null, reason: 'tests failed' } }),
    ).toBe('Someone failed phase test: tests failed.');
    expect(
      eventSentence({
        type: 'tokens.recorded',
        data: { agent: 'ann', phaseId: null, input: 12000, output: 300, cached: 5 },
      }),
    ).toBe('ann used 12,000 input and 300 output tokens (5 cached).');
    expect(eventSentence({ type: 'budget.cost_set', data: { maxUsd: 25 } })).toBe('Cost budget set to $25.00.');
    expect(
      eventSentence({
        type: 'file.recorded',
        data: { phaseId: 'build', path: 'src/a.ts', action: 'modified', sha256: 'ab', size: 1, agent: 'bob' },
      }),
    ).toBe('bob modified src/a.ts in phase build (1 byte).');
    expect(eventSentence({ type: 'something.new', data: { x: 1 } })).toBe('something.new recorded.');
  });

  it('gives every event type a sentence without braces or "undefined", even from sparse data', () => {
    for (const type of EVENT_TYPES) {
      const text = eventSentence({
        type,
        data: {
          phaseId: 'p',
          agent: 'a',
          cli: 'claude',
          owner: 'o',
          cause: 'c',
          title: 't',
          name: 'n',
          path: 'f',
          action: 'created',
          errorId: 'err-1',
          type: 'runtime',
          message: 'm',
          resolution: 'r',
          text: 'x',
          key: 'k',
          input: 1,
          output: 2,
          cached: 0,
          command: ['make'],
          from: 1,
          to: 2,
          line: 3,
          truncatedBytes: 4,
          milestoneId: 'm1',
          findingId: 'f1',
          choice: 'c',
          steps: [],
          attempt: 1,
        },
      });
      expect(text, type).toMatch(/[.!?]$/);
      expect(text, type).not.toMatch(/[{}]|undefined|\[object/);
    }
  });
});
