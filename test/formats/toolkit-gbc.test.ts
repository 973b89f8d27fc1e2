/**
 * Issue 27, "after import, the toolkit's rules are dropped", for Go Team, bmit and CCW, at the
 * manager level: baton's own resume plan, handoff and journal for a session imported from the
 * toolkit follow the toolkit's rules (fixtures written from the seeds: toolkit-gbc-fixtures.ts).
 */
import fs from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { SessionManager } from '../../src/manager/manager.js';
import { openManager } from '../../src/manager/open.js';
import { tmpDir } from './core-helpers.js';
import {
  commitOf,
  GO_TEAM_BRANCH,
  writeBmit,
  writeCcw,
  writeCcwInReview,
  writeGoTeam,
} from './toolkit-gbc-fixtures.js';

const made: string[] = [];
afterEach(() => {
  for (const d of made.splice(0)) fs.rmSync(d, { recursive: true, force: true });
});

const NOW = new Date('2026-03-02T12:00:00.000Z');

/** A workspace with the toolkit's tree written by `write` into it (the repository root), imported. */
async function imported(
  write: (root: string) => string,
  format: string,
): Promise<{ ws: string; m: SessionManager; id: string }> {
  const ws = tmpDir('baton-gbc-');
  made.push(ws);
  const id = write(ws);
  const m = openManager({ cwd: ws, create: true, dir: path.join(ws, '.baton'), now: () => NOW });
  const r = await m.formats.import(ws, format, { cwd: ws, now: () => NOW });
  const s = r.sessions.find((x) => x.foreignId === id);
  expect(s?.id, JSON.stringify(r.problems)).toBeTruthy();
  return { ws, m, id: s!.id! };
}

describe('Go Team after import', () => {
  it("files a checkpoint names are not in the work tree: Go Team's safe checkpoint restore stays recommended, with its git reset", async () => {
    const { m, id } = await imported((root) => writeGoTeam(root), 'go-team');
    const { plan } = await m.recovery.plan(id);
    // internal/ledger/post.go (created by step 4) is not in this work tree.
    expect(plan.files.vanished).toBe(1);
    expect(plan.recovery.recommended?.kind).toBe('checkpoint');
    expect(plan.recovery.recommended?.from).toBe('checkpoint:cp-04-implementation-20260302-103000');
    expect(plan.recovery.recommended?.reason).toContain(`resets it to ${commitOf(4)} (git reset --hard)`);
    expect(plan.recovery.recommended?.reason).toContain('restore with the git reset (--git)');
    expect(plan.toolkit).toMatchObject({ toolkit: 'Go Team', followed: true, departure: null });
    expect(plan.toolkit?.recommended?.git).toEqual({
      branch: GO_TEAM_BRANCH,
      resetTo: commitOf(4),
      uncommittedChanges: false,
    });
  });

  it('git reset targets and the uncommitted-changes warning are in the plan and the handoff', async () => {
    const { m, id } = await imported(
      (root) => writeGoTeam(root, { uncommitted: ['internal/ledger/post_test.go'] }),
      'go-team',
    );
    const { plan, markdown } = await m.recovery.handoff(id);
    const reset = `git checkout ${GO_TEAM_BRANCH} && git reset --hard ${commitOf(4)}`;
    expect(plan.toolkit?.notes.join('\n')).toContain(reset);
    expect(plan.recovery.recommended?.reason).toContain('The toolkit recorded uncommitted changes');
    expect(markdown).toContain(reset);
    expect(markdown).toContain(
      'The session recorded uncommitted changes (internal/ledger/post_test.go); git reset --hard discards them',
    );
    expect(markdown).toContain('- Toolkit (Go Team): recommends checkpoint cp-04-implementation-20260302-103000');
  });

  it('after a rollback, the newer registry and manifest win over an older state.json: the rolled-back step is not completed', async () => {
    const { m, id } = await imported((root) => writeGoTeam(root, { rollback: true }), 'go-team');
    const st = await m.get(id);
    expect(st.phases.slice(0, 5).map((p) => `${p.id}:${p.status}`)).toEqual([
      '1:completed',
      '2:completed',
      '3:completed',
      '4:pending',
      '5:pending',
    ]);
    const { plan } = await m.recovery.plan(id);
    expect(plan.lastCompleted?.phaseId).toBe('3');
    expect(plan.recovery.recommended?.from).toBe('checkpoint:cp-03-architecture-20260302-102000');
    // The stale auto-save is not offered as if it were current.
    expect(plan.toolkit?.notes.join('\n')).toContain(
      'state.json was saved at 2026-03-02T11:00:00Z, before rollback rb-001 at 2026-03-02T11:10:00Z to step 3',
    );
  });
});

