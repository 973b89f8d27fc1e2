/**
 * Issue 27, "after import, the toolkit's rules are dropped", for Maestro and BMAD, at the
 * manager: baton's own resume plan, handoff, status, budgets, lifecycle verbs and export
 * follow the toolkit's rules for a session imported from it. Fixtures: toolkit-mb-fixtures.ts.
 */
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { isBatonError } from '../../src/domain/errors.js';
import { statusView } from '../../src/domain/view.js';
import { bmadAdapter } from '../../src/formats/bmad/index.js';
import { SafeDir } from '../../src/formats/safe-dir.js';
import { yamlModule } from '../../src/formats/yaml.js';
import type { SessionManager } from '../../src/manager/manager.js';
import { openManager } from '../../src/manager/open.js';
import { tmpDir } from './core-helpers.js';
import {
  BMAD_ID,
  bmadSession,
  MAESTRO_ERR_ID,
  MAESTRO_REC_ID,
  maestroFailedWithError,
  maestroReconcile,
  writeTree,
} from './toolkit-mb-fixtures.js';

const NOW = new Date('2026-05-12T12:00:00.000Z');

async function imported(files: Record<string, string>, dir: string): Promise<{ m: SessionManager; ws: string }> {
  const ws = tmpDir('baton-tkmb-');
  writeTree(ws, files);
  const m = openManager({ cwd: ws, create: true, dir: path.join(ws, '.baton'), now: () => NOW });
  await m.formats.import(path.join(ws, dir), 'auto', { cwd: ws, now: () => NOW });
  return { m, ws };
}

async function refused(p: Promise<unknown>): Promise<{ message: string; hint: unknown }> {
  try {
    await p;
  } catch (e) {
    if (isBatonError(e, 'BLOCKED')) return { message: e.message, hint: e.hintAction };
    throw e;
  }
  throw new Error('expected BLOCKED, got success');
}

