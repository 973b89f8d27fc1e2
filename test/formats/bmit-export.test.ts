/**
 * bmit adapter, writing: the export plan (schema 3.0, `.bak` kept, handoff regenerated,
 * unmapped fields kept) and its output read back by `inspect` with the same facts.
 */
import fs from 'node:fs/promises';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { SessionState } from '../../src/domain/state.js';
import { bmitAdapter } from '../../src/formats/bmit/index.js';
import { exportInput, runExport } from '../../src/formats/export.js';
import { importedState, PROVENANCE_KEY } from '../../src/formats/import.js';
import { SafeDir } from '../../src/formats/safe-dir.js';
import type { ForeignSession } from '../../src/formats/types.js';
import { cleanTemps, codes, copyCase, FIXTURES, inspectAt, NOW, only, tempDir } from './bmit-helpers.js';

const CTX = { importedAt: '2026-05-30T08:00:00.000Z', root: '/src' };
/** The baton state the core's import makes of `s`. */
const imported = (s: ForeignSession): SessionState => importedState(s, CTX, s.id);

afterEach(cleanTemps);

const fx = (c: string) => path.join(FIXTURES, 'bmit', c);

/** The facts a round trip must keep. */
function facts(s: ForeignSession) {
  return {
    id: s.id,
    title: s.title,
    status: s.status,
    active: s.active,
    units: s.units.map((u) => ({
      ...u,
      metadata: Object.fromEntries(Object.entries(u.metadata).filter(([k]) => k !== 'claim')),
    })),
    position: s.position,
    resume: {
      action: s.resume.action,
      unitId: s.resume.unitId,
      subStep: s.resume.subStep,
      lastCompleted: s.resume.lastCompleted,
      warnings: s.resume.warnings,
    },
    decisions: s.decisions,
    findings: s.findings,
  };
}

/** Runs the core's export of `state` (default: the import of `s`) into `out`; returns the plan and what was written. */
async function exportTo(s: ForeignSession, out: string, state = imported(s)) {
  const input = exportInput(state, 'bmit', NOW);
  const dir = await SafeDir.open(out, process.cwd(), { create: true });
  const plan = await bmitAdapter.exportPlan(input, dir);
  const outcome = await runExport(bmitAdapter, input, dir);
  return { ...plan, outcome };
}

