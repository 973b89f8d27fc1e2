import { describe, expect, it } from 'vitest';
import {
  draft,
  decideArchive,
  decideError,
  decideFiles,
  decidePhase,
  decideSession,
  decideSubstep,
} from '../../src/domain/decide.js';
import type { PhaseSpec } from '../../src/domain/events.js';
import { planResume } from '../../src/domain/resume/plan-resume.js';
import { renderResumePlan } from '../../src/domain/resume/render-resume.js';
import { ESCALATION_CHOICES } from '../../src/domain/resume/resume-plan-types.js';
import type { CheckpointInfo, ResumeInput, WorkspaceFile } from '../../src/domain/resume/resume-plan-types.js';
import type { SessionState } from '../../src/domain/state.js';
import { at, commit, fakeSha as h, phases, play as run, session } from './helpers.js';

const NOW = '2026-03-04T12:00:00.000Z';

const start =
  (id: string, agent: string | null = null) =>
  (s: SessionState) =>
    decidePhase(s, id, 'start', { agent });
const complete = (id: string) => (s: SessionState) => decidePhase(s, id, 'complete');
const fail =
  (id: string, reason: string | null = null) =>
  (s: SessionState) =>
    decidePhase(s, id, 'fail', { reason });
const retry = (id: string) => (s: SessionState) => decidePhase(s, id, 'retry');
const skip = (id: string) => (s: SessionState) => decidePhase(s, id, 'skip');
const sub = (id: string, name: string) => (s: SessionState) => decideSubstep(s, id, name);
const wrote =
  (phase: string | null, path: string, sha: string | null, action: 'created' | 'modified' | 'deleted' = 'created') =>
  (s: SessionState) =>
    decideFiles(s, action, [{ path, sha256: sha, size: sha === null ? null : 10 }], phase, null);
const error = (phase: string, message: string) => (s: SessionState) =>
  decideError(s, { phase, type: 'test', message }).events;
const interrupt = (s: SessionState) => decideSession(s, 'interrupt', 'pid 77 vanished', 'lease-expired');

function ws(entries: Record<string, string | null>): WorkspaceFile[] {
  return Object.entries(entries).map(([path, sha]) => ({ path, sha256: sha, size: sha === null ? null : 10 }));
}

function input(state: SessionState, o: Partial<ResumeInput> = {}): ResumeInput {
  return { state, now: NOW, workspace: [], checkpoints: [], planChanged: false, ...o };
}

function cp(id: string, revision: number | null, o: Partial<CheckpointInfo> = {}): CheckpointInfo {
  return { id, name: `name-${id}`, revision, createdAt: at(revision ?? 0), valid: true, superseded: false, ...o };
}

