import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { apply, applyInPlace, fold, phaseFromSpec } from '../../src/domain/apply.js';
import {
  decideError,
  decideFiles,
  decidePhase,
  decideResolve,
  decideSubstep,
  decideTokens,
  draft,
  impliedPhase,
} from '../../src/domain/decide.js';
import {
  decideArtifact,
  decideContext,
  decideDecision,
  decideFinding,
  decideFindingRemove,
  decideMilestone,
  decideMilestoneDone,
  decideNote,
} from '../../src/domain/decide-records.js';
import type { StoredEvent } from '../../src/domain/events.js';
import { EVENT_TYPES, newEvent } from '../../src/domain/events.js';
import type { SessionState } from '../../src/domain/state.js';
import { actor, at, commit, created, ev, phases, rawEvent, refusal, session, stored } from './helpers.js';
import { cliHint } from '../../src/cli/hint-words.js';

function deepFreeze<T>(o: T): T {
  if (o && typeof o === 'object' && !Object.isFrozen(o)) {
    Object.freeze(o);
    for (const v of Object.values(o as object)) deepFreeze(v);
  }
  return o;
}

describe('fold from nothing', () => {
  it('returns null without a session.created event', () => {
    expect(fold(null, [])).toBeNull();
    expect(fold(null, [ev('note.added', { noteId: 'note-1', text: 'x', phaseId: null, agent: null }, 1)])).toBeNull();
  });

  it('builds the initial state from session.created', () => {
    const e = created(
      [
        { id: 'a', name: 'A' },
        { id: 'b', name: 'B', agents: ['x'], blockedBy: ['a'], parallelGroup: 'g', maxRetries: 5, metadata: { k: 1 } },
      ],
      { title: 'My run', budgetMax: 1000, metadata: { tool: 'maestro' }, contextSummary: 'ctx' },
    );
    const s = fold(null, [e], 'my-run')!;
    expect(s).toEqual({
      id: 'my-run',
      title: 'My run',
      status: 'active',
      statusCause: null,
      archived: false,
      createdAt: e.time,
      updatedAt: e.time,
      revision: 1,
      idFormat: 'date',
      phases: [
        phaseFromSpec({ id: 'a', name: 'A' }),
        {
          id: 'b',
          name: 'B',
          status: 'pending',
          agents: ['x'],
          blockedBy: ['a'],
          parallelGroup: 'g',
          subStep: null,
          subSteps: [],
          maxRetries: 5,
          retryCount: 0,
          startedAt: null,
          completedAt: null,
          failedAt: null,
          failureReason: null,
          skipReason: null,
          files: [],
          errors: [],
          metadata: { k: 1 },
        },
      ],
      decisions: [],
      findings: [],
      notes: [],
      milestones: [],
      artifacts: [],
      contextSummary: 'ctx',
      tokens: { input: 0, output: 0, cached: 0, byAgent: {}, byPhase: {}, budgetMax: 1000 },
      metadata: { tool: 'maestro' },
      repairs: [],
      counters: {},
      history: {
        types: { 'session.created': 1 },
        agents: {},
        attempts: [],
        open: {},
        tokens: { stride: 1, agents: [], phases: [], models: [], points: [], last: null },
      },
    });
    expect(s.phases[0]).toMatchObject({
      status: 'pending',
      maxRetries: 2,
      agents: [],
      blockedBy: [],
      parallelGroup: null,
      metadata: {},
    });
  });

  it('skips events before session.created and folds the rest in order', () => {
    const events = [
      ev('note.added', { noteId: 'note-9', text: 'orphan', phaseId: null, agent: null }, 1),
      { ...created(phases('p')), seq: 2 } as StoredEvent,
      ev('phase.started', { phaseId: 'p', agent: 'a', forced: false }, 3),
      ev('phase.completed', { phaseId: 'p', agent: 'a' }, 4),
    ];
    const s = fold(null, events, 'x')!;
    expect(s.notes).toEqual([]);
    expect(s.revision).toBe(4);
    expect(s.updatedAt).toBe(at(4));
    expect(s.phases[0]!.status).toBe('completed');
  });

  it('has a case in the event-type list for every type it writes', () => {
    expect(new Set(EVENT_TYPES).size).toBe(EVENT_TYPES.length);
    expect(newEvent('note.added', { noteId: 'n', text: 't', phaseId: null, agent: null }, 'T', actor)).toEqual({
      type: 'note.added',
      time: 'T',
      actor,
      data: { noteId: 'n', text: 't', phaseId: null, agent: null },
    });
  });
});

