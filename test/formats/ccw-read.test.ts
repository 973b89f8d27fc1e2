/**
 * The CCW adapter reads each fixture case (docs/formats/ccw.md) and reports its facts one by one:
 * sessions, statuses by the layout's rule, units, position, resume advice and every problem.
 */
import fs from 'node:fs/promises';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { adapterFor } from '../../src/formats/registry.js';
import { copyFixture, inspect, session, withCode } from './ccw-helpers.js';

describe('ccw adapter: registration', () => {
  it('is listed in ADAPTERS under the name ccw', () => {
    expect(adapterFor('ccw')?.name).toBe('ccw');
  });
});

describe('ccw: seed-era registry, mid-run (seed-mid-run)', () => {
  it('reports the layout and the three registered sessions with the file statuses', async () => {
    const r = await inspect('seed-mid-run');
    expect(r.format).toBe('ccw');
    const layout = withCode(r.problems, 'CCW_LAYOUT');
    expect(layout).toHaveLength(1);
    expect(layout[0]!.details).toMatchObject({ layouts: ['registry'] });
    expect(withCode(r.problems, 'NEEDS_MIGRATION')).toHaveLength(0);
    expect(r.sessions.map((s) => [s.id, s.status, s.active, s.archived])).toEqual([
      ['WFS-bug-fix-123', 'completed', false, false],
      ['WFS-oauth-integration', 'paused', false, false],
      ['WFS-user-profile', 'active', true, false],
    ]);
    expect(withCode(r.problems, 'TWO_ACTIVE')).toHaveLength(0);
  });

  it('reads the active session: units, sub-step, agents, task files, unknown fields', async () => {
    const s = session(await inspect('seed-mid-run'), 'WFS-user-profile');
    expect(s.title).toBe('User profile feature');
    expect(s.rawStatus).toBe('active');
    expect(s.path).toBe('.workflow/WFS-user-profile/workflow-session.json');
    expect(s.createdAt).toBe('2025-09-07T10:00:00Z');
    expect(s.updatedAt).toBe('2025-09-07T12:30:00Z');
    expect(s.units.map((u) => [u.id, u.status, u.rawStatus])).toEqual([
      ['plan', 'completed', 'completed'],
      ['implement', 'in_progress', 'in_progress'],
      ['review', 'pending', 'pending'],
    ]);
    const [plan, impl, review] = s.units;
    expect(plan!.completedAt).toBe('2025-09-07T11:20:00Z');
    expect(plan!.files).toEqual([
      // Relative to the session folder, where CCW keeps its documents (issue 27).
      { path: 'IMPL_PLAN.md', action: 'created', base: '.workflow/WFS-user-profile' },
      { path: 'TASK_BREAKDOWN.md', action: 'created', base: '.workflow/WFS-user-profile' },
    ]);
    expect(impl!.subStep).toBe('code-review-agent');
    expect(impl!.agents).toEqual(['code-developer', 'code-review-agent']);
    expect(impl!.startedAt).toBe('2025-09-07T11:25:00Z');
    expect(impl!.metadata.todos).toEqual({ total: 12, completed: 8, in_progress: 1 });
    expect(impl!.metadata.agents_completed).toEqual(['code-developer']);
    expect(impl!.metadata.taskFiles).toEqual({
      total: 3,
      byStatus: { completed: 2, in_progress: 1 },
      ids: ['impl-1', 'impl-1.1', 'impl-2'],
    });
    expect(review!.metadata.quality_checks).toEqual({ code_quality: 'pending', test_coverage: 'pending' });
    // The resume point at task level: the task in progress (issue 14).
    expect(s.position).toEqual({ unitId: 'implement', subStep: 'code-review-agent', task: 'impl-2' });
    expect(s.tokens).toBeNull();
    expect(s.unresolvedErrors).toEqual([]);
    // unknown top-level fields survive verbatim in the documents
    const doc = s.documents['.workflow/WFS-user-profile/workflow-session.json'] as Record<string, unknown>;
    expect(doc.owner_note).toBe('kept verbatim');
    expect(doc.state_transitions).toHaveLength(1);
    expect(s.documents['.workflow/session_status.jsonl']).toMatchObject({
      id: 'WFS-user-profile',
      complexity: 'medium',
    });
    expect(s.sources).toContain('.workflow/session_status.jsonl');
    expect(s.sources).toContain('.workflow/WFS-user-profile/.task/impl-2.json');
    // planning documents and task files travel with the session (text / parsed JSON)
    expect(s.documents['.workflow/WFS-user-profile/IMPL_PLAN.md']).toBe(
      '# Plan\n\n1. profile model\n2. profile page\n',
    );
    expect(s.documents['.workflow/WFS-user-profile/TASK_BREAKDOWN.md']).toBe('# Tasks\n');
    expect(s.documents['.workflow/WFS-user-profile/.task/impl-2.json']).toEqual({
      id: 'impl-2',
      title: 'profile page',
      status: 'in_progress',
    });
    expect(s.documents['.workflow/WFS-user-profile/.task/impl-2.1.1.1.json']).toBeUndefined();
    expect(s.sourceHash).toMatch(/^[0-9a-f]{64}$/);
  });

  it('a task id deeper than three levels is reported and not read', async () => {
    const s = session(await inspect('seed-mid-run'), 'WFS-user-profile');
    const bad = withCode(s.problems, 'BAD_VALUE');
    expect(bad).toHaveLength(1);
    expect(bad[0]!.path).toBe('.workflow/WFS-user-profile/.task/impl-2.1.1.1.json');
    expect(bad[0]!.details).toMatchObject({ maxDepth: 3 });
    expect(s.sources).not.toContain('.workflow/WFS-user-profile/.task/impl-2.1.1.1.json');
  });

  it('resumes implementation: skip the completed agents, continue with current_agent', async () => {
    const s = session(await inspect('seed-mid-run'), 'WFS-user-profile');
    expect(s.resume.unitId).toBe('implement');
    expect(s.resume.action).toBe('skip-to-substep');
    expect(s.resume.subStep).toBe('code-review-agent');
    expect(s.resume.lastCompleted).toBe('plan');
    expect(s.resume.reason).toContain('skipping the completed agents code-developer');
    expect(s.resume.warnings).toEqual([]);
    expect(s.resume.recommended).toBe('live');
    expect(s.resume.options.map((o) => [o.kind, o.recommended])).toEqual([
      ['live', true],
      ['fresh', false],
    ]);
    expect(s.resume.options[1]!.target).toBe('.workflow/WFS-user-profile/IMPL_PLAN.md');
    expect(s.resume.options[1]!.loses).toMatch(/completed agents/);
  });

  it('resumes planning for the paused session; nothing for the completed one', async () => {
    const r = await inspect('seed-mid-run');
    const paused = session(r, 'WFS-oauth-integration');
    expect(paused.resume.unitId).toBe('plan');
    expect(paused.resume.action).toBe('continue');
    expect(paused.resume.reason).toMatch(/resume_planning/);
    expect(paused.position).toEqual({ unitId: 'plan', subStep: null });
    const done = session(r, 'WFS-bug-fix-123');
    expect(done.resume.action).toBe('none');
    expect(done.resume.unitId).toBeNull();
    expect(done.resume.options).toEqual([]);
    expect(done.resume.warnings).toEqual([]);
    expect(done.units.every((u) => u.status === 'completed')).toBe(true);
    expect(done.problems).toEqual([]);
  });
});

