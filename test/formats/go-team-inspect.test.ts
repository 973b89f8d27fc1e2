/**
 * The go-team adapter reads each fixture tree and reports its facts one by one: statuses,
 * units, position, resume advice under Go Team's own rules, checkpoints, tokens, problems.
 */
import fs from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { goTeamAdapter } from '../../src/formats/go-team/index.js';
import { ADAPTERS, adapterFor } from '../../src/formats/registry.js';
import { SafeDir } from '../../src/formats/safe-dir.js';
import {
  cleanTemps,
  codes,
  copyCase,
  FIXTURES,
  inspectAt,
  inspectCase,
  session,
  tempDir,
  unitStatuses,
} from './go-team-helpers.js';

afterEach(cleanTemps);

const ALL_CASES = [
  'mid-run',
  'stale-active',
  'interrupted-string',
  'interrupted-boolean',
  'completed',
  'failed',
  'rolled-back',
  'corrupt-checkpoint',
  'dangling',
  'two-active',
  'orphan',
];

describe('go-team: registration and detection', () => {
  it('is registered under its name', () => {
    expect(adapterFor('go-team')).toBe(goTeamAdapter);
    expect(ADAPTERS.filter((a) => a.name === 'go-team')).toHaveLength(1);
  });

  it.each(ALL_CASES)('detects the %s tree with certainty (a registry with Go Team fields)', async (c) => {
    expect(await goTeamAdapter.detect(await SafeDir.open(path.join(FIXTURES, c)))).toBe(1);
  });

  it('does not claim an unrelated folder, and reports UNKNOWN_FORMAT when asked to inspect it', async () => {
    expect(await goTeamAdapter.detect(await SafeDir.open(path.join(FIXTURES, 'mid-run', '.claude')))).toBe(0);
    const r = await goTeamAdapter.inspect(await SafeDir.open(path.join(FIXTURES, 'mid-run', '.claude')), new Date());
    expect(r.sessions).toEqual([]);
    expect(codes(r.problems)).toEqual(['UNKNOWN_FORMAT']);
  });

  it("detects a registry-less checkpoints folder with less certainty, and not a web app's public/manifest.json", async () => {
    const d = tempDir();
    fs.mkdirSync(path.join(d, 'public'));
    fs.writeFileSync(path.join(d, 'public/manifest.json'), '{"name": "app"}');
    expect(await goTeamAdapter.detect(await SafeDir.open(d))).toBe(0);
    const cp = copyCase('failed');
    fs.rmSync(path.join(cp, 'checkpoints/sessions.json'));
    expect(await goTeamAdapter.detect(await SafeDir.open(cp))).toBe(0.6);
  });

  it('accepts PATH as the project root, the go-team folder or the checkpoints folder', async () => {
    const root = path.join(FIXTURES, 'mid-run');
    const team = path.join(root, '.claude/agents/microai/teams/go-team');
    const cp = path.join(team, 'checkpoints');
    const [a, b, c] = await Promise.all([inspectAt(root), inspectAt(team), inspectAt(cp)]);
    expect(a.sessions.map((s) => s.id)).toEqual(['session-a1b2c3d4']);
    expect(b.sessions.map((s) => s.id)).toEqual(['session-a1b2c3d4']);
    expect(c.sessions.map((s) => s.id)).toEqual(['session-a1b2c3d4']);
    expect(a.sessions[0]?.path).toBe('.claude/agents/microai/teams/go-team/checkpoints/session-a1b2c3d4/state.json');
    expect(b.sessions[0]?.path).toBe('checkpoints/session-a1b2c3d4/state.json');
    expect(c.sessions[0]?.path).toBe('session-a1b2c3d4/state.json');
    expect(unitStatuses(a.sessions[0]!)).toBe(unitStatuses(c.sessions[0]!));
  });
});

