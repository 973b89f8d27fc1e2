/**
 * BMAD adapter, reading: every fact `inspect` reports for the fixture trees in
 * test/fixtures/formats/bmad/<case>/, checked one by one.
 */
import fs from 'node:fs/promises';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { bmadAdapter } from '../../src/formats/bmad/index.js';
import type { BmadTokens } from '../../src/formats/bmad/tokens.js';
import { SafeDir } from '../../src/formats/safe-dir.js';
import type { InspectReport } from '../../src/formats/types.js';
import { cleanTemps, codes, copyCase, FIXTURES, inspectAt, only, snapshot, tempDir } from './bmit-helpers.js';

afterEach(cleanTemps);

const fx = (c: string) => path.join(FIXTURES, 'bmad', c);
const inspect = (c: string) => inspectAt(bmadAdapter, fx(c));
const byId = (r: InspectReport, id: string) => r.sessions.find((s) => s.id === id)!;
const bmadTokens = (t: unknown) => (t as BmadTokens).bmad;

describe('bmad inspect: active session (project root layout)', () => {
  it('finds the live and the archived session with their statuses, and the pointer', async () => {
    const r = await inspect('active');
    expect(r.format).toBe('bmad');
    expect(r.sessions.map((s) => [s.id, s.rawStatus, s.status, s.active, s.archived])).toEqual([
      ['SES202601-ACME-AUDIT', 'active', 'active', true, false],
      ['ENG202512-TESLA-API', 'closed', 'completed', false, true],
    ]);
    expect(r.problems.map((p) => [p.code, p.details])).toEqual([
      ['ACTIVE_POINTER', { style: 'session_id', sessionId: 'SES202601-ACME-AUDIT' }],
    ]);
    const s = byId(r, 'SES202601-ACME-AUDIT');
    expect(s.path).toBe('_bmad-output/sessions/SES202601-ACME-AUDIT.yaml');
    expect(s.sources).toEqual([
      '_bmad-output/sessions/SES202601-ACME-AUDIT.yaml',
      '_bmad-output/sessions/active-session.yaml',
    ]);
    expect(s.title).toBe('ACME security audit');
    expect(s.createdAt).toBe('2026-01-15T10:30:00Z');
    expect(s.updatedAt).toBe('2026-01-15T14:45:00Z');
    // agent-125 was left running (completed: null): orphaned even in the active session (issue 27).
    expect(s.problems.map((p) => p.code)).toEqual(['ORPHANED_AGENT']);
    expect(byId(r, 'ENG202512-TESLA-API').path).toBe('_bmad-output/sessions/archive/ENG202512-TESLA-API.yaml');
    expect(byId(r, 'ENG202512-TESLA-API').title).toBe('TESLA API');
  });

  it('makes each spawned agent a unit: id, type, status, times, output file, tokens_used in metadata', async () => {
    const s = byId(await inspect('active'), 'SES202601-ACME-AUDIT');
    expect(s.units.map((u) => [u.id, u.name, u.status, u.rawStatus, u.agents, u.startedAt, u.completedAt])).toEqual([
      ['agent-123', 'analyst', 'completed', 'completed', ['analyst'], '2026-01-15T10:35:00Z', '2026-01-15T10:42:00Z'],
      [
        'agent-124',
        'architect',
        'completed',
        'completed',
        ['architect'],
        '2026-01-15T11:00:00Z',
        '2026-01-15T11:40:00Z',
      ],
      ['agent-125', 'dev', 'in_progress', 'running', ['dev'], '2026-01-15T13:00:00Z', null],
    ]);
    expect(s.units[0]!.files).toEqual([{ path: '_bmad-output/temp/analyst-123.md', action: 'created' }]);
    expect(s.units.map((u) => u.metadata)).toEqual([
      { tokens_used: 32000 },
      { tokens_used: 28000 },
      { tokens_used: 85000 },
    ]);
    expect(s.position).toEqual({ unitId: 'agent-125', subStep: null });
  });

  it('reads tokens with the budget and the isolation savings report (190k total, 76 %)', async () => {
    const s = byId(await inspect('active'), 'SES202601-ACME-AUDIT');
    expect(s.tokens).toMatchObject({
      input: 45000,
      output: 0,
      cached: 0,
      byAgent: null,
      byUnit: null,
      agrees: null,
      max: 150000,
    });
    expect(bmadTokens(s.tokens)).toEqual({
      max: 150000,
      initial: 0,
      current: 45000,
      peak: 52000,
      saved: 145000,
      percentUsed: 30,
      percent: 30,
      projectedOverrun: 40000,
      level: 'ok',
      remaining: 105000,
      totalIfNoIsolation: 190000,
      savingsPercent: 76,
      agentsTokens: 145000,
    });
  });

  it('maps artifacts, milestones, decisions, notes and the context summary', async () => {
    const s = byId(await inspect('active'), 'SES202601-ACME-AUDIT');
    expect(s.artifacts).toEqual([
      { path: 'docs/prd.md', kind: null, description: null, unitId: null, agent: 'pm', time: '2026-01-15T11:00:00Z' },
      {
        path: 'docs/architecture.md',
        kind: 'architecture',
        description: 'System architecture',
        unitId: null,
        agent: 'architect',
        time: '2026-01-15T13:30:00Z',
      },
    ]);
    expect(s.milestones).toEqual([
      { title: 'Requirements Complete', targetDate: null, doneAt: '2026-01-15T11:30:00Z' },
      { title: 'Architecture Approved', targetDate: null, doneAt: '2026-01-15T13:00:00Z' },
      { title: 'Implementation Started', targetDate: '2026-02-01', doneAt: null },
    ]);
    expect(s.decisions).toEqual([
      {
        id: null,
        title: 'OAuth2 over JWT sessions',
        choice: 'OAuth2 over JWT sessions',
        rationale: 'client preference',
        alternatives: [],
        agent: 'architect',
        unitId: null,
        time: '2026-01-15T12:00:00Z',
      },
    ]);
    expect(s.notes).toEqual([
      { text: 'Client prefers OAuth2 over JWT', time: null, agent: null },
      { text: 'Performance requirement: <200ms response time', time: null, agent: null },
    ]);
    expect(s.contextSummary).toBe(
      'Working on ACME security audit project.\nPRD complete, architecture approved.\nNext: Complete story 1-2-user-login.\n',
    );
    const doc = s.documents['_bmad-output/sessions/SES202601-ACME-AUDIT.yaml'] as Record<string, unknown>;
    expect(doc['tags']).toEqual(['security', 'audit']);
    expect(doc['custom_field']).toEqual({ reviewer: 'dana' });
    expect(s.documents['_bmad-output/sessions/active-session.yaml']).toEqual({ session_id: 'SES202601-ACME-AUDIT' });
  });

  it('continues the pointed session with its current focus; refuses the closed one', async () => {
    const r = await inspect('active');
    const s = byId(r, 'SES202601-ACME-AUDIT');
    expect(s.resume.action).toBe('continue');
    // The orphaned agent is checked first, never "continued" (issue 27).
    expect(s.resume.unitId).toBeNull();
    expect(s.resume.reason).toContain(
      'continue with epic Epic 1: User Authentication, story 1-2-user-login, task implement OAuth2 callback',
    );
    expect(s.resume.reason).toContain('First check orphaned agent agent-125');
    expect(s.resume.warnings).toHaveLength(1);
    expect(s.resume.warnings[0]).toMatch(
      /agent-125 \(dev\) still marked running in an active session with no conversation attached: orphaned/,
    );
    const closed = byId(r, 'ENG202512-TESLA-API');
    expect(closed.resume.action).toBe('refuse');
    expect(closed.resume.unitId).toBeNull();
    expect(closed.resume.reason).toMatch(/closed and archived: BMAD does not resume a closed session/);
  });

  it('detects the layout from the project root, the _bmad-output folder and the sessions folder', async () => {
    expect(await bmadAdapter.detect(await SafeDir.open(fx('active')))).toBe(0.95);
    expect(await bmadAdapter.detect(await SafeDir.open(fx('active/_bmad-output')))).toBeGreaterThan(0.5);
    expect(await bmadAdapter.detect(await SafeDir.open(fx('active/_bmad-output/sessions')))).toBeGreaterThan(0.5);
    expect(await bmadAdapter.detect(await SafeDir.open(path.join(FIXTURES, 'bmit', 'mid-run')))).toBe(0);
    for (const p of ['active/_bmad-output', 'active/_bmad-output/sessions']) {
      const r = await inspect(p);
      expect(r.sessions.map((s) => [s.id, s.active, s.archived])).toEqual([
        ['SES202601-ACME-AUDIT', true, false],
        ['ENG202512-TESLA-API', false, true],
      ]);
    }
  });
});

