import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import fc from 'fast-check';
import { afterEach, describe, expect, it } from 'vitest';
import { maestroAdapter } from '../../src/formats/maestro/index.js';
import { SafeDir } from '../../src/formats/safe-dir.js';
import { codes, copyCase, FIXTURES, inspect, NOW, only, tree } from './maestro-helpers.js';

const temps: string[] = [];
afterEach(async () => {
  for (const t of temps.splice(0)) await fs.rm(t, { recursive: true, force: true });
});
async function tmp<T extends string>(p: Promise<T>): Promise<T> {
  const t = await p;
  temps.push(t);
  return t;
}

describe('maestro inspect: mid-run YAML session (seed era, .gemini)', () => {
  it('reports id, status, phases, position and resume under Maestro rules', async () => {
    const r = await inspect('mid-run-yaml');
    expect(r.format).toBe('maestro');
    expect(r.problems).toEqual([]);
    const s = only(r);
    expect(s.id).toBe('2026-03-01-auth-service');
    expect(s.title).toBe('Auth Service');
    expect(s.rawStatus).toBe('in_progress');
    expect(s.status).toBe('active');
    expect(s.active).toBe(true);
    expect(s.archived).toBe(false);
    expect(s.path).toBe('.gemini/state/active-session.md');
    expect(s.createdAt).toBe('2026-03-01T09:00:00Z');
    expect(s.updatedAt).toBe('2026-03-01T11:30:00Z');
    expect(s.units.map((u) => [u.id, u.name, u.status, u.agents, u.blockedBy])).toEqual([
      ['1', 'Schema design', 'completed', ['architect'], []],
      ['2', 'Token service', 'in_progress', ['coder'], ['1']],
      ['3', 'Tests', 'pending', ['tester'], ['2']],
    ]);
    expect(s.units[0]!.files).toEqual([{ path: 'db/schema.sql', action: 'created' }]);
    expect(s.units[1]!.files).toEqual([
      { path: 'src/token.ts', action: 'created' },
      { path: 'src/index.ts', action: 'modified' },
    ]);
    expect(s.units[0]!.startedAt).toBe('2026-03-01T09:05:00Z');
    expect(s.units[0]!.completedAt).toBe('2026-03-01T10:00:00Z');
    // Unmapped fields are kept verbatim for a lossless export.
    expect(s.units[0]!.metadata).toEqual({
      parallel: false,
      downstream_context: {
        key_interfaces_introduced: ['users table'],
        patterns_established: [],
        integration_points: [],
        assumptions: ['postgres 16'],
        warnings: [],
      },
    });
    expect(s.position).toEqual({ unitId: '2', subStep: null });
    expect(s.resume.action).toBe('continue');
    expect(s.resume.unitId).toBe('2');
    expect(s.resume.lastCompleted).toBe('1');
    expect(s.resume.retryLimit).toBe(2);
    expect(s.resume.warnings.some((w) => w.includes('partially modified'))).toBe(true);
    expect(s.unresolvedErrors).toEqual([]);
    expect(s.tokens).toMatchObject({ input: 15000, output: 8000, cached: 3000, agrees: true });
    expect(s.tokens!.byAgent).toEqual({
      architect: { input: 7000, output: 4000, cached: 1000 },
      coder: { input: 8000, output: 4000, cached: 2000 },
    });
    expect(s.artifacts.map((a) => [a.path, a.kind])).toEqual([
      ['.gemini/plans/2026-03-01-auth-service-design.md', 'design'],
      ['.gemini/plans/2026-03-01-auth-service-impl-plan.md', 'implementation-plan'],
    ]);
    expect(s.problems).toEqual([]);
    expect(s.sourceHash).toMatch(/^[0-9a-f]{64}$/);
    const doc = s.documents['.gemini/state/active-session.md'] as {
      frontmatterFormat: string;
      body: string;
      frontmatter: Record<string, unknown>;
    };
    expect(doc.frontmatterFormat).toBe('yaml');
    expect(doc.frontmatter.execution_mode).toBe('sequential');
    expect(doc.body).toContain('## Phase 2: Token service ○');
  });

  it('reads the same session when PATH is the state dir itself', async () => {
    const s = only(await inspect(path.join(FIXTURES, 'mid-run-yaml', '.gemini')));
    expect(s.id).toBe('2026-03-01-auth-service');
    expect(s.path).toBe('state/active-session.md');
    // The plan paths say ".gemini/plans/…": resolved against the state dir, so not missing.
    expect(s.problems).toEqual([]);
  });

  it('detects the layout with certainty; an unrelated folder scores 0', async () => {
    expect(await maestroAdapter.detect(await SafeDir.open(path.join(FIXTURES, 'mid-run-yaml')))).toBe(1);
    expect(await maestroAdapter.detect(await SafeDir.open(path.join(FIXTURES, 'completed-archived')))).toBe(0.9);
    const empty = await tmp(tree({ 'README.md': '# hi\n', '.gemini/settings.json': '{}' }));
    expect(await maestroAdapter.detect(await SafeDir.open(empty))).toBe(0);
    expect((await inspect(empty)).sessions).toEqual([]);
  });
});

