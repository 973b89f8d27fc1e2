import { describe, expect, it } from 'vitest';
import { validatePhases } from '../../src/domain/decide.js';
import { parsePlan, phasesFromList } from '../../src/domain/plan.js';
import { refusal } from './helpers.js';
import { cliHint } from '../../src/cli/hint-words.js';

const SRC = 'plan.json';

describe('parsePlan: accepted shapes', () => {
  it('reads phase objects with every known field', () => {
    const plan = parsePlan(
      {
        title: 'Ship it',
        budget: 50000,
        phases: [
          { id: 'design', name: 'Design' },
          {
            id: 'build',
            name: 'Build',
            agents: ['coder', 'reviewer'],
            blockedBy: ['design'],
            parallelGroup: 'g1',
            maxRetries: 3,
          },
        ],
      },
      SRC,
    );
    expect(plan).toEqual({
      title: 'Ship it',
      budget: 50000,
      phases: [
        { id: 'design', name: 'Design', agents: [], blockedBy: [], parallelGroup: null },
        {
          id: 'build',
          name: 'Build',
          agents: ['coder', 'reviewer'],
          blockedBy: ['design'],
          parallelGroup: 'g1',
          maxRetries: 3,
        },
      ],
    });
  });

  it('reads a bare list of phase names, deriving ids', () => {
    const plan = parsePlan(['Design', 'Build & Test', 'ship.v2'], SRC);
    expect(plan).toEqual({
      phases: [
        { id: 'design', name: 'Design' },
        { id: 'build-test', name: 'Build & Test' },
        { id: 'ship.v2', name: 'ship.v2' },
      ],
    });
    expect(parsePlan({ phases: ['One'] }, SRC).phases).toEqual([{ id: 'one', name: 'One' }]);
  });

  it('falls back to phase-<n> when a name gives no usable id', () => {
    const plan = parsePlan(['Design', '***', '日本語', { name: '!!' }], SRC);
    expect(plan.phases.map((p) => p.id)).toEqual(['design', 'phase-2', 'phase-3', 'phase-4']);
  });

  it('derives an id for objects without one', () => {
    expect(parsePlan({ phases: [{ name: 'Write Tests' }] }, SRC).phases[0]!.id).toBe('write-tests');
  });

  it('accepts snake_case blocked_by and numeric ids, turning them into strings', () => {
    const plan = parsePlan(
      {
        phases: [
          { id: 1, name: 'One' },
          { id: 2, name: 'Two', blocked_by: [1] },
          { id: 3, name: 'Three', blockedBy: [1, '2'] },
        ],
      },
      SRC,
    );
    expect(plan.phases.map((p) => [p.id, p.blockedBy])).toEqual([
      ['1', []],
      ['2', ['1']],
      ['3', ['1', '2']],
    ]);
  });

  it('reads Maestro-style agent and parallel', () => {
    const plan = parsePlan(
      {
        phases: [
          { id: 'a', name: 'A', agent: 'coder' },
          { id: 'b', name: 'B', parallel: true },
          { id: 'c', name: 'C', parallel: 'batch-2' },
          { id: 'd', name: 'D', parallel: false },
          { id: 'e', name: 'E', parallel: true, parallelGroup: 'explicit' },
        ],
      },
      SRC,
    );
    expect(plan.phases.map((p) => [p.agents, p.parallelGroup])).toEqual([
      [['coder'], null],
      [[], 'parallel'],
      [[], 'batch-2'],
      [[], null],
      [[], 'explicit'],
    ]);
  });

  it('keeps unknown phase fields as metadata, and only those', () => {
    const plan = parsePlan(
      {
        phases: [
          { id: 'a', name: 'A', owner: 'dana', estimate: { hours: 3 }, tags: ['x'], blocked_by: [] },
          { id: 'b', name: 'B' },
        ],
      },
      SRC,
    );
    expect(plan.phases[0]!.metadata).toEqual({ owner: 'dana', estimate: { hours: 3 }, tags: ['x'] });
    expect(plan.phases[1]).not.toHaveProperty('metadata');
  });

  it('accepts maxRetries 0', () => {
    expect(parsePlan({ phases: [{ id: 'a', name: 'A', maxRetries: 0 }] }, SRC).phases[0]!.maxRetries).toBe(0);
  });
});