describe('ccw: session.md shape, interrupted (session-md-interrupted)', () => {
  it('reads phases INIT…REVIEW, the disabled phase as skipped, and "interrupted"', async () => {
    const r = await inspect('session-md-interrupted');
    const s = session(r, 'WFS-search-api');
    expect(s.rawStatus).toBe('interrupted');
    // Outside CCW's set: normalised as session.md documents it (its pause) and flagged (issue 14).
    expect(s.status).toBe('paused');
    expect(withCode(s.problems, 'STATUS_NORMALISED').map((p) => p.details)).toEqual([
      { field: 'status', raw: 'interrupted', read: 'paused' },
    ]);
    expect(s.active).toBe(false);
    expect(s.title).toBe('Search API');
    expect(s.units.map((u) => [u.id, u.status])).toEqual([
      ['INIT', 'completed'],
      ['BRAINSTORM', 'skipped'],
      ['PLAN', 'completed'],
      ['IMPLEMENT', 'in_progress'],
      ['REVIEW', 'pending'],
    ]);
    const init = s.units[0]!;
    expect(init.completedAt).toBe('2025-09-07T09:01:00Z');
    expect(init.files).toEqual([
      { path: 'workflow-session.json', action: 'created', base: s.path.replace(/\/workflow-session\.json$/, '') },
    ]);
    expect(init.metadata).toEqual({ enabled: true, directories_created: ['.task', 'reports'] });
    expect(s.units[1]!.metadata).toEqual({ enabled: false });
    expect(s.units[3]!.metadata.taskFiles).toEqual({
      total: 2,
      byStatus: { completed: 1, pending: 1 },
      ids: ['impl-1', 'impl-2'],
    });
    const doc = s.documents['.workflow/WFS-search-api/workflow-session.json'] as Record<string, unknown>;
    expect(doc.task_system).toMatchObject({ max_depth: 3, next_main_task_id: 3 });
  });

  it('registry "paused" agrees with file "interrupted" (no mismatch)', async () => {
    const s = session(await inspect('session-md-interrupted'), 'WFS-search-api');
    expect(withCode(s.problems, 'REGISTRY_MISMATCH')).toEqual([]);
  });

  it('state validation: TODO_LIST.md missing → partial recovery warning', async () => {
    const s = session(await inspect('session-md-interrupted'), 'WFS-search-api');
    expect(s.resume.unitId).toBe('IMPLEMENT');
    expect(s.resume.action).toBe('continue');
    expect(s.resume.lastCompleted).toBe('PLAN');
    expect(s.resume.warnings).toHaveLength(1);
    expect(s.resume.warnings[0]).toMatch(/Partial recovery: TODO_LIST\.md missing/);
    const m = withCode(s.problems, 'MISSING_ARTIFACT');
    expect(m).toHaveLength(1);
    expect(m[0]!.details).toEqual({ unit: 'IMPLEMENT', missing: ['TODO_LIST.md'] });
    expect(withCode(s.problems, 'PREREQUISITE')).toEqual([]);
  });
});