describe('go-team: mid-run session with a fresh heartbeat', () => {
  it('is active, at step 4 in progress, and tells the reader not to resume it concurrently', async () => {
    const r = await inspectCase('mid-run');
    expect(r.format).toBe('go-team');
    expect(r.problems).toEqual([]);
    const s = session(r, 'session-a1b2c3d4');
    expect(s.problems).toEqual([]);
    expect(s.rawStatus).toBe('active');
    expect(s.status).toBe('active');
    expect(s.active).toBe(true);
    expect(s.archived).toBe(false);
    expect(s.title).toBe('user-authentication-service');
    expect(s.createdAt).toBe('2025-12-28T21:00:00Z');
    expect(s.updatedAt).toBe('2025-12-28T21:59:45.000Z');
    expect(unitStatuses(s)).toBe(
      '1:completed 2:completed 3:completed 4:in_progress 5:pending 6:pending 7:pending 8:pending 9:pending',
    );
    expect(s.units.map((u) => u.name)).toEqual([
      'init',
      'requirements',
      'architecture',
      'implementation',
      'testing',
      'review',
      'optimization',
      'release',
      'synthesis',
    ]);
    expect(s.units[2]?.completedAt).toBe('2025-12-28T21:10:00Z');
    expect(s.units[3]?.agents).toContain('go-coder-agent');
    expect(s.units[3]?.blockedBy).toEqual(['3']);
    expect(s.position).toEqual({ unitId: '4', subStep: null });
    expect(s.resume.action).toBe('continue');
    expect(s.resume.unitId).toBe('4');
    expect(s.resume.lastCompleted).toBe('3');
    expect(s.resume.options).toEqual([]);
    expect(s.resume.warnings.join(' ')).toMatch(/running/);
    expect(s.checkpoints.map((c) => [c.id, c.unitId, c.valid])).toEqual([
      ['cp-01-init-20251228-210000', '1', true],
      ['cp-02-requirements-20251228-210500', '2', true],
      ['cp-03-architecture', '3', true],
    ]);
    expect(s.contextSummary).toBe('Working on implementation');
  });

  it('reads go_team_state.token_metrics from state.json, per agent and per step, and checks they agree', async () => {
    const s = session(await inspectCase('mid-run'), 'session-a1b2c3d4');
    expect(s.tokens).toEqual({
      input: 60000,
      output: 30000,
      cached: 10000,
      byAgent: {
        'pm-agent': { input: 15000, output: 8000, cached: 5000 },
        'architect-agent': { input: 20000, output: 12000, cached: 5000 },
        'go-coder-agent': { input: 25000, output: 10000, cached: 0 },
      },
      byUnit: { '2': { input: 15000, output: 8000, cached: 5000 } },
      agrees: true,
      max: null,
    });
  });

  it("keeps the documents verbatim, with only this session's registry entry (unknown fields included)", async () => {
    const s = session(await inspectCase('mid-run'), 'session-a1b2c3d4');
    const prefix = '.claude/agents/microai/teams/go-team/checkpoints/';
    const reg = s.documents[`${prefix}sessions.json`] as {
      sessions: Array<Record<string, unknown>>;
      last_active_session: string;
    };
    expect(reg.sessions).toHaveLength(1);
    expect(reg.sessions[0]?.custom_field).toEqual({ keep: true });
    expect(reg.last_active_session).toBe('session-a1b2c3d4');
    expect(Object.keys(s.documents).sort()).toEqual(
      [
        'sessions.json',
        'session-a1b2c3d4/manifest.json',
        'session-a1b2c3d4/state.json',
        'session-a1b2c3d4/rollback-history.json',
        'session-a1b2c3d4/cp-01-init-20251228-210000.json',
        'session-a1b2c3d4/cp-02-requirements-20251228-210500.json',
        'session-a1b2c3d4/cp-03-architecture.json',
      ]
        .map((p) => prefix + p)
        .sort(),
    );
    expect(s.sources).toEqual(Object.keys(s.documents));
    expect(s.sourceHash).toMatch(/^[0-9a-f]{64}$/);
  });
});