describe('bmad inspect: paused session (bare-id pointer, orphaned agent, budget warning)', () => {
  it('reports the bare-id pointer, the paused status and the orphaned running agent', async () => {
    const r = await inspect('paused');
    const s = only(r);
    expect([s.id, s.rawStatus, s.status, s.active, s.archived]).toEqual([
      'ENG202602-TESLA-API',
      'paused',
      'paused',
      true,
      false,
    ]);
    expect(r.problems.map((p) => [p.code, p.details])).toEqual([
      ['ACTIVE_POINTER', { style: 'bare', sessionId: 'ENG202602-TESLA-API' }],
    ]);
    const orphan = codes(s.problems, 'ORPHANED_AGENT');
    expect(orphan.map((p) => [p.severity, p.details])).toEqual([['warning', { agents: ['agent-7'] }]]);
  });

  it('warns at 86.7 % of the budget (above 80 %, below 95 %)', async () => {
    const s = only(await inspect('paused'));
    expect(bmadTokens(s.tokens)).toMatchObject({
      current: 130000,
      max: 150000,
      percentUsed: 86.7,
      level: 'warning',
      initial: 2000,
      peak: 131000,
    });
    expect(codes(s.problems, 'BUDGET_THRESHOLD').map((p) => [p.severity, p.details?.['level']])).toEqual([
      ['info', 'warning'],
    ]);
  });

  it('continues it (resuming makes it active) with the orphan, the blocker and the budget as warnings', async () => {
    const s = only(await inspect('paused'));
    expect(s.resume.action).toBe('continue');
    expect(s.resume.reason).toMatch(/paused: resuming makes it active again/);
    expect(s.resume.warnings).toHaveLength(3);
    expect(s.resume.warnings[0]).toMatch(/agent-7 \(dev\) still marked running in a paused session: orphaned/);
    expect(s.resume.warnings[1]).toBe('Blocker: waiting for font licence');
    expect(s.resume.warnings[2]).toBe('Token budget warning: 130000/150000 (87%).'); // the document's precision: whole percent
  });

  it('reads notes written as objects (timestamp, note, source)', async () => {
    const s = only(await inspect('paused'));
    expect(s.notes).toEqual([{ text: 'Paused for licence approval', time: '2026-02-03T18:00:00Z', agent: 'pm' }]);
  });
});