describe('ccw: damaged registry (registry-truncated)', () => {
  it('a torn last line is reported with its number and the other lines are read', async () => {
    const r = await inspect('registry-truncated');
    const t = withCode(r.problems, 'TRUNCATED_LINE');
    expect(t).toHaveLength(1);
    expect(t[0]!.details).toMatchObject({ line: 6 });
    expect(t[0]!.path).toBe('.workflow/session_status.jsonl');
    expect(r.sessions.map((s) => s.id)).toEqual(['WFS-alpha', 'WFS-beta', 'WFS-delta', 'WFS-gamma']);
  });

  it('a duplicate id: reported, the last line wins', async () => {
    const r = await inspect('registry-truncated');
    const d = withCode(r.problems, 'DUPLICATE_ENTRY');
    expect(d).toHaveLength(1);
    expect(d[0]!.sessionId).toBe('WFS-alpha');
    expect(d[0]!.details).toEqual({ lines: [1, 4], kept: 4 });
    const alpha = session(r, 'WFS-alpha');
    expect(alpha.active).toBe(true); // line 4 says active, line 1 said paused
    expect(alpha.documents['.workflow/session_status.jsonl']).toMatchObject({ status: 'active' });
  });

  it('registry vs file status: the session file wins, reported', async () => {
    const beta = session(await inspect('registry-truncated'), 'WFS-beta');
    expect(beta.status).toBe('completed');
    expect(beta.active).toBe(false);
    const m = withCode(beta.problems, 'REGISTRY_MISMATCH');
    expect(m).toHaveLength(1);
    expect(m[0]!.details).toEqual({ field: 'status', registry: 'active', file: 'completed', line: 2 });
  });

  it('a registry entry without folder is dangling; a folder not in the registry is an orphan', async () => {
    const r = await inspect('registry-truncated');
    const d = withCode(r.problems, 'DANGLING_ENTRY');
    expect(d.map((p) => p.sessionId)).toEqual(['WFS-ghost']);
    expect(d[0]!.details).toMatchObject({ line: 5 });
    expect(r.sessions.find((s) => s.id === 'WFS-ghost')).toBeUndefined();
    const gamma = session(r, 'WFS-gamma');
    expect(withCode(gamma.problems, 'ORPHAN_SESSION')).toHaveLength(1);
    expect(gamma.active).toBe(false);
    expect(gamma.rawStatus).toBe('active');
    expect(gamma.status).toBe('paused');
  });

  it('two registry entries active with agreeing files: TWO_ACTIVE (active collision)', async () => {
    const r = await inspect('registry-truncated');
    const t = withCode(r.problems, 'TWO_ACTIVE');
    expect(t).toHaveLength(1);
    expect(t[0]!.severity).toBe('warning');
    expect(t[0]!.details).toMatchObject({ sessions: ['WFS-alpha', 'WFS-delta'] });
    expect(t[0]!.details?.effective).toBeDefined();
  });
});

