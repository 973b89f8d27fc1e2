/**
 * Issue 27 for Go Team, bmit and CCW through the built CLI: what `baton resume` and `baton
 * handoff` print for a session imported from the toolkit (fixtures written from the seeds,
 * test/formats/toolkit-gbc-fixtures.ts).
 */
import { describe, expect, it } from 'vitest';
import { openManager } from '../../src/manager/open.js';
import {
  commitOf,
  GO_TEAM_BRANCH,
  writeBmit,
  writeCcw,
  writeCcwInReview,
  writeGoTeam,
} from '../formats/toolkit-gbc-fixtures.js';
import { expectError, workspace } from './helpers.js';
import type { Workspace } from './helpers.js';

async function imported(write: (root: string) => string, format: string): Promise<{ ws: Workspace; id: string }> {
  const ws = workspace();
  const id = write(ws.path());
  await ws.ok(['import', '--format', format, '.', '--json']);
  return { ws, id };
}

describe('resume and handoff print the toolkit rules of an imported session', () => {
  it('Go Team: the checkpoint stays recommended, with the git reset and the uncommitted-changes warning', async () => {
    const { ws, id } = await imported(
      (root) => writeGoTeam(root, { uncommitted: ['internal/ledger/post_test.go'] }),
      'go-team',
    );
    const text = (await ws.ok(['resume', '--session', id])).stdout;
    expect(text).toContain('Recommended: checkpoint:cp-04-implementation-20260302-103000');
    expect(text).toContain(`git checkout ${GO_TEAM_BRANCH} && git reset --hard ${commitOf(4)}`);
    expect(text).toContain('The session recorded uncommitted changes (internal/ledger/post_test.go)');
    const md = (await ws.ok(['handoff', '--session', id])).stdout;
    expect(md).toContain(`git checkout ${GO_TEAM_BRANCH} && git reset --hard ${commitOf(4)}`);
    expect(md).toContain('Recommended: `checkpoint:cp-04-implementation-20260302-103000`');
  });

  it('Go Team after a rollback: step 4 is not completed; the plan starts it', async () => {
    const { ws, id } = await imported((root) => writeGoTeam(root, { rollback: true }), 'go-team');
    const p = await ws.json<{ lastCompleted: { phaseId: string }; recovery: { recommended: { from: string } } }>([
      'resume',
      '--session',
      id,
    ]);
    expect(p.lastCompleted.phaseId).toBe('3');
    expect(p.recovery.recommended.from).toBe('checkpoint:cp-03-architecture-20260302-102000');
  });

  it('bmit: artifacts found under agent-output/{project}/ (nothing vanished); CCW: continue IMPLEMENT at impl-2.1', async () => {
    const b = await imported(writeBmit, 'bmit');
    const bt = (await b.ws.ok(['resume', '--session', b.id])).stdout;
    expect(bt).not.toContain('vanished');
    expect(bt).not.toContain('git checkout');
    expect(bt).toContain('agent-output/shop-api/02-architecture-assessment.md');
    const c = await imported(writeCcw, 'ccw');
    const ct = (await c.ws.ok(['resume', '--session', c.id])).stdout;
    expect(ct).toContain('Resume phase implement (IMPLEMENT) at sub-step "impl-2.1"');
    expect(ct).not.toContain('Restart phase implement');
    expect(ct).not.toContain('vanished');
  });
});

describe('CCW: a session imported before the review-is-a-phase flag', () => {
  it('baton phase complete review is not refused; baton complete before it still is', async () => {
    const { ws, id } = await imported(writeCcwInReview, 'ccw');
    // What an import made before the flag existed recorded: the review step without it.
    const m = openManager({ cwd: ws.path(), dir: ws.path('.baton') });
    const rules = (await m.get(id)).metadata['toolkitRules'] as { required: Array<Record<string, unknown>> };
    const old = { ...rules, required: rules.required.map(({ isPhase: _gone, ...r }) => r) };
    await m.change(id, () => ({
      events: [{ type: 'metadata.set', data: { key: 'toolkitRules', value: old } }],
      result: undefined,
    }));
    await m.close();
    expectError(await ws.run(['complete', '--session', id]), 'BLOCKED');
    await ws.ok(['phase', 'complete', 'review', '--session', id]);
    await ws.ok(['complete', '--session', id]);
    const s = await ws.json<{ status: string }>(['status', '--session', id]);
    expect(s.status).toBe('completed');
  });
});
