/**
 * Issue 14 through the CLI, on the hand-written fixtures of test/fixtures/fidelity: what import
 * carries into baton's own `resume --json` (checkpoints with step, time and git state, the
 * toolkit's rules), the round trip import → export → inspect per toolkit (same facts; fields
 * baton did not change written back as they were), the human summary, and inspect/import
 * changing no byte and no mtime.
 */
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import type { ForeignSession } from '../../src/formats/types.js';
import { snapshotTree } from '../support/tree.js';
import { EXIT_CODES, ROOT, workspace } from './helpers.js';
import type { Workspace } from './helpers.js';

const FIDELITY = path.join(ROOT, 'test', 'fixtures', 'fidelity');

interface Plan {
  resumable: boolean;
  next: { steps: Array<{ phaseId: string; action: string }>; reason: string };
  inFlight: Array<{ phaseId: string }>;
  recovery: {
    options: Array<{
      kind: string;
      from: string | null;
      checkpoint: { id: string } | null;
      loses: { summary: string };
    }>;
    recommended: { kind: string; from: string; reason: string } | null;
  };
  warnings: string[];
  toolkit?: {
    toolkit: string;
    refused: string | null;
    followed: boolean | null;
    departure: string | null;
    escalateFirst: boolean;
    required: Array<{ phaseId: string | null; name: string }>;
    orphanedAgents: Array<{ id: string | null }>;
    choices: string[];
  };
}

async function imported(format: string, name: string): Promise<Workspace> {
  const ws = workspace();
  fs.cpSync(path.join(FIDELITY, format, name), ws.path('src'), { recursive: true });
  const r = await ws.run(['import', '--format', format, 'src', '--json']);
  expect([0, EXIT_CODES.CORRUPT], r.stderr).toContain(r.code);
  return ws;
}

async function plan(ws: Workspace, id: string): Promise<Plan> {
  return ws.json<Plan>(['resume', '--session', id]);
}