describe('bmad inspect: closed and archived (PATH = the sessions folder, cleared pointer)', () => {
  it('reads the archived session, the cleared pointer, and refuses to resume', async () => {
    const r = await inspect('closed-archived');
    const s = only(r);
    expect([s.id, s.rawStatus, s.status, s.active, s.archived, s.path]).toEqual([
      'SES202512-ACME-MVP',
      'closed',
      'completed',
      false,
      true,
      'archive/SES202512-ACME-MVP.yaml',
    ]);
    expect(r.problems.map((p) => [p.code, p.details])).toEqual([
      ['ACTIVE_POINTER', { style: 'empty', sessionId: null }],
    ]);
    expect(s.resume.action).toBe('refuse');
    expect(s.tokens?.max).toBe(200000);
    expect(s.decisions[0]).toMatchObject({ title: 'Postgres over Mongo', agent: 'architect', time: '2025-12-02' });
    expect(s.milestones).toEqual([{ title: 'MVP live', targetDate: null, doneAt: '2025-12-15T15:00:00Z' }]);
    expect(s.problems).toEqual([]);
  });
});

describe('bmad inspect: integrity problems', () => {
  it('dangling pointer (active_session style): DANGLING_ACTIVE, and the paused session is offered a fresh start or a switch', async () => {
    const r = await inspect('dangling');
    const d = codes(r.problems, 'DANGLING_ACTIVE');
    expect(d.map((p) => [p.severity, p.sessionId, p.details])).toEqual([
      ['error', 'SES202603-GONE-AWAY', { pointer: 'SES202603-GONE-AWAY', style: 'active_session' }],
    ]);
    const s = only(r);
    expect(s.active).toBe(false);
    expect(s.resume.action).toBe('start');
    expect(s.resume.reason).toMatch(/names SES202603-GONE-AWAY, which does not exist/);
  });

  it('archive copied instead of moved: ARCHIVE_COPIED naming both copies, one session read (the archive)', async () => {
    const r = await inspect('archive-copied');
    const ac = codes(r.problems, 'ARCHIVE_COPIED');
    expect(ac.map((p) => [p.sessionId, p.details])).toEqual([
      [
        'SES202511-OLD-ONE',
        {
          live: '_bmad-output/sessions/SES202511-OLD-ONE.yaml',
          archive: '_bmad-output/sessions/archive/SES202511-OLD-ONE.yaml',
          chosen: '_bmad-output/sessions/archive/SES202511-OLD-ONE.yaml',
        },
      ],
    ]);
    const old = r.sessions.filter((s) => s.id === 'SES202511-OLD-ONE');
    expect(old).toHaveLength(1);
    expect(old[0]!.archived).toBe(true);
    expect(old[0]!.sources).toEqual([
      '_bmad-output/sessions/archive/SES202511-OLD-ONE.yaml',
      '_bmad-output/sessions/SES202511-OLD-ONE.yaml',
      '_bmad-output/sessions/active-session.yaml',
    ]);
  });

  it('two sessions with status active: TWO_ACTIVE listing both and the pointer; only the pointed one is active', async () => {
    const r = await inspect('archive-copied');
    expect(codes(r.problems, 'TWO_ACTIVE').map((p) => p.details)).toEqual([
      { statusActive: ['SES202604-ALPHA-ONE', 'SES202604-BETA-TWO'], pointer: 'SES202604-ALPHA-ONE' },
    ]);
    expect(r.sessions.filter((s) => s.active).map((s) => s.id)).toEqual(['SES202604-ALPHA-ONE']);
    expect(byId(r, 'SES202604-BETA-TWO').resume.action).toBe('none');
    expect(byId(r, 'SES202604-BETA-TWO').resume.reason).toMatch(/SESSION switch SES202604-BETA-TWO/);
  });

  it('a full-copy pointer is recognised and its drift from the session file reported (the file wins)', async () => {
    const r = await inspect('archive-copied');
    expect(codes(r.problems, 'ACTIVE_POINTER').map((p) => p.details)).toEqual([
      { style: 'copy', sessionId: 'SES202604-ALPHA-ONE' },
    ]);
    expect(codes(r.problems, 'REGISTRY_MISMATCH').map((p) => [p.sessionId, p.details])).toEqual([
      ['SES202604-ALPHA-ONE', { fields: ['last_updated'] }],
    ]);
  });

  it('pointer against statuses: the pointer names one session, another one says active', async () => {
    const d = await copyCase('bmad', 'archive-copied');
    await fs.rm(path.join(d, '_bmad-output/sessions/SES202604-ALPHA-ONE.yaml'));
    await fs.writeFile(path.join(d, '_bmad-output/sessions/active-session.yaml'), 'session_id: DES202603-ACME-UI\n');
    await fs.copyFile(
      path.join(fx('dangling'), '_bmad-output/sessions/DES202603-ACME-UI.yaml'),
      path.join(d, '_bmad-output/sessions/DES202603-ACME-UI.yaml'),
    );
    const r = await inspectAt(bmadAdapter, d);
    expect(codes(r.problems, 'TWO_ACTIVE').map((p) => p.details)).toEqual([
      { statusActive: ['SES202604-BETA-TWO'], pointer: 'DES202603-ACME-UI' },
    ]);
  });

  it('a pointer naming an archived session is a DANGLING_ACTIVE warning', async () => {
    const d = await copyCase('bmad', 'active');
    await fs.writeFile(path.join(d, '_bmad-output/sessions/active-session.yaml'), 'ENG202512-TESLA-API\n');
    const r = await inspectAt(bmadAdapter, d);
    expect(codes(r.problems, 'DANGLING_ACTIVE').map((p) => [p.severity, p.details])).toEqual([
      ['warning', { pointer: 'ENG202512-TESLA-API', archived: true }],
    ]);
  });

  it('legacy token fields: saved_by_isolation read as saved, max_limit and warning_threshold reported, max defaults to 150000', async () => {
    const s = only(await inspect('legacy-tokens'));
    expect(codes(s.problems, 'LEGACY_FIELD').map((p) => [p.details?.['field'], p.details?.['current']])).toEqual([
      ['tokens.saved_by_isolation', 'tokens.saved'],
      ['tokens.max_limit', 'tokens.max'],
      ['tokens.warning_threshold', null],
    ]);
    expect(codes(s.problems, 'MISSING_FIELD').map((p) => p.details)).toEqual([
      {
        field: 'agents_spawned[].status',
        agents: ['agent-1'],
        assumed: 'completed when "completed" is set, else running',
      },
      { field: 'tokens.max', assumed: 150000 },
    ]);
    expect(bmadTokens(s.tokens)).toMatchObject({
      max: 150000,
      saved: 60000,
      current: 140000,
      percentUsed: 93.3,
      level: 'warning',
      totalIfNoIsolation: 200000,
      savingsPercent: 30,
      agentsTokens: 60000,
    });
    expect(s.units.map((u) => [u.id, u.status, u.rawStatus])).toEqual([['agent-1', 'completed', null]]);
    expect(codes(s.problems, 'TOKENS_DISAGREE')).toEqual([]);
  });

  it('missing fields: id from the file name, status active, default tokens, agent id made up; corrupt and empty files reported', async () => {
    const r = await inspect('missing-fields');
    const s = only(r);
    expect([s.id, s.rawStatus, s.status, s.createdAt]).toEqual(['TST202605-NO-FIELDS', null, 'active', null]);
    expect(codes(s.problems, 'MISSING_FIELD').map((p) => p.details?.['field'])).toEqual([
      'session_id',
      'status',
      'created',
      'agents_spawned[0].id',
      'agents_spawned[].status',
      'tokens',
    ]);
    expect(s.units.map((u) => [u.id, u.name, u.status])).toEqual([['agent-1', 'tester', 'in_progress']]);
    expect(s.milestones).toEqual([{ title: 'Smoke tests', targetDate: null, doneAt: null }]);
    expect(bmadTokens(s.tokens)).toMatchObject({ max: 150000, current: 0, saved: 0, savingsPercent: null });
    expect(s.resume.action).toBe('start');
    expect(r.problems.map((p) => [p.code, p.path, p.sessionId])).toEqual([
      ['CORRUPT_FILE', '_bmad-output/sessions/SES202605-BROKEN-YAML.yaml', 'SES202605-BROKEN-YAML'],
      ['EMPTY_FILE', '_bmad-output/sessions/SES202605-EMPTY-FILE.yaml', 'SES202605-EMPTY-FILE'],
    ]);
  });
});