/** A session touched by most event kinds, used for purity checks. */
function busy(): { base: SessionState; tail: StoredEvent[] } {
  let s = session(phases('p', 'q'), { budgetMax: 100, metadata: { nested: { a: 1 } } });
  s = commit(s, decidePhase(s, 'p', 'start', { agent: 'alice' }));
  const base = s;
  const drafts = [
    ...decideSubstep(s, 'p', 'step-1'),
    ...decideFiles(s, 'created', [{ path: 'src/a.ts', sha256: 'ab'.repeat(32), size: 10 }], null, 'alice'),
    ...decideFiles(s, 'modified', [{ path: 'README.md', sha256: null, size: null }], 'q', null),
    ...decideError(s, { phase: 'p', type: 'lint', message: 'bad' }).events,
    ...decideTokens(s, { agent: 'alice', phase: 'p', input: 5, output: 6, cached: 7 }),
    ...decideDecision(s, { title: 'db', choice: 'pg', alternatives: ['sqlite'], rationale: 'scale' }).events,
    ...decideFinding(s, { text: 'slow', severity: 'low' }).events,
    ...decideNote(s, { text: 'hello' }).events,
    ...decideMilestone(s, { title: 'beta', targetDate: '2026-04-01' }).events,
    ...decideArtifact(s, { path: 'out/report.md', kind: 'report' }).events,
    ...decideContext(s, 'we are here'),
    draft('metadata.set', { key: 'nested', value: { b: 2 } }),
    ...decidePhase(s, 'p', 'fail', { reason: 'x' }),
  ];
  return { base, tail: stored(base, drafts) };
}

describe('purity', () => {
  it('fold(base, events) does not modify the base state or the events', () => {
    const { base, tail } = busy();
    const baseCopy = structuredClone(base);
    const tailCopy = structuredClone(tail);
    deepFreeze(base);
    deepFreeze(tail);
    const out = fold(base, tail)!;
    expect(base).toEqual(baseCopy);
    expect(tail).toEqual(tailCopy);
    expect(out).not.toBe(base);
    expect(out.revision).toBe(base.revision + tail.length);
    // and folding again gives the same result
    expect(fold(base, tail)).toEqual(out);
  });

  it('fold(null, events) does not modify the events (phases without declared agents)', () => {
    const events = [
      created(phases('p')),
      ev('phase.started', { phaseId: 'p', agent: 'alice', forced: false }, 2),
      ev('tokens.recorded', { agent: 'alice', phaseId: 'p', input: 1, output: 2, cached: 3 }, 3),
      ev(
        'decision.recorded',
        {
          decisionId: 'dec-1',
          title: 't',
          choice: 'c',
          rationale: null,
          alternatives: ['x'],
          agent: null,
          phaseId: null,
        },
        4,
      ),
    ];
    const copy = structuredClone(events);
    const a = fold(null, events, 's');
    expect(events).toEqual(copy);
    expect(fold(null, events, 's')).toEqual(a);
  });

  it('apply(state, event) returns a new state and leaves the old one alone', () => {
    const s = session(phases('p'));
    const before = structuredClone(s);
    const [e] = stored(s, decidePhase(s, 'p', 'start', { agent: 'z' }));
    const next = apply(s, e!);
    expect(s).toEqual(before);
    expect(next).not.toBe(s);
    expect(next.phases[0]).toMatchObject({ status: 'in_progress', agents: ['z'] });
    expect(next.revision).toBe(2);
  });

  it('applyInPlace matches apply', () => {
    const { base, tail } = busy();
    const viaApply = tail.reduce((s, e) => apply(s, e), base);
    const own = structuredClone(base);
    for (const e of tail) applyInPlace(own, e);
    expect(own).toEqual(viaApply);
    expect(fold(base, tail)).toEqual(viaApply);
  });

  it('a JSON round trip of a state (a snapshot) folds on to the same result', () => {
    const { base, tail } = busy();
    const snap = JSON.parse(JSON.stringify(base)) as SessionState;
    expect(fold(snap, tail)).toEqual(fold(base, tail));
  });
});