describe('maestro inspect: v1.6 JSON frontmatter (docs/maestro)', () => {
  it('reads the JSON frontmatter, v1.6 fields, string phase ids and the design gate', async () => {
    const r = await inspect('mid-run-json');
    expect(r.problems).toEqual([]);
    const s = only(r);
    expect(s.id).toBe('2026-04-10-billing-export');
    expect(s.title).toBe('Add CSV export to the billing page');
    expect(s.path).toBe('docs/maestro/state/active-session.md');
    expect(s.units.map((u) => `${u.id}:${u.status}`)).toEqual(['1:completed', '2:in_progress', '3:pending']);
    expect(s.units[1]!.agents).toEqual(['ux-designer', 'coder']);
    expect(s.units[1]!.metadata).toEqual({
      parallel: true,
      planned_files: ['web/billing.tsx'],
      requires_reconciliation: false,
    });
    expect(s.position.unitId).toBe('2');
    expect(s.resume.action).toBe('continue');
    expect(s.resume.unitId).toBe('2');
    // v1.6 transition_phase adds to the totals only: the breakdown disagrees.
    expect(s.tokens).toMatchObject({ input: 12000, output: 5000, cached: 0, agrees: false });
    expect(codes(s.problems)).toEqual(['TOKENS_DISAGREE@docs/maestro/state/active-session.md']);
    const doc = s.documents['docs/maestro/state/active-session.md'] as {
      frontmatterFormat: string;
      frontmatter: Record<string, unknown>;
    };
    expect(doc.frontmatterFormat).toBe('json');
    expect(doc.frontmatter).toMatchObject({
      workflow_mode: 'standard',
      execution_backend: 'native',
      current_batch: 'batch-2',
      task_complexity: 'medium',
      current_phase: '2',
    });
    // The plans are read too: they travel with the session (issue 14).
    expect(s.sources).toEqual([
      'docs/maestro/state/active-session.md',
      'docs/maestro/plans/2026-04-10-billing-export-design.md',
      'docs/maestro/plans/2026-04-10-billing-export-impl-plan.md',
      'docs/maestro/state/2026-04-10-billing-export.design-gate.json',
    ]);
    expect(s.documents['docs/maestro/state/2026-04-10-billing-export.design-gate.json']).toMatchObject({
      status: 'approved',
    });
  });

  it('applies the v1.6 express rules: in progress → re-delegate; all done → review then archive', async () => {
    const mid = only(await inspect('express-mid-run'));
    expect(mid.resume.action).toBe('continue');
    expect(mid.resume.unitId).toBe('1');
    expect(mid.resume.reason).toContain('re-delegate the same scope to coder');
    const done = only(await inspect('express-review'));
    expect(done.rawStatus).toBe('in_progress');
    expect(done.resume.action).toBe('review');
    expect(done.resume.unitId).toBeNull();
    expect(done.resume.lastCompleted).toBe('1');
    expect(done.position.unitId).toBeNull();
  });
});

