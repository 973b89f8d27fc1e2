/**
 * What `baton inspect` missed or said wrong (issue 27), each on a fixture of its own written
 * from the seed specifications (test/formats/fixtures/issue27/<toolkit>/<case>), asserted as
 * `baton inspect` reports it: problems with their code and severity, and the human output where
 * the issue quotes it.
 */
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { pythonNumber } from '../../src/formats/go-team/json-lexemes.js';
import { ADAPTERS } from '../../src/formats/registry.js';
import { SafeDir } from '../../src/formats/safe-dir.js';
import type { FormatName, InspectReport } from '../../src/formats/types.js';
import { workspace } from '../cli/helpers.js';
import { sessionOf, withCode } from './fidelity-helpers.js';

const HERE = path.resolve(path.dirname(fileURLToPath(import.meta.url)), 'fixtures/issue27');
const NOW = new Date('2026-03-02T15:00:00Z');

function fixture(format: FormatName, name: string): string {
  return path.join(HERE, format, name);
}

async function inspect(format: FormatName, name: string, now = NOW): Promise<InspectReport> {
  const a = ADAPTERS.find((x) => x.name === format)!;
  return a.inspect(await SafeDir.open(fixture(format, name)), now);
}

describe('Go Team', () => {
  // The checksums of this fixture were computed by Python: sha256 of
  // json.dumps(checkpoint_without_checksum, sort_keys=True), over values such as 0.0 and 100.0.
  it('a checkpoint holding integral floats (0.0) hashed by Python json.dumps is verified, not CHECKSUM_UNVERIFIED', async () => {
    const r = await inspect('go-team', 'float-checksum');
    const s = sessionOf(r, 'session-f10a7000');
    expect(s.checkpoints.map((c) => [c.id, c.valid, c.checksum])).toEqual([
      ['cp-01-init-20260302-140000', true, 'ok'],
      ['cp-02-requirements-20260302-141000', true, 'ok'],
    ]);
    expect(withCode(s.problems, 'CHECKSUM_UNVERIFIED')).toEqual([]);
    expect(withCode(r.problems, 'CHECKSUM_UNVERIFIED')).toEqual([]);
  });

  it('re-serialises number lexemes as Python repr() does (values printed by python3)', () => {
    const lexemes = [
      '0.0',
      '-0.0',
      '100.0',
      '1.50',
      '1e5',
      '1.5e-5',
      '0.0001',
      '1e16',
      '12345678901234567890.0',
      '3',
      '2.5e-320',
    ];
    expect(lexemes.map(pythonNumber)).toEqual([
      '0.0',
      '-0.0',
      '100.0',
      '1.5',
      '100000.0',
      '1.5e-05',
      '0.0001',
      '1e+16',
      '1.2345678901234567e+19',
      '3',
      '2.5e-320',
    ]);
  });

  it('baton inspect --json on it reports no checksum warning', async () => {
    const ws = workspace();
    const r = await ws.run(['inspect', '--format', 'go-team', fixture('go-team', 'float-checksum'), '--json']);
    const j = JSON.parse(r.stdout) as InspectReport;
    const all = [...j.problems, ...j.sessions.flatMap((x) => x.problems)];
    expect(all.filter((p) => p.code === 'CHECKSUM_UNVERIFIED')).toEqual([]);
  });
});

describe('Go Team: damaged and abandoned sessions', () => {
  const D3 = 'd3'.repeat(20);
  it('a torn newest checkpoint that no longer shows its commit: rebuild offered from recovery.json git_state.last_commit', async () => {
    const s = sessionOf(await inspect('go-team', 'rebuild-last-commit'), 'session-9e3c0b11');
    const bad = withCode(s.problems, 'CORRUPT_CHECKPOINT');
    expect(bad.map((p) => [p.severity, p.details?.checkpoint, p.details?.commit, p.details?.commitFrom])).toEqual([
      ['error', 'cp-03-architecture-20260302-122000', D3, 'recovery.json git_state.last_commit'],
    ]);
    expect(bad[0]?.hint).toContain(
      `recovery.json records the last commit, ${D3} (git_state.last_commit): rebuild it from there (*cp-rebuild:3)`,
    );
    const rebuild = s.resume.options.find((o) => o.kind === 'rebuild');
    expect(rebuild).toMatchObject({
      target: 'cp-03-architecture-20260302-122000',
      recommended: false,
      git: { branch: 'go-team/session-9e3c0b11', resetTo: D3 },
    });
    expect(rebuild?.description).toContain('the last commit recovery.json records (git_state.last_commit');
    // The safe checkpoint is still the last valid one (Go Team's recommendation, followed with a departure).
    expect(s.resume.options[0]).toMatchObject({
      kind: 'checkpoint',
      target: 'cp-02-requirements-20260302-121000',
      recommended: true,
    });
  });

  it("an abandoned session's missing folder is a warning, not an error listed first", async () => {
    const r = await inspect('go-team', 'abandoned-missing');
    const gone = sessionOf(r, 'session-dead0b0e');
    expect(withCode(gone.problems, 'MISSING_FILE').map((p) => [p.severity, p.path])).toEqual([
      ['warning', 'checkpoints/session-dead0b0e'],
    ]);
    expect(gone.problems.filter((p) => p.severity === 'error')).toEqual([]);
    expect(gone.resume.action).toBe('refuse');
    const ws = workspace();
    const h = await ws.run(['inspect', '--format', 'go-team', fixture('go-team', 'abandoned-missing')]);
    // Before: "What to do first: 1. session-dead0b0e (damaged): fix MISSING_FILE …".
    expect(h.stdout).not.toContain('(damaged)');
    expect(h.stdout).not.toContain('What to do first');
    expect(h.stdout).toContain('the session is abandoned (not resumable), so nothing is lost for resuming');
  });
});