describe('go-team: the heartbeat rule (60 s)', () => {
  it('reports an "active" session silent for 15 minutes as interrupted (STALE_ACTIVE)', async () => {
    const s = session(await inspectCase('stale-active'), 'session-5ta1e000');
    expect(s.rawStatus).toBe('active');
    expect(s.status).toBe('interrupted');
    const p = s.problems.find((x) => x.code === 'STALE_ACTIVE');
    expect(p?.severity).toBe('warning');
    expect(p?.details).toEqual({ lastHeartbeat: '2025-12-28T21:45:00.000Z', ageSeconds: 900, limitSeconds: 60 });
    expect(codes(s.problems)).toEqual(['MISSING_FILE', 'STALE_ACTIVE']); // no recovery.json: derived options
  });

  it('keeps it active within 60 s of its last save, and interrupted just after', async () => {
    const fresh = session(await inspectCase('stale-active', new Date('2025-12-28T21:46:00Z')), 'session-5ta1e000');
    expect(fresh.status).toBe('active');
    expect(codes(fresh.problems)).toEqual([]);
    const late = session(await inspectCase('stale-active', new Date('2025-12-28T21:46:01Z')), 'session-5ta1e000');
    expect(late.status).toBe('interrupted');
    expect(late.problems.find((x) => x.code === 'STALE_ACTIVE')?.details?.ageSeconds).toBe(61);
  });

  it('says how long ago in words a person reads: minutes, hours, days (not a count of seconds)', async () => {
    const msg = async (at: string) =>
      session(await inspectCase('stale-active', new Date(at)), 'session-5ta1e000').problems.find(
        (x) => x.code === 'STALE_ACTIVE',
      )!.message;
    expect(await msg('2025-12-28T22:00:00Z')).toContain(
      "was last saved 15 min ago, beyond Go Team's 1 min heartbeat limit",
    );
    expect(await msg('2025-12-29T00:50:00Z')).toContain('was last saved 3 h ago');
    expect(await msg('2026-11-21T21:45:00Z')).toContain('was last saved 328 days ago');
    expect(await msg('2026-11-21T21:45:00Z')).not.toMatch(/\d{5,} s/);
  });

  it('resumes an interrupted session after its last checkpoint (step 4 done by checkpoint and count) with three options', async () => {
    const s = session(await inspectCase('stale-active'), 'session-5ta1e000');
    expect(unitStatuses(s)).toBe(
      '1:completed 2:completed 3:completed 4:completed 5:pending 6:pending 7:pending 8:pending 9:pending',
    );
    expect(s.units[3]?.files).toEqual([
      { path: 'cmd/main.go', action: 'created' },
      { path: 'internal/service/auth_service.go', action: 'created' },
    ]);
    expect(s.position).toEqual({ unitId: '5', subStep: null });
    expect(s.resume.action).toBe('continue');
    expect(s.resume.unitId).toBe('5');
    expect(s.resume.recommended).toBe('checkpoint');
    expect(s.resume.options.map((o) => [o.kind, o.target, o.loses, o.recommended])).toEqual([
      [
        'checkpoint',
        'cp-04-implementation-20251228-211500',
        '12 actions since cp-04-implementation-20251228-211500',
        true,
      ],
      ['live', 'state.json', '~30 seconds of work', false],
      ['fresh', null, 'all progress (4 completed steps)', false],
    ]);
    expect(s.resume.options[1]?.description).toMatch(/experimental/);
  });
});