describe('planResume: phases', () => {
  it('resumes a phase that crashed mid-way at its sub-step', () => {
    const s = run(
      session(phases('a', 'b', 'c')),
      start('a'),
      complete('a'),
      start('b', 'bob'),
      sub('b', 'parse'),
      sub('b', 'write-tests'),
      interrupt,
    );
    const plan = planResume(input(s));
    expect(plan.status).toBe('interrupted');
    expect(plan.statusCause).toEqual({ cause: 'lease-expired', detail: 'pid 77 vanished', at: at(7) });
    expect(plan.resumable).toBe(true);
    expect(plan.lastCompleted).toEqual({ phaseId: 'a', name: 'A', completedAt: at(3) });
    expect(plan.inFlight).toEqual([
      {
        phaseId: 'b',
        name: 'B',
        subStep: 'write-tests',
        subStepAt: at(6),
        resumeAt: 'substep',
        startedAt: at(4),
        agents: ['bob'],
        retryCount: 0,
        maxRetries: 2,
        unresolvedErrors: [],
      },
    ]);
    expect(plan.next.steps).toEqual([
      {
        phaseId: 'b',
        name: 'B',
        action: 'resume',
        subStep: 'write-tests',
        reason: expect.stringContaining('"write-tests"'),
      },
    ]);
    expect(plan.next.reason).toBe('Phase b was in flight: finish it before anything else.');
    expect(plan.failed).toEqual([]);
    expect(plan.blocked).toEqual([]);
  });

  it('restarts an in-flight phase without a sub-step, including one retried after its sub-steps', () => {
    let s = run(session(phases('a', 'b')), start('a'));
    let plan = planResume(input(s));
    expect(plan.inFlight[0]).toMatchObject({ phaseId: 'a', subStep: null, subStepAt: null, resumeAt: 'restart' });
    expect(plan.next.steps[0]).toMatchObject({ phaseId: 'a', action: 'restart', subStep: null });
    // A retry starts the phase over: the old attempt's sub-step is no resume point.
    s = run(s, sub('a', 'half'), fail('a'), retry('a'));
    plan = planResume(input(s));
    expect(plan.inFlight[0]).toMatchObject({ phaseId: 'a', subStep: null, resumeAt: 'restart', retryCount: 1 });
    expect(plan.lastCompleted).toBeNull();
  });

  it('lists every in-flight phase, with its unresolved errors, before failed or pending work', () => {
    const specs: PhaseSpec[] = [
      { id: 'a', name: 'A', parallelGroup: 'g' },
      { id: 'b', name: 'B', parallelGroup: 'g' },
      { id: 'c', name: 'C' },
    ];
    const s = run(session(specs), start('c'), fail('c'), start('a'), start('b'), sub('b', 'x'), error('a', 'boom'));
    const plan = planResume(input(s));
    expect(plan.next.steps.map((n) => [n.phaseId, n.action])).toEqual([
      ['a', 'restart'],
      ['b', 'resume'],
    ]);
    expect(plan.next.reason).toBe('Phases a, b were in flight: finish them before anything else.');
    expect(plan.inFlight[0]!.unresolvedErrors).toEqual([
      { id: 'err-1', type: 'test', message: 'boom', agent: null, time: at(7) },
    ]);
  });

  it('offers a retry while retries are left, and escalates once they are used up', () => {
    let s = run(session(phases('a', 'b')), start('a'), error('a', 'flaky'), fail('a', 'tests red'));
    let plan = planResume(input(s));
    expect(plan.failed).toEqual([
      {
        phaseId: 'a',
        name: 'A',
        failedAt: at(4),
        failureReason: 'tests red',
        unresolvedErrors: [{ id: 'err-1', type: 'test', message: 'flaky', agent: null, time: at(3) }],
        retryCount: 0,
        maxRetries: 2,
        retriesLeft: 2,
        escalation: null,
      },
    ]);
    expect(plan.next.steps).toEqual([
      { phaseId: 'a', name: 'A', action: 'retry', subStep: null, reason: 'failed (tests red); 2 retries left of 2' },
    ]);

    s = run(s, retry('a'), fail('a'), retry('a'), fail('a', 'still red'));
    plan = planResume(input(s));
    const f = plan.failed[0]!;
    expect(f).toMatchObject({ retryCount: 2, maxRetries: 2, retriesLeft: 0, failureReason: 'still red' });
    expect(f.escalation).toEqual({
      reason: 'Phase a failed after using 2 of 2 retries; it is not retried automatically.',
      choices: ['retry', 'skip', 'fail', 'abandon', 'change-plan'],
      hint: { action: 'phase.escalate', args: { session: s.id, phase: 'a', maxRetries: 2, active: true } },
    });
    expect(ESCALATION_CHOICES).toEqual(['retry', 'skip', 'fail', 'abandon', 'change-plan']);
    // Never an automatic retry: with b free to start, b is next and a waits for a person.
    expect(plan.next.steps.map((n) => [n.phaseId, n.action])).toEqual([['b', 'start']]);
    expect(plan.warnings).toContain(
      'Phase a failed after using 2 of 2 retries; it is not retried automatically. The user decides: retry it anyway, skip it, fail or abandon the session, or change the plan.',
    );
    // With nothing else to do the escalation itself is next.
    s = run(s, skip('b'));
    plan = planResume(input(s));
    expect(plan.next.steps).toEqual([
      {
        phaseId: 'a',
        name: 'A',
        action: 'escalate',
        subStep: null,
        reason:
          'failed after 2 of 2 retries: the user decides: retry it anyway, skip it, fail or abandon the session, or change the plan',
      },
    ]);
    expect(plan.next.reason).toBe('No phase can proceed: a used all retries and needs a decision.');
  });

  it('honours a phase-specific retry limit', () => {
    const s = run(session([{ id: 'a', name: 'A', maxRetries: 0 }]), start('a'), fail('a'));
    expect(planResume(input(s)).failed[0]).toMatchObject({
      retriesLeft: 0,
      escalation: { choices: [...ESCALATION_CHOICES] },
    });
  });

  it('lists pending phases whose blockers are not done, with each open blocker', () => {
    const specs: PhaseSpec[] = [
      { id: 'a', name: 'A' },
      { id: 'b', name: 'B', blockedBy: ['a'] },
      { id: 'c', name: 'C', blockedBy: ['a', 'b'] },
      { id: 'd', name: 'D', blockedBy: ['ghost'] },
      { id: 'e', name: 'E', blockedBy: ['f'] },
      { id: 'f', name: 'F' },
    ];
    const s = run(session(specs), start('a'), fail('a'), skip('f'));
    const plan = planResume(input(s));
    expect(plan.blocked).toEqual([
      { phaseId: 'b', name: 'B', openBlockers: [{ phaseId: 'a', status: 'failed' }] },
      {
        phaseId: 'c',
        name: 'C',
        openBlockers: [
          { phaseId: 'a', status: 'failed' },
          { phaseId: 'b', status: 'pending' },
        ],
      },
      { phaseId: 'd', name: 'D', openBlockers: [{ phaseId: 'ghost', status: 'missing' }] },
    ]);
    // e's blocker f was skipped: e is free, but a failed with retries left comes first.
    expect(plan.next.steps.map((n) => [n.phaseId, n.action])).toEqual([['a', 'retry']]);
  });

  it('picks the first pending unblocked phase, with its parallel group', () => {
    const specs: PhaseSpec[] = [
      { id: 'a', name: 'A' },
      { id: 'b', name: 'B', blockedBy: ['a'], parallelGroup: 'p' },
      { id: 'c', name: 'C', blockedBy: ['a'], parallelGroup: 'p' },
      { id: 'd', name: 'D', parallelGroup: 'q' },
    ];
    let s = session(specs);
    let plan = planResume(input(s));
    expect(plan.next.steps).toEqual([
      { phaseId: 'a', name: 'A', action: 'start', subStep: null, reason: 'first pending phase, not blocked' },
    ]);
    expect(plan.next.reason).toBe(
      'Nothing is in flight or waiting for a retry; a is the first pending phase that is not blocked.',
    );
    s = run(s, start('a'), complete('a'));
    plan = planResume(input(s));
    expect(plan.next.steps.map((n) => n.phaseId)).toEqual(['b', 'c']);
    expect(plan.next.steps[0]!.reason).toBe('first pending phase; its blockers a are done');
    expect(plan.next.steps[1]!.reason).toBe('runs in parallel group "p" with b');
  });

  it('says when all phases are done or the session has none', () => {
    let s = run(session(phases('a', 'b')), start('a'), complete('a'), skip('b'));
    let plan = planResume(input(s));
    expect(plan.next).toEqual({
      steps: [],
      reason: 'All phases are completed or skipped: the session only needs to be marked completed.',
    });
    expect(plan.warnings).toContain(
      'All phases are completed or skipped: the session only needs to be marked completed.',
    );
    expect(plan.lastCompleted?.phaseId).toBe('a');
    s = session([]);
    plan = planResume(input(s));
    expect(plan.next).toEqual({ steps: [], reason: 'The session has no phases.' });
  });

  it('names the last completed phase by plan order, not by time', () => {
    const s = run(session(phases('a', 'b', 'c')), start('c'), complete('c'), start('a'), complete('a'));
    expect(planResume(input(s)).lastCompleted).toMatchObject({ phaseId: 'c' });
  });
});

