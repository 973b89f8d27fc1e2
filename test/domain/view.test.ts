import { describe, expect, it } from 'vitest';
import {
  decideArchive,
  decideError,
  decideFiles,
  decidePhase,
  decideResolve,
  decideSession,
  decideSubstep,
  decideTokens,
} from '../../src/domain/decide.js';
import { decideFinding, decideFindingRemove, decideNote } from '../../src/domain/decide-records.js';
import type { SessionState } from '../../src/domain/state.js';
import { summarize, summaryChanged } from '../../src/domain/summary.js';
import { statusView } from '../../src/domain/view.js';
import { at, commit, phases, session } from './helpers.js';

describe('summarize', () => {
  it('summarises a fresh session', () => {
    const s = session(phases('a', 'b', 'c'), { title: 'Run' });
    expect(summarize(s)).toEqual({
      id: 'sess-1',
      title: 'Run',
      status: 'active',
      cause: null,
      archived: false,
      createdAt: at(1),
      updatedAt: at(1),
      revision: 1,
      phasesTotal: 3,
      phasesDone: 0,
      currentPhase: null,
      progress: 0,
      leaseExpiresAt: null,
      leaseToken: null,
      pinned: false,
    });
  });

  it('counts completed and skipped phases as done and names the current phase', () => {
    let s = session(phases('a', 'b', 'c'));
    s = commit(s, decidePhase(s, 'a', 'start'));
    expect(summarize(s)).toMatchObject({ currentPhase: 'a', phasesDone: 0, progress: 0 });
    s = commit(s, decidePhase(s, 'a', 'complete'));
    expect(summarize(s)).toMatchObject({ currentPhase: null, phasesDone: 1, progress: 33 });
    s = commit(s, decidePhase(s, 'b', 'start'));
    s = commit(s, decidePhase(s, 'b', 'fail'));
    expect(summarize(s)).toMatchObject({ currentPhase: 'b', phasesDone: 1, progress: 33 }); // a failed phase is current when none runs
    s = commit(s, decidePhase(s, 'c', 'skip'));
    expect(summarize(s)).toMatchObject({ currentPhase: 'b', phasesDone: 2, progress: 67 });
    s = commit(s, decidePhase(s, 'b', 'retry'));
    s = commit(s, decidePhase(s, 'b', 'complete'));
    expect(summarize(s)).toMatchObject({ currentPhase: null, phasesDone: 3, progress: 100 });
  });

  it('has progress 0 without phases, and carries the status cause', () => {
    let s = session([]);
    expect(summarize(s).progress).toBe(0);
    s = commit(s, decideSession(s, 'pause', 'lunch'));
    expect(summarize(s)).toMatchObject({ status: 'paused', cause: { cause: 'user', detail: 'lunch', at: at(2) } });
  });
});

describe('summaryChanged', () => {
  function base(): SessionState {
    let s = session(phases('a', 'b'));
    s = commit(s, decidePhase(s, 'a', 'start', { agent: 'x' }));
    return s;
  }

  it('is true with no previous row', () => {
    expect(summaryChanged(null, summarize(base()))).toBe(true);
  });

  it('is false for changes list does not show (tokens, notes, files, sub-steps, errors)', () => {
    const s = base();
    const before = summarize(s);
    for (const drafts of [
      decideTokens(s, { agent: 'x', input: 5 }),
      decideNote(s, { text: 'n' }).events,
      decideFiles(s, 'created', [{ path: 'f', sha256: null, size: null }], null, null),
      decideSubstep(s, 'a', 'half'),
      decideError(s, { phase: 'a', type: 't', message: 'm' }).events,
    ]) {
      const after = summarize(commit(s, drafts));
      expect(after.revision).toBe(before.revision + 1);
      expect(summaryChanged(before, after)).toBe(false);
    }
  });

  it('is true for status, progress, current phase, archiving and cause changes', () => {
    const s = base();
    const before = summarize(s);
    const changed = (t: SessionState) => summaryChanged(before, summarize(t));
    expect(changed(commit(s, decidePhase(s, 'a', 'complete')))).toBe(true); // progress and current
    expect(changed(commit(s, decidePhase(s, 'b', 'skip')))).toBe(true); // progress
    const paused = commit(s, decideSession(s, 'pause'));
    expect(changed(paused)).toBe(true);
    const archived = commit(paused, decideArchive(paused));
    expect(summaryChanged(summarize(paused), summarize(archived))).toBe(true);
    // same status, other cause
    const interrupted = commit(s, decideSession(s, 'interrupt', null, 'lease_expired'));
    const pausedAgain = commit(interrupted, decideSession(interrupted, 'pause', null, 'user'));
    const pausedBySignal = commit(interrupted, decideSession(interrupted, 'pause', null, 'signal'));
    expect(summaryChanged(summarize(pausedAgain), summarize(pausedBySignal))).toBe(true);
    expect(summaryChanged(summarize(pausedAgain), summarize(pausedAgain))).toBe(false);
  });

  it('ignores a failing phase that stays current', () => {
    const s = base();
    const failed = commit(s, decidePhase(s, 'a', 'fail'));
    // a stays the current phase (failed) and nothing is done yet: the row looks the same
    expect(summarize(failed).currentPhase).toBe('a');
    expect(summaryChanged(summarize(s), summarize(failed))).toBe(false);
  });
});

