/**
 * The imported toolkit's own budget becomes the session's budget policy (docs/budgets.md),
 * with policy `warn`, as the toolkits only warn: BMAD's token budget (`tokens.max`, 150,000
 * when missing; yellow past 80 %, red past 95 %) and Go Team's dollar budget (token-tracking.md's
 * state extension `metrics.cost { budget, budget_warning }`, set by `*budget:set`). The Go Team
 * fixture is the mid-run case with that extension written into its state.json.
 */
import fs from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { goTeamAdapter } from '../../src/formats/go-team/index.js';
import { bmadAdapter } from '../../src/formats/bmad/index.js';
import type { SessionManager } from '../../src/manager/manager.js';
import { clockedManager } from './core-helpers.js';
import { cleanTemps, copyCase, inspectAt, NOW, tempDir } from './go-team-helpers.js';

afterEach(cleanTemps);

const BMAD = path.resolve(import.meta.dirname, '../fixtures/formats/bmad');
const STATE = '.claude/agents/microai/teams/go-team/checkpoints/session-a1b2c3d4/state.json';
const o = { cwd: '/', now: () => NOW, adapters: [goTeamAdapter, bmadAdapter] };

/** The mid-run Go Team case with `metrics.cost` (token-tracking.md) in its live state. */
function goTeamWithCost(cost: Record<string, unknown>, dir = copyCase('mid-run')): string {
  const file = path.join(dir, STATE);
  const doc = JSON.parse(fs.readFileSync(file, 'utf8')) as { state: { metrics: Record<string, unknown> } };
  doc.state.metrics = { ...doc.state.metrics, cost: { model: 'claude-3-5-sonnet', total: 1.2, ...cost } };
  fs.writeFileSync(file, `${JSON.stringify(doc, null, 2)}\n`);
  return dir;
}

async function importOne(m: SessionManager, dir: string, format: string): Promise<string> {
  const r = await m.formats.import(dir, format, o);
  expect(r.sessions.length).toBe(1);
  return r.sessions[0]!.id as string;
}

describe("the imported toolkit's own budget", () => {
  it("BMAD: tokens.max is the session's token budget, policy warn, judged as BMAD judges it (130,000 of 150,000: warning)", async () => {
    const m = clockedManager();
    const id = await importOne(m, path.join(BMAD, 'paused'), 'bmad');
    const b = await m.budgets.get(id);
    expect(b.policies.session).toEqual({ tokens: 150000, usd: null, onExceed: 'warn' });
    expect(b.verdict.checks).toEqual([
      expect.objectContaining({ scope: 'session', unit: 'tokens', used: 130000, max: 150000, level: 'warning' }),
    ]);
    expect(b.verdict.action).toBe('warn');
  });

  it("BMAD: a session file without tokens.max gets BMAD's default budget, 150,000", async () => {
    const dir = tempDir();
    fs.mkdirSync(path.join(dir, 'sessions'));
    fs.writeFileSync(
      path.join(dir, 'sessions', 'SES202601-ACME-AUDIT.yaml'),
      'session_id: SES202601-ACME-AUDIT\ncreated: "2026-01-15T10:30:00Z"\nstatus: active\nclient: ACME\nproject: AUDIT\nprefix: SES\ntokens:\n  current: 1000\n',
    );
    const m = clockedManager();
    const id = await importOne(m, dir, 'bmad');
    expect((await m.budgets.get(id)).policies.session).toEqual({ tokens: 150000, usd: null, onExceed: 'warn' });
  });

  it("Go Team: metrics.cost.budget is the session's cost budget, policy warn, recorded as a budget.set", async () => {
    const m = clockedManager();
    const id = await importOne(m, goTeamWithCost({ budget: 5, budget_warning: 0.8 }), 'go-team');
    const b = await m.budgets.get(id);
    expect(b.policies.session).toEqual({ tokens: null, usd: 5, onExceed: 'warn' });
    expect(b.verdict.checks.map((c) => [c.unit, c.max, c.onExceed])).toEqual([['usd', 5, 'warn']]);
    const sets = (await m.store.readEvents(id)).filter((e) => e.type === 'budget.set').map((e) => e.data);
    expect(sets).toEqual([{ maxUsd: 5, onExceed: 'warn' }]);
  });

  it('Go Team: the cost budget is written back on export and read again; a changed budget is brought forward on re-import', async () => {
    const m = clockedManager();
    const src = goTeamWithCost({ budget: 5 });
    const id = await importOne(m, src, 'go-team');
    const out = tempDir();
    await m.formats.export(id, 'go-team', out, o);
    const written = JSON.parse(fs.readFileSync(path.join(out, 'checkpoints/session-a1b2c3d4/state.json'), 'utf8')) as {
      state: { metrics: { cost: Record<string, unknown>; build_pass: unknown } };
    };
    expect(written.state.metrics.cost).toMatchObject({ budget: 5, model: 'claude-3-5-sonnet' });
    expect(written.state.metrics.build_pass).toBe(true);
    const m2 = clockedManager();
    expect((await m2.budgets.get(await importOne(m2, out, 'go-team'))).policies.session.usd).toBe(5);
    // `*budget:set 8.00` in Go Team, then the same folder imported again.
    goTeamWithCost({ budget: 8 }, src);
    await m.formats.import(src, 'go-team', o);
    expect((await m.budgets.get(id)).policies.session).toEqual({ tokens: null, usd: 8, onExceed: 'warn' });
  });

  it('Go Team: no budget (null, as the state extension starts) imports none; a bad one or another warning ratio is reported', async () => {
    const m = clockedManager();
    const none = await importOne(m, goTeamWithCost({ budget: null, budget_warning: 0.8 }), 'go-team');
    expect((await m.budgets.get(none)).policies.session.usd).toBeNull();

    const report = await inspectAt(goTeamWithCost({ budget: 'five dollars', budget_warning: 0.9 }));
    const messages = report.sessions[0]!.problems.map((p) => p.message);
    expect(messages).toContainEqual(expect.stringContaining('metrics.cost.budget is "five dollars"'));
    expect(report.sessions[0]!.tokens?.maxUsd ?? null).toBeNull();
    const ratio = await inspectAt(goTeamWithCost({ budget: 5, budget_warning: 0.9 }));
    expect(ratio.sessions[0]!.problems.map((p) => p.message)).toContainEqual(
      expect.stringContaining('metrics.cost.budget_warning is 0.9; baton warns at 80 % and 95 %'),
    );
    expect(ratio.sessions[0]!.tokens?.maxUsd).toBe(5);
  });
});
