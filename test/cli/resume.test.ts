/**
 * `baton resume` (the plan, and --apply / --from) and `baton handoff`, on real workspaces:
 * edits, deletions and files made outside the session, a changed plan file, a run that
 * died mid-phase, and each recovery option applied.
 */
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import { describe, expect, it } from 'vitest';
import { expectError, workspace } from './helpers.js';
import type { Workspace } from './helpers.js';

interface FileCheck {
  path: string;
  kind: string;
  possiblyHalfWritten: boolean;
}
interface Plan {
  sessionId: string;
  status: string;
  resumable: boolean;
  lastCompleted: { phaseId: string } | null;
  inFlight: Array<{ phaseId: string; subStep: string | null; resumeAt: string }>;
  failed: Array<{ phaseId: string; retriesLeft: number; escalation: { choices: string[] } | null }>;
  blocked: Array<{ phaseId: string; openBlockers: Array<{ phaseId: string }> }>;
  next: { steps: Array<{ phaseId: string; action: string }> };
  files: {
    byPhase: Array<{ phaseId: string | null; possiblyHalfWritten: boolean; files: FileCheck[] }>;
    outsideChanges: boolean;
    newFiles: string[];
  };
  planChanged: boolean | null;
  recovery: {
    options: Array<{ kind: string; from: string | null; available: boolean; loses: { events: number } }>;
    recommended: { kind: string; from: string } | null;
  };
  warnings: string[];
}

const PLAN = JSON.stringify({
  phases: [
    { id: 'design', name: 'Design' },
    { id: 'build', name: 'Build', blockedBy: ['design'] },
    { id: 'test', name: 'Test', blockedBy: ['build'], maxRetries: 1 },
  ],
});

/** design done (with a.txt and gone.txt), build in flight at sub-step compile (with b.txt, old.txt deleted). */
async function midRun(): Promise<Workspace> {
  const ws = workspace();
  // A git work tree (new files are those not in HEAD); plan.json and old.txt predate the session.
  execFileSync('git', ['init', '-q'], { cwd: ws.dir });
  ws.write('plan.json', PLAN);
  ws.write('old.txt', 'old');
  await ws.ok(['start', 'Resume me', '--id', 'rs', '--plan', 'plan.json']);
  await ws.ok(['phase', 'start', 'design']);
  ws.write('a.txt', 'alpha');
  ws.write('gone.txt', 'soon gone');
  await ws.ok(['file', 'created', 'a.txt', 'gone.txt']);
  await ws.ok(['phase', 'complete', 'design']);
  await ws.ok(['phase', 'start', 'build']);
  await ws.ok(['substep', 'build', 'compile']);
  ws.write('b.txt', 'beta');
  fs.rmSync(ws.path('old.txt'));
  await ws.ok(['file', 'created', 'b.txt']);
  await ws.ok(['file', 'deleted', 'old.txt']);
  return ws;
}

function fileKind(plan: Plan, p: string): FileCheck | undefined {
  return plan.files.byPhase.flatMap((g) => g.files).find((f) => f.path === p);
}