describe('ccw: unsafe registry directories (registry-unsafe)', () => {
  it('".." and absolute directories are UNSAFE_PATH, not followed, not also dangling', async () => {
    const r = await inspect('registry-unsafe');
    const u = withCode(r.problems, 'UNSAFE_PATH');
    expect(u.map((p) => [p.sessionId, p.details])).toEqual([
      ['WFS-evil', { line: 1, directory: '.workflow/../../outside/WFS-evil' }],
      ['WFS-abs', { line: 2, directory: '/etc/WFS-abs' }],
    ]);
    expect(withCode(r.problems, 'DANGLING_ENTRY')).toEqual([]);
    expect(r.sessions.map((s) => s.id)).toEqual(['WFS-good']);
  });

  it('a plan document path with ".." is reported and not looked at', async () => {
    const s = session(await inspect('registry-unsafe'), 'WFS-good');
    const u = withCode(s.problems, 'UNSAFE_PATH');
    expect(u).toHaveLength(1);
    expect(u[0]!.details).toEqual({ document: '../../../etc/passwd' });
  });
});

describe('ccw: marker-file layout (markers)', () => {
  it('the marker wins over the file status, both ways', async () => {
    const r = await inspect('markers');
    expect(withCode(r.problems, 'CCW_LAYOUT')[0]!.details).toMatchObject({ layouts: ['markers'] });
    const search = session(r, 'WFS-search');
    expect(search.rawStatus).toBe('paused');
    expect(search.status).toBe('active');
    expect(search.active).toBe(true);
    expect(withCode(search.problems, 'REGISTRY_MISMATCH')[0]!.details).toEqual({
      field: 'status',
      marker: 'active',
      file: 'paused',
    });
    expect(search.documents['.workflow/.active-WFS-search']).toBe('');
    const old = session(r, 'WFS-old');
    expect(old.rawStatus).toBe('active');
    expect(old.status).toBe('paused');
    expect(old.active).toBe(false);
    expect(withCode(old.problems, 'REGISTRY_MISMATCH')[0]!.details).toEqual({
      field: 'status',
      marker: null,
      file: 'active',
    });
  });

  it('a marker naming no folder is a dangling active pointer', async () => {
    const r = await inspect('markers');
    const d = withCode(r.problems, 'DANGLING_ACTIVE');
    expect(d).toHaveLength(1);
    expect(d[0]!.path).toBe('.workflow/.active-WFS-gone');
    expect(d[0]!.sessionId).toBe('WFS-gone');
    expect(withCode(r.problems, 'TWO_ACTIVE')).toEqual([]);
  });

  it('resume skips the two completed agents and continues with test-agent', async () => {
    const s = session(await inspect('markers'), 'WFS-search');
    expect(s.resume).toMatchObject({
      unitId: 'implement',
      action: 'skip-to-substep',
      subStep: 'test-agent',
      lastCompleted: 'plan',
    });
    expect(s.resume.reason).toContain('planner-agent, code-developer');
    expect(s.resume.warnings).toEqual([]);
  });
});