describe("import carries Go Team checkpoints and rules into baton's resume", () => {
  it("foreign checkpoints become baton checkpoints: step, time, git state; the toolkit's recommendation is followed", async () => {
    const ws = await imported('go-team', 'checksums');
    ws.write('internal/billing/invoice.go', 'package billing\n');
    const cps = await ws.json<
      Array<{
        id: string;
        phaseId: string;
        createdAt: string;
        valid: boolean;
        git: { branch: string; head: string; dirty: boolean } | null;
        completedPhases: string[];
      }>
    >(['checkpoints', '--session', 'session-5047ed01']);
    expect(cps.map((c) => [c.id, c.phaseId, c.createdAt, c.valid])).toEqual([
      ['cp-01-init-20260302-090000', '1', '2026-03-02T09:00:00Z', true],
      ['cp-02-requirements-20260302-091000', '2', '2026-03-02T09:10:00Z', true],
      ['cp-03-architecture-20260302-092000', '3', '2026-03-02T09:20:00Z', true],
      ['cp-04-implementation-20260302-093000', '4', '2026-03-02T09:30:00Z', true],
    ]);
    expect(cps[3]?.git).toEqual({
      branch: 'go-team/session-5047ed01',
      head: '4444444444444444444444444444444444444444',
      dirty: false,
    });
    expect(cps[3]?.completedPhases).toEqual(['1', '2', '3', '4']);
    const p = await plan(ws, 'session-5047ed01');
    expect(p.recovery.recommended?.from).toBe('checkpoint:cp-04-implementation-20260302-093000');
    expect(p.recovery.recommended?.reason).toContain(
      "Go Team recommends checkpoint cp-04-implementation-20260302-093000 (recovery.json recommends checkpoint; by Go Team's count it loses 7 actions since cp-04-implementation-20260302-093000)",
    );
    const cp = p.recovery.options.find((o) => o.kind === 'checkpoint')!;
    expect(cp.checkpoint?.id).toBe('cp-04-implementation-20260302-093000');
    expect(cp.loses.summary).toMatch(/^\d+ events recorded after revision \d+/);
    expect(p.toolkit).toMatchObject({ toolkit: 'Go Team', refused: null, followed: true, departure: null });
  });

  it('following the toolkit (restoring its checkpoint) keeps where the session came from; the advice is then done', async () => {
    const ws = await imported('go-team', 'checksums');
    ws.write('internal/billing/invoice.go', 'package billing\n');
    await ws.ok(['resume', '--session', 'session-5047ed01', '--apply']);
    const st = await ws.status('session-5047ed01');
    expect(st.status).toBe('active');
    expect(st.phases.map((p) => p.status).slice(3, 5)).toEqual(['completed', 'pending']);
    const p = await plan(ws, 'session-5047ed01');
    expect(p.toolkit?.toolkit).toBe('Go Team');
    expect(p.recovery.recommended?.kind).toBe('live');
    // The provenance survived the restore: the export merges onto the Go Team documents.
    await ws.ok(['export', '--format', 'go-team', '--session', 'session-5047ed01', '--out', 'out']);
    const reg = JSON.parse(fs.readFileSync(ws.path('out/checkpoints/sessions.json'), 'utf8')) as {
      sessions: Array<Record<string, unknown>>;
    };
    expect(reg.sessions.find((e) => e.id === 'session-5047ed01')).toMatchObject({
      topic: 'billing-api',
      git_branch: 'go-team/session-5047ed01',
    });
    expect(fs.existsSync(ws.path('out/checkpoints/session-5047ed01/cp-03-architecture-20260302-092000.json'))).toBe(
      true,
    );
  });

  it("where files of completed steps are not in the work tree, Go Team's safe checkpoint stays recommended (issue 27): its git reset puts them back", async () => {
    const ws = await imported('go-team', 'checksums');
    const p = await plan(ws, 'session-5047ed01');
    expect(p.recovery.recommended?.kind).toBe('checkpoint');
    expect(p.toolkit?.followed).toBe(true);
    expect(p.toolkit?.departure).toBeNull();
    expect(p.recovery.recommended?.reason).toContain(
      'Files of completed phase 4 are not in the work tree as recorded: restore with the git reset (--git)',
    );
  });

  it('a session Go Team never resumes (failed) is not offered for resume', async () => {
    const ws = await imported('go-team', 'checksums');
    const p = await plan(ws, 'session-fa11ed02');
    expect(p.resumable).toBe(false);
    expect(p.next.steps).toEqual([]);
    expect(p.next.reason).toContain('never resumes a failed session');
    expect(p.recovery.recommended).toBeNull();
    const r = await ws.run(['resume', '--session', 'session-fa11ed02', '--apply']);
    expect(r.code).not.toBe(0);
    expect(r.stderr).toContain('cannot be resumed');
  });

  it('invalidated and damaged checkpoints are not imported; the valid one of step 3 is offered', async () => {
    const ws = await imported('go-team', 'rollback-rebuild');
    const cps = await ws.json<Array<{ id: string }>>(['checkpoints', '--session', 'session-7011bac0']);
    expect(cps.map((c) => c.id)).toEqual([
      'cp-01-init-20260302-100000',
      'cp-02-requirements-20260302-101000',
      'cp-03-architecture-20260302-110000',
    ]);
    const p = await plan(ws, 'session-7011bac0');
    expect(p.recovery.options.find((o) => o.kind === 'checkpoint')?.checkpoint?.id).toBe(
      'cp-03-architecture-20260302-110000',
    );
  });
});

describe("baton's resume plan follows each toolkit's rules after import", () => {
  it('Maestro: exhausted retries escalate before the phase in flight, with every choice', async () => {
    const ws = await imported('maestro', 'yaml-escalate');
    const p = await plan(ws, '2026-03-01-payment-retries');
    expect(p.next.steps[0]).toMatchObject({ phaseId: '2', action: 'escalate' });
    expect(p.next.steps.map((s) => s.phaseId)).toEqual(['2', '3']);
    expect(p.next.reason).toContain('Maestro escalates a phase that used all its retries before continuing');
    expect(p.toolkit).toMatchObject({ escalateFirst: true, choices: ['retry', 'skip', 'abort', 'adjust'] });
  });

  it('Maestro: reconciliation and the express code review are not skipped before archiving', async () => {
    const ws = await imported('maestro', 'json-express-review');
    const p = await plan(ws, '2026-03-03-fix-login-typo');
    expect(p.next.steps).toEqual([expect.objectContaining({ phaseId: '1', action: 'review' })]);
    expect(p.next.reason).toBe(
      'Maestro requires reconciliation of phase 1, the code review before the session may be archived: do them before marking it completed.',
    );
    expect(p.warnings.some((w) => w.startsWith('All phases are completed'))).toBe(false);
    expect(p.warnings).toContain(
      'Before archiving, Maestro requires the code review: in express mode, a session whose phases are completed but which is still in progress runs a code review, then archives (Maestro v1.6 express resume).',
    );
  });

  it('BMAD: an agent running in a paused context is reported orphaned, not restarted', async () => {
    const ws = await imported('bmad', 'legacy-orphan');
    const p = await plan(ws, 'ENG202603-GLOBEX-BILLING');
    expect(p.inFlight.map((x) => x.phaseId)).toEqual(['agent-9']);
    expect(p.next.steps.some((s) => s.phaseId === 'agent-9')).toBe(false);
    expect(p.next.reason).toContain('dev (agent-9) is orphaned');
    expect(p.toolkit?.orphanedAgents.map((a) => a.id)).toEqual(['agent-9']);
    expect(p.warnings[0]).toContain(
      'Agent dev (agent-9) is marked running but the session is paused: it is orphaned. It is not restarted',
    );
  });

  it('CCW: the review is required; bmit: the direct-invocation choices travel with the session', async () => {
    const ws = await imported('ccw', 'registry-review');
    const p = await plan(ws, 'WFS-payments');
    expect(p.toolkit?.required.map((r) => r.phaseId)).toEqual(['review']);
    expect(p.next.steps).toEqual([expect.objectContaining({ phaseId: 'review' })]);
    const wb = await imported('bmit', 'ahead-substep');
    const q = await plan(wb, 'shop-api');
    expect(q.toolkit?.choices).toEqual(['proceed anyway', 'hand off to the orchestrator']);
  });
});