describe('planResume: files', () => {
  it('reports changed, vanished, reappeared and unverified files per phase, and new files', () => {
    const s = run(
      session(phases('a', 'b')),
      start('a'),
      wrote('a', 'src/changed.ts', h('c1')),
      wrote('a', 'src/same.ts', h('s1')),
      wrote('a', 'src/gone.ts', h('g1'), 'modified'),
      wrote('a', 'old.txt', null, 'deleted'),
      wrote('a', 'still-deleted.txt', null, 'deleted'),
      wrote('a', 'blob.bin', null, 'created'),
      complete('a'),
    );
    const plan = planResume(
      input(s, {
        workspace: ws({
          'src/changed.ts': h('c2'),
          'src/same.ts': h('s1'),
          'src/gone.ts': null,
          'old.txt': h('o2'),
          'still-deleted.txt': null,
          'blob.bin': h('b1'),
        }),
        newFiles: ['z.txt', 'new.md', 'z.txt', 'src/same.ts'],
      }),
    );
    const f = plan.files;
    expect(f.byPhase).toHaveLength(1);
    expect(f.byPhase[0]).toMatchObject({
      phaseId: 'a',
      phaseName: 'A',
      phaseStatus: 'completed',
      possiblyHalfWritten: false,
    });
    expect(f.byPhase[0]!.files.map((x) => [x.path, x.kind])).toEqual([
      ['blob.bin', 'unverified'],
      ['old.txt', 'reappeared'],
      ['src/changed.ts', 'changed'],
      ['src/gone.ts', 'vanished'],
    ]);
    expect(f.byPhase[0]!.files[2]).toEqual({
      path: 'src/changed.ts',
      kind: 'changed',
      recordedAction: 'created',
      recordedSha256: h('c1'),
      recordedSize: 10,
      recordedAt: at(3),
      currentSha256: h('c2'),
      currentSize: 10,
      possiblyHalfWritten: false,
    });
    expect([f.changed, f.vanished, f.reappeared, f.unverified]).toEqual([1, 1, 1, 1]);
    // Deduplicated, sorted, and without paths the session recorded.
    expect(f.newFiles).toEqual(['new.md', 'z.txt']);
    expect(f.unmeasured).toEqual([]);
    expect(f.outsideChanges).toBe(true);
  });

  it('flags every file of an in-flight phase as possibly half-written, unchanged ones included', () => {
    const s = run(
      session(phases('a', 'b')),
      start('a'),
      wrote('a', 'a.ts', h('a1')),
      complete('a'),
      start('b'),
      wrote('b', 'b2.ts', h('b2')),
      wrote('b', 'b1.ts', h('b1')),
      interrupt,
    );
    const plan = planResume(input(s, { workspace: ws({ 'a.ts': h('a1'), 'b1.ts': h('b1'), 'b2.ts': h('bX') }) }));
    expect(plan.files.byPhase).toHaveLength(1);
    const g = plan.files.byPhase[0]!;
    expect(g).toMatchObject({ phaseId: 'b', phaseStatus: 'in_progress', possiblyHalfWritten: true });
    expect(g.files.map((x) => [x.path, x.kind, x.possiblyHalfWritten])).toEqual([
      ['b1.ts', 'unchanged', true],
      ['b2.ts', 'changed', true],
    ]);
    expect(plan.files.changed).toBe(1);
    expect(plan.warnings).toContain(
      'Phase b was in flight: its 2 files may be half-written (b1.ts, b2.ts); check them before continuing.',
    );
  });

  it('judges a path recorded by several phases once, against its latest record', () => {
    const s = run(
      session(phases('a', 'b')),
      start('a'),
      wrote('a', 'shared.ts', h('v1')),
      complete('a'),
      start('b'),
      wrote('b', 'shared.ts', h('v2'), 'modified'),
      complete('b'),
    );
    // v2 is what the session last wrote: nothing changed outside.
    expect(planResume(input(s, { workspace: ws({ 'shared.ts': h('v2') }) })).files.byPhase).toEqual([]);
    const plan = planResume(input(s, { workspace: ws({ 'shared.ts': h('v3') }) }));
    expect(plan.files.byPhase.map((g) => [g.phaseId, g.files.map((x) => x.recordedSha256)])).toEqual([
      ['b', [h('v2')]],
    ]);
  });

  it('groups files recorded without a phase last and lists paths the caller did not measure', () => {
    const s = run(
      session(phases('a')),
      wrote(null, 'loose.txt', h('l1')),
      start('a'),
      wrote('a', 'a.ts', h('a1')),
      complete('a'),
    );
    const plan = planResume(input(s, { workspace: ws({ 'loose.txt': h('l2') }) }));
    expect(plan.files.byPhase).toEqual([
      expect.objectContaining({
        phaseId: null,
        phaseName: null,
        phaseStatus: null,
        possiblyHalfWritten: false,
        files: [expect.objectContaining({ path: 'loose.txt', kind: 'changed' })],
      }),
    ]);
    expect(plan.files.unmeasured).toEqual(['a.ts']);
    expect(plan.warnings).toContain('1 recorded file could not be compared (not measured): a.ts.');
    expect(plan.warnings).toContain('1 file recorded without a phase differs from the record: loose.txt (changed).');
  });

  it('reports nothing when the workspace matches the records', () => {
    const s = run(session(phases('a')), start('a'), wrote('a', 'a.ts', h('a1')), complete('a'));
    const plan = planResume(input(s, { workspace: ws({ 'a.ts': h('a1') }) }));
    expect(plan.files).toEqual({
      byPhase: [],
      changed: 0,
      vanished: 0,
      reappeared: 0,
      unverified: 0,
      newFiles: [],
      unmeasured: [],
      outsideChanges: false,
    });
  });
});

