/**
 * Go Team facts of issue 14, on hand-written fixtures (test/fixtures/fidelity/go-team, made by
 * gen-go-team.mjs): checksums in every canonical form, unverified vs corrupt, rollbacks, the
 * valid checkpoint of each step, git state in each recovery option, the toolkit's
 * recommendation followed or departed from with a reason, and the rules recorded for import.
 */
import { describe, expect, it } from 'vitest';
import { inspectFixture, sessionOf, withCode } from './fidelity-helpers.js';

describe('Go Team checksums (circular definition: every canonical form accepted)', () => {
  it('accepts file-order compact, sorted-key and as-written checksums; one matching none is unverified (warning), not corrupt', async () => {
    const s = sessionOf(await inspectFixture('go-team', 'checksums'), 'session-5047ed01');
    expect(s.checkpoints.map((c) => [c.id, c.valid, c.checksum])).toEqual([
      ['cp-01-init-20260302-090000', true, 'ok'],
      ['cp-02-requirements-20260302-091000', true, 'ok'],
      ['cp-03-architecture-20260302-092000', true, 'ok'],
      ['cp-04-implementation-20260302-093000', true, 'unverified'],
    ]);
    expect(withCode(s.problems, 'CORRUPT_CHECKPOINT')).toEqual([]);
    const u = withCode(s.problems, 'CHECKSUM_UNVERIFIED');
    expect(u.map((p) => [p.severity, p.details?.checkpoint])).toEqual([
      ['warning', 'cp-04-implementation-20260302-093000'],
    ]);
  });

  it("follows recovery.json's recommendation (checkpoint) and carries the recorded git state into every option", async () => {
    const s = sessionOf(await inspectFixture('go-team', 'checksums'), 'session-5047ed01');
    expect(s.resume.recommended).toBe('checkpoint');
    expect(s.resume.recommendedBy).toBe('toolkit');
    expect(s.resume.departure).toBeNull();
    expect(s.resume.unitId).toBe('5');
    const [cp, live, fresh] = s.resume.options;
    expect(cp).toMatchObject({
      kind: 'checkpoint',
      target: 'cp-04-implementation-20260302-093000',
      recommended: true,
      git: {
        branch: 'go-team/session-5047ed01',
        resetTo: '4444444444444444444444444444444444444444',
        uncommittedChanges: true,
      },
    });
    expect(cp?.description).toContain('reset it to 4444444444444444444444444444444444444444 (git reset --hard)');
    expect(cp?.warnings).toContain(
      'The session recorded uncommitted changes (internal/billing/invoice_test.go); git reset --hard discards them: commit or stash them first.',
    );
    expect(cp?.warnings?.[0]).toContain('checksum of cp-04-implementation-20260302-093000 is unverified');
    expect(live).toMatchObject({
      kind: 'live',
      git: { branch: 'go-team/session-5047ed01', resetTo: null, uncommittedChanges: true },
    });
    expect(live?.warnings?.[0]).toContain('uncommitted changes (internal/billing/invoice_test.go)');
    expect(fresh).toMatchObject({ kind: 'fresh', git: null });
    expect(s.rules?.recommended).toEqual({
      kind: 'checkpoint',
      checkpoint: 'cp-04-implementation-20260302-093000',
      by: 'toolkit',
      reason:
        "recovery.json recommends checkpoint; by Go Team's count it loses 7 actions since cp-04-implementation-20260302-093000",
      git: {
        branch: 'go-team/session-5047ed01',
        resetTo: '4444444444444444444444444444444444444444',
        uncommittedChanges: true,
      },
    });
  });

  it('records that Go Team never resumes a failed session', async () => {
    const s = sessionOf(await inspectFixture('go-team', 'checksums'), 'session-fa11ed02');
    expect(s.resume.action).toBe('refuse');
    expect(s.rules?.refuse).toContain('never resumes a failed session');
  });
});

describe('Go Team rollbacks and damaged checkpoints', () => {
  it('reports each checkpoint a rollback invalidated, naming the rollback and the valid checkpoint of its step', async () => {
    const s = sessionOf(await inspectFixture('go-team', 'rollback-rebuild'), 'session-7011bac0');
    const inv = withCode(s.problems, 'INVALIDATED_CHECKPOINT');
    expect(inv.map((p) => p.details)).toEqual([
      {
        checkpoint: 'cp-03-architecture-20260302-102000',
        rollback: 'rb-001',
        step: 3,
        valid: 'cp-03-architecture-20260302-110000',
      },
      { checkpoint: 'cp-04-implementation-20260302-103000', rollback: 'rb-001', step: 4, valid: null },
    ]);
    expect(inv[0]?.message).toContain(
      'was invalidated by rollback rb-001; the valid checkpoint of step 3 is cp-03-architecture-20260302-110000',
    );
    const byId = Object.fromEntries(s.checkpoints.map((c) => [c.id, c]));
    expect(byId['cp-03-architecture-20260302-102000']).toMatchObject({
      valid: false,
      invalidatedBy: 'rb-001',
      current: false,
    });
    expect(byId['cp-03-architecture-20260302-110000']).toMatchObject({
      valid: true,
      invalidatedBy: null,
      current: true,
    });
    expect(byId['cp-02-requirements-20260302-101000']).toMatchObject({ valid: true, current: true });
  });

  it('a checkpoint contradicting its manifest is corrupt; with its commit known, a rebuild from that commit is offered', async () => {
    const s = sessionOf(await inspectFixture('go-team', 'rollback-rebuild'), 'session-7011bac0');
    const bad = withCode(s.problems, 'CORRUPT_CHECKPOINT');
    expect(bad.map((p) => p.details?.checkpoint)).toEqual(['cp-04-implementation-20260302-111000']);
    expect(bad[0]?.details?.reason).toBe(
      'has a wrong shape (step_name "testing" contradicts manifest.json ("implementation"))',
    );
    expect(bad[0]?.hint).toBe(
      'Fall back to the last valid checkpoint, cp-03-architecture-20260302-110000 (step 3), or rebuild it from its commit b4b4b4b4b4b4b4b4b4b4b4b4b4b4b4b4b4b4b4b4 (*cp-rebuild:4).',
    );
    const rebuild = s.resume.options.find((o) => o.kind === 'rebuild');
    expect(rebuild).toMatchObject({
      target: 'cp-04-implementation-20260302-111000',
      recommended: false,
      git: {
        branch: 'go-team/session-7011bac0',
        resetTo: 'b4b4b4b4b4b4b4b4b4b4b4b4b4b4b4b4b4b4b4b4',
        uncommittedChanges: false,
      },
    });
    expect(rebuild?.description).toContain('*cp-rebuild:4');
  });

  it('where it cannot follow recovery.json (its checkpoint is damaged), it says why', async () => {
    const s = sessionOf(await inspectFixture('go-team', 'rollback-rebuild'), 'session-7011bac0');
    expect(s.resume.recommended).toBe('checkpoint');
    expect(s.resume.options[0]).toMatchObject({
      kind: 'checkpoint',
      target: 'cp-03-architecture-20260302-110000',
      recommended: true,
      git: { resetTo: 'b3b3b3b3b3b3b3b3b3b3b3b3b3b3b3b3b3b3b3b3' },
    });
    expect(s.resume.departure).toBe(
      'recovery.json names checkpoint cp-04-implementation-20260302-111000, which cannot be used; baton offers cp-03-architecture-20260302-110000, the last valid one before it.',
    );
    expect(s.resume.unitId).toBe('4');
  });
});