describe('maestro inspect: interrupted with a failed phase', () => {
  it('retry 1 of 2 used → retry the failed phase', async () => {
    const s = only(await inspect('interrupted-retry1'));
    expect(s.units.map((u) => `${u.id}:${u.status}:${u.retries}`)).toEqual([
      '1:completed:0',
      '2:failed:1',
      '3:pending:0',
    ]);
    expect(s.position.unitId).toBe('2');
    expect(s.resume).toMatchObject({ action: 'retry', unitId: '2', retryLimit: 2, retriesUsed: 1, lastCompleted: '1' });
    expect(s.units[1]!.errors).toEqual([
      {
        unitId: '2',
        agent: 'tester',
        time: '2026-02-14T14:40:00Z',
        type: 'validation',
        message: 'query.test.ts: 3 of 12 tests fail (ranking order)',
        resolved: true,
        resolution: 'retried with the ranking fix',
      },
      {
        unitId: '2',
        agent: 'tester',
        time: '2026-02-14T15:15:00Z',
        type: 'timeout',
        message: 'integration suite timed out after 600 s',
        resolved: false,
        resolution: null,
      },
    ]);
    expect(s.unresolvedErrors.map((e) => [e.unitId, e.type])).toEqual([['2', 'timeout']]);
    expect(s.tokens!.agrees).toBe(true);
    // The log's last Phase 2 section shows ✗, as the frontmatter does: no stale companion.
    expect(s.problems).toEqual([]);
  });

  it('retries exhausted (2 of 2) → escalate to the user', async () => {
    const s = only(await inspect('interrupted-retry2'));
    expect(s.resume).toMatchObject({ action: 'escalate', unitId: '2', retryLimit: 2, retriesUsed: 2 });
    expect(s.resume.reason).toMatch(/retry, skip, abort or adjust parameters/);
    expect(s.resume.choices).toEqual(['retry', 'skip', 'abort', 'adjust']);
    expect(s.unresolvedErrors).toHaveLength(1);
  });
});

describe('maestro inspect: archive', () => {
  it('completed and archived: nothing to resume, plans found in plans/archive', async () => {
    const r = await inspect('completed-archived');
    expect(r.problems).toEqual([]);
    const s = only(r);
    expect(s).toMatchObject({
      id: '2026-01-20-cli-flags',
      rawStatus: 'completed',
      status: 'completed',
      active: false,
      archived: true,
      path: '.gemini/state/archive/2026-01-20-cli-flags.md',
    });
    expect(s.units.map((u) => `${u.id}:${u.status}`)).toEqual(['1:completed', '2:skipped']);
    expect(s.units[0]!.files).toEqual([
      { path: 'src/cli.ts', action: 'modified' },
      { path: 'src/old-args.ts', action: 'deleted' },
    ]);
    expect(s.resume.action).toBe('none');
    expect(s.position.unitId).toBeNull();
    expect(s.problems).toEqual([]);
  });

  it('archive copied instead of moved: one session, both files as sources, ARCHIVE_COPIED for the file and the plan left behind', async () => {
    const r = await inspect('archive-copied');
    const s = only(r);
    expect(s.id).toBe('2026-01-25-log-rotation');
    expect(s.archived).toBe(true);
    expect(s.sources.sort()).toEqual([
      '.gemini/state/active-session.md',
      '.gemini/state/archive/2026-01-25-log-rotation.md',
    ]);
    expect(codes(s.problems)).toEqual([
      'ARCHIVE_COPIED@.gemini/plans/2026-01-25-log-rotation-design.md',
      'ARCHIVE_COPIED@.gemini/state/active-session.md',
    ]);
    const copied = s.problems.find((p) => p.path === '.gemini/state/active-session.md')!;
    expect(copied.details).toMatchObject({
      live: ['.gemini/state/active-session.md'],
      archived: ['.gemini/state/archive/2026-01-25-log-rotation.md'],
    });
  });

  it('an archived session whose status is still in_progress is reported, not treated as stale', async () => {
    const r = await inspect('bad-values');
    const old = r.sessions.find((s) => s.id === '2026-07-01-abandoned')!;
    expect(old.archived).toBe(true);
    expect(old.rawStatus).toBe('in_progress');
    expect(codes(old.problems)).toEqual(['BAD_VALUE@docs/maestro/state/archive/2026-07-01-abandoned.md']);
    expect(old.problems[0]!.details).toMatchObject({ field: 'status', archived: true });
    expect(old.resume.action).toBe('none');
    expect(old.resume.warnings.join(' ')).toContain('move it back');
    // Maestro defines no heartbeat or age limit: no session of any fixture is STALE_ACTIVE.
    expect([...r.problems, ...r.sessions.flatMap((s) => s.problems)].some((p) => p.code === 'STALE_ACTIVE')).toBe(
      false,
    );
  });
});