describe('planResume: recovery options', () => {
  const base = (): SessionState =>
    run(
      session(phases('a', 'b', 'c')),
      start('a'),
      wrote('a', 'a.ts', h('a1')),
      complete('a'),
      start('b'),
      complete('b'),
      start('c'),
    );
  // revision: 1 created, 2 start a, 3 file, 4 complete a, 5 start b, 6 complete b, 7 start c

  it('offers the latest valid checkpoint and counts the events it loses', () => {
    const s = base();
    expect(s.revision).toBe(7);
    const plan = planResume(input(s, { checkpoints: [cp('cp-1', 2), cp('cp-2', 4)] }));
    const [checkpoint, live, fresh] = plan.recovery.options;
    expect(checkpoint).toEqual({
      kind: 'checkpoint',
      from: 'checkpoint:cp-2',
      available: true,
      checkpoint: { id: 'cp-2', name: 'name-cp-2', revision: 4, createdAt: at(4) },
      loses: { events: 3, workEvents: null, completedPhases: null, summary: '3 events recorded after revision 4' },
      notes: [],
    });
    expect(live).toEqual({
      kind: 'live',
      from: 'live',
      available: true,
      checkpoint: null,
      loses: { events: 0, workEvents: 0, completedPhases: [], summary: 'nothing' },
      notes: ['Keeps the half-done work of c.'],
    });
    expect(fresh).toEqual({
      kind: 'fresh',
      from: 'fresh',
      available: true,
      checkpoint: null,
      loses: {
        events: 6,
        workEvents: null,
        completedPhases: ['a', 'b'],
        summary: 'everything: 2 completed phases and 6 events since the session was created',
      },
      notes: ['Starts again from the first phase of the plan.'],
    });
    expect(plan.recovery.corruptCheckpoints).toEqual([]);
    expect(plan.recovery.fallback).toBeNull();
  });

  it('names the completed phases a checkpoint gives up when the caller knows them', () => {
    const plan = planResume(input(base(), { checkpoints: [cp('cp-1', 4, { completedPhases: ['a'] })] }));
    expect(plan.recovery.options[0]!.loses).toEqual({
      events: 3,
      workEvents: null,
      completedPhases: ['b'],
      summary: '3 events recorded after revision 4, including the completion of b',
    });
  });

  it('loses nothing with a checkpoint at the current revision', () => {
    const s = base();
    expect(planResume(input(s, { checkpoints: [cp('cp-1', 7)] })).recovery.options[0]!.loses).toMatchObject({
      events: 0,
      summary: 'nothing: no events since the checkpoint',
    });
  });

  it('never offers a superseded checkpoint', () => {
    const plan = planResume(input(base(), { checkpoints: [cp('cp-1', 2), cp('cp-2', 6, { superseded: true })] }));
    expect(plan.recovery.options[0]!.checkpoint?.id).toBe('cp-1');
    expect(plan.recovery.fallback).toBeNull();
  });

  it('reports a corrupt checkpoint and falls back to the previous valid one', () => {
    const plan = planResume(
      input(base(), {
        checkpoints: [
          cp('cp-1', 2),
          cp('cp-2', 4),
          cp('cp-3', null, { name: 'cp-3', createdAt: '', valid: false, problem: 'checksum mismatch' }),
        ],
      }),
    );
    const corrupt = {
      id: 'cp-3',
      name: 'cp-3',
      revision: null,
      createdAt: '',
      problem: 'checksum mismatch',
      superseded: false,
    };
    expect(plan.recovery.corruptCheckpoints).toEqual([corrupt]);
    expect(plan.recovery.fallback).toEqual({
      skipped: [corrupt],
      offered: { id: 'cp-2', name: 'name-cp-2', revision: 4, createdAt: at(4) },
    });
    expect(plan.recovery.options[0]).toMatchObject({ from: 'checkpoint:cp-2', loses: { events: 3 } });
    expect(plan.warnings).toContain(
      'Corrupt checkpoint cp-3 (checksum mismatch) skipped; offering the previous valid checkpoint cp-2 instead.',
    );
  });

  it('has no checkpoint option when none is valid', () => {
    let plan = planResume(input(base(), { checkpoints: [cp('cp-1', 3, { valid: false, problem: 'unreadable' })] }));
    expect(plan.recovery.options[0]).toEqual({
      kind: 'checkpoint',
      from: null,
      available: false,
      checkpoint: null,
      loses: { events: 0, workEvents: null, completedPhases: null, summary: 'not available' },
      notes: ['No valid, non-superseded checkpoint.'],
    });
    expect(plan.recovery.fallback).toEqual({
      skipped: [expect.objectContaining({ id: 'cp-1', revision: 3 })],
      offered: null,
    });
    expect(plan.warnings).toContain('Corrupt checkpoint cp-1 (unreadable) skipped; no valid checkpoint is left.');
    plan = planResume(input(base()));
    expect(plan.recovery.options[0]!.notes).toEqual(['No checkpoint was taken.']);
  });
});