describe('bmit after import', () => {
  it('artifacts are resolved under agent-output/{project}/, both ways bmit writes them: none reported vanished', async () => {
    const { m, id } = await imported(writeBmit, 'bmit');
    const { plan } = await m.recovery.plan(id);
    expect(plan.files.vanished).toBe(0);
    expect(plan.outsideEdits).toBeNull();
    const paths = plan.files.byPhase.flatMap((g) => g.files.map((f) => f.path)).sort();
    expect(paths).toEqual([
      'agent-output/shop-api/01-requirements.md',
      'agent-output/shop-api/01-scope.md',
      'agent-output/shop-api/02-architecture-assessment.md',
    ]);
    // The state keeps the paths as bmit wrote them (an export writes them back unchanged).
    expect((await m.get(id)).phases[0]?.files.map((f) => f.path)).toEqual([
      '01-requirements.md',
      'agent-output/shop-api/01-scope.md',
    ]);
  });

  it('imported from the project folder itself, the artifacts are still found where they are', async () => {
    const ws = tmpDir('baton-gbc-');
    made.push(ws);
    writeBmit(ws);
    const m = openManager({ cwd: ws, create: true, dir: path.join(ws, '.baton'), now: () => NOW });
    const r = await m.formats.import(path.join(ws, 'agent-output', 'shop-api'), 'bmit', { cwd: ws, now: () => NOW });
    const { plan } = await m.recovery.plan(r.sessions[0]!.id!);
    expect(plan.files.vanished).toBe(0);
    expect(plan.files.byPhase[0]?.files.map((f) => f.path)).toContain('agent-output/shop-api/01-requirements.md');
  });

  it("a corrupt state with no backup: bmit's recovery event is logged in the journal on resume, once", async () => {
    const { m, id } = await imported((root) => writeBmit(root, { corrupt: true }), 'bmit');
    const { plan } = await m.recovery.plan(id);
    expect(plan.toolkit?.notes.join('\n')).toContain('On resume, bmit logs a recovery event');
    expect((await m.get(id)).notes).toEqual([]);
    await m.recovery.apply(id, { agent: 'tester' });
    const notes = (await m.get(id)).notes;
    expect(notes.map((n) => n.text)).toEqual([
      expect.stringMatching(
        /^bmit recovery event: agent-output\/shop-api\/00-session-state\.json does not parse\. No backup \(\.bak\) could be restored, so the state was created fresh from the template/,
      ),
    ]);
    expect(notes[0]?.agent).toBe('tester');
    // Resuming again does not log it twice.
    await m.recovery.apply(id, { agent: 'tester' });
    expect((await m.get(id)).notes).toHaveLength(1);
  });
});

describe('CCW after import', () => {
  it('documents are resolved in the session folder: none vanished, no git suggestion on a wrong path', async () => {
    const { m, id } = await imported(writeCcw, 'ccw');
    const { plan } = await m.recovery.plan(id);
    expect(plan.files.vanished).toBe(0);
    expect(plan.outsideEdits).toBeNull();
    expect(plan.files.byPhase.flatMap((g) => g.files.map((f) => f.path))).toEqual([
      '.workflow/WFS-ledger-sync/IMPL_PLAN.md',
      '.workflow/WFS-ledger-sync/TASK_BREAKDOWN.md',
    ]);
  });

  it('the task-level resume point is kept: continue IMPLEMENT at impl-2.1, not restart it', async () => {
    const { m, id } = await imported(writeCcw, 'ccw');
    const { plan, markdown } = await m.recovery.handoff(id);
    expect(plan.next.steps).toEqual([
      expect.objectContaining({ phaseId: 'implement', action: 'resume', subStep: 'impl-2.1' }),
    ]);
    expect(plan.next.steps[0]?.reason).toContain('CCW continues implement at task impl-2.1');
    expect(plan.inFlight[0]).toMatchObject({ phaseId: 'implement', resumeAt: 'substep', subStep: 'impl-2.1' });
    expect(markdown).toContain('Resume phase implement');
    expect(markdown).toContain('"impl-2.1"');
    expect(markdown).not.toContain('restart the phase');
  });
});

describe('CCW: a session imported before the review-is-a-phase flag', () => {
  it('completing its review phase is not refused: the flag is derived on read; completing the session before it still is', async () => {
    const { m, id } = await imported(writeCcwInReview, 'ccw');
    const s = await m.get(id);
    const rules = s.metadata['toolkitRules'] as { required: Array<Record<string, unknown>> };
    expect(rules.required).toEqual([expect.objectContaining({ phaseId: 'review', isPhase: true })]);
    // What an import made before the flag existed recorded: the same step without it.
    const old = { ...rules, required: rules.required.map(({ isPhase: _gone, ...r }) => r) };
    await m.change(id, () => ({
      events: [{ type: 'metadata.set', data: { key: 'toolkitRules', value: old } }],
      result: undefined,
    }));
    expect(
      ((await m.get(id)).metadata['toolkitRules'] as { required: Array<Record<string, unknown>> }).required[0],
    ).not.toHaveProperty('isPhase');
    // The session itself still waits for its review, as CCW does.
    await expect(m.lifecycle(id, 'complete')).rejects.toMatchObject({ code: 'BLOCKED' });
    await m.phase(id, 'review', 'complete');
    expect((await m.get(id)).phases.find((p) => p.id === 'review')?.status).toBe('completed');
    // Done by completing the phase: nothing holds up the session any more, and nothing was waived.
    const done = await m.lifecycle(id, 'complete');
    expect(done.status).toBe('completed');
    expect(JSON.stringify(done.metadata['toolkitRules'])).not.toContain('waived');
  });
});