describe('Maestro after import', () => {
  it("the user's decision on each unresolved error comes first, before the failed phase's retry", async () => {
    const { m } = await imported(maestroFailedWithError(), '.gemini');
    const { plan } = await m.recovery.plan(MAESTRO_ERR_ID);
    expect(plan.next.steps.map((x) => [x.action, x.phaseId, x.errorId ?? null])).toEqual([
      ['decide', '3', 'err-1'],
      ['retry', '3', null],
    ]);
    expect(plan.next.steps[0]!.reason).toContain('3 of 12 tests fail: rounding of VAT lines');
    expect(plan.next.steps[0]!.reason).toContain('Maestro waits for the user to choose retry, skip, abort, adjust');
    expect(plan.toolkit?.waitOnErrors).toBe(true);
    const { markdown } = await m.recovery.handoff(MAESTRO_ERR_ID);
    const decide = markdown.indexOf('Decide on error err-1 of phase 3 (Tests)');
    const retry = markdown.indexOf('Retry phase 3 (Tests)');
    expect(decide).toBeGreaterThan(-1);
    expect(retry).toBeGreaterThan(decide);
    // Once the user's decision is recorded, the plan goes on with the retry.
    await m.resolveError(MAESTRO_ERR_ID, 'err-1', 'user chose retry');
    const after = (await m.recovery.plan(MAESTRO_ERR_ID)).plan;
    expect(after.next.steps.map((x) => x.action)).toEqual(['retry']);
  });

  it('totals that disagree with by_agent are reported and kept as written, in baton and in the exported file', async () => {
    const { m, ws } = await imported(maestroFailedWithError(), '.gemini');
    const s = await m.get(MAESTRO_ERR_ID);
    const view = statusView(s);
    expect(view.toolkitTokens?.written).toEqual({ input: 40100, output: 9000, cached: 1000 });
    expect(view.toolkitTokens?.warnings[0]).toContain('40,100 in / 9,000 out / 1,000 cached) disagree');
    const { plan } = await m.recovery.plan(MAESTRO_ERR_ID);
    expect(plan.warnings.some((w) => w.includes("Maestro's token totals (40,100 in"))).toBe(true);
    const { markdown } = await m.recovery.handoff(MAESTRO_ERR_ID);
    expect(markdown).toContain('disagree with its per-agent breakdown (44,100 / 9,000 / 1,000)');
    // Tokens recorded in baton since move the written total, not the sum.
    await m.tokens(MAESTRO_ERR_ID, { agent: 'tester', phase: '3', input: 500, output: 0, cached: 0 });
    await m.formats.export(MAESTRO_ERR_ID, 'maestro', path.join(ws, 'out'), { cwd: ws, now: () => NOW });
    const text = fs.readFileSync(path.join(ws, 'out', 'state', 'active-session.md'), 'utf8');
    expect(text).toMatch(/total_input: 40600\b/);
    expect(text).toMatch(/tester:\s*\n\s*input: 14500/);
  });

  it('a phase awaiting reconciliation: phase complete, complete and archive refuse with the reason; force goes ahead, recorded', async () => {
    const { m } = await imported(maestroReconcile('in_progress'), 'docs/maestro');
    const done = await refused(m.phase(MAESTRO_REC_ID, '2', 'complete'));
    expect(done.message).toContain('Maestro refuses to complete phase 2 before reconciliation of phase 2');
    expect(done.message).toContain('RECONCILIATION_PENDING');
    expect(done.hint).toMatchObject({ action: 'toolkit.required-first' });
    const r = await m.phase(MAESTRO_REC_ID, '2', 'complete', { force: true });
    expect(r.state.phases.find((p) => p.id === '2')?.status).toBe('completed');
    const c = await refused(m.lifecycle(MAESTRO_REC_ID, 'complete'));
    expect(c.message).toContain('reconciliation of phase 1');
    expect(c.message).not.toContain('reconciliation of phase 2');
    // Nothing was completed by the refusal.
    expect((await m.get(MAESTRO_REC_ID)).status).toBe('active');
    const s = await m.lifecycle(MAESTRO_REC_ID, 'complete', null, { force: true });
    expect(s.status).toBe('completed');
    const notes = (s.metadata.toolkitRules as { notes: string[] }).notes;
    expect(notes.some((n) => n.includes('reconciliation of phase 1') && n.includes('waived with force'))).toBe(true);
    // Waived once, by a person: archiving does not refuse again for the same step.
    expect((await m.archive(MAESTRO_REC_ID)).archived).toBe(true);
  });

  it('a completed session with a reconciliation pending: archive and export into state/archive refuse', async () => {
    const { m, ws } = await imported(maestroReconcile('completed', 'completed'), 'docs/maestro');
    const a = await refused(m.archive(MAESTRO_REC_ID));
    expect(a.message).toContain('Maestro refuses to archive');
    expect(a.message).toContain('RECONCILIATION_PENDING');
    const out = path.join(ws, 'out');
    const e = await refused(m.formats.export(MAESTRO_REC_ID, 'maestro', out, { cwd: ws, now: () => NOW }));
    expect(e.message).toContain('reconciliation of phase 1');
    expect(fs.existsSync(path.join(out, 'state', 'archive'))).toBe(false);
    const r = await m.formats.export(MAESTRO_REC_ID, 'maestro', out, { cwd: ws, now: () => NOW, force: true });
    expect(r.written.some((p) => p.includes('state/archive/'))).toBe(true);
    expect((await m.archive(MAESTRO_REC_ID, { force: true })).archived).toBe(true);
  });
});