describe('planResume: recommendation', () => {
  const done = (): SessionState =>
    run(session(phases('a', 'b')), start('a'), wrote('a', 'a.ts', h('a1')), complete('a'), (s) =>
      decideSession(s, 'pause', 'lunch'),
    );
  const clean = ws({ 'a.ts': h('a1') });

  it('recommends live when nothing changed outside and nothing in flight wrote files', () => {
    const plan = planResume(input(done(), { workspace: clean, checkpoints: [cp('cp-1', 4)] }));
    expect(plan.recovery.recommended).toEqual({
      kind: 'live',
      from: 'live',
      reason: 'Nothing changed outside the session and no phase in flight wrote files: continue where it stopped.',
    });
    expect(plan.warnings).toEqual([]);
  });

  it('never recommends the checkpoint for files of a completed phase edited outside: restoring it would not change them (issue 15, bug 2)', () => {
    const reason =
      "Files of completed phase a changed outside the session. Restoring a checkpoint would not undo that (it puts back the session's record, not the files): accept the edits, put the files back with git, or keep going, and continue from the current state.";
    for (const [now, kind] of [
      [h('a2'), 'changed'],
      [null, 'vanished'],
    ] as const) {
      for (const checkpoints of [[cp('cp-1', 4)], [cp('cp-1', 4, { valid: false })], []]) {
        const plan = planResume(input(done(), { workspace: ws({ 'a.ts': now }), checkpoints }));
        expect(plan.recovery.recommended).toEqual({ kind: 'live', from: 'live', reason });
        expect(plan.warnings).toContain(
          '1 file of completed phase a changed, vanished or reappeared outside the session.',
        );
        expect(plan.warnings.join(' ')).not.toMatch(/checkpoint to go back to/);
        expect(plan.outsideEdits?.phases).toEqual([{ phaseId: 'a', files: [{ path: 'a.ts', kind }] }]);
      }
    }
    // The checkpoint is still offered, saying what it does not do.
    const plan = planResume(input(done(), { workspace: ws({ 'a.ts': h('a2') }), checkpoints: [cp('cp-1', 4)] }));
    expect(plan.recovery.options[0]).toMatchObject({ kind: 'checkpoint', available: true });
    expect(plan.recovery.options[0]!.notes).toContain(
      "It puts back the session's record, not the files: the files changed outside the session stay as they are.",
    );
  });

  it('gives the choices for outside edits as data: accept (by phase and action), put back with git, keep going', () => {
    const s = run(
      session(phases('a', 'b', 'c')),
      start('a'),
      wrote('a', 'a.ts', h('a1')),
      wrote('a', 'gone.ts', h('g1')),
      wrote('a', 'old.ts', null, 'deleted'),
      complete('a'),
      start('b'),
      wrote('b', 'b.ts', h('b1')),
      complete('b'),
      start('c'),
      wrote('c', 'c.ts', h('c1')),
      interrupt,
    );
    const plan = planResume(
      input(s, {
        workspace: ws({ 'a.ts': h('a2'), 'gone.ts': null, 'old.ts': h('o2'), 'b.ts': h('b2'), 'c.ts': h('c2') }),
      }),
    );
    expect(plan.outsideEdits).toEqual({
      phases: [
        {
          phaseId: 'a',
          files: [
            { path: 'a.ts', kind: 'changed' },
            { path: 'gone.ts', kind: 'vanished' },
            { path: 'old.ts', kind: 'reappeared' },
          ],
        },
        { phaseId: 'b', files: [{ path: 'b.ts', kind: 'changed' }] },
      ],
      choices: [
        {
          kind: 'accept',
          summary:
            'The edits are wanted: record the files again as they are now, as work of a, b; the plan then stops reporting them.',
          hints: [
            {
              action: 'files.accept',
              args: { session: 'sess-1', phase: 'a', modified: ['a.ts'], deleted: ['gone.ts'], created: ['old.ts'] },
            },
            {
              action: 'files.accept',
              args: { session: 'sess-1', phase: 'b', modified: ['b.ts'], deleted: [], created: [] },
            },
          ],
        },
        {
          kind: 'restore-files',
          summary:
            "The edits are not wanted: put the files back as recorded, with git (restoring a checkpoint puts back the session's record, not the files).",
          hints: [{ action: 'files.restore-git', args: { checkout: ['a.ts', 'b.ts', 'gone.ts'], remove: ['old.ts'] } }],
        },
        {
          kind: 'keep-going',
          summary: 'Decide later: continue as is; the plan reports the files until they are accepted or put back.',
          hints: [{ action: 'resume.apply', args: { session: 'sess-1' } }],
        },
      ],
    });
    // The in-flight phase's files are half-written, not outside edits.
    expect(plan.outsideEdits!.phases.map((g) => g.phaseId)).not.toContain('c');
    const text = renderResumePlan(plan, (x) => `<${x.action}>`);
    expect(text).toContain(
      'Outside edits (files of completed phases changed outside the session):\n  a: a.ts (changed), gone.ts (vanished), old.ts (reappeared)\n  b: b.ts (changed)\n  Choose:\n    - accept: The edits are wanted',
    );
    expect(text).toContain('the plan then stops reporting them. <files.accept> <files.accept>');
    // Without words, the choices are described without commands.
    expect(renderResumePlan(plan)).not.toMatch(/<files/);
  });

  it('has no outside edits when the files of completed phases are as recorded', () => {
    const plan = planResume(input(done(), { workspace: clean }));
    expect(plan.outsideEdits).toBeNull();
    expect(renderResumePlan(plan)).not.toContain('Outside edits');
  });

  it('recommends live with warnings for half-written files, new files or a changed plan', () => {
    const inFlight = run(done(), (s) => decideSession(s, 'resume'), start('b'), wrote('b', 'b.ts', h('b1')), interrupt);
    const cases: ResumeInput[] = [
      input(inFlight, { workspace: ws({ 'a.ts': h('a1'), 'b.ts': h('b1') }), checkpoints: [cp('cp-1', 4)] }),
      input(done(), { workspace: clean, newFiles: ['x.txt'], checkpoints: [cp('cp-1', 4)] }),
      input(done(), { workspace: clean, planChanged: true, checkpoints: [cp('cp-1', 4)] }),
    ];
    for (const c of cases)
      expect(planResume(c).recovery.recommended).toEqual({
        kind: 'live',
        from: 'live',
        reason: 'Continue from the current state, after checking the warnings.',
      });
    expect(planResume(cases[1]!).warnings).toEqual(['1 new file appeared in the workspace since the session started.']);
    expect(planResume(cases[2]!).warnings).toEqual([
      'The plan file changed since the session started: check that the phases still match it.',
    ]);
    expect(planResume(cases[2]!).planChanged).toBe(true);
    // Unknown plan change is passed through and not treated as a change.
    const unknown = planResume(input(done(), { workspace: clean, planChanged: null }));
    expect(unknown.planChanged).toBeNull();
    expect(unknown.recovery.recommended?.kind).toBe('live');
    expect(unknown.recovery.recommended?.reason).toMatch(/^Nothing changed/);
  });

  it('recommends live (not the checkpoint) when only an in-flight phase has changed files', () => {
    const s = run(
      session(phases('a', 'b')),
      start('a'),
      complete('a'),
      start('b'),
      wrote('b', 'b.ts', h('b1')),
      interrupt,
    );
    const plan = planResume(input(s, { workspace: ws({ 'b.ts': h('b2') }), checkpoints: [cp('cp-1', 3)] }));
    expect(plan.recovery.recommended?.kind).toBe('live');
  });
});