describe('parsePlan: refused plans', () => {
  it.each([
    [
      'duplicate ids',
      {
        phases: [
          { id: 'a', name: 'A' },
          { id: 'a', name: 'A again' },
        ],
      },
      /"a" appears twice/,
    ],
    ['duplicate derived ids', ['Build', 'build'], /"build" appears twice/],
    [
      'an unknown blocker',
      { phases: [{ id: 'a', name: 'A', blockedBy: ['ghost'] }] },
      /blocked by "ghost", which is not a phase/,
    ],
    [
      'an unknown snake_case blocker',
      { phases: [{ id: 'a', name: 'A', blocked_by: [9] }] },
      /blocked by "9", which is not a phase/,
    ],
    ['a self-block', { phases: [{ id: 'a', name: 'A', blockedBy: ['a'] }] }, /Phase a is blocked by itself/],
    [
      'a two-phase cycle',
      {
        phases: [
          { id: 'a', name: 'A', blockedBy: ['b'] },
          { id: 'b', name: 'B', blockedBy: ['a'] },
        ],
      },
      /cycle: a → b → a/,
    ],
    [
      'a three-phase cycle',
      {
        phases: [
          { id: 'a', name: 'A', blockedBy: ['c'] },
          { id: 'b', name: 'B', blockedBy: ['a'] },
          { id: 'c', name: 'C', blockedBy: ['b'] },
          { id: 'd', name: 'D' },
        ],
      },
      /cycle: a → c → b → a/,
    ],
    ['empty phases', { phases: [] }, /plan\.json is not valid: phases: /],
    ['an empty list', [], /plan\.json is not valid: phases: /],
    ['missing phases', { title: 'x' }, /plan\.json is not valid: phases: Required/],
    ['phases of the wrong type', { phases: 'design,build' }, /plan\.json is not valid: phases: Expected array/],
    ['a phase of the wrong type', { phases: [42] }, /plan\.json is not valid: phases\.0/],
    ['a phase without a name', { phases: [{ id: 'a' }] }, /plan\.json is not valid: phases\.0\b/],
    ['a numeric name', { phases: [{ id: 'a', name: 5 }] }, /plan\.json is not valid: phases\.0\b/],
    ['an empty name', { phases: [''] }, /phases\.0/],
    ['a boolean id', { phases: [{ id: true, name: 'A' }] }, /plan\.json is not valid: phases\.0\b/],
    ['a fractional id', { phases: [{ id: 1.5, name: 'A' }] }, /phases\.0\.id/],
    [
      'blockedBy not a list',
      {
        phases: [
          { id: 'a', name: 'A' },
          { id: 'b', name: 'B', blockedBy: 'a' },
        ],
      },
      /plan\.json is not valid: phases\.1\b/,
    ],
    ['agents not a list', { phases: [{ id: 'a', name: 'A', agents: 'bob' }] }, /plan\.json is not valid: phases\.0\b/],
    ['a negative maxRetries', { phases: [{ id: 'a', name: 'A', maxRetries: -1 }] }, /phases\.0\.maxRetries/],
    ['a non-integer budget', { budget: 1.5, phases: ['a'] }, /budget/],
    ['a negative budget', { budget: -10, phases: ['a'] }, /budget/],
    ['an empty title', { title: '', phases: ['a'] }, /title/],
    ['null', null, /plan\.json is not valid: \(top level\)/],
    ['a string', 'design', /\(top level\): Expected object/],
    ['a number', 7, /\(top level\)/],
    ['an invalid explicit id', { phases: [{ id: '../x', name: 'A' }] }, /phase id "\.\.\/x" is not valid/],
    ['an id with a slash', { phases: [{ id: 'a/b', name: 'A' }] }, /phase id "a\/b" is not valid/],
  ])('rejects %s with BAD_INPUT', (_what, doc, message) => {
    const err = refusal(() => parsePlan(doc, SRC), 'BAD_INPUT');
    expect(err.message).toMatch(message);
    expect(cliHint(err)).toBeTruthy();
  });

  it('reports the source and the schema path (down to the phase) in details', () => {
    const err = refusal(() => parsePlan({ phases: [{ id: 'a', name: 'A' }, { name: 3 }] }, 'x.yaml'), 'BAD_INPUT');
    expect(err.details['source']).toBe('x.yaml');
    expect((err.details['path'] as unknown[]).slice(0, 2)).toEqual(['phases', 1]);
    expect(err.message).toContain('x.yaml');
    const top = refusal(() => parsePlan({ phases: 'a' }, 'x.yaml'), 'BAD_INPUT');
    expect(top.details).toEqual({ source: 'x.yaml', path: ['phases'] });
  });

  it('lists the phases when a blocker is unknown', () => {
    const err = refusal(() =>
      parsePlan(
        {
          phases: [
            { id: 'a', name: 'A' },
            { id: 'b', name: 'B', blockedBy: ['z'] },
          ],
        },
        SRC,
      ),
    );
    expect(cliHint(err)).toBe('Phases: a, b.');
  });

  it('accepts a diamond (shared blockers are not a cycle)', () => {
    const plan = parsePlan(
      {
        phases: [
          { id: 'a', name: 'A' },
          { id: 'b', name: 'B', blockedBy: ['a'] },
          { id: 'c', name: 'C', blockedBy: ['a'] },
          { id: 'd', name: 'D', blockedBy: ['b', 'c'] },
        ],
      },
      SRC,
    );
    expect(plan.phases.map((p) => p.id)).toEqual(['a', 'b', 'c', 'd']);
  });
});

describe('validatePhases', () => {
  it('returns its input when valid', () => {
    const specs = [
      { id: 'a', name: 'A' },
      { id: 'b', name: 'B', blockedBy: ['a'] },
    ];
    expect(validatePhases(specs)).toBe(specs);
    expect(validatePhases([])).toEqual([]);
  });
});

describe('phasesFromList', () => {
  it('builds phases from a comma-separated list, trimming and dropping empty entries', () => {
    expect(phasesFromList('design,build,test')).toEqual([
      { id: 'design', name: 'design' },
      { id: 'build', name: 'build' },
      { id: 'test', name: 'test' },
    ]);
    expect(phasesFromList(' Design Doc , ,Build,, ')).toEqual([
      { id: 'design-doc', name: 'Design Doc' },
      { id: 'build', name: 'Build' },
    ]);
    expect(phasesFromList('???,ok')).toEqual([
      { id: 'phase-1', name: '???' },
      { id: 'ok', name: 'ok' },
    ]);
  });

  it.each(['', ',', ' , ,'])('rejects the empty list %j', (list) => {
    expect(refusal(() => phasesFromList(list), 'BAD_INPUT').message).toMatch(/empty/);
  });

  it('rejects duplicate names', () => {
    expect(refusal(() => phasesFromList('a,b,a'), 'BAD_INPUT').message).toMatch(/"a" appears twice/);
  });
});
