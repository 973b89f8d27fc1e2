/**
 * The import mapping (ForeignSession → baton events) and the re-import diff, pure: hand-built
 * foreign sessions, folded with the real `fold`, checked fact by fact.
 */
import { describe, expect, it } from 'vitest';
import { fold } from '../../src/domain/apply.js';
import type { StoredEvent } from '../../src/domain/events.js';
import type { SessionState } from '../../src/domain/state.js';
import {
  batonIdFor,
  FILES_READ_KEY,
  importEvents,
  LOOSE_ERRORS_KEY,
  provenanceOf,
  UNATTRIBUTED,
} from '../../src/formats/import.js';
import { reimportEvents } from '../../src/formats/reimport.js';
import type { ImportEvent } from '../../src/formats/import.js';
import type { ForeignSession } from '../../src/formats/types.js';
import { foreign, unit } from './core-helpers.js';

const CTX = { importedAt: '2026-02-01T00:00:00.000Z', root: '/tmp/src' };
const actor = { agent: null, pid: 1, host: 'h' };

function stored(events: ImportEvent[], from = 0): StoredEvent[] {
  return events.map((e, i) => ({ ...e, actor, seq: from + i + 1 }) as StoredEvent);
}

function imported(s: ForeignSession): { state: SessionState; journal: StoredEvent[] } {
  const journal = stored(importEvents(s, CTX).events);
  return { state: fold(null, journal, 'x')!, journal };
}

/** Applies a re-import to an imported state and returns the new state and the plan. */
function reimport(base: { state: SessionState; journal: StoredEvent[] }, next: ForeignSession, ctx = CTX) {
  const plan = reimportEvents(base.state, base.journal, next, ctx);
  const added = stored(plan.events, base.state.revision);
  return { plan, state: fold(base.state, added, 'x')!, journal: [...base.journal, ...added] };
}

function types(events: ImportEvent[]): string[] {
  return events.map((e) => e.type);
}

const MID = (): ForeignSession =>
  foreign({
    status: 'paused',
    rawStatus: 'paused',
    units: [
      unit('design', {
        status: 'completed',
        agents: ['architect'],
        startedAt: '2026-01-10T09:10:00Z',
        completedAt: '2026-01-10T09:50:00Z',
        files: [
          { path: 'docs/design.md', action: 'created' },
          { path: 'README.md', action: 'read' },
        ],
        metadata: { downstream: 'api' },
      }),
      unit('impl', {
        status: 'failed',
        retries: 2,
        agents: ['coder'],
        blockedBy: ['design'],
        startedAt: '2026-01-10T10:00:00Z',
        completedAt: '2026-01-10T11:00:00Z',
        subStep: 'tests',
        errors: [
          {
            unitId: 'impl',
            agent: 'coder',
            time: '2026-01-10T10:30:00Z',
            type: 'validation',
            message: 'lint failed',
            resolved: true,
            resolution: 'fixed lint',
          },
          {
            unitId: 'impl',
            agent: 'coder',
            time: '2026-01-10T10:50:00Z',
            type: 'runtime',
            message: 'tests crash',
            resolved: false,
            resolution: null,
          },
        ],
      }),
      unit('review', { status: 'blocked', blockedBy: ['impl'] }),
      unit('docs', { status: 'skipped' }),
    ],
    tokens: {
      input: 5000,
      output: 1000,
      cached: 300,
      byAgent: { architect: { input: 1000, output: 200, cached: 0 }, coder: { input: 3000, output: 700, cached: 300 } },
      byUnit: null,
      agrees: false,
      max: 150000,
    },
    decisions: [
      {
        id: 'D1',
        title: 'Storage',
        choice: 'files',
        rationale: 'simple',
        alternatives: ['pg'],
        agent: 'architect',
        unitId: 'design',
        time: '2026-01-10T09:20:00Z',
      },
    ],
    findings: [{ text: 'slow start', severity: 'high', unitId: 'impl', time: null }],
    notes: [{ text: 'remember the cache', time: '2026-01-10T09:15:00Z', agent: 'coder' }],
    milestones: [
      { title: 'MVP', targetDate: '2026-02-01', doneAt: null },
      { title: 'Design done', targetDate: null, doneAt: '2026-01-10T09:50:00Z' },
    ],
    artifacts: [
      {
        path: 'docs/design.md',
        kind: 'doc',
        description: 'the design',
        unitId: 'design',
        agent: 'architect',
        time: null,
      },
    ],
    contextSummary: 'Half way',
  });