describe('planResume: session status', () => {
  it('has nothing to resume in a completed session', () => {
    const s = run(session(phases('a')), start('a'), complete('a'), (x) => decideSession(x, 'complete'));
    const plan = planResume(input(s, { checkpoints: [cp('cp-1', 3)] }));
    expect(plan.resumable).toBe(false);
    expect(plan.status).toBe('completed');
    expect(plan.statusCause).toEqual({ cause: 'completed', detail: null, at: at(4) });
    expect(plan.next).toEqual({ steps: [], reason: 'The session is completed: nothing to resume.' });
    expect(plan.recovery.recommended).toBeNull();
    expect(plan.warnings).toEqual(['The session is completed: nothing to resume.']);
    expect(renderResumePlan(plan)).toContain('Recommended: none (nothing to resume)');
  });

  it('has nothing to resume in an abandoned or archived session', () => {
    const abandoned = run(session(phases('a')), start('a'), (x) => decideSession(x, 'abandon', 'wrong idea'));
    let plan = planResume(input(abandoned));
    expect(plan).toMatchObject({ resumable: false, next: { steps: [] }, recovery: { recommended: null } });
    expect(plan.inFlight.map((p) => p.phaseId)).toEqual(['a']); // still reported as data
    expect(plan.warnings).toEqual(['The session was abandoned: nothing to resume.']);
    const archived = run(
      session(phases('a')),
      (x) => decideSession(x, 'pause'),
      (x) => decideArchive(x),
    );
    plan = planResume(input(archived));
    expect(plan).toMatchObject({
      resumable: false,
      status: 'paused',
      next: { reason: 'The session is archived: nothing to resume.' },
    });
  });

  it('warns that a failed session is reopened and that an active one may still be running', () => {
    const failed = run(session(phases('a')), (x) => decideSession(x, 'fail', 'gave up'));
    expect(planResume(input(failed))).toMatchObject({
      resumable: true,
      warnings: ['The session is marked failed; resuming reopens it.'],
    });
    expect(planResume(input(session(phases('a')))).warnings).toEqual([
      'The session is marked active: make sure no other agent is still working on it.',
    ]);
  });
});