describe('snapshot equivalence and totals (property)', () => {
  type Op =
    | { kind: 'tokens'; agent: string; phase: string | null; input: number; output: number; cached: number }
    | { kind: 'note'; text: string; phase: string | null }
    | { kind: 'decision'; title: string; choice: string; alternatives: string[] };

  const phaseRef = fc.constantFrom<string | null>(null, 'p1', 'p2');
  const count = fc.integer({ min: 0, max: 1_000_000 });
  const op: fc.Arbitrary<Op> = fc.oneof(
    fc.record({
      kind: fc.constant('tokens' as const),
      agent: fc.constantFrom('alice', 'bob', 'carol'),
      phase: phaseRef,
      input: count,
      output: count,
      cached: count,
    }),
    fc.record({
      kind: fc.constant('note' as const),
      text: fc.string({ minLength: 1, maxLength: 20 }),
      phase: phaseRef,
    }),
    fc.record({
      kind: fc.constant('decision' as const),
      title: fc.string({ minLength: 1, maxLength: 10 }),
      choice: fc.string({ minLength: 1, maxLength: 10 }),
      alternatives: fc.array(fc.string({ minLength: 1, maxLength: 5 }), { maxLength: 3 }),
    }),
  );

  /** Turns ops into stored events by deciding each against the state so far. */
  function journal(ops: Op[]): StoredEvent[] {
    const first = created(phases('p1', 'p2'), { budgetMax: 10_000 });
    let s = fold(null, [first], 'prop')!;
    const out: StoredEvent[] = [first];
    for (const o of ops) {
      const drafts =
        o.kind === 'tokens'
          ? decideTokens(s, { agent: o.agent, phase: o.phase, input: o.input, output: o.output, cached: o.cached })
          : o.kind === 'note'
            ? decideNote(s, { text: o.text, phase: o.phase }).events
            : decideDecision(s, { title: o.title, choice: o.choice, alternatives: o.alternatives }).events;
      const evs = stored(s, drafts);
      out.push(...evs);
      s = fold(s, evs)!;
    }
    return out;
  }

  it('folding all at once equals folding a prefix, then the rest from the intermediate state', () => {
    fc.assert(
      fc.property(fc.array(op, { maxLength: 40 }), fc.nat(), (ops, cut) => {
        const events = journal(ops);
        const k = 1 + (cut % events.length); // prefix always holds session.created
        const whole = fold(null, events, 'prop');
        const mid = fold(null, events.slice(0, k), 'prop')!;
        const midCopy = structuredClone(mid);
        expect(fold(mid, events.slice(k))).toEqual(whole);
        expect(mid).toEqual(midCopy);
        // a snapshot read back from JSON behaves the same
        expect(fold(JSON.parse(JSON.stringify(mid)) as SessionState, events.slice(k))).toEqual(whole);
        // one event at a time too
        expect(events.slice(k).reduce((s, e) => apply(s, e), mid)).toEqual(whole);
      }),
      { numRuns: 200 },
    );
  });

  it('token totals equal the sums of the recorded counts, by agent and by phase', () => {
    fc.assert(
      fc.property(fc.array(op, { maxLength: 60 }), (ops) => {
        const s = fold(null, journal(ops), 'prop')!;
        const toks = ops.filter((o): o is Extract<Op, { kind: 'tokens' }> => o.kind === 'tokens');
        const sum = (xs: typeof toks) => ({
          input: xs.reduce((n, t) => n + t.input, 0),
          output: xs.reduce((n, t) => n + t.output, 0),
          cached: xs.reduce((n, t) => n + t.cached, 0),
        });
        expect({ input: s.tokens.input, output: s.tokens.output, cached: s.tokens.cached }).toEqual(sum(toks));
        const agents = [...new Set(toks.map((t) => t.agent))].sort();
        expect(Object.keys(s.tokens.byAgent).sort()).toEqual(agents);
        for (const a of agents) expect(s.tokens.byAgent[a]).toEqual(sum(toks.filter((t) => t.agent === a)));
        const ph = [...new Set(toks.map((t) => t.phase).filter((p): p is string => p !== null))].sort();
        expect(Object.keys(s.tokens.byPhase).sort()).toEqual(ph);
        for (const p of ph) expect(s.tokens.byPhase[p]).toEqual(sum(toks.filter((t) => t.phase === p)));
        // notes and decisions: counted, ids sequential
        const notes = ops.filter((o) => o.kind === 'note').length;
        const decisions = ops.filter((o) => o.kind === 'decision').length;
        expect(s.notes.map((n) => n.id)).toEqual(Array.from({ length: notes }, (_, i) => `note-${i + 1}`));
        expect(s.decisions.map((d) => d.id)).toEqual(Array.from({ length: decisions }, (_, i) => `dec-${i + 1}`));
        expect(s.revision).toBe(1 + ops.length);
      }),
      { numRuns: 200 },
    );
  });
});