describe('import mapping', () => {
  it('reproduces units, statuses, retries, sub-steps, files, errors with resolutions, at the foreign times', () => {
    const { state, journal } = imported(MID());
    expect(journal[0]!.type).toBe('session.created');
    expect(journal[0]!.time).toBe('2026-01-10T09:00:00.000Z');
    expect(state.idFormat).toBe('imported');
    expect(state.phases.map((p) => [p.id, p.status])).toEqual([
      ['design', 'completed'],
      ['impl', 'failed'],
      ['review', 'pending'],
      ['docs', 'skipped'],
    ]);
    const [design, impl] = state.phases;
    expect(design!.startedAt).toBe('2026-01-10T09:10:00Z');
    expect(design!.completedAt).toBe('2026-01-10T09:50:00Z');
    expect(design!.agents).toEqual(['architect']);
    expect(design!.files.map((f) => [f.path, f.action])).toEqual([['docs/design.md', 'created']]);
    expect(design!.metadata).toEqual({ downstream: 'api', [FILES_READ_KEY]: ['README.md'] });
    expect(impl!.retryCount).toBe(2);
    expect(impl!.subStep).toBe('tests');
    expect(impl!.blockedBy).toEqual(['design']);
    expect(impl!.failedAt).toBe('2026-01-10T11:00:00Z');
    expect(impl!.failureReason).toBe('tests crash');
    expect(impl!.errors.map((e) => [e.id, e.type, e.message, e.resolved, e.resolution, e.time, e.agent])).toEqual([
      ['err-1', 'validation', 'lint failed', true, 'fixed lint', '2026-01-10T10:30:00Z', 'coder'],
      ['err-2', 'runtime', 'tests crash', false, null, '2026-01-10T10:50:00Z', 'coder'],
    ]);
    expect(state.phases[2]!.blockedBy).toEqual(['impl']);
  });

  it('records tokens per agent, the remainder under (unattributed), and the budget', () => {
    const { state } = imported(MID());
    expect(state.tokens.byAgent).toEqual({
      architect: { input: 1000, output: 200, cached: 0 },
      coder: { input: 3000, output: 700, cached: 300 },
      [UNATTRIBUTED]: { input: 1000, output: 100, cached: 0 },
    });
    expect([state.tokens.input, state.tokens.output, state.tokens.cached]).toEqual([5000, 1000, 300]);
    expect(state.tokens.budgetMax).toBe(150000);
  });

  it('records no (unattributed) share when the breakdown agrees with the totals', () => {
    const s = MID();
    s.tokens = {
      input: 4000,
      output: 900,
      cached: 300,
      byAgent: s.tokens!.byAgent,
      byUnit: null,
      agrees: true,
      max: null,
    };
    const { state } = imported(s);
    expect(Object.keys(state.tokens.byAgent).sort()).toEqual(['architect', 'coder']);
    expect(state.tokens.budgetMax).toBeNull();
  });

  it('uses the per-unit breakdown under (unattributed) when there is no per-agent one', () => {
    const s = MID();
    s.tokens = {
      input: 600,
      output: 60,
      cached: 0,
      byAgent: null,
      byUnit: { design: { input: 100, output: 10, cached: 0 }, impl: { input: 400, output: 40, cached: 0 } },
      agrees: null,
      max: null,
    };
    const { state } = imported(s);
    expect(state.tokens.byPhase).toEqual({
      design: { input: 100, output: 10, cached: 0 },
      impl: { input: 400, output: 40, cached: 0 },
    });
    expect(state.tokens.byAgent).toEqual({ [UNATTRIBUTED]: { input: 600, output: 60, cached: 0 } });
  });

  it('says so when the totals are below the breakdown (baton counts the breakdown)', () => {
    const s = MID();
    s.tokens = { ...s.tokens!, input: 10, output: 10, cached: 0 };
    const plan = importEvents(s, CTX);
    expect(plan.problems.map((p) => p.code)).toContain('TOKENS_DISAGREE');
    const st = fold(null, stored(plan.events), 'x')!;
    expect(st.tokens.input).toBe(4000);
  });

  it('maps decisions, findings, notes, milestones (done ones done), artifacts, context and status', () => {
    const { state } = imported(MID());
    expect(state.decisions).toMatchObject([
      {
        id: 'dec-1',
        title: 'Storage',
        choice: 'files',
        rationale: 'simple',
        alternatives: ['pg'],
        agent: 'architect',
        phaseId: 'design',
        time: '2026-01-10T09:20:00Z',
      },
    ]);
    expect(state.findings).toMatchObject([{ text: 'slow start', severity: 'high', phaseId: 'impl', removed: false }]);
    expect(state.notes).toMatchObject([{ text: 'remember the cache', agent: 'coder', time: '2026-01-10T09:15:00Z' }]);
    expect(state.milestones.map((m) => [m.title, m.targetDate, m.done, m.doneAt])).toEqual([
      ['MVP', '2026-02-01', false, null],
      ['Design done', null, true, '2026-01-10T09:50:00Z'],
    ]);
    expect(state.artifacts).toMatchObject([
      { path: 'docs/design.md', kind: 'doc', description: 'the design', phaseId: 'design' },
    ]);
    expect(state.contextSummary).toBe('Half way');
    expect(state.status).toBe('paused');
    expect(state.statusCause).toMatchObject({ cause: 'imported', detail: 'paused' });
    expect(state.archived).toBe(false);
  });

  it('ends with the provenance: format, foreign id, root, path, hash, time, documents verbatim', () => {
    const s = MID();
    const plan = importEvents(s, CTX);
    const last = plan.events.at(-1)!;
    expect(last.type).toBe('metadata.set');
    expect(last.time).toBe(CTX.importedAt);
    const st = fold(null, stored(plan.events), 'x')!;
    expect(provenanceOf(st)).toEqual({
      format: 'maestro',
      foreignId: 'sess-1',
      root: '/tmp/src',
      path: 'state/active-session.md',
      sourceHash: 'hash-1',
      importedAt: CTX.importedAt,
      documents: { 'state/active-session.md': { raw: true } },
      untimed: ['phase:docs:completedAt', 'finding:fnd-1', 'artifact:art-1'],
      // Each made-up time is the session's last update.
      untimedAt: {
        'phase:docs:completedAt': '2026-01-10T12:00:00.000Z',
        'finding:fnd-1': '2026-01-10T12:00:00.000Z',
        'artifact:art-1': '2026-01-10T12:00:00.000Z',
      },
      // What the work was at import: an export finds out from it whether baton changed anything.
      workHash: expect.stringMatching(/^[0-9a-f]{64}$/),
    });
  });

  it('maps every final status, and an archived session gets session.archived', () => {
    for (const [status, event] of [
      ['completed', 'session.completed'],
      ['failed', 'session.failed'],
      ['abandoned', 'session.abandoned'],
      ['interrupted', 'session.interrupted'],
    ] as const) {
      const plan = importEvents(foreign({ status, archived: true }), CTX);
      const t = types(plan.events);
      expect(t).toContain(event);
      expect(t.indexOf('session.archived')).toBeGreaterThan(t.indexOf(event));
      const st = fold(null, stored(plan.events), 'x')!;
      expect([st.status, st.archived]).toEqual([status, true]);
    }
    expect(types(importEvents(foreign({ status: 'active' }), CTX).events)).toEqual(['session.created', 'metadata.set']);
  });

  it('makes duplicate unit ids unique, drops blockers that point nowhere or form a cycle, and reports each', () => {
    const s = foreign({ units: [unit('a'), unit('a'), unit('b', { blockedBy: ['zzz', 'a'] })] });
    const plan = importEvents(s, CTX);
    const st = fold(null, stored(plan.events), 'x')!;
    expect(st.phases.map((p) => p.id)).toEqual(['a', 'a-2', 'b']);
    expect(st.phases[2]!.blockedBy).toEqual(['a']);
    expect(plan.problems.map((p) => p.code)).toEqual(['DUPLICATE_UNIT', 'BAD_VALUE']);
    const cyc = importEvents(
      foreign({ units: [unit('a', { blockedBy: ['b'] }), unit('b', { blockedBy: ['a'] })] }),
      CTX,
    );
    const cst = fold(null, stored(cyc.events), 'x')!;
    expect(cst.phases.every((p) => p.blockedBy.length === 0)).toBe(true);
    expect(cyc.problems[0]!.message).toMatch(/cycle/);
  });

  it('keeps errors that belong to no unit in metadata, and falls back to import time when times are missing or not dates', () => {
    const loose = {
      unitId: null,
      agent: null,
      time: null,
      type: 'quota',
      message: 'out of quota',
      resolved: false,
      resolution: null,
    };
    const s = foreign({
      createdAt: 'yesterday-ish',
      updatedAt: null,
      unresolvedErrors: [loose],
      units: [unit('a', { status: 'in_progress' })],
    });
    const plan = importEvents(s, CTX);
    expect(plan.events.every((e) => e.time === CTX.importedAt)).toBe(true);
    const st = fold(null, stored(plan.events), 'x')!;
    expect(st.metadata[LOOSE_ERRORS_KEY]).toEqual([loose]);
    // The made-up time is listed, so an exporter writes none.
    expect(provenanceOf(st)!.untimed).toEqual(['phase:a:startedAt']);
  });

  it('keeps UTC ISO times as written and converts other date forms to ISO UTC', () => {
    const s = foreign({
      createdAt: '2026-01-10T09:00:00Z',
      units: [
        unit('a', {
          status: 'completed',
          startedAt: '2026-01-10 11:10:00+02:00',
          completedAt: '2026-01-10T09:30:00.5Z',
        }),
      ],
    });
    const st = fold(null, stored(importEvents(s, CTX).events), 'x')!;
    expect(st.createdAt).toBe('2026-01-10T09:00:00Z');
    expect(st.phases[0]!.startedAt).toBe('2026-01-10T09:10:00.000Z');
    expect(st.phases[0]!.completedAt).toBe('2026-01-10T09:30:00.5Z');
  });

  it('fills empty required texts instead of failing (an empty title becomes the id)', () => {
    const s = foreign({
      title: '',
      units: [
        unit('a', {
          status: 'in_progress',
          errors: [{ unitId: 'a', agent: null, time: null, type: '', message: '', resolved: false, resolution: null }],
        }),
      ],
    });
    const st = fold(null, stored(importEvents(s, CTX).events), 'x')!;
    expect(st.title).toBe('sess-1');
    expect(st.phases[0]!.errors[0]).toMatchObject({ type: 'error', message: '(no message)' });
  });
});