/** The facts a round trip keeps. */
function facts(s: ForeignSession) {
  return {
    id: s.id,
    title: s.title,
    status: s.status,
    rawStatus: s.rawStatus,
    archived: s.archived,
    units: s.units.map((u) => ({
      id: u.id,
      status: u.status,
      subStep: u.subStep,
      retries: u.retries,
      files: u.files,
      errors: u.errors,
    })),
    position: s.position,
    recordedPosition: s.recordedPosition,
    variant: s.variant,
    tokens: s.tokens,
    resume: { action: s.resume.action, unitId: s.resume.unitId, subStep: s.resume.subStep, choices: s.resume.choices },
    idParts: s.idParts,
    halfWritten: s.halfWritten,
    archive: s.archive,
  };
}

const ROUND_TRIP: Array<[string, string, string, (out: string) => void]> = [
  [
    'maestro',
    'yaml-escalate',
    '2026-03-01-payment-retries',
    (out) => {
      const text = fs.readFileSync(path.join(out, 'state/active-session.md'), 'utf8');
      expect(text).toContain('current_phase: 2\n');
      expect(text).toContain('updated: "2026-03-01T09:40:00Z"');
      // The plans travel with the session.
      expect(fs.readFileSync(path.join(out, 'plans/2026-03-01-payment-retries-impl-plan.md'), 'utf8')).toBe('# plan\n');
    },
  ],
  [
    'go-team',
    'checksums',
    'session-5047ed01',
    (out) => {
      const reg = JSON.parse(fs.readFileSync(path.join(out, 'checkpoints/sessions.json'), 'utf8')) as {
        sessions: Array<Record<string, unknown>>;
      };
      expect(reg.sessions.find((e) => e.id === 'session-5047ed01')).toMatchObject({
        updated_at: '2026-03-02T09:42:00Z',
        current_step: 5,
      });
    },
  ],
  [
    'bmit',
    'ahead-substep',
    'shop-api',
    (out) => {
      const doc = JSON.parse(
        fs.readFileSync(path.join(out, 'agent-output/shop-api/00-session-state.json'), 'utf8'),
      ) as Record<string, unknown>;
      expect([doc.updated, doc.current_step]).toEqual(['2026-03-04T10:30:00Z', 4]);
    },
  ],
  [
    'bmad',
    'legacy-orphan',
    'ENG202603-GLOBEX-BILLING',
    (out) => {
      const text = fs.readFileSync(path.join(out, '_bmad-output/sessions/ENG202603-GLOBEX-BILLING.yaml'), 'utf8');
      expect(text).toContain('saved_by_isolation: 60000');
      expect(text).toContain('max_limit: 200000');
      expect(text).not.toMatch(/^\s+max: /m);
      expect(text).toMatch(/^last_updated: "?2026-03-02T11:00:00Z"?$/m);
    },
  ],
  [
    'ccw',
    'registry-review',
    'WFS-payments',
    (out) => {
      const doc = JSON.parse(
        fs.readFileSync(path.join(out, '.workflow/WFS-payments/workflow-session.json'), 'utf8'),
      ) as Record<string, unknown>;
      expect([doc.status, doc.updated_at, doc.current_phase]).toEqual([
        'interrupted',
        '2026-03-01T16:00:00Z',
        'REVIEW',
      ]);
    },
  ],
];