describe('unknown and dangling events', () => {
  it('an unknown event type only moves the revision (and update time)', () => {
    const { base, tail } = busy();
    const s = fold(base, tail)!;
    const e = rawEvent('future.thing', { anything: [1, 2, 3] }, s.revision + 1, { v: 9, extraField: 'kept' });
    const { history, ...next } = apply(s, e);
    const { history: before, ...rest } = s;
    expect(next).toEqual({ ...rest, revision: s.revision + 1, updatedAt: e.time });
    // The dashboard's history counts it, and nothing else.
    expect(history).toEqual({ ...before, types: { ...before!.types, 'future.thing': 1 } });
  });

  it.each([
    ['phase.started', { phaseId: 'ghost', agent: 'a', forced: false }],
    ['phase.completed', { phaseId: 'ghost', agent: null }],
    ['phase.retried', { phaseId: 'ghost', agent: null, forced: false, attempt: 1 }],
    ['substep.reached', { phaseId: 'ghost', name: 'x' }],
    ['error.resolved', { errorId: 'err-99', resolution: 'r' }],
    ['finding.removed', { findingId: 'fnd-99' }],
    ['milestone.done', { milestoneId: 'ms-99' }],
  ])('%s naming something missing is ignored', (type, data) => {
    const s = session(phases('p'));
    const e = rawEvent(type, data, 2);
    // The dashboard's history counts the event (and shows a ghost's attempt, as the journal has it).
    const { history: _, ...next } = apply(s, e);
    const { history: __, ...rest } = s;
    expect(next).toEqual({ ...rest, revision: 2, updatedAt: e.time });
  });
});