describe('go-team: recovery.json recommendations', () => {
  it('follows a top-level "recommended" string (live_state) and reads the interrupt reason and last known state', async () => {
    const s = session(await inspectCase('interrupted-string'), 'session-1e7e5700');
    expect(s.status).toBe('interrupted');
    expect(s.resume.recommended).toBe('live');
    expect(s.resume.options.find((o) => o.recommended)?.kind).toBe('live');
    expect(s.resume.options.find((o) => o.kind === 'checkpoint')?.loses).toBe(
      '7 actions since cp-04-implementation-20251228-211500',
    );
    expect(s.resume.action).toBe('continue');
    expect(s.resume.unitId).toBe('5');
    expect(s.resume.subStep).toBe('5b');
    expect(s.resume.reason).toMatch(/crash/);
    expect(s.resume.reason).toMatch(/Running gosec/);
    expect(s.resume.reason).toMatch(/security-agent/);
    expect(s.units[4]).toMatchObject({ id: '5', status: 'in_progress', subStep: '5b' });
    expect(s.units[4]?.agents).toContain('security-agent');
  });

  it('reads tokens from metrics/session-metrics.json and reports that the per-agent sums disagree', async () => {
    const s = session(await inspectCase('interrupted-string'), 'session-1e7e5700');
    expect(s.tokens).toMatchObject({ input: 100000, output: 50000, cached: 20000, agrees: false });
    expect(s.tokens?.byAgent?.['go-coder-agent']).toEqual({ input: 60000, output: 25000, cached: 10000 });
    expect(codes(s.problems)).toEqual(['TOKENS_DISAGREE']);
    expect(s.sources).toContain('metrics/session-metrics.json');
  });

  it('follows per-option "recommended" booleans, here a review-iteration checkpoint inside step 6', async () => {
    const r = await inspectCase('interrupted-boolean');
    const s = session(r, 'session-b0013a00');
    expect(s.problems).toEqual([]);
    expect(s.resume.recommended).toBe('checkpoint');
    expect(s.resume.options[0]).toMatchObject({
      kind: 'checkpoint',
      target: 'cp-06-review-2',
      loses: '3 actions since cp-06-review-2',
      recommended: true,
    });
    expect(s.resume.unitId).toBe('6');
    expect(s.resume.subStep).toBe('review-2');
    expect(s.resume.retryLimit).toBe(3);
    expect(s.resume.retriesUsed).toBe(2);
    expect(unitStatuses(s)).toBe(
      '1:completed 2:completed 3:completed 4:completed 5:completed 6:in_progress 7:pending 8:pending 9:pending',
    );
    expect(s.units[5]?.subStep).toBe('review-2');
    expect(s.checkpoints.filter((c) => c.unitId === '6').map((c) => c.id)).toEqual([
      'cp-06-review-1',
      'cp-06-review-2',
    ]);
    expect(s.findings).toEqual([
      { text: 'Handle context cancellation in List', severity: 'major', unitId: '6', time: '2025-12-28T21:27:00Z' },
      { text: 'Rename repo package', severity: null, unitId: '6', time: null },
    ]);
  });

  it('accepts "paused" (absent from the schema enum) as a resumable status', async () => {
    const s = session(await inspectCase('interrupted-boolean'), 'session-9a05ed00');
    expect(s.rawStatus).toBe('paused');
    expect(s.status).toBe('paused');
    expect(s.problems).toEqual([]);
    expect(s.resume.action).toBe('continue');
    expect(s.resume.unitId).toBe('3');
    expect(s.resume.recommended).toBe('checkpoint');
  });

  it('refuses a session marked resumable: false (abandoned)', async () => {
    const s = session(await inspectCase('interrupted-boolean'), 'session-abad0000');
    expect(s.rawStatus).toBe('interrupted');
    expect(s.status).toBe('abandoned');
    expect(s.active).toBe(false);
    expect(s.resume.action).toBe('refuse');
    expect(s.resume.unitId).toBeNull();
    expect(s.resume.reason).toMatch(/not resumable/);
    expect(s.resume.options).toEqual([]);
  });
});

describe('go-team: finished sessions', () => {
  it('refuses a completed session ("Session already completed") with every step done and its sub-step checkpoints', async () => {
    const s = session(await inspectCase('completed'), 'session-c0111e7e');
    expect(s.status).toBe('completed');
    expect(s.active).toBe(false);
    expect(s.resume.action).toBe('refuse');
    expect(s.resume.reason).toMatch(/^Session already completed/);
    expect(s.resume.lastCompleted).toBe('9');
    expect(s.position).toEqual({ unitId: null, subStep: null });
    expect(s.units.every((u) => u.status === 'completed')).toBe(true);
    expect(s.units.map((u) => u.subStep)).toEqual([null, null, null, null, '5b', 'review-final', null, '8b', null]);
    expect(s.units[8]?.completedAt).toBe('2025-12-28T21:55:00Z');
    expect(s.checkpoints).toHaveLength(12);
    expect(s.checkpoints.every((c) => c.valid)).toBe(true);
    expect(s.problems).toEqual([]);
  });

  it('reads a session-metrics history record whose per-agent totals agree with the summary', async () => {
    const s = session(await inspectCase('completed'), 'session-c0111e7e');
    expect(s.tokens).toEqual({
      input: 180000,
      output: 120000,
      cached: 45000,
      byAgent: null,
      byUnit: null,
      agrees: true,
      max: null,
    });
  });

  it('refuses a failed session ("cannot be resumed") and marks the step it failed in', async () => {
    const s = session(await inspectCase('failed'), 'session-fa11ed00');
    expect(s.status).toBe('failed');
    expect(s.resume.action).toBe('refuse');
    expect(s.resume.reason).toMatch(/cannot be resumed/);
    expect(unitStatuses(s)).toBe(
      '1:completed 2:completed 3:completed 4:completed 5:completed 6:failed 7:pending 8:pending 9:pending',
    );
    expect(s.units[5]?.subStep).toBe('review-3');
    expect(s.position.unitId).toBe('6');
  });
});