describe('ccw: active/ + archives/ layout (directories-archiving)', () => {
  it('an .archiving marker: interrupted archive, resume = finish the archive', async () => {
    const r = await inspect('directories-archiving');
    expect(withCode(r.problems, 'CCW_LAYOUT')[0]!.details).toMatchObject({ layouts: ['directories'] });
    const b = session(r, 'WFS-feature-b');
    expect(b.archived).toBe(false);
    expect(b.status).toBe('completed');
    const a = withCode(b.problems, 'ARCHIVE_INTERRUPTED');
    expect(a).toHaveLength(1);
    expect(a[0]!.path).toBe('.workflow/active/WFS-feature-b/.archiving');
    expect(b.resume.action).toBe('archive');
    expect(b.resume.unitId).toBeNull();
  });

  it('an active session in active/: implement from its current agent; missing TODO_LIST.md warned', async () => {
    const a = session(await inspect('directories-archiving'), 'WFS-feature-a');
    expect(a.active).toBe(true);
    expect(a.archived).toBe(false);
    expect(a.path).toBe('.workflow/active/WFS-feature-a/workflow-session.json');
    expect(a.resume).toMatchObject({ unitId: 'implement', action: 'skip-to-substep', subStep: 'code-developer' });
    expect(withCode(a.problems, 'MISSING_ARTIFACT')[0]!.details).toEqual({
      unit: 'implement',
      missing: ['TODO_LIST.md'],
    });
  });

  it('an archived session completed without review: issue #48 warnings, nothing to resume', async () => {
    const c = session(await inspect('directories-archiving'), 'WFS-feature-c');
    expect(c.archived).toBe(true);
    expect(c.active).toBe(false);
    expect(c.status).toBe('completed');
    expect(c.resume.action).toBe('none');
    expect(c.resume.warnings).toHaveLength(2);
    expect(c.resume.warnings[0]).toMatch(/without review.*#48/);
    expect(c.resume.warnings[1]).toMatch(/cannot re-review an archived session/);
  });
});

describe('ccw: archive copied instead of moved (archive-copied)', () => {
  it('one session, read from archives/, ARCHIVE_COPIED naming both copies', async () => {
    const r = await inspect('archive-copied');
    expect(r.sessions).toHaveLength(1);
    const s = r.sessions[0]!;
    expect(s.archived).toBe(true);
    expect(s.path).toBe('.workflow/archives/WFS-copied/workflow-session.json');
    const c = withCode(s.problems, 'ARCHIVE_COPIED');
    expect(c).toHaveLength(1);
    expect(c[0]!.details).toEqual({
      live: ['.workflow/active/WFS-copied'],
      archived: '.workflow/archives/WFS-copied',
      read: '.workflow/archives/WFS-copied',
    });
  });

  it('a failed quality check is an unresolved error of the review', async () => {
    const s = (await inspect('archive-copied')).sessions[0]!;
    expect(s.unresolvedErrors).toEqual([
      {
        unitId: 'review',
        agent: null,
        time: '2025-11-21T12:00:00Z',
        type: 'quality_check',
        message: 'Quality check test_coverage failed.',
        resolved: false,
        resolution: null,
      },
    ]);
  });
});

describe('ccw: corrupt session files (corrupt-with-backup)', () => {
  it('corrupt file with a parseable backup: CORRUPT_FILE with details.backup, state read from it, rollback recommended', async () => {
    const s = session(await inspect('corrupt-with-backup'), 'WFS-broken');
    const c = withCode(s.problems, 'CORRUPT_FILE');
    expect(c).toHaveLength(1);
    expect(c[0]!.path).toBe('.workflow/active/WFS-broken/workflow-session.json');
    expect(c[0]!.details).toMatchObject({
      backup: '.workflow/active/WFS-broken/.backups/session-2025-11-20-09-30.json',
    });
    expect(s.status).toBe('active');
    expect(s.units.map((u) => u.status)).toEqual(['completed', 'in_progress', 'pending']);
    expect(s.resume.subStep).toBe('test-agent');
    expect(s.resume.recommended).toBe('checkpoint');
    expect(s.resume.options.map((o) => [o.kind, o.target, o.recommended])).toEqual([
      ['checkpoint', '.workflow/active/WFS-broken/.backups/session-2025-11-20-09-30.json', true],
      ['fresh', '.workflow/active/WFS-broken/IMPL_PLAN.md', false],
    ]);
    expect(Object.keys(s.documents)).toEqual([
      '.workflow/active/WFS-broken/.backups/session-2025-11-20-09-30.json',
      '.workflow/active/WFS-broken/IMPL_PLAN.md',
      '.workflow/active/WFS-broken/TODO_LIST.md',
    ]);
  });

  it('the newer, corrupt backup is a corrupt checkpoint naming the valid one to fall back to', async () => {
    const s = session(await inspect('corrupt-with-backup'), 'WFS-broken');
    const c = withCode(s.problems, 'CORRUPT_CHECKPOINT');
    expect(c).toHaveLength(1);
    expect(c[0]!.path).toBe('.workflow/active/WFS-broken/.backups/session-2025-11-20-10-00.json');
    expect(c[0]!.details).toEqual({ fallback: '.workflow/active/WFS-broken/.backups/session-2025-11-20-09-30.json' });
    expect(s.checkpoints).toEqual([
      {
        id: 'session-2025-11-20-10-00.json',
        unitId: null,
        createdAt: '2025-11-20T10:00:00.000Z',
        valid: false,
        problem: 'does not parse',
      },
      {
        id: 'session-2025-11-20-09-30.json',
        unitId: null,
        createdAt: '2025-11-20T09:30:00.000Z',
        valid: true,
        problem: null,
      },
    ]);
  });

  it('corrupt file without backup: CORRUPT_FILE with backup null, fresh rebuild recommended', async () => {
    const s = session(await inspect('corrupt-with-backup'), 'WFS-lost');
    expect(withCode(s.problems, 'CORRUPT_FILE')[0]!.details).toMatchObject({ backup: null });
    expect(s.status).toBe('interrupted');
    expect(s.rawStatus).toBeNull();
    expect(s.resume.recommended).toBe('fresh');
    expect(s.resume.options.map((o) => o.kind)).toEqual(['fresh']);
  });
});

describe('ccw: legacy registry next to active/ (mixed-legacy)', () => {
  it('reports both layouts, the migration, the stale registry directory and the old session_version', async () => {
    const r = await inspect('mixed-legacy');
    expect(withCode(r.problems, 'CCW_LAYOUT')[0]!.details).toMatchObject({ layouts: ['registry', 'directories'] });
    const m = withCode(r.problems, 'NEEDS_MIGRATION');
    expect(m).toHaveLength(1);
    expect(m[0]!.details).toMatchObject({ from: ['registry'], to: 'directories' });
    const mis = withCode(r.problems, 'REGISTRY_MISMATCH');
    expect(mis[0]!.details).toMatchObject({
      field: 'directory',
      registry: '.workflow/WFS-moved',
      found: ['.workflow/active/WFS-moved'],
    });
    const s = session(r, 'WFS-moved');
    expect(s.active).toBe(true);
    expect(s.path).toBe('.workflow/active/WFS-moved/workflow-session.json');
    const v = withCode(s.problems, 'NEEDS_MIGRATION');
    expect(v[0]!.severity).toBe('warning');
    expect(v[0]!.details).toEqual({ from: '1.0', to: '2.0' });
  });
});

describe('ccw: archive copied, then the live copy went on', () => {
  it('the newer live copy is read (not archived), ARCHIVE_COPIED says so', async () => {
    const dir = await copyFixture('archive-copied');
    const p = path.join(dir, '.workflow/active/WFS-copied/workflow-session.json');
    const doc = JSON.parse(await fs.readFile(p, 'utf8'));
    doc.updated_at = '2025-11-22T09:00:00Z';
    doc.status = 'active';
    doc.current_phase = 'REVIEW';
    doc.checkpoints.review.status = 'in_progress';
    await fs.writeFile(p, JSON.stringify(doc));
    const s = (await inspect(dir)).sessions[0]!;
    expect(s.archived).toBe(false);
    expect(s.status).toBe('active');
    expect(s.path).toBe('.workflow/active/WFS-copied/workflow-session.json');
    expect(withCode(s.problems, 'ARCHIVE_COPIED')[0]!.details).toMatchObject({ read: '.workflow/active/WFS-copied' });
  });
});
