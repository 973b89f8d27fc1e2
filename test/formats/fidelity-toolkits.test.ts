/**
 * Maestro, bmit, BMAD and CCW facts of issue 14, each on a hand-written fixture of its own
 * (test/fixtures/fidelity/<toolkit>/<case>), asserted one by one as `inspect` reports them.
 */
import { describe, expect, it } from 'vitest';
import { inspectFixture, sessionOf, withCode } from './fidelity-helpers.js';

describe('Maestro', () => {
  it('names the frontmatter variant and the mode, and reports current_phase beside the derived position', async () => {
    const y = sessionOf(await inspectFixture('maestro', 'yaml-escalate'), '2026-03-01-payment-retries');
    expect(y.variant).toEqual({ frontmatter: 'yaml', mode: 'standard' });
    expect(y.position.unitId).toBe('3');
    expect(y.recordedPosition).toEqual({ field: 'current_phase', value: 2, agrees: false });
    const j = sessionOf(await inspectFixture('maestro', 'json-express-review'), '2026-03-03-fix-login-typo');
    expect(j.variant).toEqual({ frontmatter: 'json', mode: 'express' });
  });

  it('lists the files of every phase in flight or failed as possibly half-written', async () => {
    const s = sessionOf(await inspectFixture('maestro', 'yaml-escalate'), '2026-03-01-payment-retries');
    expect(s.halfWritten).toEqual([
      { unitId: '2', status: 'failed', files: ['src/worker/retry.ts', 'src/worker/index.ts'] },
      { unitId: '3', status: 'in_progress', files: ['src/webhooks/notify.ts'] },
    ]);
    expect(s.resume.warnings).toContain(
      'Phase 2 failed: 2 file(s) it touched may be half-written (src/worker/retry.ts, src/worker/index.ts); check them before retrying.',
    );
  });

  it('escalates a phase past its retries with every choice the document names; escalation comes first', async () => {
    const s = sessionOf(await inspectFixture('maestro', 'yaml-escalate'), '2026-03-01-payment-retries');
    expect(s.resume).toMatchObject({ action: 'escalate', unitId: '2', retryLimit: 2, retriesUsed: 2 });
    expect(s.resume.choices).toEqual(['retry', 'skip', 'abort', 'adjust']);
    expect(s.resume.reason).toContain('retry, skip, abort or adjust parameters');
    expect(s.rules?.escalateFirst).toBe(true);
  });

  it('says when and why archiving is not allowed yet (open phases; reconciliation and the express code review)', async () => {
    const y = sessionOf(await inspectFixture('maestro', 'yaml-escalate'), '2026-03-01-payment-retries');
    expect(y.archive?.allowed).toBe(false);
    expect(y.archive?.reasons[0]).toBe(
      '3 phase(s) are not completed (2 failed, 3 in_progress, 4 pending): Maestro archives when all phases are completed, or when the user asks.',
    );
    const j = sessionOf(await inspectFixture('maestro', 'json-express-review'), '2026-03-03-fix-login-typo');
    expect(j.archive?.allowed).toBe(false);
    expect(j.archive?.reasons).toHaveLength(2);
    expect(j.archive?.reasons[0]).toContain('reconciliation of phase 1 is required first');
    expect(j.archive?.reasons[1]).toContain('the code review is required first');
    expect(withCode(j.problems, 'ARCHIVE_BLOCKED')).toHaveLength(1);
    expect(j.rules?.required.map((r) => [r.phaseId, r.name])).toEqual([
      ['1', 'reconciliation of phase 1'],
      [null, 'the code review'],
    ]);
    // by_agent lists coder and agrees; an empty breakdown would be "no breakdown".
    expect(j.tokens?.agrees).toBe(true);
  });

  it('an archive done by copy: says whether each leftover is byte-identical to its archived copy before advising removal', async () => {
    const s = sessionOf(await inspectFixture('maestro', 'archive-copied'), '2026-02-20-search-index');
    const copied = withCode(s.problems, 'ARCHIVE_COPIED');
    const session = copied.find((p) => p.details?.live !== undefined)!;
    expect(session.details?.identical).toBe(true);
    expect(session.hint).toBe(
      ".gemini/state/active-session.md is byte-identical to .gemini/state/archive/2026-02-20-search-index.md: delete it (Maestro's archive moves the file).",
    );
    const plans = copied.filter((p) => p.details?.kind === 'plan');
    expect(plans.map((p) => [p.details?.field, p.details?.identical])).toEqual([
      ['design_document', true],
      ['implementation_plan', false],
    ]);
    expect(plans[1]?.hint).toContain(
      'differs from .gemini/plans/archive/2026-02-20-search-index-impl-plan.md: compare them',
    );
    // An empty by_agent is no breakdown, not a disagreement.
    expect(s.tokens).toMatchObject({ byAgent: null, agrees: null });
    expect(withCode(s.problems, 'TOKENS_DISAGREE')).toEqual([]);
  });
});