describe('go-team: checkpoints, rollbacks and damage', () => {
  it('treats the checkpoints a rollback invalidated as unusable, even one the manifest still calls valid', async () => {
    const s = session(await inspectCase('rolled-back'), 'session-r011bac0');
    expect(s.checkpoints.map((c) => [c.id, c.valid, c.problem])).toEqual([
      ['cp-01-init-20251228-210000', true, null],
      ['cp-02-requirements-20251228-210500', true, null],
      ['cp-03-architecture-20251228-211000', true, null],
      ['cp-04-implementation-20251228-211500', false, 'invalidated by rollback rb-001'],
      ['cp-04-implementation-20251228-215000', true, null],
      ['cp-05-testing-20251228-212000', false, 'invalidated by rollback rb-001'],
    ]);
    const bad = s.problems.filter((p) => p.code === 'BAD_VALUE');
    expect(bad).toHaveLength(1);
    expect(bad[0]?.details).toEqual({ checkpoint: 'cp-04-implementation-20251228-211500', rollback: 'rb-001' });
    expect(s.problems.some((p) => p.code === 'CORRUPT_CHECKPOINT')).toBe(false);
    expect(unitStatuses(s)).toBe(
      '1:completed 2:completed 3:completed 4:completed 5:in_progress 6:pending 7:pending 8:pending 9:pending',
    );
    expect(s.units[3]?.files).toEqual([{ path: 'internal/service/v2.go', action: 'created' }]);
    expect(s.resume.options[0]).toMatchObject({
      kind: 'checkpoint',
      target: 'cp-04-implementation-20251228-215000',
      loses: '9 actions since cp-04-implementation-20251228-215000',
    });
    expect(s.notes).toEqual([
      {
        text: 'Rolled back from cp-05-testing-20251228-212000 to cp-03-architecture-20251228-211000: Architecture flaw found in testing (rb-001)',
        time: '2025-12-28T21:40:00Z',
        agent: null,
      },
    ]);
  });

  it('names the valid checkpoint to fall back to for a listed file that is missing, and for one failing its checksum', async () => {
    const s = session(await inspectCase('corrupt-checkpoint'), 'session-c0aa0b70');
    const cps = s.problems.filter((p) => p.code === 'CORRUPT_CHECKPOINT');
    expect(cps.map((p) => p.details)).toEqual([
      {
        checkpoint: 'cp-02-requirements-20251228-210500',
        step: 2,
        reason: 'is listed in manifest.json but its file is missing',
        fallback: 'cp-01-init-20251228-210000',
        commit: null,
      },
      {
        // Its checksum is a sha256 digest matching no canonical form: Go Team's validation fails.
        checkpoint: 'cp-04-implementation-20251228-211500',
        step: 4,
        reason: 'fails its checksum (the content is not what was hashed)',
        fallback: 'cp-03-architecture-20251228-211000',
        commit: '096045b120451849e4378178e0441c85e589a2eb',
      },
    ]);
    expect(cps.map((p) => [p.severity, p.path])).toEqual([
      ['error', 'checkpoints/session-c0aa0b70/manifest.json'], // the file that lists the missing one
      ['error', 'checkpoints/session-c0aa0b70/cp-04-implementation-20251228-211500.json'],
    ]);
    expect(s.problems.filter((p) => p.code === 'CHECKSUM_UNVERIFIED')).toEqual([]);
    expect(s.checkpoints.find((c) => c.id === 'cp-04-implementation-20251228-211500')).toMatchObject({
      valid: false,
      checksum: 'mismatch',
    });
    // Not offered as the safe restore: the last valid checkpoint before it is.
    expect(s.resume.recommended).toBe('checkpoint');
    expect(s.resume.options[0]).toMatchObject({
      kind: 'checkpoint',
      target: 'cp-03-architecture-20251228-211000',
      recommended: true,
      loses: 'all work done after cp-03-architecture-20251228-211000',
    });
    expect(s.resume.unitId).toBe('4');
  });

  it('reports a truncated rollback-history.json as CORRUPT_FILE and keeps its text for a faithful export', async () => {
    const s = session(await inspectCase('corrupt-checkpoint'), 'session-c0aa0b70');
    const p = s.problems.find((x) => x.code === 'CORRUPT_FILE');
    expect(p?.path).toBe('checkpoints/session-c0aa0b70/rollback-history.json');
    expect(p?.severity).toBe('error');
    expect(s.documents['checkpoints/session-c0aa0b70/rollback-history.json']).toBe(
      '{"session_id": "session-c0aa0b70", "history": [',
    );
  });
});