describe('maestro inspect: damage and drift', () => {
  it('damaged frontmatter: each bad file is one problem, the good archive is still read', async () => {
    const r = await inspect('damaged-frontmatter');
    expect(r.sessions.map((s) => s.id)).toEqual(['2026-05-04-fine']);
    expect(codes(r.problems)).toEqual([
      'CORRUPT_FILE@.gemini/state/active-session.md',
      'CORRUPT_FILE@.gemini/state/archive/2026-05-01-no-fence.md',
      'CORRUPT_FILE@.gemini/state/archive/2026-05-02-bad-json.md',
      'CORRUPT_FILE@.gemini/state/archive/2026-05-03-unclosed.md',
      'EMPTY_FILE@.gemini/state/archive/2026-05-05-empty.md',
    ]);
    const byPath = Object.fromEntries(r.problems.map((p) => [p.path, p]));
    expect(byPath['.gemini/state/active-session.md']!.message).toContain('YAML');
    expect(byPath['.gemini/state/active-session.md']!.sessionId).toBe('2026-06-01-broken');
    expect(byPath['.gemini/state/archive/2026-05-01-no-fence.md']!.message).toContain('no frontmatter');
    expect(byPath['.gemini/state/archive/2026-05-02-bad-json.md']!.message).toContain('JSON');
    expect(byPath['.gemini/state/archive/2026-05-03-unclosed.md']!.message).toContain('never closed');
  });

  it('legacy singular "agent" is read as agents and reported as LEGACY_FIELD', async () => {
    const s = only(await inspect('legacy-agent'));
    expect(s.units.map((u) => u.agents)).toEqual([['refactor'], ['tester']]);
    expect(s.units.every((u) => !('agent' in u.metadata))).toBe(true);
    const legacy = s.problems.filter((p) => p.code === 'LEGACY_FIELD');
    expect(legacy.map((p) => p.details)).toEqual([
      { phase: '1', field: 'agent', current: 'agents' },
      { phase: '2', field: 'agent', current: 'agents' },
    ]);
    // by_agent is {}: no breakdown, not a disagreement (issue 14).
    expect(s.tokens).toMatchObject({ input: 500, output: 200, byAgent: null, agrees: null });
    expect(s.resume).toMatchObject({ action: 'start', unitId: '2', lastCompleted: '1' });
  });

  it('minimal one-agent template: one unit with the flat file lists', async () => {
    const s = only(await inspect('minimal-session'));
    expect(s.title).toBe('Fix the typo in the README install section');
    expect(s.units).toHaveLength(1);
    expect(s.units[0]).toMatchObject({
      id: '1',
      status: 'in_progress',
      agents: ['coder'],
      files: [{ path: 'README.md', action: 'modified' }],
    });
    expect(s.resume).toMatchObject({ action: 'continue', unitId: '1' });
    expect(s.tokens).toMatchObject({ input: 900, output: 120, agrees: true });
    expect(s.problems).toEqual([]);
  });

  it('bad values: status outside the enum, completed without a time, reconciliation, stale log, foreign design gate', async () => {
    const r = await inspect('bad-values');
    const s = r.sessions.find((x) => x.id === '2026-08-08-payments')!;
    const p = (code: string) => s.problems.filter((x) => x.code === code);
    expect(s.units.map((u) => `${u.id}:${u.status}:${u.rawStatus}`)).toEqual([
      '1:completed:completed',
      '2:in_progress:in_progress',
      '3:pending:running',
    ]);
    expect(p('BAD_VALUE').map((x) => x.details)).toEqual(
      expect.arrayContaining([
        expect.objectContaining({ field: 'workflow_mode', value: 'turbo' }),
        expect.objectContaining({ phase: '1', field: 'completed' }),
        expect.objectContaining({ phase: '3', field: 'status', value: 'running' }),
        expect.objectContaining({ field: 'total_phases', value: 4, phases: 3 }),
      ]),
    );
    expect(p('BAD_VALUE')).toHaveLength(4);
    expect(p('RECONCILIATION_PENDING').map((x) => x.details?.phase)).toEqual(['1']);
    const fileLines = (await fs.readFile(path.join(FIXTURES, 'bad-values', s.path), 'utf8')).split('\n');
    const line = fileLines.indexOf('## Phase 2: Worker ✓') + 1;
    expect(line).toBeGreaterThan(60);
    expect(p('STALE_COMPANION').map((x) => x.details)).toEqual([
      { phase: '2', body: 'completed', frontmatter: 'in_progress', line },
    ]);
    expect(s.units[1]!.status).toBe('in_progress'); // the frontmatter wins
    expect(p('TOKENS_DISAGREE')).toHaveLength(0); // by_agent is {}: no breakdown to disagree with (issue 14)
    expect(s.resume.warnings.join(' ')).toContain('requires reconciliation');
    expect(codes(r.problems)).toEqual([
      'DESIGN_GATE_SESSION_MISMATCH@docs/maestro/state/2026-08-01-other.design-gate.json',
    ]);
    expect(r.problems[0]!.details).toEqual({ gateSession: '2026-08-01-other', activeSession: '2026-08-08-payments' });
  });

  it('plan paths climbing out or absolute are UNSAFE_PATH and not followed', async () => {
    const s = only(await inspect('plan-traversal'));
    expect(codes(s.problems)).toEqual(['UNSAFE_PATH@../../../etc/passwd', 'UNSAFE_PATH@/etc/hosts']);
    expect(s.problems.map((p) => p.details?.field).sort()).toEqual(['design_document', 'implementation_plan']);
    expect(s.problems.every((p) => p.sessionId === '2026-07-07-escape')).toBe(true);
  });

  it('two active files (one per default state dir) → TWO_ACTIVE', async () => {
    const r = await inspect('two-active');
    expect(r.sessions.map((s) => s.id).sort()).toEqual(['2026-09-01-rename-flag', '2026-10-01-gemini-era']);
    expect(codes(r.problems)).toEqual(['TWO_ACTIVE@.gemini/state/active-session.md']);
    expect(r.problems[0]!.details).toEqual({
      paths: ['.gemini/state/active-session.md', 'docs/maestro/state/active-session.md'],
    });
  });

  it('a missing plan is MISSING_PLAN; a gate left for an archived session is DESIGN_GATE_LINGERING', async () => {
    const root = await tmp(copyCase('completed-archived'));
    await fs.rm(path.join(root, '.gemini/plans/archive/2026-01-20-cli-flags-impl-plan.md'));
    await fs.writeFile(
      path.join(root, '.gemini/state/2026-01-20-cli-flags.design-gate.json'),
      '{"session_id":"2026-01-20-cli-flags","status":"approved"}\n',
    );
    const r = await inspect(root);
    expect(codes(only(r).problems)).toEqual(['MISSING_PLAN@.gemini/state/archive/2026-01-20-cli-flags.md']);
    expect(codes(r.problems)).toEqual(['DESIGN_GATE_LINGERING@.gemini/state/2026-01-20-cli-flags.design-gate.json']);
  });

  it('blocked_by prerequisites not completed → PREREQUISITE problem and a resume warning', async () => {
    const root = await tmp(copyCase('mid-run-yaml'));
    const f = path.join(root, '.gemini/state/active-session.md');
    const text = await fs.readFile(f, 'utf8');
    // Phase 1 back to pending: phase 2 (blocked by 1) is now in progress out of order.
    await fs.writeFile(
      f,
      text
        .replace('status: "completed"', 'status: "pending"')
        .replace('completed: "2026-03-01T10:00:00Z"', 'completed: null')
        .replace('started: "2026-03-01T09:05:00Z"', 'started: null'),
    );
    const s = only(await inspect(root));
    expect(s.problems.filter((p) => p.code === 'PREREQUISITE').map((p) => p.details)).toEqual([
      { phase: '2', blockedBy: '1', blockerStatus: 'pending' },
    ]);
    expect(s.resume).toMatchObject({ action: 'continue', unitId: '2', lastCompleted: null });
    expect(s.resume.warnings.join(' ')).toContain('blocked by phase(s) 1');
    expect(s.problems.some((p) => p.code === 'STALE_COMPANION' && p.details?.phase === '1')).toBe(true);
  });

  it('a status named like an object property ("constructor") is a BAD_VALUE, read as in progress', async () => {
    const root = await tmp(copyCase('legacy-agent'));
    const f = path.join(root, '.gemini/state/active-session.md');
    await fs.writeFile(f, (await fs.readFile(f, 'utf8')).replace('status: "in_progress"', 'status: "constructor"'));
    const s = only(await inspect(root));
    expect(s.status).toBe('active');
    expect(s.rawStatus).toBe('constructor');
    expect(s.problems.filter((p) => p.code === 'BAD_VALUE').map((p) => p.details)).toEqual([
      { field: 'status', value: 'constructor' },
    ]);
  });

  it('a session file left completed in state/ → finish the archive', async () => {
    const root = await tmp(copyCase('express-review'));
    const f = path.join(root, 'docs/maestro/state/active-session.md');
    await fs.writeFile(f, (await fs.readFile(f, 'utf8')).replace('"status": "in_progress"', '"status": "completed"'));
    const s = only(await inspect(root));
    expect(s.status).toBe('completed');
    expect(s.resume.action).toBe('archive');
  });
});

