/**
 * bmit adapter, reading: every fact `inspect` reports for the fixture projects in
 * test/fixtures/formats/bmit/<case>/, checked one by one.
 */
import fs from 'node:fs/promises';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { bmitAdapter } from '../../src/formats/bmit/index.js';
import { SafeDir } from '../../src/formats/safe-dir.js';
import { cleanTemps, codes, FIXTURES, inspectAt, only, snapshot } from './bmit-helpers.js';

const fx = (c: string) => path.join(FIXTURES, 'bmit', c);
const inspect = (c: string) => inspectAt(bmitAdapter, fx(c));
const statuses = (s: { units: Array<{ id: string; status: string }> }) =>
  Object.fromEntries(s.units.map((u) => [u.id, u.status]));

afterEach(cleanTemps);

describe('bmit inspect: mid-run project (step 2 in progress, no sub-step)', () => {
  it('finds one project named by its folder, active, with the eight steps in workflow order', async () => {
    const r = await inspect('mid-run');
    const s = only(r);
    expect(r.format).toBe('bmit');
    expect(s.id).toBe('contoso-web');
    expect(s.title).toBe('contoso-web');
    expect(s.path).toBe('agent-output/contoso-web/00-session-state.json');
    expect(s.rawStatus).toBeNull();
    expect(s.status).toBe('active');
    expect(s.active).toBe(true);
    expect(s.archived).toBe(false);
    expect(s.units.map((u) => u.id)).toEqual(['1', '2', '3', '3_5', '4', '5', '6', '7']);
    expect(s.units.map((u) => u.name)).toEqual([
      'Requirements',
      'Architecture',
      'Design',
      'Governance',
      'IaC Plan',
      'IaC Code',
      'Deploy',
      'As-Built',
    ]);
    expect(statuses(s)).toEqual({
      '1': 'completed',
      '2': 'in_progress',
      '3': 'pending',
      '3_5': 'pending',
      '4': 'pending',
      '5': 'pending',
      '6': 'pending',
      '7': 'pending',
    });
    expect(s.units[0]!.rawStatus).toBe('complete');
    expect(s.updatedAt).toBe('2026-05-02T10:15:00Z');
    expect(s.createdAt).toBe('2026-05-02T09:00:00Z');
    expect(s.sources).toEqual([
      'agent-output/contoso-web/00-session-state.json',
      'agent-output/contoso-web/00-handoff.md',
    ]);
    expect(s.sourceHash).toMatch(/^[0-9a-f]{64}$/);
  });

  it('maps step fields: agent, times, artifacts as created files, context_files_used as read files, unknown fields in metadata', async () => {
    const s = only(await inspect('mid-run'));
    const [one, two] = s.units;
    expect(one!.agents).toEqual(['02-Requirements']);
    expect(one!.startedAt).toBe('2026-05-02T09:00:00Z');
    expect(one!.completedAt).toBe('2026-05-02T09:40:00Z');
    // Relative to the project folder, where bmit keeps them (issue 27).
    const base = 'agent-output/contoso-web';
    expect(one!.files).toEqual([{ path: '01-requirements.md', action: 'created', base }]);
    expect(two!.files).toEqual([{ path: '01-requirements.md', action: 'read', base }]);
    expect(two!.subStep).toBeNull();
    expect(two!.retries).toBeNull();
    expect(two!.metadata).toEqual({});
  });

  it('advises restarting step 2 (in_progress with sub_step null), with no warnings and no problems', async () => {
    const s = only(await inspect('mid-run'));
    expect(s.position).toEqual({ unitId: '2', subStep: null });
    expect(s.resume.action).toBe('restart');
    expect(s.resume.unitId).toBe('2');
    expect(s.resume.subStep).toBeNull();
    expect(s.resume.lastCompleted).toBe('1');
    expect(s.resume.reason).toMatch(/no sub_step/);
    expect(s.resume.warnings).toEqual([]);
    expect(s.resume.options).toEqual([]);
    expect(s.problems).toEqual([]);
  });

  it('keeps decision_log (id, step, agent, alternatives, time) and open_findings strings', async () => {
    const s = only(await inspect('mid-run'));
    expect(s.decisions).toEqual([
      {
        id: 'D1',
        title: 'Region',
        choice: 'swedencentral',
        rationale: 'EU data residency',
        alternatives: ['westeurope'],
        agent: '02-Requirements',
        unitId: '1',
        time: '2026-05-02T09:30:00Z',
      },
    ]);
    expect(s.findings).toEqual([
      { text: 'REQ-001: no backup strategy for Table Storage', severity: null, unitId: null, time: null },
    ]);
    expect(s.tokens).toBeNull();
    expect(s.unresolvedErrors).toEqual([]);
  });

  it('keeps the parsed documents verbatim (unknown top-level fields, review_audit, the handoff text)', async () => {
    const s = only(await inspect('mid-run'));
    const doc = s.documents['agent-output/contoso-web/00-session-state.json'] as Record<string, unknown>;
    expect(doc['custom_team_field']).toEqual({ owner: 'ana' });
    expect(doc['review_audit']).toEqual({
      step_1: {
        complexity: 'standard',
        passes_planned: 2,
        passes_executed: 2,
        skipped: [],
        skip_reasons: [],
        models_used: ['challenger'],
      },
    });
    expect(s.documents['agent-output/contoso-web/00-handoff.md']).toMatch(/^# contoso-web — Handoff/);
  });

  it('finds the same project when PATH is the agent-output folder or the project folder', async () => {
    for (const p of ['mid-run/agent-output', 'mid-run/agent-output/contoso-web']) {
      const s = only(await inspect(p));
      expect(s.id).toBe('contoso-web');
      expect(s.position).toEqual({ unitId: '2', subStep: null });
    }
    expect(only(await inspect('mid-run/agent-output/contoso-web')).path).toBe('00-session-state.json');
    expect(only(await inspect('mid-run/agent-output')).path).toBe('contoso-web/00-session-state.json');
  });

  it('detects the layout with high confidence and refuses an unrelated folder', async () => {
    expect(await bmitAdapter.detect(await SafeDir.open(fx('mid-run')))).toBeGreaterThanOrEqual(0.9);
    expect(await bmitAdapter.detect(await SafeDir.open(fx('mid-run/agent-output')))).toBeGreaterThanOrEqual(0.9);
    expect(await bmitAdapter.detect(await SafeDir.open(path.join(FIXTURES, '..')))).toBe(0);
  });
});

describe('bmit inspect: sub-step in flight', () => {
  it('skips to the sub-step checkpoint of step 4 and says not to re-read context_files_used', async () => {
    const s = only(await inspect('substep'));
    expect(statuses(s)).toMatchObject({ '3': 'skipped', '3_5': 'completed', '4': 'in_progress' });
    expect(s.position).toEqual({ unitId: '4', subStep: 'phase_3.5_strategy' });
    expect(s.resume.action).toBe('skip-to-substep');
    expect(s.resume.unitId).toBe('4');
    expect(s.resume.subStep).toBe('phase_3.5_strategy');
    expect(s.resume.lastCompleted).toBe('3_5');
    expect(s.resume.reason).toContain('do not re-read 02-architecture-assessment.md, 04-governance-constraints.json');
    expect(s.problems).toEqual([]);
    expect(s.decisions.map((d) => [d.id, d.unitId])).toEqual([
      ['D1', '2'],
      ['D2', '4'],
    ]);
  });
});

describe('bmit inspect: steps invoked out of order', () => {
  it('reports a PREREQUISITE warning per step started/completed before an earlier step is done', async () => {
    const s = only(await inspect('out-of-order'));
    const pre = codes(s.problems, 'PREREQUISITE');
    expect(pre.map((p) => p.details?.['unit'])).toEqual(['3_5', '4']);
    expect(pre[0]!.details?.['earlier']).toEqual([
      { unit: '2', status: 'in_progress' },
      { unit: '3', status: 'pending' },
    ]);
    expect(pre.every((p) => p.severity === 'warning' && p.sessionId === 'tailspin')).toBe(true);
    expect(s.resume.warnings).toEqual(pre.map((p) => p.message));
    expect(s.resume.warnings[1]).toMatch(
      /step 4 \(IaC Plan\) is in_progress while step 2 \(Architecture\) is in_progress, step 3 \(Design\) is pending/,
    );
  });

  it('resumes the first step in flight and flags its unknown sub-step name and the missing start time', async () => {
    const s = only(await inspect('out-of-order'));
    expect(s.position).toEqual({ unitId: '2', subStep: 'phase_2_wafs' });
    expect(s.resume.action).toBe('skip-to-substep');
    const bad = codes(s.problems, 'BAD_VALUE');
    expect(bad).toHaveLength(1);
    expect(bad[0]!.details).toMatchObject({ field: 'steps.2.sub_step', value: 'phase_2_wafs' });
    expect(bad[0]!.details?.['known']).toEqual([
      'phase_1_prereqs',
      'phase_2_waf',
      'phase_3_cost',
      'phase_4_challenger',
      'phase_5_artifact',
    ]);
    const missing = codes(s.problems, 'MISSING_FIELD');
    expect(missing.map((p) => p.details?.['field'])).toEqual(['steps.4.started']);
  });
});

describe('bmit inspect: completed project with a stale handoff', () => {
  it('derives completed (bmit has no session status) and advises nothing left to do', async () => {
    const s = only(await inspect('completed'));
    expect(s.rawStatus).toBeNull();
    expect(s.status).toBe('completed');
    expect(s.active).toBe(false);
    expect(s.units.every((u) => u.status === 'completed')).toBe(true);
    expect(s.position).toEqual({ unitId: null, subStep: null });
    expect(s.resume.action).toBe('none');
    expect(s.resume.unitId).toBeNull();
    expect(s.resume.lastCompleted).toBe('7');
    expect(s.resume.reason).toMatch(/offers to re-run/);
  });

  it('flags step 7 complete with its sub_step not cleared, and keeps the value', async () => {
    const s = only(await inspect('completed'));
    expect(s.units[7]!.subStep).toBe('phase_6_index');
    const bad = codes(s.problems, 'BAD_VALUE');
    expect(bad.map((p) => p.details?.['field'])).toEqual(['steps.7.sub_step']);
  });

  it('reports the handoff as STALE_COMPANION with each contradiction (the JSON wins)', async () => {
    const s = only(await inspect('completed'));
    const stale = codes(s.problems, 'STALE_COMPANION');
    expect(stale).toHaveLength(1);
    expect(stale[0]!.path).toBe('agent-output/malta-bistro/00-handoff.md');
    expect(stale[0]!.details?.['mismatches']).toEqual([
      { what: 'last completed step', handoff: 'step 5', json: 'step 7 (As-Built)' },
      { what: 'step 6 (Deploy) checklist', handoff: 'not done', json: 'complete' },
      { what: 'step 6 (Deploy) status', handoff: 'blocked', json: 'complete' },
      {
        what: 'architecture pattern',
        handoff: 'SPA + API (Container Apps Consumption)',
        json: 'Hub-spoke with App Service',
      },
    ]);
  });

  it('reads decision_log entries without ids (decision text) and object findings', async () => {
    const s = only(await inspect('completed'));
    expect(s.decisions).toEqual([
      {
        id: null,
        title: 'Initialized project workflow for a live demo.',
        choice: 'Initialized project workflow for a live demo.',
        rationale: null,
        alternatives: [],
        agent: null,
        unitId: '0',
        time: '2026-04-14T09:40:37Z',
      },
      {
        id: null,
        title: 'Accept deny policy on public IPs',
        choice: 'Accept deny policy on public IPs',
        rationale: 'tenant policy',
        alternatives: [],
        agent: '04g-Governance',
        unitId: '4',
        time: '2026-04-14T10:45:00Z',
      },
    ]);
    expect(codes(s.problems, 'MISSING_FIELD')[0]!.details).toMatchObject({
      field: 'decision_log[].id',
      entries: [0, 1],
    });
    expect(s.findings).toEqual([
      { text: 'Key Vault purge protection disabled', severity: 'must_fix', unitId: '6', time: '2026-04-14T13:20:00Z' },
    ]);
  });

  it('does not report a handoff that agrees with the JSON', async () => {
    expect(codes(only(await inspect('mid-run')).problems, 'STALE_COMPANION')).toEqual([]);
  });
});

describe('bmit inspect: schema versions needing migration', () => {
  it('v1.0: NEEDS_MIGRATION 1.0 → 3.0, decisions.iac_tool reported as the legacy place, missing step 3_5 from the template', async () => {
    const s = only(await inspect('v1'));
    expect(codes(s.problems, 'NEEDS_MIGRATION').map((p) => p.details)).toEqual([{ from: '1.0', to: '3.0' }]);
    expect(codes(s.problems, 'LEGACY_FIELD').map((p) => p.details)).toEqual([
      { field: 'decisions.iac_tool', current: 'iac_tool', value: 'Terraform' },
    ]);
    expect(codes(s.problems, 'MISSING_FIELD').map((p) => p.details)).toEqual([
      { field: ['steps.3_5'], assumed: 'pending' },
    ]);
    expect(s.units.find((u) => u.id === '3_5')!.status).toBe('pending');
    expect(s.resume).toMatchObject({ action: 'start', unitId: '2' });
  });

  it('v2.0: NEEDS_MIGRATION plus lock, stale_threshold_ms and the step claim as LEGACY_FIELD; the claim stays in unit metadata', async () => {
    const s = only(await inspect('v2'));
    expect(codes(s.problems, 'NEEDS_MIGRATION').map((p) => p.details)).toEqual([{ from: '2.0', to: '3.0' }]);
    expect(codes(s.problems, 'LEGACY_FIELD').map((p) => p.details?.['field'])).toEqual([
      'lock',
      'stale_threshold_ms',
      'steps.2.claim',
    ]);
    expect(s.units[1]!.metadata['claim']).toEqual({
      agent: '03-Architect',
      session: 'chat-7',
      claimed_at: '2026-01-10T09:00:00Z',
    });
    expect(s.resume).toMatchObject({ action: 'skip-to-substep', unitId: '2', subStep: 'phase_2_waf' });
  });

  it('missing version (PATH = the project folder, partial steps): NEEDS_MIGRATION from null, absent steps reported', async () => {
    const s = only(await inspect('no-version'));
    expect(s.id).toBe('no-version');
    expect(codes(s.problems, 'NEEDS_MIGRATION').map((p) => p.details)).toEqual([{ from: null, to: '3.0' }]);
    // decisions.complexity is absent too: bmit's default "standard" is reported (issue 14).
    expect(codes(s.problems, 'MISSING_FIELD').map((p) => p.details?.['field'])).toEqual([
      ['steps.1', 'steps.3', 'steps.3_5', 'steps.4', 'steps.5', 'steps.6', 'steps.7'],
      'steps.2.started',
      'decisions.complexity',
    ]);
    expect(s.units[1]!.files).toEqual([
      // Written from the folder holding agent-output/; inspected from the project folder itself.
      { path: 'agent-output/no-version/02-architecture-assessment.md', action: 'created', base: '' },
    ]);
    expect(s.units[1]!.agents).toEqual([]);
    expect(s.position).toEqual({ unitId: '2', subStep: 'phase_2_waf' });
  });
});

describe('bmit inspect: damaged state files', () => {
  it('corrupt state with a usable .bak: CORRUPT_FILE naming the backup, the session read from it, restore recommended, .tmp reported', async () => {
    const s = only(await inspect('corrupt-with-bak'));
    const c = codes(s.problems, 'CORRUPT_FILE');
    expect(c).toHaveLength(1);
    expect(c[0]!.path).toBe('agent-output/wingtip/00-session-state.json');
    expect(c[0]!.details?.['backup']).toBe('agent-output/wingtip/00-session-state.json.bak');
    expect(c[0]!.message).toMatch(/read from agent-output\/wingtip\/00-session-state.json.bak/);
    expect(s.position).toEqual({ unitId: '2', subStep: 'phase_3_cost' });
    expect(s.resume.action).toBe('skip-to-substep');
    expect(s.resume.reason).toMatch(/^agent-output\/wingtip\/00-session-state.json does not parse\. Read from .*\.bak/);
    expect(s.resume.recommended).toBe('checkpoint');
    expect(s.resume.options.map((o) => [o.kind, o.target, o.recommended])).toEqual([
      ['checkpoint', 'agent-output/wingtip/00-session-state.json.bak', true],
      ['fresh', null, false],
    ]);
    expect(Object.keys(s.documents)).toEqual(['agent-output/wingtip/00-session-state.json.bak']);
    const tmp = codes(s.problems, 'LEFTOVER_TEMP');
    expect(tmp.map((p) => [p.path, p.details?.['parses']])).toEqual([
      ['agent-output/wingtip/00-session-state.json.tmp', false],
    ]);
  });

  it('corrupt state without a backup: CORRUPT_FILE with backup null, fresh-from-template advice, every step pending', async () => {
    const s = only(await inspect('corrupt-no-backup'));
    const c = codes(s.problems, 'CORRUPT_FILE');
    expect(c.map((p) => p.details?.['backup'])).toEqual([null]);
    expect(c[0]!.hint).toMatch(/fresh state from the template/);
    expect(s.units.every((u) => u.status === 'pending')).toBe(true);
    expect(s.resume).toMatchObject({ action: 'start', unitId: '1', recommended: 'fresh' });
    expect(s.resume.options.map((o) => o.kind)).toEqual(['fresh']);
    expect(s.documents).toEqual({});
  });

  it('zero-byte state: EMPTY_FILE (not CORRUPT_FILE), no backup', async () => {
    const s = only(await inspect('empty-state'));
    expect(s.problems.map((p) => [p.code, p.details?.['backup']])).toEqual([['EMPTY_FILE', null]]);
    expect(s.resume.reason).toMatch(/is empty/);
  });

  it('an empty state with a usable .bak is read from the .bak', async () => {
    const d = await copyTo('empty-state');
    await fs.copyFile(
      path.join(fx('corrupt-with-bak'), 'agent-output/wingtip/00-session-state.json.bak'),
      path.join(d, 'agent-output/litware/00-session-state.json.bak'),
    );
    const s = only(await inspectAt(bmitAdapter, d));
    expect(s.problems.map((p) => [p.code, p.details?.['backup']])).toEqual([
      ['EMPTY_FILE', 'agent-output/litware/00-session-state.json.bak'],
      ['BAD_VALUE', undefined],
    ]);
    expect(s.position.unitId).toBe('2');
  });
});

describe('bmit inspect: a project without its state file', () => {
  it('only a usable .bak: STATE_MISSING naming the backup, the session read from it', async () => {
    const d = await copyTo('corrupt-with-bak');
    await fs.rm(path.join(d, 'agent-output/wingtip/00-session-state.json'));
    await fs.rm(path.join(d, 'agent-output/wingtip/00-session-state.json.tmp'));
    const s = only(await inspectAt(bmitAdapter, d));
    expect(s.problems.map((p) => [p.code, p.details?.['backup']])).toEqual([
      ['STATE_MISSING', 'agent-output/wingtip/00-session-state.json.bak'],
    ]);
    expect(s.position).toEqual({ unitId: '2', subStep: 'phase_3_cost' });
    expect(s.resume.recommended).toBe('checkpoint');
  });

  it('only the handoff: STATE_MISSING without backup, fresh-from-template advice pointing at the handoff', async () => {
    const d = await copyTo('mid-run');
    await fs.rm(path.join(d, 'agent-output/contoso-web/00-session-state.json'));
    const s = only(await inspectAt(bmitAdapter, d));
    expect(s.problems.map((p) => [p.code, p.details?.['backup']])[0]).toEqual(['STATE_MISSING', null]);
    expect(s.resume).toMatchObject({ action: 'start', unitId: '1', recommended: 'fresh' });
    expect(s.units.every((u) => u.status === 'pending')).toBe(true);
    expect(s.resume.reason).toMatch(/agent-output\/contoso-web\/00-handoff.md exists: bmit's orchestrator reads it/);
  });
});

describe('bmit inspect: tolerant reading and path safety', () => {
  it('reads a state file with CRLF line endings and a UTF-8 BOM to the same facts', async () => {
    const d = await copyTo('substep');
    const f = path.join(d, 'agent-output/fabrikam-api/00-session-state.json');
    const text = await fs.readFile(f, 'utf8');
    await fs.writeFile(f, `\ufeff${text.replace(/\n/g, '\r\n')}`);
    const a = only(await inspect('substep'));
    const b = only(await inspectAt(bmitAdapter, d));
    expect(b.units).toEqual(a.units);
    expect(b.resume).toEqual(a.resume);
    expect(b.problems).toEqual([]);
  });

  it('reports a project folder that is a link outside PATH and does not read it', async () => {
    const d = await copyTo('mid-run');
    const outside = await copyTo('substep');
    await fs.symlink(path.join(outside, 'agent-output/fabrikam-api'), path.join(d, 'agent-output/evil'));
    const r = await inspectAt(bmitAdapter, d);
    expect(r.sessions.map((s) => s.id)).toEqual(['contoso-web']);
    expect(r.problems.map((p) => [p.code, p.path])).toEqual([['UNSAFE_PATH', 'agent-output/evil']]);
  });

  it('reports a state file that is a link outside PATH, does not read it, and advises a fresh start', async () => {
    const d = await copyTo('empty-state');
    const outside = await copyTo('substep');
    const f = path.join(d, 'agent-output/litware/00-session-state.json');
    await fs.rm(f);
    await fs.symlink(path.join(outside, 'agent-output/fabrikam-api/00-session-state.json'), f);
    const s = only(await inspectAt(bmitAdapter, d));
    expect(s.problems.map((p) => [p.code, p.path, p.details?.['backup']])).toEqual([
      ['UNSAFE_PATH', 'agent-output/litware/00-session-state.json', null],
    ]);
    expect(s.documents).toEqual({});
    expect(s.resume).toMatchObject({ action: 'start', recommended: 'fresh' });
  });

  it('follows a project link that stays inside PATH', async () => {
    const d = await copyTo('mid-run');
    await fs.mkdir(path.join(d, 'store'));
    await fs.rename(path.join(d, 'agent-output/contoso-web'), path.join(d, 'store/contoso-web'));
    await fs.symlink(path.join(d, 'store/contoso-web'), path.join(d, 'agent-output/contoso-web'));
    expect(only(await inspectAt(bmitAdapter, d)).position).toEqual({ unitId: '2', subStep: null });
  });

  it('reports artifact paths with "..", absolute paths and links outside as UNSAFE_PATH, keeping them as data only', async () => {
    const d = await copyTo('mid-run');
    const f = path.join(d, 'agent-output/contoso-web/00-session-state.json');
    const doc = JSON.parse(await fs.readFile(f, 'utf8'));
    doc.steps['1'].artifacts = ['01-requirements.md', '../../../etc/passwd', '/etc/shadow', 'leak/secret.md'];
    await fs.writeFile(f, JSON.stringify(doc));
    const outside = await copyTo('substep');
    await fs.symlink(outside, path.join(d, 'agent-output/contoso-web/leak'));
    const s = only(await inspectAt(bmitAdapter, d));
    const unsafe = codes(s.problems, 'UNSAFE_PATH');
    expect(unsafe.map((p) => p.details?.['artifact'])).toEqual([
      '../../../etc/passwd',
      '/etc/shadow',
      'leak/secret.md',
    ]);
    expect(
      unsafe.every((p) => p.sessionId === 'contoso-web' && p.path === 'agent-output/contoso-web/00-session-state.json'),
    ).toBe(true);
    expect(s.units[0]!.files.map((x) => x.path)).toEqual([
      '01-requirements.md',
      '../../../etc/passwd',
      '/etc/shadow',
      'leak/secret.md',
    ]);
  });

  it('lists several projects, each with its own facts, and says bmit asks which one', async () => {
    const d = await copyTo('mid-run');
    await fs.cp(path.join(fx('substep'), 'agent-output/fabrikam-api'), path.join(d, 'agent-output/fabrikam-api'), {
      recursive: true,
    });
    const r = await inspectAt(bmitAdapter, d);
    expect(r.sessions.map((s) => [s.id, s.position.unitId])).toEqual([
      ['contoso-web', '2'],
      ['fabrikam-api', '4'],
    ]);
    expect(r.problems.map((p) => [p.code, p.details?.['projects']])).toEqual([
      ['MULTIPLE_PROJECTS', ['contoso-web', 'fabrikam-api']],
    ]);
  });

  it('reports a folder without any bmit project', async () => {
    const d = await tempDirOf();
    const r = await inspectAt(bmitAdapter, d);
    expect(r.sessions).toEqual([]);
    expect(r.problems.map((p) => p.code)).toEqual(['UNKNOWN_FORMAT']);
  });

  it('inspect changes no byte and no mtime of any fixture', async () => {
    for (const c of ['mid-run', 'corrupt-with-bak', 'completed', 'v2']) {
      const d = await copyTo(c);
      const before = await snapshot(d);
      await inspectAt(bmitAdapter, d);
      expect(await snapshot(d)).toEqual(before);
    }
  });
});

async function copyTo(c: string): Promise<string> {
  const { copyCase } = await import('./bmit-helpers.js');
  return copyCase('bmit', c);
}
async function tempDirOf(): Promise<string> {
  const { tempDir } = await import('./bmit-helpers.js');
  return tempDir('bmit-empty');
}