describe('importing a session its toolkit archived', () => {
  /** Maestro's completed session with phase 1 awaiting reconciliation, in state/archive/. */
  const archived = (): Record<string, string> => {
    const text = Object.values(maestroReconcile('completed', 'completed'))[0]!;
    return { [`docs/maestro/state/archive/${MAESTRO_REC_ID}.md`]: text };
  };
  const waived = async (m: SessionManager): Promise<boolean> =>
    JSON.stringify((await m.get(MAESTRO_REC_ID)).metadata['toolkitRules']).includes('waived');

  it("is never refused by that session's own rules: created archived, the required step still recorded, nothing waived", async () => {
    const { m, ws } = await imported(archived(), 'docs/maestro');
    const s = await m.get(MAESTRO_REC_ID);
    expect(s.archived).toBe(true);
    expect(await m.store.isArchived(MAESTRO_REC_ID)).toBe(true);
    expect((s.metadata['toolkitRules'] as { required: unknown[] }).required).toHaveLength(1);
    expect(await waived(m)).toBe(false);
    // Re-imported after Maestro changed the archived file: brought forward, still archived.
    const f = path.join(ws, `docs/maestro/state/archive/${MAESTRO_REC_ID}.md`);
    fs.writeFileSync(f, fs.readFileSync(f, 'utf8').replace('"total_input": 1200', '"total_input": 1500'));
    const r = await m.formats.import(path.join(ws, 'docs/maestro'), 'auto', { cwd: ws, now: () => NOW });
    expect(r.sessions.map((x) => [x.id, x.action, x.archived])).toEqual([[MAESTRO_REC_ID, 'updated', true]]);
    expect(r.sessions[0]!.problems.map((p) => p.code)).not.toContain('IMPORT_FAILED');
  });

  it('a session imported live, then archived by the toolkit, is archived by the re-import though its rules refuse baton archive', async () => {
    const live = maestroReconcile('completed', 'completed');
    const { m, ws } = await imported(live, 'docs/maestro');
    expect((await m.get(MAESTRO_REC_ID)).archived).toBe(false);
    // baton's own archive verb is refused by the toolkit's rule…
    expect((await refused(m.archive(MAESTRO_REC_ID))).message).toContain('Maestro refuses to archive');
    // …but Maestro archiving it is a fact the re-import records.
    fs.rmSync(path.join(ws, 'docs/maestro/state/active-session.md'));
    writeTree(ws, archived());
    const r = await m.formats.import(path.join(ws, 'docs/maestro'), 'auto', { cwd: ws, now: () => NOW });
    expect(r.sessions.map((x) => [x.id, x.action, x.archived])).toEqual([[MAESTRO_REC_ID, 'updated', true]]);
    expect(r.sessions[0]!.problems.filter((p) => p.severity === 'error')).toEqual([]);
    expect(await m.store.isArchived(MAESTRO_REC_ID)).toBe(true);
    expect(await waived(m)).toBe(false);
  });
});