describe('maestro inspect: tolerant reader (CRLF, BOM) and path safety', () => {
  it('CRLF line endings and a UTF-8 BOM give the same facts as the original', async () => {
    for (const name of ['mid-run-yaml', 'mid-run-json', 'interrupted-retry1']) {
      const base = only(await inspect(name));
      const root = await tmp(copyCase(name));
      const f = path.join(root, base.path);
      const text = await fs.readFile(f, 'utf8');
      await fs.writeFile(f, Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), Buffer.from(text.replace(/\n/g, '\r\n'))]));
      const s = only(await inspect(root));
      expect(s.units).toEqual(base.units);
      expect(s.resume).toEqual(base.resume);
      expect(s.tokens).toEqual(base.tokens);
      expect(codes(s.problems)).toEqual(codes(base.problems));
      expect(s.sourceHash).not.toBe(base.sourceHash); // the bytes differ, so a re-import sees a change
    }
  });

  it('a state dir that is a link leading outside is reported and not followed', async () => {
    const outside = await tmp(copyCase('mid-run-yaml'));
    const root = await tmp(fs.mkdtemp(path.join(os.tmpdir(), 'baton-maestro-link-')));
    await fs.symlink(path.join(outside, '.gemini'), path.join(root, '.gemini'));
    const r = await inspect(root);
    expect(r.sessions).toEqual([]);
    expect(codes(r.problems)).toEqual(['UNSAFE_PATH@.gemini']);
    expect(await maestroAdapter.detect(await SafeDir.open(root))).toBe(0.5);
  });

  it('an archived file and a plan that are links leading outside are reported and not followed', async () => {
    const outside = await tmp(copyCase('completed-archived'));
    const root = await tmp(copyCase('mid-run-yaml'));
    await fs.mkdir(path.join(root, '.gemini/state/archive'), { recursive: true });
    await fs.symlink(
      path.join(outside, '.gemini/state/archive/2026-01-20-cli-flags.md'),
      path.join(root, '.gemini/state/archive/2026-01-20-cli-flags.md'),
    );
    await fs.rm(path.join(root, '.gemini/plans/2026-03-01-auth-service-design.md'));
    await fs.symlink(
      path.join(outside, '.gemini/plans/archive/2026-01-20-cli-flags-design.md'),
      path.join(root, '.gemini/plans/2026-03-01-auth-service-design.md'),
    );
    const r = await inspect(root);
    expect(r.sessions.map((s) => s.id)).toEqual(['2026-03-01-auth-service']);
    expect(codes(r.problems)).toEqual(['UNSAFE_PATH@.gemini/state/archive/2026-01-20-cli-flags.md']);
    expect(codes(only(r).problems)).toEqual(['UNSAFE_PATH@.gemini/plans/2026-03-01-auth-service-design.md']);
  });

  it('inspect changes no byte and no mtime', async () => {
    const root = await tmp(copyCase('bad-values'));
    const snap = async () => {
      const out: Record<string, string> = {};
      for (const e of await fs.readdir(root, { recursive: true, withFileTypes: true })) {
        if (!e.isFile()) continue;
        const p = path.join(e.parentPath ?? (e as unknown as { path: string }).path, e.name);
        const st = await fs.stat(p);
        out[path.relative(root, p)] = `${st.mtimeMs}:${(await fs.readFile(p)).toString('base64')}`;
      }
      return out;
    };
    const before = await snap();
    await inspect(root);
    await maestroAdapter.detect(await SafeDir.open(root));
    expect(await snap()).toEqual(before);
  });
});

