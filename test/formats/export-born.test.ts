/**
 * Sessions born in baton (phases of their own) exported to each of the five layouts by the
 * mapping docs/formats/<layout>.md documents, and read back by that layout's own rules:
 * baton's inspect of the exported folder reports no rule violation and the toolkit's resume
 * point is the phase in progress. What a layout cannot hold is said in the export's output,
 * never bent: Go Team and bmit do not place foreign phases on their fixed steps, BMAD gets
 * no phantom running agent, CCW no current_phase outside PLAN/IMPLEMENT/REVIEW and no
 * working agent among the completed ones.
 */
import fs from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { fold } from '../../src/domain/apply.js';
import { isBatonError } from '../../src/domain/errors.js';
import type { StoredEvent } from '../../src/domain/events.js';
import type { SessionState } from '../../src/domain/state.js';
import { bmadAdapter } from '../../src/formats/bmad/index.js';
import { bmitAdapter } from '../../src/formats/bmit/index.js';
import { ccwAdapter } from '../../src/formats/ccw/index.js';
import { exportInput, runExport } from '../../src/formats/export.js';
import { goTeamAdapter } from '../../src/formats/go-team/index.js';
import { maestroAdapter } from '../../src/formats/maestro/index.js';
import { SafeDir } from '../../src/formats/safe-dir.js';
import type { FormatAdapter, FormatProblem, ForeignSession } from '../../src/formats/types.js';
import { cleanTemps, tempDir } from './bmit-helpers.js';

afterEach(cleanTemps);

const actor = { agent: 'tester', pid: 1, host: 'h' };
const NOW = new Date('2026-06-01T09:08:00Z');

/** A session born in baton: the first phase done (a file), the second in progress (a file, an error, tokens), the rest pending. */
function born(phases: string[]): SessionState {
  const [done, doing] = phases as [string, string];
  const at = (m: number) => `2026-06-01T09:0${m}:00.000Z`;
  const ev = [
    {
      type: 'session.created',
      data: {
        title: 'Born here',
        idFormat: 'date',
        phases: phases.map((id) => ({ id, name: id[0]!.toUpperCase() + id.slice(1) })),
        budgetMax: null,
        contextSummary: 'Working on the cache',
      },
      time: at(0),
    },
    { type: 'phase.started', data: { phaseId: done, agent: 'planner', forced: false }, time: at(1) },
    {
      type: 'file.recorded',
      data: { phaseId: done, path: 'docs/plan.md', action: 'created', hash: null },
      time: at(2),
    },
    { type: 'phase.completed', data: { phaseId: done, agent: 'planner' }, time: at(3) },
    { type: 'phase.started', data: { phaseId: doing, agent: 'coder', forced: false }, time: at(4) },
    {
      type: 'file.recorded',
      data: { phaseId: doing, path: 'src/cache.ts', action: 'modified', hash: null },
      time: at(5),
    },
    {
      type: 'error.recorded',
      data: { id: 'err-1', phaseId: doing, type: 'validation', message: 'cache test fails' },
      time: at(6),
    },
    {
      type: 'tokens.recorded',
      data: { agent: 'coder', phaseId: doing, input: 1200, output: 300, cached: 0 },
      time: at(7),
    },
  ];
  return fold(
    null,
    ev.map((e, i) => ({ ...e, actor, seq: i + 1 }) as StoredEvent),
    'born-1',
  )!;
}

async function exportAndRead(a: FormatAdapter, state: SessionState) {
  const out = await tempDir(`born-${a.name}`);
  const r = await runExport(
    a,
    exportInput(state, a.name, NOW),
    await SafeDir.open(out, process.cwd(), { create: true }),
  );
  const report = await a.inspect(await SafeDir.open(out), NOW);
  expect(report.sessions).toHaveLength(1);
  const s = report.sessions[0]!;
  return { out, r, report, s, problems: [...report.problems, ...s.problems] };
}

/** Problems that say the folder breaks the layout's rules (notes are not). */
function violations(ps: FormatProblem[]): string[] {
  return ps.filter((p) => p.severity !== 'info').map((p) => `${p.code}: ${p.message}`);
}

function units(s: ForeignSession): string {
  return s.units.map((u) => `${u.id}:${u.status}`).join(' ');
}