describe('baton resume: the plan', () => {
  it('changes nothing and tells where to resume, what is blocked, and what changed outside the session', async () => {
    const ws = await midRun();
    await ws.ok(['pause']);
    // Outside the session: an edit, a deletion, and a deleted file put back.
    ws.write('a.txt', 'alpha, edited by hand');
    fs.rmSync(ws.path('gone.txt'));
    ws.write('old.txt', 'back again');
    ws.write('notes/surprise.md', 'made by someone else');
    const before = fs.readFileSync(ws.path('.baton', 'sessions', 'rs', 'journal.jsonl'));
    const plan = await ws.json<Plan>(['resume']);
    expect(fs.readFileSync(ws.path('.baton', 'sessions', 'rs', 'journal.jsonl'))).toEqual(before);

    expect(plan).toMatchObject({ sessionId: 'rs', status: 'paused', resumable: true, planChanged: false });
    expect(plan.lastCompleted?.phaseId).toBe('design');
    expect(plan.inFlight).toMatchObject([{ phaseId: 'build', subStep: 'compile', resumeAt: 'substep' }]);
    expect(plan.blocked).toMatchObject([{ phaseId: 'test', openBlockers: [{ phaseId: 'build' }] }]);
    expect(plan.next.steps[0]).toMatchObject({ phaseId: 'build', action: 'resume' });
    expect(fileKind(plan, 'a.txt')?.kind).toBe('changed');
    expect(fileKind(plan, 'gone.txt')?.kind).toBe('vanished');
    expect(fileKind(plan, 'old.txt')?.kind).toBe('reappeared');
    expect(fileKind(plan, 'b.txt')).toMatchObject({ kind: 'unchanged', possiblyHalfWritten: true });
    expect(plan.files.outsideChanges).toBe(true);
    // New files nobody recorded (plan.json predates the session; .baton is baton's own).
    expect(plan.files.newFiles).toEqual(['notes/surprise.md']);
    // Files of a completed phase changed: a checkpoint exists (taken when design completed) and
    // is offered, but restoring it would not put the files back, so it is not recommended.
    expect(plan.recovery.recommended?.kind).toBe('live');
    const cp = plan.recovery.options.find((o) => o.kind === 'checkpoint')!;
    expect(cp.available).toBe(true);
    expect(cp.loses.events).toBeGreaterThan(0);
    expect(plan.recovery.options.map((o) => o.kind)).toEqual(['checkpoint', 'live', 'fresh']);

    const human = await ws.ok(['resume']);
    expect(human.stdout).toContain('resume at sub-step "compile"');
    expect(human.stdout).toContain('a.txt: changed');
    expect(human.stdout).toMatch(/Recommended: live — Files of completed phase design changed outside the session/);
  });

  it('a changed plan file is reported', async () => {
    const ws = await midRun();
    ws.write('plan.json', PLAN.replace('"Test"', '"Tests"'));
    expect((await ws.json<Plan>(['resume'])).planChanged).toBe(true);
  });

  it('a failed phase past its retry limit is escalated, never retried automatically', async () => {
    const ws = await midRun();
    await ws.ok(['phase', 'complete', 'build']);
    await ws.ok(['phase', 'start', 'test']);
    await ws.ok(['error', 'add', '--phase', 'test', '--type', 'validation', '--message', 'flaky']);
    await ws.ok(['phase', 'fail', 'test']);
    await ws.ok(['phase', 'retry', 'test']);
    await ws.ok(['phase', 'fail', 'test']);
    const plan = await ws.json<Plan>(['resume']);
    expect(plan.failed).toMatchObject([
      {
        phaseId: 'test',
        retriesLeft: 0,
        escalation: {
          choices: [
            'baton phase retry',
            'baton phase skip',
            'baton fail',
            'baton abandon',
            'baton plan set',
            'baton plan add',
            'baton plan remove',
          ],
        },
      },
    ]);
    expect(plan.next.steps.map((s) => s.action)).not.toContain('retry');
  });

  it('a completed session has nothing to resume: the plan says so, --apply refuses', async () => {
    const ws = await midRun();
    await ws.ok(['complete', '--force']);
    const plan = await ws.json<Plan>(['resume', 'rs']);
    expect(plan.resumable).toBe(false);
    expectError(await ws.run(['resume', 'rs', '--apply']), 'INVALID_TRANSITION');
  });
});

