import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { applyInPlace, fold } from '../../src/domain/apply.js';
import { EVENT_TYPES } from '../../src/domain/events.js';
import type { EventType, StoredEvent } from '../../src/domain/events.js';
import type { SessionState } from '../../src/domain/state.js';
import { sameSummaryInputs, summarize } from '../../src/domain/summary.js';

// fold copies on write (src/domain/own.ts): it copies only what each event changes. These
// tests fold every kind of event onto deeply frozen states (a write to a shared part throws
// in strict mode) and compare with folding onto a full copy, the way fold worked before.

const actor = { agent: 'a', pid: 1, host: 'h' };
const t = (i: number): string => new Date(Date.parse('2026-01-01T00:00:00Z') + i * 1000).toISOString();

function deepFreeze<T>(v: T): T {
  if (typeof v === 'object' && v !== null && !Object.isFrozen(v)) {
    Object.freeze(v);
    for (const k of Object.keys(v)) deepFreeze((v as Record<string, unknown>)[k]);
  }
  return v;
}

/** The reference: fold onto a full deep copy, event by event in place. */
function reference(base: SessionState, events: StoredEvent[]): SessionState {
  const s = structuredClone(base);
  for (const e of events) applyInPlace(s, e);
  return s;
}

const created = {
  type: 'session.created',
  data: {
    title: 'T',
    idFormat: 'explicit',
    phases: [
      { id: 'p1', name: 'One' },
      { id: 'p2', name: 'Two' },
    ],
    budgetMax: null,
    contextSummary: null,
    metadata: { k: { nested: [1] } },
  },
};