describe('a session born in baton, exported and read back by the layout rules', () => {
  it('maestro: its phases as they are; resume continues build', async () => {
    const { r, s, problems } = await exportAndRead(maestroAdapter, born(['plan', 'build', 'ship']));
    expect(r.problems).toEqual([]);
    expect(violations(problems)).toEqual([]);
    expect(units(s)).toBe('plan:completed build:in_progress ship:pending');
    expect(s.resume.unitId).toBe('build');
    expect(s.unresolvedErrors.map((e) => e.message)).toEqual(['cache test fails']);
    expect(s.tokens?.input).toBe(1200);
  });

  it('go-team: phases named after its steps are those steps; resume is the step in progress', async () => {
    const { r, s, problems } = await exportAndRead(goTeamAdapter, born(['init', 'requirements', 'architecture']));
    expect(violations(problems)).toEqual([]);
    expect(units(s)).toMatch(/^1:completed 2:in_progress 3:pending/);
    expect(s.resume.unitId).toBe('2');
    expect(s.tokens?.byAgent?.coder).toEqual({ input: 1200, output: 300, cached: 0 });
    // Files and errors Go Team cannot hold are said, not dropped silently.
    expect(r.problems.map((p) => [p.code, p.severity])).toEqual([['NOT_REPRESENTED', 'info']]);
    expect(r.problems[0]!.message).toMatch(/2 file record\(s\) and 1 error\(s\)/);
  });

  it('bmit: phases named after its steps are those steps; resume is the step in progress, not step 1', async () => {
    const { out, r, s, problems } = await exportAndRead(bmitAdapter, born(['requirements', 'architecture', 'design']));
    expect(violations(problems)).toEqual([]);
    expect(units(s)).toBe('1:completed 2:in_progress 3:pending 3_5:pending 4:pending 5:pending 6:pending 7:pending');
    expect(s.resume.unitId).toBe('2');
    const doc = JSON.parse(fs.readFileSync(path.join(out, 'agent-output/born-1/00-session-state.json'), 'utf8'));
    expect(doc.current_step).toBe(2);
    expect(Object.keys(doc.steps).sort()).toEqual(['1', '2', '3', '3_5', '4', '5', '6', '7']);
    expect(r.problems.map((p) => p.code)).toEqual(['NOT_REPRESENTED']);
  });

  it('bmad: no phantom running agent for a phase not started (said); the agent in progress is the resume point', async () => {
    const { out, r, s, problems } = await exportAndRead(bmadAdapter, born(['plan', 'build', 'ship']));
    expect(units(s)).toBe('plan:completed build:in_progress');
    // BMAD reads every agent left running in a file at rest as orphaned (its conversation is
    // gone): the one in progress is that, and nothing else is.
    expect(violations(problems).filter((v) => !v.startsWith('ORPHANED_AGENT'))).toEqual([]);
    expect(problems.find((p) => p.code === 'ORPHANED_AGENT')?.details).toEqual({ agents: ['build'] });
    expect(s.resume.reason).toMatch(/orphaned agent build\b/);
    const said = r.problems.find((p) => p.code === 'NOT_REPRESENTED')!;
    expect(said.severity).toBe('warning');
    expect(said.message).toMatch(/not started \(ship\)/);
    const text = fs.readFileSync(path.join(out, '_bmad-output/sessions/born-1.yaml'), 'utf8');
    expect(text).toContain('created: "2026-06-01T09:00:00Z"');
    expect(text).not.toContain('id: ship');
  });

  it('ccw: no current_phase outside PLAN/IMPLEMENT/REVIEW, the working agent is current (not completed), a CCW id', async () => {
    const { out, r, s, problems } = await exportAndRead(ccwAdapter, born(['plan', 'build', 'ship']));
    expect(violations(problems)).toEqual([]);
    expect(s.id).toBe('WFS-born-1');
    expect(units(s)).toBe('plan:completed build:in_progress ship:pending');
    expect(s.resume.unitId).toBe('build');
    const doc = JSON.parse(
      fs.readFileSync(path.join(out, '.workflow/active/WFS-born-1/workflow-session.json'), 'utf8'),
    );
    expect(doc.session_id).toBe('WFS-born-1');
    expect('current_phase' in doc).toBe(false);
    expect(doc.checkpoints.build).toMatchObject({ agents_completed: [], current_agent: 'coder' });
    expect(doc.checkpoints.plan).toMatchObject({ agents_completed: ['planner'], current_agent: null });
    const said = r.problems.map((p) => p.message).join('\n');
    expect(said).toMatch(/born-1 was written as WFS-born-1/);
    expect(said).toMatch(/the current phase build/);
    expect(said).toMatch(/1 error\(s\).*1500 token\(s\)/);
  });
});

describe('fixed-step layouts do not bend a plan of other phases onto their steps', () => {
  it.each([
    ['go-team', /Go Team runs nine fixed steps .*plan, build, ship/],
    ['bmit', /bmit runs eight fixed steps .*plan, build, ship/],
  ] as const)('%s: none of the phases is a step: refused, nothing written', async (name, msg) => {
    const a = name === 'bmit' ? bmitAdapter : goTeamAdapter;
    const out = await tempDir('born-none');
    const dir = await SafeDir.open(out, process.cwd(), { create: true });
    const err = await runExport(a, exportInput(born(['plan', 'build', 'ship']), a.name, NOW), dir).catch((e) => e);
    expect(isBatonError(err) && err.code).toBe('BAD_INPUT');
    expect(String(err.message)).toMatch(msg);
    expect(fs.readdirSync(out)).toEqual([]);
  });

  it('go-team: an in-progress build is not step 2 requirements; it is said and listed as a pending task', async () => {
    const { out, r, s } = await exportAndRead(goTeamAdapter, born(['init', 'build', 'testing']));
    expect(s.units.find((u) => u.id === '2')?.status).toBe('pending');
    expect(s.units.filter((u) => u.status === 'in_progress').map((u) => u.id)).not.toContain('2');
    const said = r.problems.find((p) => p.code === 'NOT_REPRESENTED' && p.severity === 'warning')!;
    expect(said.details).toMatchObject({ phases: ['build'] });
    const live = JSON.parse(fs.readFileSync(path.join(out, 'checkpoints/born-1/state.json'), 'utf8'));
    expect(live.context.pending_tasks).toEqual(['baton phase build (Build): in progress']);
    expect(live.state.phase).not.toBe('requirements');
  });

  it('bmit: a phase that is no step is not written as one (no template plus unknown steps)', async () => {
    const { out, r } = await exportAndRead(bmitAdapter, born(['requirements', 'build', 'design']));
    const doc = JSON.parse(fs.readFileSync(path.join(out, 'agent-output/born-1/00-session-state.json'), 'utf8'));
    expect(Object.keys(doc.steps).sort()).toEqual(['1', '2', '3', '3_5', '4', '5', '6', '7']);
    expect(doc.steps['1'].status).toBe('complete');
    const said = r.problems.find((p) => p.severity === 'warning')!;
    expect(said.details).toEqual({ phases: ['build'] });
  });
});