describe('planResume: journal checkpoints, restores and leases', () => {
  const created = (id: string, revision: number) => (_s: SessionState) => [
    draft('checkpoint.created', { checkpointId: id, name: id, revision, trigger: 'manual', phaseId: null, git: null }),
  ];

  it('counts the events that changed the work when the caller passes the journal', () => {
    const s = run(
      session(phases('a', 'b')),
      (x) => decidePhase(x, 'a', 'start'), // 2
      (x) => decidePhase(x, 'a', 'complete'), // 3
      created('cp-1', 3), // 4
      (x) => decidePhase(x, 'b', 'start'), // 5
      () => [draft('tokens.recorded', { agent: 'x', phaseId: 'b', input: 1, output: 1, cached: 0 })], // 6
      (x) => decideSubstep(x, 'b', 'half'), // 7
    );
    const events = [
      { seq: 4, type: 'checkpoint.created' },
      { seq: 5, type: 'phase.started' },
      { seq: 6, type: 'tokens.recorded' },
      { seq: 7, type: 'substep.reached' },
    ];
    const plan = planResume(input(s, { checkpoints: [cp('cp-1', 3)], events }));
    expect(plan.recovery.options[0]!.loses).toEqual({
      events: 4,
      workEvents: 2,
      completedPhases: null,
      summary: '4 events recorded after revision 3 (2 of them changed the work)',
    });
    expect(plan.recovery.options[1]!.loses.workEvents).toBe(0);
    expect(plan.recovery.options[2]!.loses).toMatchObject({ events: 6, workEvents: 2 }); // only the events passed in are known
  });

  it('does not count events a restore already set aside, and never offers a checkpoint the journal superseded', () => {
    const atCp1 = run(
      session(phases('a', 'b')),
      (x) => decidePhase(x, 'a', 'start'),
      (x) => decidePhase(x, 'a', 'complete'),
    ); // 2, 3
    let s = run(
      atCp1,
      created('cp-1', 3), // 4
      (x) => decidePhase(x, 'b', 'start'), // 5
      (x) => decideSubstep(x, 'b', 'wrong turn'), // 6
      created('cp-2', 6), // 7
    );
    s = run(s, () => [
      draft('checkpoint.restored', {
        checkpointId: 'cp-1',
        name: 'cp-1',
        revision: 3,
        state: atCp1,
        supersedes: ['cp-2'],
        git: null,
      }),
    ]); // 8
    s = run(
      s,
      (x) => decidePhase(x, 'b', 'start'),
      (x) => decideSubstep(x, 'b', 'right turn'),
    ); // 9, 10
    expect(s.checkpoints?.find((c) => c.id === 'cp-2')?.superseded).toBe(true);
    const events = [
      { seq: 5, type: 'phase.started' },
      { seq: 6, type: 'substep.reached' },
      { seq: 7, type: 'checkpoint.created' },
      { seq: 8, type: 'checkpoint.restored' },
      { seq: 9, type: 'phase.started' },
      { seq: 10, type: 'substep.reached' },
    ];
    // The caller did not mark cp-2 superseded; the journal did.
    const plan = planResume(input(s, { checkpoints: [cp('cp-1', 3), cp('cp-2', 6)], events }));
    expect(plan.recovery.options[0]).toMatchObject({
      from: 'checkpoint:cp-1',
      loses: { events: 7, workEvents: 2 },
      notes: ['A restore to cp-1 at revision 8 already set part of those events aside.'],
    });
  });

  it('reports an expired lease as an interruption and warns about a live one', () => {
    const leased = commit(session(phases('a')), [
      draft('lease.acquired', { owner: 'agent-7', pid: 77, host: 'box', token: 1, expiresAt: at(60), takeover: false }),
    ]);
    const s = run(
      leased,
      (x) => decidePhase(x, 'a', 'start'),
      (x) => decideSubstep(x, 'a', 'two'),
    );
    const live = planResume(input(s, { now: at(30) }));
    expect(live.status).toBe('active');
    expect(live.lease).toEqual({ owner: 'agent-7', pid: 77, host: 'box', token: 1, expiresAt: at(60), expired: false });
    expect(live.warnings).toEqual([
      `The session's lease is held by agent-7 (pid 77 on box) until ${at(60)}: another writer may still be working on it.`,
    ]);
    const expired = planResume(input(s, { now: at(61) }));
    expect(expired.status).toBe('interrupted');
    expect(expired.statusCause).toEqual({
      cause: 'lease-expired',
      at: at(60),
      detail: 'held by agent-7 (pid 77 on box); in flight: a (sub-step: two)',
    });
    expect(expired.lease?.expired).toBe(true);
    expect(expired.warnings).toEqual([]);
    expect(renderResumePlan(live)).toContain(`Lease: held by agent-7 (pid 77 on box), token 1, until ${at(60)}\n`);
    expect(renderResumePlan(expired)).toContain(
      `Lease: held by agent-7 (pid 77 on box), token 1, expired at ${at(60)}\n`,
    );
  });
});