describe('bmit', () => {
  it('names the next sub-step checkpoint after the resume point', async () => {
    const s = sessionOf(await inspectFixture('bmit', 'ahead-substep'), 'shop-api');
    expect(s.resume).toMatchObject({
      action: 'skip-to-substep',
      unitId: '2',
      subStep: 'phase_2_waf',
      nextSubStep: 'phase_3_cost',
    });
  });

  it('detects current_step ahead of the real position and offers the documented choices', async () => {
    const s = sessionOf(await inspectFixture('bmit', 'ahead-substep'), 'shop-api');
    expect(s.recordedPosition).toEqual({ field: 'current_step', value: 4, agrees: false });
    const p = withCode(s.problems, 'AHEAD_OF_POSITION');
    expect(p.map((x) => x.details)).toEqual([
      {
        field: 'current_step',
        value: 4,
        inProgress: ['2'],
        choices: ['proceed anyway', 'hand off to the orchestrator'],
      },
    ]);
    expect(s.resume.choices).toEqual(['proceed anyway', 'hand off to the orchestrator']);
  });

  it('reports fields that were defaulted and step outputs that exist without state', async () => {
    const s = sessionOf(await inspectFixture('bmit', 'ahead-substep'), 'shop-api');
    expect(s.defaulted).toEqual({ 'decisions.complexity': 'standard' });
    expect(withCode(s.problems, 'OUTPUT_WITHOUT_STATE').map((p) => p.details)).toEqual([
      { step: '3', file: 'agent-output/shop-api/03-des-diagram.md' },
    ]);
  });

  it("warns that progress since the backup may be lost when the damaged file's readable part is newer", async () => {
    const s = sessionOf(await inspectFixture('bmit', 'damaged-newer'), 'ledger');
    expect(withCode(s.problems, 'CORRUPT_FILE')).toHaveLength(1);
    const p = withCode(s.problems, 'PROGRESS_MAY_BE_LOST');
    expect(p.map((x) => x.details)).toEqual([
      {
        damagedUpdated: '2026-03-05T12:00:00Z',
        backupUpdated: '2026-03-05T09:00:00Z',
        backup: 'agent-output/ledger/00-session-state.json.bak',
      },
    ]);
    expect(p[0]?.severity).toBe('warning');
  });
});