describe('BMAD after import', () => {
  it('thresholds are strictly above 80 % and 95 % (exactly 80 % is ok); baton-born sessions keep theirs', async () => {
    const at80 = await imported(bmadSession(80000), '_bmad-output');
    expect(statusView(await at80.m.get(BMAD_ID)).tokens.budget).toMatchObject({ percent: 80, level: 'ok' });
    expect((await at80.m.budgets.get(BMAD_ID)).verdict.level).toBe('ok');
    const at95 = await imported(bmadSession(95000), '_bmad-output');
    expect(statusView(await at95.m.get(BMAD_ID)).tokens.budget.level).toBe('warning');
    const over = await imported(bmadSession(95001), '_bmad-output');
    expect(statusView(await over.m.get(BMAD_ID)).tokens.budget.level).toBe('critical');
    // A session born in baton: at 80 % is a warning, as docs/budgets.md says.
    const m = at80.m;
    await m.start({ title: 'native', id: 'native', phases: [{ id: 'a', name: 'a' }] });
    await m.budgets.set('native', { tokens: 1000 });
    await m.tokens('native', { agent: 'me', phase: null, input: 800, output: 0, cached: 0 });
    expect(statusView(await m.get('native')).tokens.budget.level).toBe('warning');
  });

  it("a spawned agent's tokens stay its own: not in the main session's current, added to the savings", async () => {
    const { m, ws } = await imported(bmadSession(80000), '_bmad-output');
    await m.tokens(BMAD_ID, { agent: 'dev', phase: 'agent-d2', input: 9000, output: 1000, cached: 0 });
    const s = await m.get(BMAD_ID);
    const v = statusView(s);
    expect(v.tokens.budget).toMatchObject({ used: 80000, percent: 80, level: 'ok' });
    expect(v.toolkitTokens?.isolation).toMatchObject({
      main: 80000,
      agents: { 'agent-a1': 30000, 'agent-d2': 30000 },
      saved: 60000,
      totalIfNoIsolation: 140000,
      savingsPercent: 43,
    });
    const { plan } = await m.recovery.plan(BMAD_ID);
    expect(plan.toolkit?.tokens).toContain(
      'Savings from isolation: 60,000 tokens (43%); total if no isolation 140,000',
    );
    const { markdown } = await m.recovery.handoff(BMAD_ID);
    expect(markdown).toContain('Savings from isolation: 60,000 tokens (43%)');
    expect(markdown).toContain('Budget: 80,000 of 100,000 (80%, ok)');
    await m.formats.export(BMAD_ID, 'bmad', path.join(ws, 'out'), { cwd: ws, now: () => NOW });
    const doc = yamlModule().parse(
      fs.readFileSync(path.join(ws, 'out', '_bmad-output', 'sessions', `${BMAD_ID}.yaml`), 'utf8'),
    ) as { tokens: Record<string, number> };
    expect(doc.tokens).toMatchObject({ current: 80000, saved: 60000 });
  });

  it("re-imported after an export into the same folder, an agent's tokens are neither compared with current nor saved twice", async () => {
    const { m, ws } = await imported(bmadSession(80000), '_bmad-output');
    await m.tokens(BMAD_ID, { agent: 'dev', phase: 'agent-d2', input: 9000, output: 1000, cached: 0 });
    await m.formats.export(BMAD_ID, 'bmad', ws, { cwd: ws, now: () => NOW });
    const r = await m.formats.import(path.join(ws, '_bmad-output'), 'auto', { cwd: ws, now: () => NOW });
    const again = r.sessions.find((x) => x.id === BMAD_ID)!;
    expect(again.problems.filter((p) => p.code === 'REIMPORT_DIVERGED' && p.severity !== 'info')).toEqual([]);
    const s = await m.get(BMAD_ID);
    expect(s.tokens.input + s.tokens.output).toBe(90000);
    expect(statusView(s).toolkitTokens?.isolation).toMatchObject({ main: 80000, saved: 60000 });
  });

  it("a re-run agent does not overwrite the failed agent's record: both are kept", async () => {
    const { m, ws } = await imported(bmadSession(40000), '_bmad-output');
    await m.phase(BMAD_ID, 'agent-d2', 'retry');
    await m.tokens(BMAD_ID, { agent: 'dev', phase: 'agent-d2', input: 7000, output: 0, cached: 0 });
    await m.phase(BMAD_ID, 'agent-d2', 'complete');
    await m.formats.export(BMAD_ID, 'bmad', path.join(ws, 'out'), { cwd: ws, now: () => NOW });
    const doc = yamlModule().parse(
      fs.readFileSync(path.join(ws, 'out', '_bmad-output', 'sessions', `${BMAD_ID}.yaml`), 'utf8'),
    ) as { agents_spawned: Array<Record<string, unknown>> };
    expect(doc.agents_spawned.map((a) => [a.id, a.status, a.tokens_used])).toEqual([
      ['agent-a1', 'completed', 30000],
      ['agent-d2', 'failed', 20000],
      ['agent-d2-rerun-1', 'completed', 7000],
    ]);
    expect(doc.agents_spawned[1]).toMatchObject({ started: '2026-05-10T09:00:00Z', completed: '2026-05-10T09:30:00Z' });
  });

  /** The exported session file, parsed, and what BMAD's rules say reading it back. */
  async function readBack(
    dir: string,
  ): Promise<{ agents: Array<Record<string, unknown>>; tokens: Record<string, number>; codes: string[] }> {
    const doc = yamlModule().parse(
      fs.readFileSync(path.join(dir, '_bmad-output', 'sessions', `${BMAD_ID}.yaml`), 'utf8'),
    ) as { agents_spawned: Array<Record<string, unknown>>; tokens: Record<string, number> };
    const r = await bmadAdapter.inspect(await SafeDir.open(dir), NOW);
    const s = r.sessions.find((x) => x.id === BMAD_ID)!;
    return { agents: doc.agents_spawned, tokens: doc.tokens, codes: [...r.problems, ...s.problems].map((p) => p.code) };
  }

  it('tokens recorded against an agent move its tokens_used with saved, as BMAD does: no TOKENS_DISAGREE read back', async () => {
    const { m, ws } = await imported(bmadSession(40000), '_bmad-output');
    // As imported, saved (50000) is the agents' tokens_used (30000 + 20000).
    expect((await readBack(ws)).codes).not.toContain('TOKENS_DISAGREE');
    await m.tokens(BMAD_ID, { agent: 'analyst', phase: 'agent-a1', input: 4000, output: 1000, cached: 0 });
    await m.formats.export(BMAD_ID, 'bmad', path.join(ws, 'out'), { cwd: ws, now: () => NOW });
    const back = await readBack(path.join(ws, 'out'));
    expect(back.tokens).toMatchObject({ current: 40000, saved: 55000 });
    expect(back.agents.map((a) => [a.id, a.tokens_used])).toEqual([
      ['agent-a1', 35000],
      ['agent-d2', 20000],
    ]);
    expect(back.codes).not.toContain('TOKENS_DISAGREE');
  });

  it('re-imported after a re-run was exported: the failed record and the re-run are one retried phase, nothing duplicated or doubled', async () => {
    const { m, ws } = await imported(bmadSession(40000), '_bmad-output');
    await m.phase(BMAD_ID, 'agent-d2', 'retry');
    await m.tokens(BMAD_ID, { agent: 'dev', phase: 'agent-d2', input: 7000, output: 0, cached: 0 });
    await m.phase(BMAD_ID, 'agent-d2', 'complete');
    await m.formats.export(BMAD_ID, 'bmad', ws, { cwd: ws, now: () => NOW });
    const records = [
      ['agent-a1', 'completed', 30000],
      ['agent-d2', 'failed', 20000],
      ['agent-d2-rerun-1', 'completed', 7000],
    ];
    const first = await readBack(ws);
    expect(first.agents.map((a) => [a.id, a.status, a.tokens_used])).toEqual(records);
    expect(first.tokens.saved).toBe(57000);
    expect(first.codes).not.toContain('TOKENS_DISAGREE');

    const r = await m.formats.import(path.join(ws, '_bmad-output'), 'auto', { cwd: ws, now: () => NOW });
    const again = r.sessions.find((x) => x.id === BMAD_ID)!;
    expect(again.action).toBe('updated');
    expect(again.problems.filter((p) => p.severity !== 'info')).toEqual([]);
    const s = await m.get(BMAD_ID);
    expect(s.phases.map((p) => [p.id, p.status, p.retryCount])).toEqual([
      ['agent-a1', 'completed', 0],
      ['agent-d2', 'completed', 1],
    ]);
    expect(s.tokens.input + s.tokens.output).toBe(47000);
    expect(statusView(s).toolkitTokens?.isolation).toMatchObject({
      main: 40000,
      agents: { 'agent-a1': 30000, 'agent-d2': 27000 },
      saved: 57000,
    });
    // Exported again: the same three records, none repeated, the failed one as BMAD left it.
    await m.formats.export(BMAD_ID, 'bmad', path.join(ws, 'out'), { cwd: ws, now: () => NOW });
    const second = await readBack(path.join(ws, 'out'));
    expect(second.agents.map((a) => [a.id, a.status, a.tokens_used])).toEqual(records);
    expect(second.agents[1]).toEqual(first.agents[1]);
    expect(second.tokens.saved).toBe(57000);

    // Imported fresh elsewhere, the exported file is the same retried phase.
    const ws2 = tmpDir('baton-tkmb-');
    fs.cpSync(path.join(ws, '_bmad-output'), path.join(ws2, '_bmad-output'), { recursive: true });
    const m2 = openManager({ cwd: ws2, create: true, dir: path.join(ws2, '.baton'), now: () => NOW });
    await m2.formats.import(path.join(ws2, '_bmad-output'), 'auto', { cwd: ws2, now: () => NOW });
    const fresh = await m2.get(BMAD_ID);
    expect(fresh.phases.map((p) => [p.id, p.status, p.retryCount])).toEqual([
      ['agent-a1', 'completed', 0],
      ['agent-d2', 'completed', 1],
    ]);
    expect(statusView(fresh).toolkitTokens?.isolation).toMatchObject({ agents: { 'agent-d2': 27000 }, saved: 57000 });
    await m2.formats.export(BMAD_ID, 'bmad', path.join(ws2, 'out'), { cwd: ws2, now: () => NOW });
    expect((await readBack(path.join(ws2, 'out'))).agents.map((a) => [a.id, a.status, a.tokens_used])).toEqual(records);
  });
});
