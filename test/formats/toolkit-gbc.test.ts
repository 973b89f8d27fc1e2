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
import { commitOf, GO_TEAM_BRANCH, writeGoTeam } from './toolkit-gbc-fixtures.js';

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
