/**
 * bmit through the real formats core and the manager: import → export → import gives the
 * same baton session; importing an unchanged project again appends nothing; a project that
 * moved on in bmit is brought forward by re-import; the source folder is never written.
 */
import fs from 'node:fs/promises';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { SessionState } from '../../src/domain/state.js';
import { bmitAdapter } from '../../src/formats/bmit/index.js';
import { provenanceOf } from '../../src/formats/import.js';
import { cleanTemps, copyCase, FIXTURES, inspectAt, NOW, only, snapshot, tempDir } from './bmit-helpers.js';
import { clockedManager, timeOrMadeUp } from './core-helpers.js';

afterEach(cleanTemps);

const manager = clockedManager;
const o = { cwd: '/', now: () => NOW, adapters: [bmitAdapter] };

/** What must survive the round trip; times baton made up at import (provenance.untimed) are left out. */
const view = (x: SessionState) => {
  const t = timeOrMadeUp(x);
  return {
    title: x.title,
    status: x.status,
    archived: x.archived,
    phases: x.phases.map((p) => ({
      id: p.id,
      name: p.name,
      status: p.status,
      agents: p.agents,
      subStep: p.subStep,
      files: p.files.map((f) => [f.path, f.action]),
      startedAt: t(`phase:${p.id}:startedAt`, p.startedAt),
      completedAt: t(`phase:${p.id}:completedAt`, p.completedAt),
      metadata: Object.fromEntries(Object.entries(p.metadata).filter(([k]) => k !== 'claim')),
    })),
    decisions: x.decisions.map((d) => [
      d.title,
      d.choice,
      d.rationale,
      d.alternatives,
      d.agent,
      d.phaseId,
      t(`decision:${d.id}`, d.time),
    ]),
    findings: x.findings.map((f) => [f.text, f.severity, f.phaseId, f.removed]),
  };
};

describe('bmit: import → export → import through the manager', () => {
  it.each(['mid-run', 'substep', 'out-of-order', 'completed', 'v1', 'v2', 'no-version', 'corrupt-with-bak'])(
    '%s: the second import equals the first',
    async (c) => {
      const src = await copyCase('bmit', c);
      const before = await snapshot(src);
      const m1 = manager();
      const first = await m1.formats.import(src, 'bmit', o);
      expect(first.sessions.map((s) => s.action)).toEqual(['created']);
      expect(await snapshot(src)).toEqual(before);
      const out = await tempDir('bmit-rt');
      const id = first.sessions[0]!.id as string;
      const ex = await m1.formats.export(id, 'bmit', out, o);
      expect(ex.written).toEqual([
        `agent-output/${ex.foreignId}/00-session-state.json`,
        `agent-output/${ex.foreignId}/00-handoff.md`,
      ]);
      const m2 = manager();
      const second = await m2.formats.import(out, 'bmit', o);
      expect(second.sessions.map((s) => [s.id, s.action])).toEqual([[id, 'created']]);
      expect(view(await m2.get(id))).toEqual(view(await m1.get(id)));
    },
  );

  it('importing the same project again appends nothing', async () => {
    const m = manager();
    const src = path.join(FIXTURES, 'bmit', 'substep');
    await m.formats.import(src, 'bmit', o);
    const rev = (await m.get('fabrikam-api')).revision;
    const again = await m.formats.import(src, 'bmit', o);
    expect(again.sessions.map((s) => s.action)).toEqual(['unchanged']);
    expect((await m.get('fabrikam-api')).revision).toBe(rev);
  });

  it('re-import brings the session forward when the project moved on in bmit', async () => {
    const m = manager();
    const src = await copyCase('bmit', 'mid-run');
    await m.formats.import(src, 'bmit', o);
    const f = path.join(src, 'agent-output/contoso-web/00-session-state.json');
    const doc = JSON.parse(await fs.readFile(f, 'utf8'));
    doc.steps['2'] = {
      ...doc.steps['2'],
      status: 'complete',
      completed: '2026-05-02T11:00:00Z',
      artifacts: ['02-architecture-assessment.md'],
    };
    doc.steps['3'] = {
      ...doc.steps['3'],
      status: 'in_progress',
      started: '2026-05-02T11:05:00Z',
      sub_step: 'phase_2_diagram',
    };
    await fs.writeFile(f, JSON.stringify(doc, null, 2));
    const again = await m.formats.import(src, 'bmit', o);
    expect(again.sessions.map((s) => s.action)).toEqual(['updated']);
    const s = await m.get('contoso-web');
    expect(s.phases.map((p) => [p.id, p.status, p.subStep])).toEqual([
      ['1', 'completed', null],
      ['2', 'completed', null],
      ['3', 'in_progress', 'phase_2_diagram'],
      ['3_5', 'pending', null],
      ['4', 'pending', null],
      ['5', 'pending', null],
      ['6', 'pending', null],
      ['7', 'pending', null],
    ]);
    expect(s.phases[1]!.files.map((x) => x.path)).toEqual(['02-architecture-assessment.md']);
  });

  it('an export into the imported folder itself keeps the previous state as .bak and reads back the same', async () => {
    const m = manager();
    const src = await copyCase('bmit', 'v2');
    const first = await m.formats.import(src, 'bmit', o);
    const prev = await fs.readFile(path.join(src, 'agent-output/locked-two/00-session-state.json'), 'utf8');
    const ex = await m.formats.export(first.sessions[0]!.id as string, 'bmit', src, o);
    expect(ex.backups).toEqual(['agent-output/locked-two/00-session-state.json.bak']);
    expect(await fs.readFile(path.join(src, 'agent-output/locked-two/00-session-state.json.bak'), 'utf8')).toBe(prev);
    const s = only(await inspectAt(bmitAdapter, src));
    expect(s.problems.map((p) => p.code)).toEqual([]);
    expect(s.resume).toMatchObject({ action: 'skip-to-substep', unitId: '2', subStep: 'phase_2_waf' });
  });
});

describe('bmit: times baton made up at import', () => {
  it('are written back as none while they stand, and as the real time once baton restarts the step', async () => {
    const m = manager();
    const src = await copyCase('bmit', 'mid-run');
    const f = path.join(src, 'agent-output/contoso-web/00-session-state.json');
    const doc = JSON.parse(await fs.readFile(f, 'utf8'));
    doc.steps['2'] = { ...doc.steps['2'], status: 'in_progress', started: null, completed: null };
    await fs.writeFile(f, JSON.stringify(doc, null, 2));
    const id = (await m.formats.import(src, 'bmit', o)).sessions[0]!.id as string;
    expect(provenanceOf(await m.get(id))?.untimed).toContain('phase:2:startedAt');
    const step2 = async () => {
      const out = await tempDir('bmit-untimed');
      const ex = await m.formats.export(id, 'bmit', out, o);
      return JSON.parse(await fs.readFile(path.join(out, `agent-output/${ex.foreignId}/00-session-state.json`), 'utf8'))
        .steps['2'];
    };
    // While the step still runs from the import, its start time is unknown, as in the source.
    expect((await step2()).started).toBeNull();
    await m.phase(id, '2', 'fail', { reason: 'quota' });
    await m.phase(id, '2', 'retry');
    await m.phase(id, '2', 'complete');
    const p = (await m.get(id)).phases.find((x) => x.id === '2')!;
    const written = await step2();
    expect(written.status).toBe('complete');
    expect([written.started, written.completed]).toEqual([p.startedAt, p.completedAt]);
    expect(written.started).not.toBeNull();
  });
});