describe('errors', () => {
  function withErrors(): SessionState {
    let s = session(phases('p', 'q'));
    const one = decideError(s, { phase: 'p', type: 'test', message: 'red', agent: 'alice' });
    expect(one.errorId).toBe('err-1');
    s = commit(s, one.events);
    const two = decideError(s, { phase: 'q', type: 'build', message: 'broken' });
    expect(two.errorId).toBe('err-2');
    s = commit(s, two.events);
    return s;
  }

  it('hands out err-1, err-2 … and attaches errors to their phase', () => {
    const s = withErrors();
    expect(s.phases[0]!.errors).toEqual([
      {
        id: 'err-1',
        phaseId: 'p',
        agent: 'alice',
        type: 'test',
        message: 'red',
        time: at(2),
        resolution: null,
        resolved: false,
        resolvedAt: null,
      },
    ]);
    expect(s.phases[1]!.errors.map((e) => e.id)).toEqual(['err-2']);
    expect(decideError(s, { phase: 'p', type: 't', message: 'm' }).errorId).toBe('err-3');
  });

  it('continues numbering after ids read from a foreign journal', () => {
    let s = session(phases('p'));
    s = fold(s, [ev('error.recorded', { errorId: 'err-7', phaseId: 'p', agent: null, type: 't', message: 'm' }, 2)])!;
    expect(decideError(s, { phase: 'p', type: 't', message: 'm' }).errorId).toBe('err-8');
  });

  it('refuses an error against an unknown phase, or with missing text', () => {
    const s = session(phases('p'));
    expect(cliHint(refusal(() => decideError(s, { phase: 'zz', type: 't', message: 'm' }), 'NOT_FOUND'))).toBe(
      'Phases: p.',
    );
    refusal(() => decideError(s, { phase: 'p', type: '', message: 'm' }), 'BAD_INPUT');
    refusal(() => decideError(s, { phase: 'p', type: 't', message: '' }), 'BAD_INPUT');
    refusal(() => decideError(s, { phase: '', type: 't', message: 'm' }), 'BAD_INPUT');
  });

  it('resolves an error once', () => {
    let s = withErrors();
    expect(decideResolve(s, 'err-1', 'fixed the test')).toEqual([
      { type: 'error.resolved', data: { errorId: 'err-1', resolution: 'fixed the test' } },
    ]);
    s = commit(s, decideResolve(s, 'err-1', 'fixed the test'));
    expect(s.phases[0]!.errors[0]).toMatchObject({ resolved: true, resolution: 'fixed the test', resolvedAt: at(4) });
    const again = refusal(() => decideResolve(s, 'err-1', 'again'), 'INVALID_TRANSITION');
    expect(again.message).toContain('already resolved');
    expect(again.message).toContain('fixed the test');
  });

  it('refuses an unknown error with NOT_FOUND, listing the unresolved ones', () => {
    let s = withErrors();
    let err = refusal(() => decideResolve(s, 'err-9', 'x'), 'NOT_FOUND');
    expect(err.message).toContain('err-9');
    expect(cliHint(err)).toBe('Unresolved errors: err-1, err-2.');
    s = commit(s, decideResolve(s, 'err-1', 'done'));
    err = refusal(() => decideResolve(s, 'nope', 'x'), 'NOT_FOUND');
    expect(cliHint(err)).toBe('Unresolved errors: err-2.');
    s = commit(s, decideResolve(s, 'err-2', 'done'));
    expect(cliHint(refusal(() => decideResolve(s, 'nope', 'x'), 'NOT_FOUND'))).toBe(
      'This session has no unresolved errors.',
    );
  });

  it('refuses an empty resolution', () => {
    refusal(() => decideResolve(withErrors(), 'err-1', ''), 'BAD_INPUT');
  });
});