describe('bmad inspect: tolerated statuses', () => {
  it.each([
    ['blocked', 'paused', 0],
    ['failed', 'failed', 0],
    ['completed', 'completed', 0],
    ['on-hold', 'active', 1],
  ] as const)('status %s is read as %s', async (raw, status, bad) => {
    const d = await copyCase('bmad', 'dangling');
    const f = path.join(d, '_bmad-output/sessions/DES202603-ACME-UI.yaml');
    await fs.writeFile(f, (await fs.readFile(f, 'utf8')).replace('status: paused', `status: ${raw}`));
    const s = only(await inspectAt(bmadAdapter, d));
    expect([s.rawStatus, s.status]).toEqual([raw, status]);
    expect(codes(s.problems, 'BAD_VALUE').filter((p) => p.details?.['field'] === 'status')).toHaveLength(bad);
    expect(s.resume.action).toBe(raw === 'completed' ? 'refuse' : 'start');
  });
});

describe('bmad inspect: tolerant reading and path safety', () => {
  it('reads CRLF and BOM files (session and pointer) to the same facts', async () => {
    const d = await copyCase('bmad', 'active');
    for (const f of ['_bmad-output/sessions/SES202601-ACME-AUDIT.yaml', '_bmad-output/sessions/active-session.yaml']) {
      const p = path.join(d, f);
      await fs.writeFile(p, `\ufeff${(await fs.readFile(p, 'utf8')).replace(/\n/g, '\r\n')}`);
    }
    const a = byId(await inspect('active'), 'SES202601-ACME-AUDIT');
    const b = byId(await inspectAt(bmadAdapter, d), 'SES202601-ACME-AUDIT');
    expect(b.units).toEqual(a.units);
    expect(b.tokens).toEqual(a.tokens);
    expect(b.contextSummary).toBe(a.contextSummary);
    expect(b.active).toBe(true);
    expect(b.problems).toEqual(a.problems);
  });

  it('accepts every pointer style: bare id, session_id, active_session, full copy, cleared', async () => {
    const d = await copyCase('bmad', 'active');
    const ptr = path.join(d, '_bmad-output/sessions/active-session.yaml');
    const styles: Array<[string, string, string | null]> = [
      ['SES202601-ACME-AUDIT\n', 'bare', 'SES202601-ACME-AUDIT'],
      ['session_id: "SES202601-ACME-AUDIT"\n', 'session_id', 'SES202601-ACME-AUDIT'],
      ['active_session: SES202601-ACME-AUDIT\nsince: 2026-01-15\n', 'active_session', 'SES202601-ACME-AUDIT'],
      [
        await fs.readFile(path.join(d, '_bmad-output/sessions/SES202601-ACME-AUDIT.yaml'), 'utf8'),
        'copy',
        'SES202601-ACME-AUDIT',
      ],
      ['session_id: null\n', 'session_id', null],
      ['~\n', 'empty', null],
    ];
    for (const [text, style, id] of styles) {
      await fs.writeFile(ptr, text);
      const r = await inspectAt(bmadAdapter, d);
      expect(codes(r.problems, 'ACTIVE_POINTER').map((p) => p.details)).toEqual([{ style, sessionId: id }]);
      expect(byId(r, 'SES202601-ACME-AUDIT').active).toBe(id !== null);
      expect(codes(r.problems, 'REGISTRY_MISMATCH')).toEqual([]);
    }
  });

  it('a pointer that is not YAML or names nothing is reported and no session is taken as active', async () => {
    const d = await copyCase('bmad', 'active');
    const ptr = path.join(d, '_bmad-output/sessions/active-session.yaml');
    await fs.writeFile(ptr, 'session_id: [broken\n');
    let r = await inspectAt(bmadAdapter, d);
    expect(r.problems.map((p) => p.code)).toEqual(['CORRUPT_FILE']);
    expect(r.sessions.some((s) => s.active)).toBe(false);
    await fs.writeFile(ptr, '- a\n- b\n');
    r = await inspectAt(bmadAdapter, d);
    expect(r.problems.map((p) => p.code)).toEqual(['BAD_VALUE']);
  });

  it('reports artifact and output paths with "..", absolute or through a link outside, without following them', async () => {
    const d = await copyCase('bmad', 'active');
    const f = path.join(d, '_bmad-output/sessions/SES202601-ACME-AUDIT.yaml');
    let text = await fs.readFile(f, 'utf8');
    text = text
      .replace('path: "docs/prd.md"', 'path: "../../secrets/prd.md"')
      .replace('_bmad-output/temp/analyst-123.md', '/etc/passwd');
    text = text.replace('path: "docs/architecture.md"', 'path: "leak/architecture.md"');
    await fs.writeFile(f, text);
    await fs.symlink(await tempDir('bmad-outside'), path.join(d, 'leak'));
    const s = byId(await inspectAt(bmadAdapter, d), 'SES202601-ACME-AUDIT');
    expect(codes(s.problems, 'UNSAFE_PATH').map((p) => p.details?.['value'])).toEqual([
      '/etc/passwd',
      '../../secrets/prd.md',
      'leak/architecture.md',
    ]);
    expect(s.artifacts.map((a) => a.path)).toEqual(['../../secrets/prd.md', 'leak/architecture.md']);
  });

  it('reports a sessions folder that is a link outside PATH and a session file linking outside', async () => {
    const d = await copyCase('bmad', 'active');
    const outside = await copyCase('bmad', 'paused');
    await fs.symlink(
      path.join(outside, 'sessions/ENG202602-TESLA-API.yaml'),
      path.join(d, '_bmad-output/sessions/ENG202602-TESLA-API.yaml'),
    );
    let r = await inspectAt(bmadAdapter, d);
    expect(r.sessions.map((s) => s.id)).toEqual(['SES202601-ACME-AUDIT', 'ENG202512-TESLA-API']);
    expect(codes(r.problems, 'UNSAFE_PATH').map((p) => p.path)).toEqual([
      '_bmad-output/sessions/ENG202602-TESLA-API.yaml',
    ]);
    const root = await tempDir('bmad-linkroot');
    await fs.symlink(path.join(outside, 'sessions'), path.join(root, 'sessions'));
    r = await inspectAt(bmadAdapter, root);
    expect(r.sessions).toEqual([]);
    expect(r.problems.map((p) => [p.code, p.path])).toEqual([['UNSAFE_PATH', 'sessions']]);
  });

  it('reports an archive folder that is a link outside PATH and reads none of it', async () => {
    const d = await copyCase('bmad', 'paused');
    const outside = await copyCase('bmad', 'closed-archived');
    await fs.symlink(path.join(outside, 'archive'), path.join(d, 'sessions/archive'));
    const r = await inspectAt(bmadAdapter, d);
    expect(r.sessions.map((s) => s.id)).toEqual(['ENG202602-TESLA-API']);
    expect(codes(r.problems, 'UNSAFE_PATH').map((p) => p.path)).toEqual(['sessions/archive']);
  });

  it('reports a folder without BMAD sessions', async () => {
    const r = await inspectAt(bmadAdapter, await tempDir('bmad-none'));
    expect(r.problems.map((p) => p.code)).toEqual(['UNKNOWN_FORMAT']);
  });

  it('inspect changes no byte and no mtime', async () => {
    for (const c of ['active', 'archive-copied', 'missing-fields', 'closed-archived']) {
      const d = await copyCase('bmad', c);
      const before = await snapshot(d);
      await inspectAt(bmadAdapter, d);
      expect(await snapshot(d)).toEqual(before);
    }
  });
});

describe('bmad inspect: a failed agent', () => {
  it('is a failed unit, named in the resume warnings with its output file, and the unit resume points at', async () => {
    const r = await inspect('failed-agent');
    expect(r.problems.filter((p) => p.severity !== 'info')).toEqual([]);
    const s = only(r);
    expect(s.rawStatus).toBe('active');
    expect(s.units.map((u) => [u.id, u.name, u.status, u.rawStatus])).toEqual([
      ['agent-301', 'ux-designer', 'completed', 'completed'],
      ['agent-302', 'dev', 'failed', 'failed'],
    ]);
    expect(s.resume.action).toBe('continue');
    expect(s.resume.unitId).toBe('agent-302');
    expect(s.resume.warnings).toEqual([
      'Agent agent-302 (dev) failed at 2026-02-03T15:15:00Z; its output _bmad-output/temp/dev-302.md may be missing or partial: re-spawn it or record why its work is not needed before continuing.',
    ]);
  });

  it('a session without failed agents gets no such warning', async () => {
    const s = only(await inspect('paused'));
    expect(s.resume.warnings.filter((w) => /^Agent \S+ \([^)]*\) failed/.test(w))).toEqual([]);
  });
});