describe('go-team: registry integrity', () => {
  it('reports a last_active_session naming no session (DANGLING_ACTIVE) and a registered session without folder', async () => {
    const r = await inspectCase('dangling');
    expect(codes(r.problems)).toEqual(['DANGLING_ACTIVE']);
    expect(r.problems[0]?.details).toEqual({ lastActive: 'session-gone0000', folder: false });
    expect(r.sessions.map((s) => [s.id, s.status, s.active])).toEqual([
      ['session-d0000001', 'interrupted', false],
      ['session-n0f01de7', 'paused', false],
    ]);
    const nf = session(r, 'session-n0f01de7');
    expect(nf.problems.map((p) => [p.code, p.severity, p.path])).toEqual([
      ['MISSING_FILE', 'error', 'checkpoints/session-n0f01de7'],
    ]);
    expect(nf.sources).toEqual(['checkpoints/sessions.json']);
    // Without checkpoints or live state, only a fresh start is possible.
    expect(nf.resume.options.map((o) => o.kind)).toEqual(['fresh']);
    expect(nf.resume.action).toBe('restart');
  });

  it('reports two "active" sessions, keeps the fresh one active and the stale one interrupted', async () => {
    const r = await inspectCase('two-active');
    expect(codes(r.problems)).toEqual(['TWO_ACTIVE']);
    expect(r.problems[0]?.details).toEqual({
      sessions: ['session-a0000001', 'session-b0000002'],
      lastActive: 'session-a0000001',
    });
    const a = session(r, 'session-a0000001');
    const b = session(r, 'session-b0000002');
    expect([a.status, a.active]).toEqual(['active', true]);
    expect([b.status, b.active]).toEqual(['interrupted', false]);
    expect(codes(b.problems)).toEqual(['MISSING_FILE', 'STALE_ACTIVE']);
  });

  it('reports the registry disagreeing with state.json on current_step, and state.json wins', async () => {
    const a = session(await inspectCase('two-active'), 'session-a0000001');
    const m = a.problems.filter((p) => p.code === 'REGISTRY_MISMATCH');
    expect(m).toHaveLength(1);
    expect(m[0]?.details).toEqual({ field: 'current_step', 'sessions.json': 3, 'state.json': 4 });
    expect(a.position.unitId).toBe('4');
    expect(a.units[3]?.status).toBe('in_progress');
  });

  it('reports a session folder the registry does not list (ORPHAN_SESSION) and still reads it', async () => {
    const r = await inspectCase('orphan');
    expect(codes(r.problems)).toEqual(['ORPHAN_SESSION']);
    expect(r.problems[0]?.sessionId).toBe('session-0a9a0000');
    expect(r.sessions.map((s) => s.id)).toEqual(['session-11573d00', 'session-0a9a0000']); // "notes/" holds no session
    const o = session(r, 'session-0a9a0000');
    expect(o.rawStatus).toBeNull();
    expect(o.status).toBe('completed'); // its synthesis checkpoint is valid
    expect(o.title).toBe('orphaned');
    expect(o.resume.action).toBe('refuse');
  });
});

describe('go-team: an error inside a step (recovery.json interrupt_reason "error")', () => {
  it('is an unresolved error of the step it happened in, with agent, time and action, and a resume warning', async () => {
    const s = session(await inspectCase('interrupted-error'), 'session-e4404e00');
    expect(s.status).toBe('interrupted');
    const err = {
      unitId: '4',
      agent: 'go-coder-agent',
      time: '2025-12-28T21:41:00Z',
      type: 'error',
      message: 'Interrupted by an error during step 4 (implementation): go build ./... failed: undefined: PaymentRepo.',
      resolved: false,
      resolution: null,
    };
    expect(s.units.find((u) => u.id === '4')!.errors).toEqual([err]);
    expect(s.units.filter((u) => u.id !== '4').flatMap((u) => u.errors)).toEqual([]);
    expect(s.unresolvedErrors).toEqual([err]);
    expect(s.resume.warnings.some((w) => w.includes('go build ./... failed') && w.includes('before resuming'))).toBe(
      true,
    );
  });

  it('an interruption that is not an error (crash, timeout, disconnect) records no error', async () => {
    for (const c of ['interrupted-string', 'interrupted-boolean', 'corrupt-checkpoint']) {
      const r = await inspectCase(c);
      expect(r.sessions.flatMap((s) => [...s.unresolvedErrors, ...s.units.flatMap((u) => u.errors)])).toEqual([]);
    }
  });
});