describe('BMAD', () => {
  it("reads legacy token fields with the document's precedence: saved_by_isolation as saved (rule 3, last), max_limit unread, max defaulted", async () => {
    const s = sessionOf(await inspectFixture('bmad', 'legacy-orphan'), 'ENG202603-GLOBEX-BILLING');
    const b = (s.tokens as unknown as { bmad: Record<string, unknown> }).bmad;
    expect(b).toMatchObject({ max: 150000, saved: 60000, current: 130000 });
    expect(withCode(s.problems, 'LEGACY_FIELD').map((p) => p.details?.field)).toEqual([
      'tokens.saved_by_isolation',
      'tokens.max_limit',
      'tokens.warning_threshold',
    ]);
    expect(withCode(s.problems, 'LEGACY_FIELD')[0]?.details?.overrides).toBe(10000);
  });

  it("reports the id's parts, the budget at the document's precision and the projected overrun", async () => {
    const s = sessionOf(await inspectFixture('bmad', 'legacy-orphan'), 'ENG202603-GLOBEX-BILLING');
    expect(s.idParts).toEqual({
      prefix: 'ENG',
      year: '2026',
      month: '03',
      yyyymm: '202603',
      client: 'GLOBEX',
      project: 'BILLING',
    });
    const b = (s.tokens as unknown as { bmad: Record<string, unknown> }).bmad;
    expect(b.percent).toBe(87);
    expect(b.projectedOverrun).toBe(40000);
    expect(b.totalIfNoIsolation).toBe(190000);
  });

  it('an agent running in a paused context is orphaned; a closed session is never resumed; no active session is explained', async () => {
    const r = await inspectFixture('bmad', 'legacy-orphan');
    const s = sessionOf(r, 'ENG202603-GLOBEX-BILLING');
    expect(s.rules?.orphanedAgents).toEqual([
      {
        agent: 'dev',
        id: 'agent-9',
        startedAt: '2026-03-02T10:30:00Z',
        phaseId: 'agent-9',
        reason: 'the session is paused',
      },
    ]);
    expect(s.noActive).toContain('No active session. Start new? [y/n]');
    const closed = sessionOf(r, 'SES202602-INITECH-PORTAL');
    expect(closed.resume.action).toBe('refuse');
    expect(closed.rules?.refuse).toContain('BMAD does not resume a closed session');
  });
});

describe('CCW', () => {
  it('two sessions active (folder layout): reported with the effective one and why', async () => {
    const r = await inspectFixture('ccw', 'two-active-tasks');
    const t = withCode(r.problems, 'TWO_ACTIVE');
    expect(t).toHaveLength(1);
    expect(t[0]?.details).toMatchObject({ sessions: ['WFS-export', 'WFS-search'], effective: 'WFS-search' });
    expect(String(t[0]?.details?.why)).toContain('updated last (2026-03-03T11:30:00Z)');
  });

  it('two sessions active (registry layout): the effective one is the one activated last, not the last line', async () => {
    const r = await inspectFixture('ccw', 'registry-two-active');
    const t = withCode(r.problems, 'TWO_ACTIVE');
    expect(t.map((p) => [p.severity, p.details?.effective])).toEqual([['warning', 'WFS-cache']]);
    expect(t[0]?.message).toContain('The effective one is WFS-cache: it was updated last (2026-03-04T12:00:00Z)');
  });

  it('resumes at task level (the task in progress), reports an empty backup as empty', async () => {
    const r = await inspectFixture('ccw', 'two-active-tasks');
    const s = sessionOf(r, 'WFS-search');
    expect(s.position).toEqual({ unitId: 'implement', subStep: 'code-developer', task: 'impl-2' });
    expect(s.resume.reason).toContain('Resume at task impl-2 (in progress).');
    const e = sessionOf(r, 'WFS-export');
    expect(withCode(e.problems, 'EMPTY_BACKUP').map((p) => p.path)).toEqual([
      '.workflow/active/WFS-export/.backups/session-2026-03-03-08-40.json',
    ]);
    expect(e.checkpoints).toEqual([expect.objectContaining({ valid: false, problem: 'is empty' })]);
    expect(withCode(e.problems, 'CORRUPT_CHECKPOINT')).toEqual([]);
  });

  it('a status outside the set is normalised as documented and flagged; review is required; "no active session" is explained (registry layout)', async () => {
    const s = sessionOf(await inspectFixture('ccw', 'registry-review'), 'WFS-payments');
    expect(s.rawStatus).toBe('interrupted');
    expect(s.status).toBe('paused');
    expect(withCode(s.problems, 'STATUS_NORMALISED').map((p) => p.details)).toEqual([
      { field: 'status', raw: 'interrupted', read: 'paused' },
    ]);
    expect(s.rules?.required.map((r) => r.phaseId)).toEqual(['review']);
    expect(s.noActive).toContain('temporary workspace');
  });
});