describe('baton id of a foreign session', () => {
  it('keeps a valid id, prefixes it, and slugs an invalid one', () => {
    expect(batonIdFor('2026-01-10-auth')).toBe('2026-01-10-auth');
    expect(batonIdFor('WFS-auth', 'imp-')).toBe('imp-WFS-auth');
    expect(batonIdFor('my session/../x')).toBe('my-session-.-x');
    expect(batonIdFor('../../etc')).toBe('etc');
    expect(batonIdFor('Café au lait')).toBe('Cafe-au-lait');
    expect(batonIdFor('///')).toBe('imported-session');
    expect(batonIdFor('x'.repeat(300)).length).toBe(128);
  });
});

describe('re-import', () => {
  it('appends nothing when the source hash is unchanged', () => {
    const base = imported(MID());
    const plan = reimportEvents(base.state, base.journal, MID(), CTX);
    expect(plan).toEqual({ unchanged: true, events: [], problems: [], archive: false });
  });

  it('appends only the provenance when the files changed but no fact did', () => {
    const base = imported(MID());
    const { plan } = reimport(base, { ...MID(), sourceHash: 'hash-2' });
    expect(types(plan.events)).toEqual(['metadata.set']);
    expect(plan.problems).toEqual([]);
  });

  it('brings a session forward: phases, sub-steps, files, errors, resolutions, tokens, records, status', () => {
    const base = imported(MID());
    const next = MID();
    next.sourceHash = 'hash-2';
    next.status = 'completed';
    next.rawStatus = 'completed';
    const impl = next.units[1]!;
    impl.status = 'completed';
    impl.retries = 3;
    impl.completedAt = '2026-01-11T10:00:00Z';
    impl.errors[1]!.resolved = true;
    impl.errors[1]!.resolution = 'fixed the crash';
    impl.errors.push({
      unitId: 'impl',
      agent: 'coder',
      time: '2026-01-11T09:00:00Z',
      type: 'timeout',
      message: 'slow CI',
      resolved: false,
      resolution: null,
    });
    impl.files.push({ path: 'src/impl.ts', action: 'modified' });
    next.units[2] = unit('review', {
      status: 'in_progress',
      subStep: 'security',
      startedAt: '2026-01-11T10:05:00Z',
      blockedBy: ['impl'],
    });
    next.tokens = {
      ...next.tokens!,
      input: 7000,
      byAgent: {
        ...next.tokens!.byAgent!,
        coder: { input: 4000, output: 700, cached: 300 },
        reviewer: { input: 500, output: 0, cached: 0 },
      },
    };
    next.decisions.push({
      id: 'D2',
      title: 'CI',
      choice: 'github',
      rationale: null,
      alternatives: [],
      agent: null,
      unitId: null,
      time: null,
    });
    next.notes.push({ text: 'second note', time: null, agent: null });
    next.milestones[0]!.doneAt = '2026-01-11T10:00:00Z';
    next.contextSummary = 'Nearly done';
    const r = reimport(base, next);
    expect(r.plan.problems).toEqual([]);
    const s = r.state;
    expect(s.phases.map((p) => [p.id, p.status])).toEqual([
      ['design', 'completed'],
      ['impl', 'completed'],
      ['review', 'in_progress'],
      ['docs', 'skipped'],
    ]);
    expect(s.phases[1]!.retryCount).toBe(3);
    expect(s.phases[1]!.completedAt).toBe('2026-01-11T10:00:00Z');
    expect(s.phases[1]!.files.map((f) => f.path)).toEqual(['src/impl.ts']);
    expect(s.phases[1]!.errors.map((e) => [e.id, e.message, e.resolved, e.resolution])).toEqual([
      ['err-1', 'lint failed', true, 'fixed lint'],
      ['err-2', 'tests crash', true, 'fixed the crash'],
      ['err-3', 'slow CI', false, null],
    ]);
    expect(s.phases[2]!.subStep).toBe('security');
    expect(s.phases[2]!.startedAt).toBe('2026-01-11T10:05:00Z');
    expect(s.tokens.byAgent['coder']).toEqual({ input: 4000, output: 700, cached: 300 });
    expect(s.tokens.byAgent['reviewer']).toEqual({ input: 500, output: 0, cached: 0 });
    expect(s.tokens.input).toBe(7000);
    expect(s.decisions.map((d) => [d.id, d.title])).toEqual([
      ['dec-1', 'Storage'],
      ['dec-2', 'CI'],
    ]);
    expect(s.notes.map((n) => n.text)).toEqual(['remember the cache', 'second note']);
    expect(s.milestones[0]!.done).toBe(true);
    expect(s.contextSummary).toBe('Nearly done');
    expect(s.status).toBe('completed');
    expect(provenanceOf(s)!.sourceHash).toBe('hash-2');
    // The forward result has the facts a fresh import of the new foreign session has.
    const fresh = imported(next).state;
    const facts = (x: SessionState) => ({
      phases: x.phases.map((p) => ({
        id: p.id,
        status: p.status,
        retryCount: p.retryCount,
        subStep: p.subStep,
        files: p.files.map((f) => [f.path, f.action]),
        errors: p.errors.map((e) => [e.type, e.message, e.resolved, e.resolution]),
      })),
      tokens: x.tokens,
      decisions: x.decisions.map((d) => [d.title, d.choice]),
      notes: x.notes.map((n) => n.text),
      milestones: x.milestones.map((m) => [m.title, m.done]),
      status: x.status,
      contextSummary: x.contextSummary,
    });
    expect(facts(s)).toEqual(facts(fresh));
    // And importing the same thing again does nothing.
    expect(reimportEvents(s, r.journal, next, CTX).unchanged).toBe(true);
  });

  it('reports a unit that went back (a toolkit rollback) and still applies the rest', () => {
    const base = imported(MID());
    const next = MID();
    next.sourceHash = 'hash-2';
    next.units[0] = unit('design', {
      status: 'pending',
      metadata: { downstream: 'api' },
      files: [
        { path: 'docs/design.md', action: 'created' },
        { path: 'README.md', action: 'read' },
      ],
      agents: ['architect'],
    });
    next.notes.push({ text: 'after rollback', time: null, agent: null });
    const r = reimport(base, next);
    const kinds = r.plan.problems.map((p) => [p.code, (p.details as { kind: string }).kind, p.severity]);
    expect(kinds).toContainEqual(['REIMPORT_DIVERGED', 'status_backwards', 'warning']);
    expect(r.state.phases[0]!.status).toBe('completed');
    expect(r.state.notes.map((n) => n.text)).toContain('after rollback');
  });

  it('reports units added or removed, fewer retries, fewer tokens, a reopened error, removed records, a new title', () => {
    const base = imported(MID());
    const next = MID();
    next.sourceHash = 'hash-2';
    next.title = 'Renamed';
    next.units = [
      next.units[0]!,
      {
        ...next.units[1]!,
        retries: 1,
        errors: [{ ...next.units[1]!.errors[0]!, resolved: false, resolution: null }, next.units[1]!.errors[1]!],
      },
      next.units[2]!,
      unit('extra', { status: 'in_progress' }),
    ];
    next.tokens = {
      ...next.tokens!,
      byAgent: { ...next.tokens!.byAgent!, coder: { input: 10, output: 700, cached: 300 } },
    };
    next.decisions = [];
    const r = reimport(base, next);
    const kinds = r.plan.problems.map((p) => (p.details as { kind: string }).kind);
    for (const k of [
      'title',
      'unit_added',
      'unit_removed',
      'status_backwards',
      'tokens_decreased',
      'error_reopened',
      'decision_removed',
    ])
      expect(kinds).toContain(k);
    expect(r.state.title).toBe('A session');
    expect(r.state.phases.map((p) => p.id)).toEqual(['design', 'impl', 'review', 'docs']);
    expect(r.state.phases[1]!.retryCount).toBe(2);
    expect(r.state.tokens.byAgent['coder']!.input).toBe(3000);
    expect(r.state.decisions).toHaveLength(1);
    expect(provenanceOf(r.state)!.sourceHash).toBe('hash-2');
  });

  it('does not count twice tokens baton recorded against a phase that come back in the per-agent map (a mirror)', () => {
    const base = imported(MID());
    // baton records 100 more input tokens for coder on impl; the toolkit's file (rewritten by a
    // mirror) then holds them in its per-agent map and totals.
    const rec = stored(
      [
        {
          type: 'tokens.recorded',
          data: { agent: 'coder', phaseId: 'impl', input: 100, output: 0, cached: 0 },
          time: CTX.importedAt,
        },
      ],
      base.state.revision,
    );
    const after = { state: fold(base.state, rec, 'x')!, journal: [...base.journal, ...rec] };
    const next = MID();
    next.sourceHash = 'hash-2';
    next.tokens = {
      ...next.tokens!,
      input: 5100,
      byAgent: { ...next.tokens!.byAgent!, coder: { input: 3100, output: 700, cached: 300 } },
    };
    const r = reimport(after, next);
    expect(types(r.plan.events)).toEqual(['metadata.set']);
    expect(r.state.tokens.input).toBe(5100);
    // An agent the foreign per-agent map cannot hold comes back in its unattributed remainder.
    const rec3 = stored(
      [
        {
          type: 'tokens.recorded',
          data: { agent: 'baton-agent', phaseId: null, input: 7, output: 0, cached: 0 },
          time: CTX.importedAt,
        },
      ],
      base.state.revision,
    );
    const after3 = { state: fold(base.state, rec3, 'x')!, journal: [...base.journal, ...rec3] };
    const r3 = reimport(after3, { ...MID(), sourceHash: 'hash-3', tokens: { ...MID().tokens!, input: 5007 } });
    expect(types(r3.plan.events)).toEqual(['metadata.set']);
    expect(r3.state.tokens.input).toBe(5007);
    // Per-unit breakdowns are compared per unit, whoever recorded the tokens.
    const unitTokens = (input: number) =>
      foreign({
        units: [unit('a', { status: 'in_progress' })],
        tokens: {
          input,
          output: 0,
          cached: 0,
          byAgent: null,
          byUnit: { a: { input, output: 0, cached: 0 } },
          agrees: null,
          max: null,
        },
      });
    const u = imported(unitTokens(50));
    const rec2 = stored(
      [
        {
          type: 'tokens.recorded',
          data: { agent: 'coder', phaseId: 'a', input: 10, output: 0, cached: 0 },
          time: CTX.importedAt,
        },
      ],
      u.state.revision,
    );
    const u2 = reimport(
      { state: fold(u.state, rec2, 'x')!, journal: [...u.journal, ...rec2] },
      { ...unitTokens(80), sourceHash: 'h2' },
    );
    expect(u2.plan.events.filter((e) => e.type === 'tokens.recorded').map((e) => e.data)).toEqual([
      { agent: UNATTRIBUTED, phaseId: 'a', input: 20, output: 0, cached: 0 },
    ]);
    expect(u2.state.tokens.byPhase['a']!.input).toBe(80);
  });

  it('moves the session status through the state machine (via resumed when needed) or reports it', () => {
    const failed = imported(foreign({ status: 'failed' }));
    const r1 = reimport(failed, foreign({ status: 'paused', sourceHash: 'h2' }));
    expect(types(r1.plan.events)).toEqual(['session.resumed', 'session.paused', 'metadata.set']);
    expect(r1.state.status).toBe('paused');
    const done = imported(foreign({ status: 'completed' }));
    const r2 = reimport(done, foreign({ status: 'active', sourceHash: 'h2' }));
    expect(r2.state.status).toBe('completed');
    expect(r2.plan.problems.map((p) => (p.details as { kind: string }).kind)).toEqual(['status_backwards']);
  });

  it('archives a session archived in the toolkit, and reports one taken back out', () => {
    const live = imported(foreign({ status: 'completed' }));
    const r = reimport(live, foreign({ status: 'completed', archived: true, sourceHash: 'h2' }));
    expect(r.plan.archive).toBe(true);
    expect(r.state.archived).toBe(true);
    const back = reimport(r, foreign({ status: 'completed', archived: false, sourceHash: 'h3' }));
    expect(back.plan.archive).toBe(false);
    expect(back.state.archived).toBe(true);
    expect(back.plan.problems.map((p) => (p.details as { kind: string }).kind)).toEqual(['unarchived']);
  });

  it('restarts a failed unit the toolkit restarted without counting a retry, then completes it', () => {
    const base = imported(foreign({ units: [unit('a', { status: 'failed', startedAt: '2026-01-10T09:00:00Z' })] }));
    const r = reimport(
      base,
      foreign({
        sourceHash: 'h2',
        units: [
          unit('a', { status: 'completed', startedAt: '2026-01-10T09:00:00Z', completedAt: '2026-01-10T10:00:00Z' }),
        ],
      }),
    );
    expect(types(r.plan.events)).toEqual(['phase.started', 'phase.completed', 'metadata.set']);
    expect(r.state.phases[0]!.status).toBe('completed');
    expect(r.plan.problems).toEqual([]);
  });
});