describe('planResume: shape', () => {
  it('is JSON-serialisable, deterministic and leaves its input untouched', () => {
    const s = run(session(phases('a', 'b')), start('a'), wrote('a', 'a.ts', h('a1')), error('a', 'x'), interrupt);
    const i = input(s, { workspace: ws({ 'a.ts': h('a2') }), newFiles: ['n'], checkpoints: [cp('cp-1', 2)] });
    const before = structuredClone(i);
    const plan = planResume(i);
    expect(JSON.parse(JSON.stringify(plan))).toEqual(plan);
    expect(planResume(i)).toEqual(plan);
    expect(i).toEqual(before);
    expect(plan.generatedAt).toBe(NOW);
    expect(Object.keys(plan)).toEqual([
      'sessionId',
      'title',
      'revision',
      'generatedAt',
      'status',
      'statusCause',
      'lease',
      'resumable',
      'lastCompleted',
      'inFlight',
      'failed',
      'blocked',
      'next',
      'files',
      'planChanged',
      'recovery',
      'outsideEdits',
      'warnings',
    ]);
  });
});

describe('renderResumePlan', () => {
  it('lists the plan compactly as plain text', () => {
    const specs: PhaseSpec[] = [
      { id: 'design', name: 'Design' },
      { id: 'build', name: 'Build', blockedBy: ['design'] },
      { id: 'test', name: 'Test', maxRetries: 1 },
      { id: 'ship', name: 'Ship', blockedBy: ['build', 'test'] },
    ];
    const s = run(
      session(specs, { title: 'Release 2' }),
      start('design'),
      wrote('design', 'docs/design.md', h('d1')),
      complete('design'),
      start('test'),
      error('test', 'flaky e2e'),
      fail('test', 'e2e red'),
      retry('test'),
      fail('test'),
      start('build', 'bob'),
      sub('build', 'compile'),
      wrote('build', 'src/main.ts', h('m1')),
      interrupt,
    );
    const plan = planResume(
      input(s, {
        workspace: ws({ 'docs/design.md': h('d2'), 'src/main.ts': h('m1') }),
        newFiles: ['notes.txt'],
        checkpoints: [cp('cp-1', 4), cp('cp-2', 9, { valid: false, problem: 'checksum mismatch' })],
        planChanged: null,
      }),
    );
    expect(renderResumePlan(plan)).toBe(
      [
        'Resume plan for sess-1 "Release 2" (revision 13)',
        `Status: interrupted (lease-expired: pid 77 vanished, at ${at(13)})`,
        'Last completed: design (Design)',
        'In flight:',
        '  build (Build): resume at sub-step "compile"',
        'Failed:',
        '  test (Test): retries exhausted (1/1): escalate',
        '    err-1 test: flaky e2e',
        '    The user decides: retry it anyway, skip it, fail or abandon the session, or change the plan.',
        'Blocked:',
        '  ship (Ship): waiting for build (in progress), test (failed)',
        'Next: Phase build was in flight: finish it before anything else.',
        '  → Resume phase build (Build) at sub-step "compile"',
        'Files:',
        '  design (completed):',
        `    docs/design.md: changed (sha256 d10000000000 → d20000000000)`,
        '  build (in progress) — possibly half-written:',
        '    src/main.ts: unchanged since recorded',
        '  new: notes.txt',
        'Outside edits (files of completed phases changed outside the session):',
        '  design: docs/design.md (changed)',
        '  Choose:',
        '    - accept: The edits are wanted: record the file again as it is now, as work of design; the plan then stops reporting it.',
        "    - restore-files: The edits are not wanted: put the file back as recorded, with git (restoring a checkpoint puts back the session's record, not the files).",
        '    - keep-going: Decide later: continue as is; the plan reports the file until it is accepted or put back.',
        'Plan file: unknown',
        'Recovery options:',
        '    checkpoint:cp-1 "name-cp-1" (revision 4): loses 9 events recorded after revision 4 — It puts back the session\'s record, not the files: the files changed outside the session stay as they are.',
        '  * live: loses nothing — Keeps the half-done work of build (at sub-step "compile").',
        '    fresh: loses everything: 1 completed phase and 12 events since the session was created — Starts again from the first phase of the plan.',
        '  corrupt: cp-2 "name-cp-2" (revision 9): checksum mismatch',
        "Recommended: live — Files of completed phase design changed outside the session. Restoring a checkpoint would not undo that (it puts back the session's record, not the files): accept the edits, put the files back with git, or keep going, and continue from the current state.",
        'Warnings:',
        '  ! Phase build was in flight: its 1 file may be half-written (src/main.ts); check it before continuing.',
        '  ! 1 file of completed phase design changed, vanished or reappeared outside the session.',
        '  ! 1 new file appeared in the workspace since the session started.',
        '  ! Corrupt checkpoint cp-2 (checksum mismatch) skipped; offering the previous valid checkpoint cp-1 instead.',
        '  ! Phase test failed after using 1 of 1 retries; it is not retried automatically. The user decides: retry it anyway, skip it, fail or abandon the session, or change the plan.',
        '',
      ].join('\n'),
    );
  });
});