/** One or more events of every type, in an order that makes each one do something. */
const BODY: Array<{ type: EventType; data: unknown }> = [
  { type: 'phase.started', data: { phaseId: 'p1', agent: 'a', forced: false } },
  { type: 'substep.reached', data: { phaseId: 'p1', name: 'step' } },
  {
    type: 'file.recorded',
    data: { phaseId: 'p1', path: 'a.ts', action: 'created', sha256: null, size: 1, agent: 'a' },
  },
  {
    type: 'file.recorded',
    data: { phaseId: null, path: 'loose.ts', action: 'modified', sha256: null, size: 2, agent: 'b' },
  },
  {
    type: 'file.recorded',
    data: { phaseId: 'gone', path: 'x.ts', action: 'modified', sha256: null, size: 2, agent: 'b' },
  },
  { type: 'error.recorded', data: { errorId: 'error-1', phaseId: 'p1', agent: 'a', type: 'build', message: 'boom' } },
  { type: 'error.resolved', data: { errorId: 'error-1', resolution: 'fixed' } },
  { type: 'tokens.recorded', data: { agent: 'a', phaseId: 'p1', input: 1, output: 2, cached: 3 } },
  {
    type: 'tokens.recorded',
    data: { agent: 'b', phaseId: null, input: 1, output: 2, cached: 3, cacheWrite: 4, model: 'm' },
  },
  { type: 'tokens.recorded', data: { agent: 'c', phaseId: 'p2', input: 5, output: 0, cached: 0, model: 'm' } },
  { type: 'budget.set', data: { max: 1000 } },
  { type: 'budget.cost_set', data: { maxUsd: 5 } },
  {
    type: 'transcript.read',
    data: {
      cli: 'claude',
      agent: 'a',
      agentSessionId: 's',
      offset: 10,
      fileSize: 10,
      fileMtimeMs: 1,
      path: '/t.jsonl',
      responses: 'r1\t1,2,3,4\n',
    },
  },
  {
    type: 'transcript.read',
    data: {
      cli: 'claude',
      agent: 'a',
      agentSessionId: 's',
      offset: 20,
      fileSize: 20,
      fileMtimeMs: 2,
      path: '/t.jsonl',
      responses: 'r2\t1,2,3,4\n',
    },
  },
  {
    type: 'decision.recorded',
    data: {
      decisionId: 'decision-1',
      title: 'd',
      choice: 'c',
      rationale: null,
      alternatives: ['x'],
      agent: 'a',
      phaseId: null,
    },
  },
  { type: 'finding.added', data: { findingId: 'finding-1', text: 'f', severity: null, phaseId: null, agent: 'a' } },
  { type: 'finding.removed', data: { findingId: 'finding-1' } },
  { type: 'note.added', data: { noteId: 'note-1', text: 'n', phaseId: null, agent: 'a' } },
  { type: 'milestone.added', data: { milestoneId: 'milestone-1', title: 'm', targetDate: null } },
  { type: 'milestone.done', data: { milestoneId: 'milestone-1' } },
  {
    type: 'artifact.added',
    data: { artifactId: 'artifact-1', path: 'out', kind: null, description: null, phaseId: null, agent: 'a' },
  },
  { type: 'context.updated', data: { summary: 'ctx' } },
  { type: 'metadata.set', data: { key: 'k2', value: { deep: [1, 2] } } },
  { type: 'lease.acquired', data: { owner: 'w', pid: 2, host: 'h', token: 1, expiresAt: t(100), takeover: false } },
  { type: 'lease.renewed', data: { token: 1, expiresAt: t(200) } },
  { type: 'run.started', data: { command: ['x'], token: 1, agent: 'a' } },
  { type: 'run.ended', data: { command: ['x'], exitCode: 0, signal: null, cause: 'exited' } },
  {
    type: 'run.started',
    data: {
      runId: 'run-2',
      kind: 'conversation',
      command: [],
      token: null,
      agent: 'c',
      process: { pid: 3, host: 'h', boot: null },
      ttlMs: 60000,
      expiresAt: t(150),
      cli: 'claude',
      agentSessionId: 's2',
    },
  },
  { type: 'run.renewed', data: { runId: 'run-2', expiresAt: t(250) } },
  { type: 'phase.claimed', data: { phaseId: 'p1', runId: 'run-2', from: null } },
  {
    type: 'file.conflicted',
    data: { path: 'a.ts', phaseId: 'p1', runId: 'run-2', otherRunId: 'r1', otherPhaseId: 'p2' },
  },
  {
    type: 'mirror.conflicted',
    data: {
      format: 'maestro',
      path: 'state/active-session.md',
      agent: 'claude',
      runId: 'run-2',
      lost: [
        { kind: 'status_backwards', message: 'Unit p1 is pending in the foreign session but completed in baton.' },
      ],
    },
  },
  {
    type: 'run.ended',
    data: { runId: 'run-2', how: 'died', command: [], exitCode: null, signal: null, cause: 'process-gone' },
  },
  {
    type: 'run.ended',
    data: {
      runId: 'run-2',
      how: 'finished',
      command: [],
      exitCode: null,
      signal: null,
      cause: 'agent-session-end',
      amend: true,
    },
  },
  {
    type: 'run.ended',
    data: {
      runId: 'run-2',
      how: 'died',
      command: [],
      exitCode: null,
      signal: null,
      cause: 'process-gone',
      salvage: { steps: [{ name: 's', status: 'in_progress' }], lastTools: ['Edit a.ts'] },
    },
  },
  { type: 'lease.released', data: { token: 1 } },
  { type: 'lease.acquired', data: { owner: 'w', pid: 2, host: 'h', token: 2, expiresAt: t(100), takeover: false } },
  { type: 'lease.expired', data: { token: 2, owner: 'w', expiresAt: t(100) } },
  {
    type: 'checkpoint.created',
    data: { checkpointId: 'cp-1', name: 'c', revision: 3, trigger: 'manual', phaseId: null, git: null },
  },
  { type: 'agent.bound', data: { cli: 'claude', agentSessionId: 's', agent: 'a', transcriptPath: null, cwd: null } },
  { type: 'subagent.started', data: { phaseId: 'p1', agent: 'a', agentId: 'sub', agentType: null } },
  { type: 'subagent.stopped', data: { phaseId: 'p1', agent: 'a', agentId: 'sub' } },
  { type: 'steps.planned', data: { phaseId: 'p1', agent: 'a', steps: [{ text: 's', status: 'pending' }] } },
  { type: 'agent.ended', data: { cli: 'claude', agentSessionId: 's', reason: null } },
  {
    type: 'step.started',
    data: {
      key: 'fetch',
      phaseId: null,
      claim: 1,
      runner: { pid: 2, host: 'h', boot: null, runId: null, agent: null },
      takeover: false,
    },
  },
  { type: 'step.completed', data: { key: 'fetch', phaseId: null, claim: 1, attempts: 1, size: 9, result: { n: [1] } } },
  {
    type: 'step.started',
    data: {
      key: 'push',
      phaseId: 'p1',
      claim: 1,
      runner: { pid: 2, host: 'h', boot: null, runId: null, agent: null },
      takeover: false,
    },
  },
  {
    type: 'step.started',
    data: {
      key: 'push',
      phaseId: 'p1',
      claim: 2,
      runner: { pid: 3, host: 'h', boot: null, runId: null, agent: null },
      takeover: true,
    },
  },
  {
    type: 'step.failed',
    data: { key: 'push', phaseId: 'p1', claim: 2, attempts: 2, error: { message: 'm', name: 'Error', code: null } },
  },
  { type: 'phase.completed', data: { phaseId: 'p1', agent: 'a' } },
  { type: 'phase.started', data: { phaseId: 'p2', agent: 'b', forced: false } },
  { type: 'phase.failed', data: { phaseId: 'p2', agent: 'b', reason: 'r' } },
  { type: 'phase.retried', data: { phaseId: 'p2', agent: 'b', forced: false, attempt: 2 } },
  { type: 'phase.skipped', data: { phaseId: 'p2', reason: 's' } },
  {
    type: 'phase.added',
    data: {
      phaseId: 'p3',
      phase: { id: 'p3', name: 'P3', blockedBy: ['p1'], maxRetries: 1 },
      after: 'p1',
      reason: null,
    },
  },
  { type: 'phase.updated', data: { phaseId: 'p3', maxRetries: 3, blockedBy: [], reason: 'r' } },
  { type: 'phase.removed', data: { phaseId: 'p3', reason: null } },
  { type: 'session.paused', data: { cause: 'user', detail: null } },
  { type: 'session.resumed', data: { from: 'paused' } },
  { type: 'session.interrupted', data: { cause: 'crash', detail: 'd' } },
  { type: 'session.pinned', data: { reason: null } },
  { type: 'session.unpinned', data: { reason: null } },
  { type: 'repair.torn_tail', data: { truncatedBytes: 3, savedTo: null } },
  { type: 'repair.unreadable_line', data: { raw: 'x', line: 3 } },
  { type: 'repair.journal', data: { savedTo: null, unreadableLines: [3] } },
  {
    type: 'graph.checkpoint',
    data: {
      ns: '',
      checkpointId: 'c1',
      parentId: null,
      step: 0,
      source: 'loop',
      checkpoint: ['json', 'e30='],
      metadata: ['json', 'e30='],
      blobs: [],
    },
  },
  {
    type: 'graph.writes',
    data: {
      ns: '',
      checkpointId: 'c1',
      taskId: 't',
      taskPath: '',
      writes: [{ channel: 'x', idx: 0, value: ['json', 'MQ=='] }],
    },
  },
  {
    type: 'graph.checkpoint',
    data: {
      ns: 'sub',
      checkpointId: 'c2',
      parentId: null,
      step: 1,
      source: null,
      checkpoint: ['json', 'e30='],
      metadata: ['json', 'e30='],
      blobs: [],
    },
  },
  {
    type: 'transcript.mirrored',
    data: {
      subpath: null,
      agent: 'claude',
      entries: [{ type: 'assistant', uuid: 'u1', message: { id: 'm1' } }],
      responses: 'k1\t1,2,3,4\n',
    },
  },
  {
    type: 'transcript.mirrored',
    data: { subpath: 'subagents/agent-1', agent: 'claude/subagent#1', entries: [{ type: 'user' }], responses: '' },
  },
  { type: 'transcript.cleared', data: { subpath: 'subagents/agent-1' } },
  { type: 'session.completed', data: { detail: null } },
  { type: 'session.failed', data: { detail: null } },
  { type: 'session.abandoned', data: { detail: null } },
  { type: 'session.archived', data: {} },
  { type: 'unknown.future', data: { x: 1 } } as never,
];