describe('statusView', () => {
  function rich(): SessionState {
    let s = session(phases('design', 'build'), { title: 'Shop', budgetMax: 1000 });
    s = commit(s, decidePhase(s, 'design', 'start', { agent: 'arch' }));
    s = commit(s, decideSubstep(s, 'design', 'api'));
    s = commit(s, decideFiles(s, 'created', [{ path: 'api.md', sha256: 'ff', size: 2 }], null, 'arch'));
    s = commit(s, decideError(s, { phase: 'design', type: 'review', message: 'unclear', agent: 'arch' }).events);
    s = commit(s, decideError(s, { phase: 'design', type: 'lint', message: 'style' }).events);
    s = commit(s, decideResolve(s, 'err-2', 'fixed'));
    s = commit(s, decideTokens(s, { agent: 'arch', phase: 'design', input: 600, output: 250, cached: 40 }));
    s = commit(s, decideTokens(s, { agent: 'coder', input: 50, output: 0 }));
    s = commit(s, decideFinding(s, { text: 'gone' }).events);
    s = commit(s, decideFinding(s, { text: 'kept' }).events);
    s = commit(s, decideFindingRemove(s, 'fnd-1'));
    return s;
  }

  it('has the documented status --json shape', () => {
    const s = rich();
    const v = statusView(s);
    expect(v).toMatchObject({
      id: 'sess-1',
      title: 'Shop',
      status: 'active',
      revision: s.revision,
      archived: false,
      cause: null,
    });
    expect(v.progress).toEqual({ done: 0, total: 2, percent: 0 });
    expect(v.phases).toHaveLength(2);
    const design = v.phases[0]!;
    expect(design).toMatchObject({
      id: 'design',
      name: 'DESIGN',
      status: 'in_progress',
      retryCount: 0,
      subStep: 'api',
    });
    expect(design.errors.map((e) => ({ id: e.id, type: e.type, message: e.message, resolved: e.resolved }))).toEqual([
      { id: 'err-1', type: 'review', message: 'unclear', resolved: false },
      { id: 'err-2', type: 'lint', message: 'style', resolved: true },
    ]);
    expect(design.files).toEqual([
      { path: 'api.md', action: 'created', sha256: 'ff', size: 2, recordedAt: at(4), agent: 'arch' },
    ]);
    expect(v.phases[1]).toMatchObject({
      id: 'build',
      status: 'pending',
      retryCount: 0,
      subStep: null,
      errors: [],
      files: [],
    });

    expect(v.tokens).toEqual({
      input: 650,
      output: 250,
      cached: 40,
      byAgent: { arch: { input: 600, output: 250, cached: 40 }, coder: { input: 50, output: 0, cached: 0 } },
      byPhase: { design: { input: 600, output: 250, cached: 40 } },
      budget: { max: 1000, used: 900, percent: 90, level: 'warning' },
    });
    expect(v.tokens).not.toHaveProperty('budgetMax');
  });

  it('lists unresolved errors and open findings only', () => {
    const v = statusView(rich());
    expect(v.unresolvedErrors).toEqual([
      { id: 'err-1', phaseId: 'design', type: 'review', message: 'unclear', agent: 'arch', time: at(5) },
    ]);
    expect(v.findings.map((f) => f.id)).toEqual(['fnd-2']);
  });

  it('is plain JSON (survives a round trip unchanged)', () => {
    const v = statusView(rich());
    expect(JSON.parse(JSON.stringify(v))).toEqual(v);
  });

  it('reports no budget as level none', () => {
    const s = session(phases('a'));
    expect(statusView(s).tokens.budget).toEqual({ max: null, used: 0, percent: null, level: 'none' });
  });

  it('shows progress, retries and the pause cause as they change', () => {
    let s = session(phases('a', 'b'));
    s = commit(s, decidePhase(s, 'a', 'start'));
    s = commit(s, decidePhase(s, 'a', 'fail'));
    s = commit(s, decidePhase(s, 'a', 'retry'));
    s = commit(s, decidePhase(s, 'a', 'complete'));
    s = commit(s, decideSession(s, 'pause', 'eod'));
    const v = statusView(s);
    expect(v.phases[0]).toMatchObject({ status: 'completed', retryCount: 1 });
    expect(v.progress).toEqual({ done: 1, total: 2, percent: 50 });
    expect(v.status).toBe('paused');
    expect(v.cause).toEqual({ cause: 'user', at: at(6), detail: 'eod' });
  });
});