describe('baton resume --apply / --from', () => {
  it('live: the session becomes active and a lease held by the dead run is fenced off', async () => {
    const ws = await midRun();
    await ws.ok(['pause']);
    const r = await ws.json<{ appliedFrom: string; status: string }>(['resume', '--from', 'live']);
    expect(r).toMatchObject({ appliedFrom: 'live', status: 'active' });
    const types = (await ws.json<Array<{ type: string }>>(['log'])).map((e) => e.type).slice(-3);
    expect(types).toEqual(['session.resumed', 'lease.acquired', 'lease.released']);
    expectError(await ws.run(['note', 'add', 'zombie'], { env: { BATON_LEASE_TOKEN: '0' } }), 'FENCED');
  });

  it('checkpoint: the work goes back to the checkpoint; fresh: back to the start; history stays', async () => {
    const ws = await midRun();
    await ws.ok(['pause']);
    const plan = await ws.json<Plan>(['resume']);
    const from = plan.recovery.options.find((o) => o.kind === 'checkpoint')!.from!;
    await ws.ok(['resume', '--from', from]);
    let s = await ws.status();
    expect(s.phases.map((p) => [p.id, p.status])).toEqual([
      ['design', 'completed'],
      ['build', 'pending'],
      ['test', 'pending'],
    ]);
    const events = await ws.json<Array<{ type: string }>>(['log']);
    expect(events.some((e) => e.type === 'substep.reached')).toBe(true); // nothing was rewritten
    await ws.ok(['pause']);
    await ws.ok(['resume', '--from', 'fresh']);
    s = await ws.status();
    expect(s.status).toBe('active');
    expect(s.phases.every((p) => p.status === 'pending')).toBe(true);
  });

  it('an unknown option or checkpoint is a coded error', async () => {
    const ws = await midRun();
    await ws.ok(['pause']);
    expectError(await ws.run(['resume', '--from', 'yesterday']), 'BAD_INPUT');
    expectError(await ws.run(['resume', '--from', 'checkpoint:cp-99']), 'NOT_FOUND');
  });
});

describe('baton handoff', () => {
  it('a Markdown briefing from state: phases, where to resume, errors, decisions, files, tokens, next actions', async () => {
    const ws = await midRun();
    await ws.ok(['error', 'add', '--phase', 'build', '--type', 'runtime', '--message', 'linker | failed']);
    await ws.ok([
      'decision',
      'add',
      '--title',
      'Storage',
      '--choice',
      'SQLite',
      '--rationale',
      'one file',
      '--alternative',
      'Postgres',
    ]);
    await ws.ok(['tokens', 'add', '--agent', 'coder', '--input', '1200', '--output', '300']);
    ws.write('a.txt', 'edited');
    const md = (await ws.ok(['handoff'])).stdout;
    expect(md).toMatch(/^# Handoff: Resume me/);
    expect(md).toContain('| design | Design | ✓ completed |');
    expect(md).toContain('| build | Build | ○ in progress |');
    expect(md).toContain('resume at sub-step "compile"');
    expect(md).toContain('linker | failed');
    expect(md).toContain('Storage');
    expect(md).toContain('SQLite');
    expect(md).toContain('a.txt');
    expect(md).toContain('1,200');
    expect(md).toMatch(/## Next actions/);
    await ws.ok(['handoff', '--write', 'HANDOFF.md']);
    // The same briefing, but for the time it was generated.
    const undated = (t: string): string => t.replace(/generated \S+/, 'generated …');
    expect(undated(fs.readFileSync(ws.path('HANDOFF.md'), 'utf8'))).toBe(undated(md));
    const j = await ws.json<{ id: string; markdown: string }>(['handoff']);
    expect(j.id).toBe('rs');
    expect(j.markdown).toContain('# Handoff: Resume me');
  });

  it('handoff.md in the session folder is kept up to date after each change (but not for token counts), unless turned off', async () => {
    const ws = workspace();
    await ws.ok(['start', 'Kept', '--id', 'kept', '--phases', 'a,b']);
    const file = ws.path('.baton', 'sessions', 'kept', 'handoff.md');
    expect(fs.readFileSync(file, 'utf8')).toMatch(/^# Handoff: Kept/);
    await ws.ok(['phase', 'start', 'a']);
    expect(fs.readFileSync(file, 'utf8')).toContain('| a | a | ○ in progress |');
    const before = fs.readFileSync(file, 'utf8');
    await ws.ok(['tokens', 'add', '--agent', 'x', '--input', '7']);
    expect(fs.readFileSync(file, 'utf8')).toBe(before);
    await ws.ok(['phase', 'complete', 'a'], { env: { BATON_HANDOFF: 'off' } });
    expect(fs.readFileSync(file, 'utf8')).toBe(before);
    await ws.ok(['note', 'add', 'hello']);
    expect(fs.readFileSync(file, 'utf8')).toContain('| a | a | ✓ completed |');
  });
});