describe('BMAD', () => {
  it('an agent left running with completed: null in the active session is ORPHANED_AGENT (warning), never continued', async () => {
    const s = sessionOf(await inspect('bmad', 'orphan-active'), 'ENG202603-HOOLI-SEARCH');
    expect(s.active).toBe(true);
    expect(withCode(s.problems, 'ORPHANED_AGENT').map((p) => [p.severity, p.details])).toEqual([
      ['warning', { agents: ['agent-b61f2a'] }],
    ]);
    expect(s.rules?.orphanedAgents.map((o) => o.id)).toEqual(['agent-b61f2a']);
    expect(s.resume.action).toBe('continue');
    expect(s.resume.unitId).toBeNull();
    expect(s.resume.reason).toContain('First check orphaned agent agent-b61f2a (left running, completed: null)');
    expect(s.resume.warnings[0]).toContain(
      'agent-b61f2a (dev) still marked running in an active session with no conversation attached: orphaned',
    );
  });

  it('baton inspect (human) reports the orphan and does not say "continue agent-b61f2a"', async () => {
    const ws = workspace();
    const r = await ws.run(['inspect', '--format', 'bmad', fixture('bmad', 'orphan-active')]);
    expect(r.stdout).not.toContain('continue agent-b61f2a');
    expect(r.stdout).toContain('ORPHANED_AGENT');
    expect(r.stdout).toMatch(/First: continue\b/);
  });

  it('a closed, archived session the stale pointer still names is not active (no [active] tag); the pointer is DANGLING_ACTIVE (warning)', async () => {
    const r = await inspect('bmad', 'archived-pointer');
    const s = sessionOf(r, 'SES202602-ACME-PORTAL');
    expect([s.active, s.archived, s.status]).toEqual([false, true, 'completed']);
    expect(withCode(r.problems, 'DANGLING_ACTIVE').map((p) => p.severity)).toEqual(['warning']);
    expect(s.resume.action).toBe('refuse');
    const ws = workspace();
    const h = await ws.run(['inspect', '--format', 'bmad', fixture('bmad', 'archived-pointer')]);
    const head = h.stdout.split('\n').find((l) => l.includes('Session SES202602-ACME-PORTAL'))!;
    expect(head).toContain('[archived]');
    expect(head).not.toContain('active');
  });
});

describe('CCW', () => {
  it('two registry lines both active break the Single Active Rule (TWO_ACTIVE, warning), even when a session file says paused', async () => {
    const r = await inspect('ccw', 'registry-active-twice');
    expect(r.sessions.filter((s) => s.active).map((s) => s.id)).toEqual(['WFS-rate-limit']);
    const t = withCode(r.problems, 'TWO_ACTIVE');
    expect(t.map((p) => [p.severity, p.path, p.details])).toEqual([
      [
        'warning',
        '.workflow/session_status.jsonl',
        {
          registry: '.workflow/session_status.jsonl',
          lines: [1, 2],
          sessions: ['WFS-auth-tokens', 'WFS-rate-limit'],
          effective: 'WFS-rate-limit',
        },
      ],
    ]);
    expect(t[0]?.message).toContain("CCW's Single Active Rule allows one");
  });

  it('baton inspect --json lists it', async () => {
    const ws = workspace();
    const r = await ws.run(['inspect', '--format', 'ccw', fixture('ccw', 'registry-active-twice'), '--json']);
    const j = JSON.parse(r.stdout) as InspectReport;
    expect(j.problems.filter((p) => p.code === 'TWO_ACTIVE').map((p) => p.severity)).toEqual(['warning']);
  });
});

describe('Maestro', () => {
  it('names planned_files as the files to reconcile (and those no manifest records)', async () => {
    const s = sessionOf(await inspect('maestro', 'reconcile-planned'), '2026-03-02-rate-limiter');
    const p = withCode(s.problems, 'RECONCILIATION_PENDING');
    expect(p.map((x) => [x.severity, x.details])).toEqual([
      [
        'warning',
        { phase: '2', files: ['src/http/limiter.ts', 'src/http/server.ts'], unrecorded: ['src/http/limiter.ts'] },
      ],
    ]);
    expect(p[0]?.message).toContain(
      'Files to reconcile (planned_files): src/http/limiter.ts, src/http/server.ts; not in any manifest: src/http/limiter.ts.',
    );
    expect(s.resume.warnings.find((w) => w.startsWith('Phase 2 still requires reconciliation'))).toContain(
      'Files to reconcile (planned_files): src/http/limiter.ts, src/http/server.ts',
    );
    expect(s.rules?.required[0]?.reason).toContain('src/http/limiter.ts');
  });

  it('reports a completed phase whose file manifests are empty (EMPTY_MANIFEST, warning when it planned files)', async () => {
    const s = sessionOf(await inspect('maestro', 'reconcile-planned'), '2026-03-02-rate-limiter');
    const e = withCode(s.problems, 'EMPTY_MANIFEST');
    expect(e.map((x) => [x.severity, x.details])).toEqual([
      ['warning', { phase: '1', planned: ['src/config/limits.ts'] }],
    ]);
    expect(e[0]?.message).toContain('though it planned src/config/limits.ts');
    // Phase 2 recorded a file; phase 3 is not completed.
    const ws = workspace();
    const h = await ws.run(['inspect', '--format', 'maestro', fixture('maestro', 'reconcile-planned')]);
    expect(h.stdout).toContain('EMPTY_MANIFEST');
    expect(h.stdout).toContain('Files to reconcile (planned_files): src/http/limiter.ts, src/http/server.ts');
  });
});