describe('maestro inspect: NOW is not used to call a session stale', () => {
  it('a year-old in_progress session is reported exactly as a fresh one', async () => {
    const dir = await SafeDir.open(path.join(FIXTURES, 'mid-run-yaml'));
    const a = await maestroAdapter.inspect(dir, NOW);
    const b = await maestroAdapter.inspect(dir, new Date('2030-01-01T00:00:00Z'));
    expect(b).toEqual(a);
  });
});

describe('maestro inspect: never throws on damaged input', () => {
  it('truncated, spliced or byte-flipped session files are reported, never thrown', async () => {
    const root = await tmp(fs.mkdtemp(path.join(os.tmpdir(), 'baton-maestro-fuzz-')));
    const sources = await Promise.all(
      [
        'mid-run-yaml/.gemini/state/active-session.md',
        'mid-run-json/docs/maestro/state/active-session.md',
        'interrupted-retry1/.gemini/state/active-session.md',
      ].map((f) => fs.readFile(path.join(FIXTURES, f))),
    );
    const file = path.join(root, 'state/active-session.md');
    await fs.mkdir(path.dirname(file), { recursive: true });
    const known = new Set([
      'UNSAFE_PATH',
      'CORRUPT_FILE',
      'EMPTY_FILE',
      'MISSING_FIELD',
      'BAD_VALUE',
      'LEGACY_FIELD',
      'TOKENS_DISAGREE',
      'STALE_COMPANION',
      'PREREQUISITE',
      'RECONCILIATION_PENDING',
      'EMPTY_MANIFEST',
      'MISSING_PLAN',
    ]);
    await fc.assert(
      fc.asyncProperty(
        fc.integer({ min: 0, max: sources.length - 1 }),
        fc.nat(),
        fc.nat(),
        fc.array(fc.tuple(fc.nat(), fc.integer({ min: 0, max: 255 })), { maxLength: 6 }),
        async (which, cutA, cutB, flips) => {
          const src = Buffer.from(sources[which]!);
          for (const [at, byte] of flips) src[at % src.length] = byte;
          const a = cutA % (src.length + 1);
          const b = cutB % (src.length + 1);
          await fs.writeFile(file, Buffer.concat([src.subarray(0, Math.min(a, b)), src.subarray(Math.max(a, b))]));
          const r = await maestroAdapter.inspect(await SafeDir.open(root), NOW);
          for (const p of [...r.problems, ...r.sessions.flatMap((x) => x.problems)])
            expect(known.has(p.code), p.code).toBe(true);
          expect(r.sessions.length + r.problems.length).toBeGreaterThan(0);
        },
      ),
      { numRuns: 100 },
    );
  });
});