describe('bmit export → inspect', () => {
  for (const c of [
    'mid-run',
    'substep',
    'out-of-order',
    'completed',
    'v1',
    'v2',
    'no-version',
    'corrupt-with-bak',
    'corrupt-no-backup',
  ]) {
    it(`${c}: the exported project reads back with the same facts`, async () => {
      const a = only(await inspectAt(bmitAdapter, fx(c)));
      const out = await tempDir('bmit-out');
      await exportTo(a, out);
      const b = only(await inspectAt(bmitAdapter, out));
      expect(facts(b)).toEqual(facts(a));
      expect(b.path).toBe(
        c === 'no-version'
          ? 'agent-output/no-version/00-session-state.json'
          : `agent-output/${a.id}/00-session-state.json`,
      );
    });
  }

  it('writes schema 3.0 without lock, stale_threshold_ms and step claims, bumps updated, and the migration problems are gone', async () => {
    const a = only(await inspectAt(bmitAdapter, fx('v2')));
    const out = await tempDir('bmit-out');
    await exportTo(a, out);
    const doc = JSON.parse(await fs.readFile(path.join(out, 'agent-output/locked-two/00-session-state.json'), 'utf8'));
    expect(doc.schema_version).toBe('3.0');
    expect('lock' in doc).toBe(false);
    expect('stale_threshold_ms' in doc).toBe(false);
    expect('claim' in doc.steps['2']).toBe(false);
    // The migration is bmit's own rule, not a change baton made: `updated` is written as it was (issue 14).
    expect(doc.updated).toBe('2026-05-02T10:15:00Z');
    const b = only(await inspectAt(bmitAdapter, out));
    expect(codes(b.problems, 'NEEDS_MIGRATION')).toEqual([]);
    expect(codes(b.problems, 'LEGACY_FIELD')).toEqual([]);
  });

  it('keeps every field it does not map: unknown top-level fields, review_audit, decisions object, decision extras, finding objects', async () => {
    const a = only(await inspectAt(bmitAdapter, fx('mid-run')));
    const out = await tempDir('bmit-out');
    await exportTo(a, out);
    const before = a.documents['agent-output/contoso-web/00-session-state.json'] as Record<string, unknown>;
    const after = JSON.parse(
      await fs.readFile(path.join(out, 'agent-output/contoso-web/00-session-state.json'), 'utf8'),
    );
    expect({ ...after, updated: before['updated'] }).toEqual(before);
    const c = only(await inspectAt(bmitAdapter, fx('completed')));
    const out2 = await tempDir('bmit-out');
    await exportTo(c, out2);
    const cBefore = c.documents['agent-output/malta-bistro/00-session-state.json'] as Record<string, unknown>;
    const cAfter = JSON.parse(
      await fs.readFile(path.join(out2, 'agent-output/malta-bistro/00-session-state.json'), 'utf8'),
    );
    expect(cAfter.open_findings).toEqual(cBefore['open_findings']);
    expect(cAfter.decision_log).toEqual(cBefore['decision_log']);
  });

  it('plans the state file with backup (bmit keeps .bak) and the handoff without; a second export leaves the previous state as .bak', async () => {
    const a = only(await inspectAt(bmitAdapter, fx('mid-run')));
    const out = await copyCase('bmit', 'mid-run');
    const prev = await fs.readFile(path.join(out, 'agent-output/contoso-web/00-session-state.json'), 'utf8');
    const plan = await exportTo(a, out);
    expect(plan.writes.map((w) => [w.path, w.backup])).toEqual([
      ['agent-output/contoso-web/00-session-state.json', true],
      ['agent-output/contoso-web/00-handoff.md', false],
    ]);
    expect(plan.removes).toEqual([]);
    expect(plan.outcome.backups).toEqual(['agent-output/contoso-web/00-session-state.json.bak']);
    expect(await fs.readFile(path.join(out, 'agent-output/contoso-web/00-session-state.json.bak'), 'utf8')).toBe(prev);
  });

  it('regenerates the handoff from the JSON: a stale companion is no longer reported', async () => {
    const a = only(await inspectAt(bmitAdapter, fx('completed')));
    expect(codes(a.problems, 'STALE_COMPANION')).toHaveLength(1);
    const out = await tempDir('bmit-out');
    await exportTo(a, out);
    const md = await fs.readFile(path.join(out, 'agent-output/malta-bistro/00-handoff.md'), 'utf8');
    expect(md.split('\n')[0]).toBe('# malta-bistro — Handoff (Step 7 complete)');
    expect(md).toContain('- [x] Step 3.5 Governance — complete');
    expect(md).toContain('Current step: none');
    const b = only(await inspectAt(bmitAdapter, out));
    expect(codes(b.problems, 'STALE_COMPANION')).toEqual([]);
  });

  it('writes the restored .bak content as the state when the imported state was corrupt', async () => {
    const a = only(await inspectAt(bmitAdapter, fx('corrupt-with-bak')));
    const out = await tempDir('bmit-out');
    await exportTo(a, out);
    const b = only(await inspectAt(bmitAdapter, out));
    expect(codes(b.problems, 'CORRUPT_FILE')).toEqual([]);
    expect(b.position).toEqual({ unitId: '2', subStep: 'phase_3_cost' });
  });

  it('writes what changed in baton: a completed step, a new sub-step, a new decision (next D id), a removed finding', async () => {
    const a = only(await inspectAt(bmitAdapter, fx('mid-run')));
    const state = imported(a);
    const two = state.phases.find((p) => p.id === '2')!;
    two.subStep = 'phase_5_artifact';
    two.status = 'completed';
    two.completedAt = '2026-05-02T11:00:00.000Z';
    const three = state.phases.find((p) => p.id === '3')!;
    three.status = 'in_progress';
    three.startedAt = '2026-05-02T11:05:00.000Z';
    three.subStep = 'phase_2_diagram';
    three.agents = ['04-Design'];
    state.decisions.push({
      id: 'd9',
      title: 'Diagram tool',
      choice: 'drawio',
      rationale: null,
      alternatives: [],
      agent: '04-Design',
      phaseId: '3',
      time: '2026-05-02T11:10:00.000Z',
    });
    state.findings[0]!.removed = true;
    const out = await tempDir('bmit-out');
    await exportTo(a, out, state);
    const doc = JSON.parse(await fs.readFile(path.join(out, 'agent-output/contoso-web/00-session-state.json'), 'utf8'));
    expect(doc.steps['2']).toMatchObject({ status: 'complete', completed: '2026-05-02T11:00:00.000Z' });
    // Completed in baton after reaching a sub-step: bmit's write rule clears sub_step.
    expect(doc.steps['2'].sub_step).toBeNull();
    expect(doc.steps['3']).toMatchObject({ status: 'in_progress', sub_step: 'phase_2_diagram', agent: '04-Design' });
    expect(doc.current_step).toBe(3);
    expect(doc.decision_log[1]).toMatchObject({ id: 'D2', step: 3, title: 'Diagram tool', choice: 'drawio' });
    expect(doc.open_findings).toEqual([]);
    const b = only(await inspectAt(bmitAdapter, out));
    expect(b.resume).toMatchObject({
      action: 'skip-to-substep',
      unitId: '3',
      subStep: 'phase_2_diagram',
      lastCompleted: '2',
    });
  });

  it('writes in place when out is the project folder, under <project>/ when out is an agent-output folder', async () => {
    const a = only(await inspectAt(bmitAdapter, fx('mid-run')));
    const proj = await copyCase('bmit', 'mid-run/agent-output/contoso-web');
    const p1 = await bmitAdapter.exportPlan(exportInput(imported(a), 'bmit', NOW), await SafeDir.open(proj));
    expect(p1.writes.map((w) => w.path)).toEqual(['00-session-state.json', '00-handoff.md']);
    const ao = await copyCase('bmit', 'substep/agent-output');
    const p2 = await bmitAdapter.exportPlan(exportInput(imported(a), 'bmit', NOW), await SafeDir.open(ao));
    expect(p2.writes.map((w) => w.path)).toEqual(['contoso-web/00-session-state.json', 'contoso-web/00-handoff.md']);
  });

  it('exports a session born in baton (no original) from the template', async () => {
    const a = only(await inspectAt(bmitAdapter, fx('mid-run')));
    const state = imported(a);
    state.phases = state.phases.filter((p) => p.id === '1' || p.id === '2');
    delete state.metadata[PROVENANCE_KEY];
    state.id = 'fresh-one';
    const out = await tempDir('bmit-out');
    const input = exportInput(state, 'bmit', NOW);
    expect(input.original).toBeNull();
    await runExport(bmitAdapter, input, await SafeDir.open(out));
    const b = only(await inspectAt(bmitAdapter, out));
    expect(b.id).toBe('fresh-one');
    expect(b.units.map((u) => [u.id, u.status])).toEqual([
      ['1', 'completed'],
      ['2', 'in_progress'],
      ['3', 'pending'],
      ['3_5', 'pending'],
      ['4', 'pending'],
      ['5', 'pending'],
      ['6', 'pending'],
      ['7', 'pending'],
    ]);
    expect(b.problems).toEqual([]);
  });
});
