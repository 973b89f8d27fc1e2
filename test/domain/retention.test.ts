import { describe, expect, it } from 'vitest';
import { decideSession } from '../../src/domain/decide.js';
import {
  CLEANUP_STATUSES,
  DEFAULT_CLEANUP_STATUSES,
  cleanupCandidate,
  decidePin,
  keptBecause,
  parseAge,
  parseCleanupStatuses,
  selectForCleanup,
} from '../../src/domain/retention.js';
import type { CleanupCandidate, CleanupCriteria } from '../../src/domain/retention.js';
import { summarize, summaryChanged } from '../../src/domain/summary.js';
import { statusView } from '../../src/domain/view.js';
import { commit, refusal, session } from './helpers.js';
import { cliHint } from '../../src/cli/hint-words.js';

describe('parseAge', () => {
  it('reads seconds, minutes, hours, days and weeks', () => {
    expect(parseAge('12h')).toBe(12 * 3_600_000);
    expect(parseAge('30d')).toBe(30 * 86_400_000);
    expect(parseAge('2w')).toBe(14 * 86_400_000);
    expect(parseAge('90m')).toBe(90 * 60_000);
    expect(parseAge('45s')).toBe(45_000);
    expect(parseAge(' 3D ')).toBe(3 * 86_400_000);
    expect(parseAge('0d')).toBe(0);
  });

  it('refuses anything else with BAD_INPUT and an example', () => {
    for (const bad of ['30', 'd', '-1d', '1.5d', '3y', '', '1e3d', undefined]) {
      const e = refusal(() => parseAge(bad), 'BAD_INPUT');
      expect(cliHint(e)).toContain('30d');
    }
  });
});

describe('parseCleanupStatuses', () => {
  it('takes a comma-separated list among paused, completed, failed, abandoned', () => {
    expect(parseCleanupStatuses('completed')).toEqual(['completed']);
    expect(parseCleanupStatuses('paused, failed,paused')).toEqual(['paused', 'failed']);
    expect(CLEANUP_STATUSES).toEqual(['paused', 'completed', 'failed', 'abandoned']);
    expect(DEFAULT_CLEANUP_STATUSES).toEqual(['completed', 'failed', 'abandoned']);
  });

  it('refuses active and interrupted, unknown statuses and an empty list', () => {
    expect(refusal(() => parseCleanupStatuses('completed,active'), 'BAD_INPUT').message).toMatch(
      /never touches active/,
    );
    expect(refusal(() => parseCleanupStatuses('interrupted'), 'BAD_INPUT').message).toMatch(
      /never touches interrupted/,
    );
    refusal(() => parseCleanupStatuses('done'), 'BAD_INPUT');
    refusal(() => parseCleanupStatuses(' , '), 'BAD_INPUT');
  });
});

describe('pin', () => {
  it('pins and unpins in any status; the fold, the row and the status view carry it', () => {
    let s = session();
    expect(s.pinned).toBeUndefined();
    expect(summarize(s).pinned).toBe(false);
    s = commit(s, decideSession(s, 'complete'));
    const pinned = commit(s, decidePin(s, true, 'keep'));
    expect(pinned.pinned).toBe(true);
    expect(statusView(pinned).pinned).toBe(true);
    expect(summaryChanged(summarize(s), summarize(pinned))).toBe(true);
    const archived = commit(pinned, [{ type: 'session.archived', data: {} }]);
    const unpinned = commit(archived, decidePin(archived, false));
    expect(unpinned.pinned).toBe(false);
    expect(summarize(unpinned).pinned).toBe(false);
  });

  it('refuses a pin that changes nothing', () => {
    const s = session();
    refusal(() => decidePin(s, false), 'INVALID_TRANSITION');
    const p = commit(s, decidePin(s, true));
    expect(cliHint(refusal(() => decidePin(p, true), 'INVALID_TRANSITION'))).toBe('Nothing to do.');
  });

  it('survives a checkpoint restore (it belongs to the session, not its work)', () => {
    const s = session();
    const p = commit(s, decidePin(s, true));
    const restored = commit(p, [
      {
        type: 'checkpoint.restored',
        data: { checkpointId: 'cp-1', name: 'x', revision: 1, state: s, supersedes: [], git: null },
      },
    ]);
    expect(restored.pinned).toBe(true);
  });
});

describe('cleanup selection', () => {
  const now = '2026-03-01T00:00:00.000Z';
  const day = (n: number): string => new Date(Date.parse(now) - n * 86_400_000).toISOString();
  const crit: CleanupCriteria = {
    now,
    olderThanMs: 30 * 86_400_000,
    statuses: DEFAULT_CLEANUP_STATUSES,
    delete: false,
  };
  const c = (id: string, o: Partial<CleanupCandidate> = {}): CleanupCandidate => ({
    id,
    status: 'completed',
    pinned: false,
    updatedAt: day(40),
    archived: false,
    current: false,
    ...o,
  });

  it('says why a session is kept', () => {
    expect(keptBecause(c('a'), crit)).toBeNull();
    expect(keptBecause(c('a', { status: 'active' }), { ...crit, statuses: ['active'] })).toBe('it is active');
    expect(keptBecause(c('a', { status: 'interrupted' }), crit)).toBe('it is interrupted');
    expect(keptBecause(c('a', { pinned: true }), crit)).toBe('it is pinned');
    expect(keptBecause(c('a', { current: true }), crit)).toBe("it is the workspace's current session");
    expect(keptBecause(c('a', { status: 'paused' }), crit)).toBe('it is paused');
    expect(keptBecause(c('a', { archived: true }), crit)).toBe('it is already archived');
    expect(keptBecause(c('a', { archived: true }), { ...crit, delete: true })).toBeNull();
    expect(keptBecause(c('a', { updatedAt: day(29) }), crit)).toBe('it was updated too recently');
    expect(keptBecause(c('a', { updatedAt: day(30) }), crit)).toBeNull();
  });

  it('selects newest first and keeps the newest N', () => {
    const all = [
      c('old', { updatedAt: day(90) }),
      c('mid', { updatedAt: day(60) }),
      c('new', { updatedAt: day(31) }),
      c('pinned', { pinned: true }),
      c('young', { updatedAt: day(1) }),
    ];
    expect(selectForCleanup(all, crit).map((x) => x.id)).toEqual(['new', 'mid', 'old']);
    expect(selectForCleanup(all, { ...crit, keep: 1 }).map((x) => x.id)).toEqual(['mid', 'old']);
    expect(selectForCleanup(all, { ...crit, keep: 5 })).toEqual([]);
  });

  it('reads an active session whose lease expired as interrupted', () => {
    const s = {
      ...session(),
      lease: { owner: 'r', pid: 1, host: 'h', token: 1, acquiredAt: day(50), renewedAt: day(50), expiresAt: day(49) },
    };
    expect(cleanupCandidate(s, now, false, false).status).toBe('interrupted');
  });
});