describe('other events through decide and fold', () => {
  it('sub-steps: only in an in-progress phase; the latest is the resume point; a restart clears it', () => {
    let s = session(phases('p'));
    expect(cliHint(refusal(() => decideSubstep(s, 'p', 'a'), 'INVALID_TRANSITION'))).toContain('baton phase start p');
    s = commit(s, decidePhase(s, 'p', 'start'));
    refusal(() => decideSubstep(s, 'p', ''), 'BAD_INPUT');
    refusal(() => decideSubstep(s, 'p', 'x'.repeat(201)), 'BAD_INPUT');
    s = commit(s, decideSubstep(s, 'p', 'a'));
    s = commit(s, decideSubstep(s, 'p', 'b'));
    expect(s.phases[0]!.subStep).toBe('b');
    expect(s.phases[0]!.subSteps).toEqual([
      { name: 'a', at: at(3) },
      { name: 'b', at: at(4) },
    ]);
    s = commit(s, decidePhase(s, 'p', 'fail'));
    s = commit(s, decidePhase(s, 'p', 'retry'));
    expect(s.phases[0]!.subStep).toBeNull();
    expect(s.phases[0]!.subSteps).toHaveLength(2);
  });

  it('files: attached to the given phase, else the single running one, else kept loose; re-recording replaces', () => {
    let s = session(phases('p', 'q'));
    const f = (path: string) => [{ path, sha256: null, size: null }];
    // nothing running: loose
    s = commit(s, decideFiles(s, 'created', f('loose.txt'), null, null));
    expect(s.looseFiles).toEqual([
      { path: 'loose.txt', action: 'created', sha256: null, size: null, recordedAt: at(2), agent: null },
    ]);
    s = commit(s, decidePhase(s, 'p', 'start', { agent: 'a' }));
    expect(decideFiles(s, 'modified', f('x'), null, 'a')[0]!.data).toMatchObject({ phaseId: 'p', agent: 'a' });
    s = commit(s, decideFiles(s, 'created', [{ path: 'a.ts', sha256: 'h1', size: 3 }], null, 'a'));
    s = commit(s, decideFiles(s, 'modified', [{ path: 'a.ts', sha256: 'h2', size: 4 }], 'p', 'b'));
    expect(s.phases[0]!.files).toEqual([
      { path: 'a.ts', action: 'modified', sha256: 'h2', size: 4, recordedAt: at(5), agent: 'b' },
    ]);
    s = commit(s, decidePhase(s, 'q', 'start', { agent: 'qa' }));
    // two running: the agent's own phase, else refused rather than guessed
    expect(decideFiles(s, 'deleted', f('y'), null, 'qa')[0]!.data).toMatchObject({ phaseId: 'q' });
    expect(decideFiles(s, 'deleted', f('y'), null, 'a')[0]!.data).toMatchObject({ phaseId: 'p' });
    const ambiguous = refusal(() => decideFiles(s, 'deleted', f('y'), null, null), 'BAD_INPUT');
    expect(cliHint(ambiguous)).toContain('p, q');
    refusal(() => decideFiles(s, 'deleted', f('y'), null, 'stranger'), 'BAD_INPUT');
    expect(impliedPhase(s, 'qa')).toBe('q');
    expect(decideFiles(s, 'deleted', f('y'), 'Q', null)[0]!.data).toMatchObject({ phaseId: 'q' });
    refusal(() => decideFiles(s, 'created', [], null, null), 'BAD_INPUT');
    refusal(() => decideFiles(s, 'created', f(''), null, null), 'BAD_INPUT');
    refusal(() => decideFiles(s, 'created', f('z'), 'nope', null), 'NOT_FOUND');
    expect(decideFiles(s, 'created', [...f('1'), ...f('2'), ...f('3')], 'p', null)).toHaveLength(3);
  });

  it('files outside phases written before the typed field (metadata.looseFiles) are read as state.looseFiles', () => {
    const rec = { path: 'old.txt', action: 'created', sha256: null, size: 1, recordedAt: at(1), agent: 'a' } as const;
    // A snapshot of an older baton: the files sit in metadata.
    const legacy: SessionState = { ...session(phases('p')), metadata: { looseFiles: [rec], ticket: 'T-1' } };
    const frozen = structuredClone(legacy);
    const s = fold(legacy, [])!;
    expect(s.looseFiles).toEqual([rec]);
    expect(s.metadata).toEqual({ ticket: 'T-1' });
    expect(legacy).toEqual(frozen); // the snapshot itself is not changed
    // A later record of the same path replaces it; another path is added.
    const next = commit(s, decideFiles(s, 'modified', [{ path: 'old.txt', sha256: 'h', size: 2 }], null, null));
    expect(next.looseFiles?.map((f) => [f.path, f.action])).toEqual([['old.txt', 'modified']]);
    // Restoring a checkpoint taken by an older baton brings its loose files back as the typed field.
    const restored = apply(
      next,
      ev(
        'checkpoint.restored',
        { checkpointId: 'cp-1', name: 'old', revision: 1, state: legacy, supersedes: [], git: null },
        next.revision + 1,
      ),
    );
    expect(restored.looseFiles).toEqual([rec]);
    expect(restored.metadata).toEqual({ ticket: 'T-1' });
    // A checkpoint with no loose files leaves none.
    const none = apply(
      next,
      ev(
        'checkpoint.restored',
        { checkpointId: 'cp-2', name: 'none', revision: 1, state: session(phases('p')), supersedes: [], git: null },
        next.revision + 1,
      ),
    );
    expect(none.looseFiles).toBeUndefined();
  });

  it('decisions, findings, notes, milestones, artifacts get sequential ids and fold into lists', () => {
    let s = session(phases('p'));
    const d1 = decideDecision(s, {
      title: 'Store',
      choice: 'files',
      rationale: 'simple',
      alternatives: ['pg'],
      agent: 'arch',
      phase: 'p',
    });
    expect(d1.id).toBe('dec-1');
    s = commit(s, d1.events);
    expect(decideDecision(s, { title: 'x', choice: 'y' }).id).toBe('dec-2');
    expect(s.decisions).toEqual([
      {
        id: 'dec-1',
        title: 'Store',
        choice: 'files',
        rationale: 'simple',
        alternatives: ['pg'],
        agent: 'arch',
        phaseId: 'p',
        time: at(2),
      },
    ]);
    refusal(() => decideDecision(s, { title: '', choice: 'y' }), 'BAD_INPUT');

    const f1 = decideFinding(s, { text: 'leak', severity: 'high' });
    expect(f1.id).toBe('fnd-1');
    s = commit(s, f1.events);
    s = commit(s, decideFinding(s, { text: 'typo' }).events);
    s = commit(s, decideFindingRemove(s, 'fnd-1'));
    expect(s.findings.map((f) => [f.id, f.removed])).toEqual([
      ['fnd-1', true],
      ['fnd-2', false],
    ]);
    expect(cliHint(refusal(() => decideFindingRemove(s, 'fnd-1'), 'NOT_FOUND'))).toBe('Open findings: fnd-2.');

    const n1 = decideNote(s, { text: 'remember', phase: 'p', agent: 'me' });
    expect(n1.id).toBe('note-1');
    s = commit(s, n1.events);
    expect(s.notes[0]).toMatchObject({ id: 'note-1', text: 'remember', phaseId: 'p', agent: 'me' });

    refusal(() => decideMilestone(s, { title: 'm', targetDate: 'someday' }), 'BAD_INPUT');
    const m1 = decideMilestone(s, { title: 'Beta', targetDate: '2026-05-01' });
    expect(m1.id).toBe('ms-1');
    s = commit(s, m1.events);
    s = commit(s, decideMilestoneDone(s, 'Beta'));
    expect(s.milestones[0]).toMatchObject({ id: 'ms-1', done: true, targetDate: '2026-05-01' });
    refusal(() => decideMilestoneDone(s, 'ms-1'), 'INVALID_TRANSITION');
    refusal(() => decideMilestoneDone(s, 'ms-2'), 'NOT_FOUND');

    const a1 = decideArtifact(s, { path: 'dist/app.js', kind: 'bundle' });
    expect(a1.id).toBe('art-1');
    s = commit(s, a1.events);
    expect(s.artifacts[0]).toMatchObject({ id: 'art-1', path: 'dist/app.js', kind: 'bundle', description: null });

    s = commit(s, decideContext(s, 'halfway'));
    expect(s.contextSummary).toBe('halfway');
    expect(s.counters).toEqual({ decision: 1, finding: 2, note: 1, milestone: 1, artifact: 1 });
  });

  it('session.created metadata and metadata.set are kept verbatim', () => {
    let s = session([], { metadata: { maestro: { version: 3 } } });
    s = fold(s, [ev('metadata.set', { key: 'x-custom', value: [1, { a: null }] }, 2)])!;
    expect(s.metadata).toEqual({ maestro: { version: 3 }, 'x-custom': [1, { a: null }] });
  });

  it('repair events are listed', () => {
    let s = session();
    s = fold(s, [
      ev('repair.torn_tail', { truncatedBytes: 12, savedTo: 'j.corrupt' }, 2),
      ev('repair.unreadable_line', { raw: '{oops', line: 7 }, 3),
      ev('repair.journal', { savedTo: null, unreadableLines: [3, 4] }, 4),
    ])!;
    expect(s.repairs).toEqual([
      { kind: 'torn_tail', at: at(2), detail: { truncatedBytes: 12, savedTo: 'j.corrupt' } },
      { kind: 'unreadable_line', at: at(3), detail: { line: 7 } },
      { kind: 'journal', at: at(4), detail: { savedTo: null, unreadableLines: [3, 4] } },
    ]);
  });
});