function journal(body: Array<{ type: string; data: unknown }>): StoredEvent[] {
  return [created, ...body].map((e, i) => ({ ...e, time: t(i), actor, seq: i + 1 }) as StoredEvent);
}

/** A restore of the state at `revision`, and a recovered-loss event, need a state to carry. */
function withStates(events: StoredEvent[]): StoredEvent[] {
  const at = fold(null, events.slice(0, 5), 'id')!;
  const extra = [
    {
      type: 'checkpoint.restored',
      data: { checkpointId: 'cp-1', name: 'c', revision: 5, state: at, supersedes: [], git: null },
    },
    { type: 'repair.events_lost', data: { from: 3, to: 4, recoveredFrom: null, state: at, savedTo: null } },
    { type: 'tokens.recorded', data: { agent: 'z', phaseId: 'p1', input: 1, output: 1, cached: 0 } },
  ];
  return [
    ...events,
    ...extra.map((e, i) => ({ ...e, time: t(900 + i), actor, seq: events.length + i + 1 }) as StoredEvent),
  ];
}

const ALL = withStates(journal(BODY));

describe('fold copies on write', () => {
  it('covers every event type baton writes', () => {
    const seen = new Set(ALL.map((e) => e.type));
    expect(EVENT_TYPES.filter((x) => !seen.has(x))).toEqual([]);
  });

  it('never writes to the state it starts from, and folds as a full copy would', () => {
    for (let i = 1; i < ALL.length; i++) {
      for (let k = 1; k <= 4 && i + k <= ALL.length; k++) {
        const base = deepFreeze(structuredClone(fold(null, ALL.slice(0, i), 'id')!));
        const part = ALL.slice(i, i + k);
        let got: SessionState | null = null;
        expect(
          () => (got = fold(base, part, 'id')),
          `events ${i + 1}…${i + k} (${part.map((e) => e.type).join(', ')})`,
        ).not.toThrow();
        expect(got).toEqual(reference(base, part));
      }
    }
  });

  it('shares what no event changed, and copies a phase only when an event names it', () => {
    const base = fold(null, ALL.slice(0, 12), 'id')!;
    const next = fold(
      base,
      journal(BODY)
        .slice(8, 9)
        .map((e) => ({ ...e, seq: base.revision + 1 })),
      'id',
    )!; // tokens for p1
    expect(next.notes).toBe(base.notes);
    expect(next.phases[1]).toBe(base.phases[1]);
    expect(next.phases[0]).not.toBe(base.phases[0]);
    expect(next.tokens).not.toBe(base.tokens);
  });

  it('any order of events: the frozen base is untouched and the result is the full copy’s', () => {
    fc.assert(
      fc.property(
        fc.shuffledSubarray(ALL.slice(1), { minLength: 1 }),
        fc.integer({ min: 1, max: 6 }),
        (picked, cut) => {
          const events = [ALL[0]!, ...picked].map((e, i) => ({ ...e, seq: i + 1 }) as StoredEvent);
          const split = Math.min(cut, events.length - 1);
          const base = deepFreeze(structuredClone(fold(null, events.slice(0, split), 'id')!));
          const rest = events.slice(split);
          expect(fold(base, rest, 'id')).toEqual(reference(base, rest));
        },
      ),
      { numRuns: 300 },
    );
  });

  // The manager skips summarizing a change's result when sameSummaryInputs says the row's
  // inputs are the same objects (src/domain/summary.ts): that rests on this copy on write.
  it('summarize reads only the fields sameSummaryInputs compares, and revision and updatedAt', () => {
    const READ = [
      'id',
      'title',
      'status',
      'statusCause',
      'archived',
      'createdAt',
      'phases',
      'lease',
      'pinned',
      'workspace',
      'runs',
      'revision',
      'updatedAt',
    ];
    for (let i = 1; i <= ALL.length; i++) {
      const s = fold(null, ALL.slice(0, i), 'id')!;
      const only = Object.fromEntries(Object.entries(s).filter(([k]) => READ.includes(k))) as unknown as SessionState;
      expect(summarize(only), `after ${ALL[i - 1]!.type}`).toEqual(summarize(s));
    }
  });

  it('any order of events: when sameSummaryInputs holds, the summaries differ only in revision and time', () => {
    let skipped = 0;
    fc.assert(
      fc.property(fc.shuffledSubarray(ALL.slice(1), { minLength: 1 }), (picked) => {
        const events = [ALL[0]!, ...picked].map((e, i) => ({ ...e, seq: i + 1 }) as StoredEvent);
        let state = fold(null, events.slice(0, 1), 'id')!;
        for (const e of events.slice(1)) {
          const next = fold(state, [e], 'id')!;
          if (sameSummaryInputs(state, next)) {
            skipped++;
            expect(summarize(next), e.type).toEqual({
              ...summarize(state),
              revision: next.revision,
              updatedAt: next.updatedAt,
            });
          }
          state = next;
        }
      }),
      { numRuns: 200 },
    );
    expect(skipped).toBeGreaterThan(0);
  });
});