describe('round trip import → export → inspect states the same facts', () => {
  for (const [format, name, id, bytes] of ROUND_TRIP) {
    it(`${format} ${name}: same facts; fields baton did not change are written as they were`, async () => {
      const ws = await imported(format, name);
      const before = (
        JSON.parse((await ws.run(['inspect', '--format', format, 'src', '--json'])).stdout) as {
          sessions: ForeignSession[];
        }
      ).sessions.find((s) => s.id === id)!;
      await ws.ok(['export', '--format', format, '--session', id, '--out', 'out']);
      const r = await ws.run(['inspect', '--format', format, 'out', '--json']);
      const after = (JSON.parse(r.stdout) as { sessions: ForeignSession[] }).sessions.find((s) => s.id === id)!;
      expect(after, r.stdout).toBeDefined();
      expect(facts(after)).toEqual(facts(before));
      bytes(ws.path('out'));
    });
  }
});

describe('human inspect and read-only', () => {
  it('opens with what to do first and lists the sessions needing attention before the rest', async () => {
    const ws = workspace();
    fs.cpSync(path.join(FIDELITY, 'bmad', 'legacy-orphan'), ws.path('src'), { recursive: true });
    // A damaged session sorts after the healthy one by id, yet is shown first.
    ws.write(
      'src/_bmad-output/sessions/ANA202603-ACME-ZZZ.yaml',
      'session_id: "ANA202603-ACME-ZZZ"\nstatus: [unclosed\n',
    );
    const r = await ws.run(['inspect', 'src']);
    expect(r.code).toBe(EXIT_CODES.CORRUPT);
    const lines = r.stdout.split('\n');
    expect(lines[2]).toBe('What to do first:');
    expect(lines[3]).toMatch(/^ {2}1\. /);
    const order = lines.filter((l) => l.startsWith('Session ')).map((l) => l.split(/\s+/)[1]);
    expect(order.at(-1)).toBe('SES202602-INITECH-PORTAL');
    // Each fix sits under its problem.
    const i = lines.findIndex((l) => l.includes('ORPHANED_AGENT'));
    expect(lines[i + 1]).toMatch(/^\s+hint: Check their output files/);
  });

  it('inspect and import change no byte and no mtime of any fidelity fixture', async () => {
    for (const format of fs.readdirSync(FIDELITY).filter((f) => fs.statSync(path.join(FIDELITY, f)).isDirectory())) {
      for (const name of fs.readdirSync(path.join(FIDELITY, format))) {
        const ws = workspace();
        fs.cpSync(path.join(FIDELITY, format, name), ws.path('src'), { recursive: true });
        const before = snapshotTree(ws.path('src'));
        await ws.run(['inspect', 'src', '--json']);
        await ws.run(['inspect', 'src']);
        await ws.run(['import', 'src', '--json']);
        expect(snapshotTree(ws.path('src')), `${format}/${name}`).toEqual(before);
      }
    }
  });
});

describe('re-import carries new foreign checkpoints forward', () => {
  it('a checkpoint Go Team took since the last import becomes a baton checkpoint on re-import', async () => {
    const ws = workspace();
    const src = ws.path('src');
    fs.cpSync(path.join(FIDELITY, 'go-team', 'rollback-rebuild'), src, { recursive: true });
    const dir = path.join(src, 'checkpoints/session-7011bac0');
    // Hide the step-2 checkpoint for the first import, as if Go Team had not written it yet.
    const cp2 = path.join(dir, 'cp-02-requirements-20260302-101000.json');
    const text = fs.readFileSync(cp2, 'utf8');
    fs.rmSync(cp2);
    await ws.run(['import', '--format', 'go-team', 'src', '--json']);
    const first = await ws.json<Array<{ id: string }>>(['checkpoints', '--session', 'session-7011bac0']);
    expect(first.map((c) => c.id)).not.toContain('cp-02-requirements-20260302-101000');
    fs.writeFileSync(cp2, text);
    const again = JSON.parse((await ws.run(['import', '--format', 'go-team', 'src', '--json'])).stdout) as {
      sessions: Array<{ id: string; action: string }>;
    };
    expect(again.sessions.find((s) => s.id === 'session-7011bac0')?.action).toBe('updated');
    const after = await ws.json<Array<{ id: string; valid: boolean; phaseId: string; git: { head: string } | null }>>([
      'checkpoints',
      '--session',
      'session-7011bac0',
    ]);
    expect(after.find((c) => c.id === 'cp-02-requirements-20260302-101000')).toMatchObject({
      valid: true,
      phaseId: '2',
      git: { head: 'a2a2a2a2a2a2a2a2a2a2a2a2a2a2a2a2a2a2a2a2' },
    });
  });
});
