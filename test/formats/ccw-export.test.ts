/**
 * exportPlan writes a session back in CCW's layout by CCW's rules (registry line, markers,
 * archive move, timestamped backups with retention), and `inspect` of the result gives the
 * same facts. The state is built from the foreign session by the import mapping
 * (`stateFrom`); the core's real import → export → import is in ccw-roundtrip.test.ts.
 */
import fs from 'node:fs/promises';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import type { SessionState } from '../../src/domain/state.js';
import { ccwAdapter } from '../../src/formats/ccw/index.js';
import { SafeDir } from '../../src/formats/safe-dir.js';
import type { ForeignSession } from '../../src/formats/types.js';
import {
  applyPlan,
  copyFixture,
  facts,
  FIXTURES,
  inspect,
  NOW,
  session,
  stateFrom,
  tempDir,
  tree,
  withCode,
} from './ccw-helpers.js';

async function exportInto(
  outDir: string,
  s: ForeignSession,
  state: SessionState = stateFrom(s),
  original: Record<string, unknown> | null = s.documents,
) {
  const out = await SafeDir.open(outDir);
  const plan = await ccwAdapter.exportPlan({ state, original, foreignId: s.id, now: NOW }, out);
  await applyPlan(out, plan);
  return plan;
}

const read = (dir: string, rel: string) => fs.readFile(path.join(dir, rel), 'utf8');

describe('ccw export: unchanged sessions come back with the same facts', () => {
  const cases: Array<[string, string]> = [
    ['seed-mid-run', 'WFS-user-profile'],
    ['seed-mid-run', 'WFS-oauth-integration'],
    ['seed-mid-run', 'WFS-bug-fix-123'],
    ['session-md-interrupted', 'WFS-search-api'],
    ['registry-truncated', 'WFS-alpha'],
    ['registry-truncated', 'WFS-gamma'],
    ['markers', 'WFS-search'],
    ['markers', 'WFS-old'],
    ['directories-archiving', 'WFS-feature-a'],
    ['directories-archiving', 'WFS-feature-c'],
    ['archive-copied', 'WFS-copied'],
    ['corrupt-with-backup', 'WFS-broken'],
    ['mixed-legacy', 'WFS-moved'],
  ];
  for (const [c, id] of cases) {
    it(`${c} / ${id}`, async () => {
      const before = session(await inspect(c), id);
      const dir = await copyFixture(c);
      await exportInto(dir, before);
      const after = session(await inspect(dir), id);
      const { rawStatus: _a, ...f1 } = facts(before);
      const { rawStatus: _b, ...f2 } = facts(after);
      expect(f2).toEqual(f1);
      expect(after.updatedAt).toBe(NOW.toISOString());
      // Damage the export repairs is gone; nothing new is wrong.
      for (const code of ['CORRUPT_FILE', 'EMPTY_FILE', 'ARCHIVE_COPIED', 'REGISTRY_MISMATCH', 'UNSAFE_PATH'])
        expect(withCode(after.problems, code), code).toEqual([]);
    });
  }

  it('"interrupted" (session.md) is written back as interrupted; the marker session as active', async () => {
    for (const [c, id, raw] of [
      ['session-md-interrupted', 'WFS-search-api', 'interrupted'],
      ['markers', 'WFS-search', 'active'],
    ] as const) {
      const dir = await copyFixture(c);
      await exportInto(dir, session(await inspect(c), id));
      expect(session(await inspect(dir), id).rawStatus).toBe(raw);
    }
  });
});

describe('ccw export: damaged sources', () => {
  it('a session whose file was lost without backup is written fresh and reads clean', async () => {
    const s = session(await inspect('corrupt-with-backup'), 'WFS-lost');
    const dir = await copyFixture('corrupt-with-backup');
    const plan = await exportInto(dir, s);
    // the unreadable file is kept as a backup, like any previous version
    expect(plan.writes.map((w) => w.path)).toEqual([
      '.workflow/active/WFS-lost/workflow-session.json',
      '.workflow/active/WFS-lost/.backups/session-2026-11-22-16-00.json',
    ]);
    expect(await read(dir, '.workflow/active/WFS-lost/.backups/session-2026-11-22-16-00.json')).toBe('{not json');
    const after = session(await inspect(dir), 'WFS-lost');
    expect(withCode(after.problems, 'CORRUPT_FILE')).toEqual([]);
    // CCW's set has no crash status: written as paused (issue 14).
    expect(after.status).toBe('paused');
    expect(after.rawStatus).toBe('paused');
    expect(after.units.map((u) => [u.id, u.status])).toEqual(s.units.map((u) => [u.id, u.status]));
    expect(withCode(after.problems, 'CORRUPT_CHECKPOINT')).toHaveLength(1); // the kept bad bytes
  });
});

describe('ccw export: the session file', () => {
  it('writes baton progress, bumps updated_at, keeps unmapped fields and key order', async () => {
    const s = session(await inspect('seed-mid-run'), 'WFS-user-profile');
    const state = stateFrom(s);
    const [, impl, review] = state.phases;
    impl!.status = 'completed';
    impl!.completedAt = '2025-09-07T14:00:00Z';
    impl!.agents = ['code-developer', 'code-review-agent', 'test-agent'];
    impl!.subStep = null;
    review!.status = 'in_progress';
    review!.startedAt = '2025-09-07T14:05:00Z';
    const dir = await copyFixture('seed-mid-run');
    await exportInto(dir, s, state);
    const doc = JSON.parse(await read(dir, '.workflow/WFS-user-profile/workflow-session.json')) as Record<string, any>;
    const orig = s.documents['.workflow/WFS-user-profile/workflow-session.json'] as Record<string, any>;
    expect(Object.keys(doc)).toEqual(Object.keys(orig));
    expect(doc.updated_at).toBe(NOW.toISOString());
    expect(doc.created_at).toBe(orig.created_at);
    expect(doc.current_phase).toBe('REVIEW');
    expect(doc.owner_note).toBe('kept verbatim');
    expect(doc.state_transitions).toEqual(orig.state_transitions);
    expect(doc.checkpoints.implement).toEqual({
      status: 'completed',
      agents_completed: ['code-developer', 'code-review-agent', 'test-agent'],
      current_agent: null,
      todos: { total: 12, completed: 8, in_progress: 1 },
      timestamp: '2025-09-07T14:00:00Z',
    });
    expect(doc.checkpoints.implement.taskFiles).toBeUndefined();
    expect(doc.checkpoints.review).toEqual({
      status: 'in_progress',
      quality_checks: { code_quality: 'pending', test_coverage: 'pending' },
      timestamp: '2025-09-07T14:05:00Z',
    });
    const again = session(await inspect(dir), 'WFS-user-profile');
    expect(again.resume).toMatchObject({ unitId: 'review', action: 'review', lastCompleted: 'implement' });
  });

  it('baton statuses CCW lacks: failed → paused, abandoned → completed', async () => {
    const s = session(await inspect('directories-archiving'), 'WFS-feature-a');
    for (const [status, raw] of [
      ['failed', 'paused'],
      ['abandoned', 'completed'],
    ] as const) {
      const dir = await copyFixture('directories-archiving');
      const plan = await exportInto(dir, s, { ...stateFrom(s), status });
      const file = plan.writes.find((w) => w.path.endsWith('/workflow-session.json'))!;
      expect(JSON.parse(file.content).status).toBe(raw);
    }
  });
});

describe('ccw export: layout (a), the registry', () => {
  it('updates the session line in place, keeps every other line verbatim', async () => {
    const s = session(await inspect('seed-mid-run'), 'WFS-oauth-integration');
    const dir = await copyFixture('seed-mid-run');
    const before = (await read(dir, '.workflow/session_status.jsonl')).split('\n');
    await exportInto(dir, s, { ...stateFrom(s), status: 'active', title: 'OAuth2 (renamed)' });
    const after = (await read(dir, '.workflow/session_status.jsonl')).split('\n');
    expect(after).toHaveLength(before.length);
    expect(after[1]).toBe(before[1]);
    expect(after[2]).toBe(before[2]);
    expect(JSON.parse(after[0]!)).toEqual({
      id: 'WFS-oauth-integration',
      status: 'active',
      description: 'OAuth2 (renamed)',
      created: '2025-09-07T10:00:00Z',
      directory: '.workflow/WFS-oauth-integration',
    });
    const r = await inspect(dir);
    expect(session(r, 'WFS-oauth-integration').active).toBe(true);
    expect(withCode(r.problems, 'TWO_ACTIVE')[0]!.details).toMatchObject({
      sessions: ['WFS-oauth-integration', 'WFS-user-profile'],
    });
  });

  it('duplicate lines of the session become one; a torn line is kept verbatim on its own line', async () => {
    const s = session(await inspect('registry-truncated'), 'WFS-alpha');
    const dir = await copyFixture('registry-truncated');
    await exportInto(dir, s, { ...stateFrom(s), status: 'paused' });
    const lines = (await read(dir, '.workflow/session_status.jsonl')).split('\n');
    expect(lines.filter((l) => l.includes('"WFS-alpha"'))).toHaveLength(1);
    expect(lines[0]).toContain('"status":"paused"');
    expect(lines.at(-2)).toBe('{"id":"WFS-gamma","status":"act');
    expect(lines.at(-1)).toBe('');
    const r = await inspect(dir);
    expect(withCode(r.problems, 'DUPLICATE_ENTRY')).toEqual([]);
    expect(withCode(r.problems, 'TRUNCATED_LINE')[0]!.details).toMatchObject({ line: 5 });
  });

  it('adds a line for a session the registry does not list (an orphan joins the registry only if it had a line)', async () => {
    const s = session(await inspect('seed-mid-run'), 'WFS-bug-fix-123');
    const dir = await tempDir();
    await fs.mkdir(path.join(dir, '.workflow'));
    await fs.writeFile(
      path.join(dir, '.workflow/session_status.jsonl'),
      '{"id":"WFS-other","status":"paused","directory":".workflow/WFS-other"}\n',
    );
    await exportInto(dir, s);
    const lines = (await read(dir, '.workflow/session_status.jsonl')).trimEnd().split('\n');
    expect(lines).toHaveLength(2);
    expect(JSON.parse(lines[1]!)).toMatchObject({
      id: 'WFS-bug-fix-123',
      status: 'completed',
      directory: '.workflow/WFS-bug-fix-123',
    });
  });
});

describe('ccw export: layout (b), markers', () => {
  it('an active session gets its marker; a paused one loses it', async () => {
    const s = session(await inspect('markers'), 'WFS-search');
    const dir = await copyFixture('markers');
    const plan = await exportInto(dir, s, { ...stateFrom(s), status: 'paused' });
    expect(plan.removes).toContain('.workflow/.active-WFS-search');
    expect(await tree(path.join(dir, '.workflow'))).not.toContain('.active-WFS-search');
    expect(session(await inspect(dir), 'WFS-search').active).toBe(false);
    await exportInto(dir, s, { ...stateFrom(s), status: 'active' });
    expect(await tree(path.join(dir, '.workflow'))).toContain('.active-WFS-search');
    expect(session(await inspect(dir), 'WFS-search').active).toBe(true);
  });
});

describe('ccw export: layout (c), archive = move', () => {
  it('a completed session goes to archives/ with its files; the active/ copy and .archiving marker go', async () => {
    const s = session(await inspect('directories-archiving'), 'WFS-feature-b');
    const dir = await copyFixture('directories-archiving');
    await fs.writeFile(
      path.join(dir, '.workflow/active/WFS-feature-b/IMPL_PLAN.md'),
      '# plan\r\nkept byte for byte\r\n',
    );
    await exportInto(dir, s);
    const files = await tree(path.join(dir, '.workflow'));
    expect(files.filter((f) => f.includes('WFS-feature-b'))).toEqual([
      'archives/WFS-feature-b/.backups/session-2026-11-22-16-00.json',
      'archives/WFS-feature-b/IMPL_PLAN.md',
      'archives/WFS-feature-b/workflow-session.json',
    ]);
    expect(await read(dir, '.workflow/archives/WFS-feature-b/IMPL_PLAN.md')).toBe('# plan\r\nkept byte for byte\r\n');
    const b = session(await inspect(dir), 'WFS-feature-b');
    expect(b.archived).toBe(true);
    expect(b.resume.action).toBe('none');
    expect(withCode(b.problems, 'ARCHIVE_INTERRUPTED')).toEqual([]);
  });

  it('an archive copied instead of moved is settled: one copy left, in archives/', async () => {
    const s = session(await inspect('archive-copied'), 'WFS-copied');
    const dir = await copyFixture('archive-copied');
    await exportInto(dir, s);
    expect((await tree(path.join(dir, '.workflow'))).filter((f) => f.startsWith('active/'))).toEqual([]);
    expect(withCode((await inspect(dir)).sessions[0]!.problems, 'ARCHIVE_COPIED')).toEqual([]);
  });

  it('a session born in baton is written in layout (c), principles shape, and reads back', async () => {
    const s = session(await inspect('seed-mid-run'), 'WFS-user-profile');
    const state: SessionState = { ...stateFrom(s), id: 'new feature', title: 'New feature' };
    state.phases = state.phases.map((p) => ({ ...p, id: p.id === 'implement' ? 'build' : p.id, metadata: {} }));
    const dir = await tempDir();
    const out = await SafeDir.open(dir);
    await applyPlan(
      out,
      await ccwAdapter.exportPlan({ state, original: null, foreignId: 'new feature', now: NOW }, out),
    );
    expect(await tree(dir)).toEqual(['.workflow/active/WFS-new-feature/workflow-session.json']);
    const r = await inspect(dir);
    const n = r.sessions[0]!;
    // A CCW id names its folder: the session is written as WFS-new-feature (the output says so).
    expect(n.id).toBe('WFS-new-feature');
    expect(withCode(n.problems, 'REGISTRY_MISMATCH')).toHaveLength(0);
    expect(n.units.map((u) => [u.id, u.status, u.subStep])).toEqual([
      ['plan', 'completed', null],
      ['build', 'in_progress', 'code-review-agent'],
      ['review', 'pending', null],
    ]);
    expect(n.position).toEqual({ unitId: 'build', subStep: 'code-review-agent' });
    const doc = n.documents['.workflow/active/WFS-new-feature/workflow-session.json'] as Record<string, unknown>;
    expect(doc).toMatchObject({
      session_version: '2.0',
      status: 'active',
      context_chain: [],
      state_transitions: [],
    });
    // CCW's current_phase is PLAN, IMPLEMENT or REVIEW: "BUILD" is not written.
    expect('current_phase' in doc).toBe(false);
  });

  it('into a .workflow folder given as the output folder, no second .workflow is made', async () => {
    const s = session(await inspect('directories-archiving'), 'WFS-feature-a');
    const dir = path.join(await tempDir(), '.workflow');
    await fs.mkdir(dir);
    await exportInto(dir, s);
    expect(await tree(dir)).toEqual([
      'active/WFS-feature-a/IMPL_PLAN.md',
      'active/WFS-feature-a/workflow-session.json',
    ]);
  });
});

describe('ccw export: timestamped backups, last five kept', () => {
  it('the previous file is kept as .backups/session-YYYY-MM-DD-HH-MM.json, older backups beyond five removed', async () => {
    const s = session(await inspect('directories-archiving'), 'WFS-feature-a');
    const dir = await copyFixture('directories-archiving');
    const bdir = path.join(dir, '.workflow/active/WFS-feature-a/.backups');
    await fs.mkdir(bdir);
    for (let h = 10; h < 16; h++)
      await fs.writeFile(path.join(bdir, `session-2026-11-2${h === 15 ? 1 : 0}-${h}-00.json`), `{"h":${h}}`);
    const prev = await read(dir, '.workflow/active/WFS-feature-a/workflow-session.json');
    const plan = await exportInto(dir, s);
    expect(plan.removes.sort()).toEqual([
      '.workflow/active/WFS-feature-a/.backups/session-2026-11-20-10-00.json',
      '.workflow/active/WFS-feature-a/.backups/session-2026-11-20-11-00.json',
    ]);
    expect((await fs.readdir(bdir)).sort()).toEqual([
      'session-2026-11-20-12-00.json',
      'session-2026-11-20-13-00.json',
      'session-2026-11-20-14-00.json',
      'session-2026-11-21-15-00.json',
      'session-2026-11-22-16-00.json',
    ]);
    expect(await fs.readFile(path.join(bdir, 'session-2026-11-22-16-00.json'), 'utf8')).toBe(prev);
    const again = session(await inspect(dir), 'WFS-feature-a');
    expect(again.checkpoints.map((c) => [c.id, c.valid])[0]).toEqual(['session-2026-11-22-16-00.json', true]);
    expect(again.resume.options.map((o) => o.kind)).toEqual(['live', 'checkpoint', 'fresh']);
  });

  it('no backup when there was no previous file; the planning documents come along', async () => {
    const s = session(await inspect('directories-archiving'), 'WFS-feature-a');
    const dir = await tempDir();
    const plan = await exportInto(dir, s);
    expect(plan.writes.map((w) => w.path)).toEqual([
      '.workflow/active/WFS-feature-a/workflow-session.json',
      '.workflow/active/WFS-feature-a/IMPL_PLAN.md',
    ]);
    expect(plan.removes).toEqual([]);
    expect(await read(dir, '.workflow/active/WFS-feature-a/IMPL_PLAN.md')).toBe(
      await read(path.join(FIXTURES, 'directories-archiving'), '.workflow/active/WFS-feature-a/IMPL_PLAN.md'),
    );
  });

  it('planning documents and task files already in the output folder are left as they are', async () => {
    const s = session(await inspect('seed-mid-run'), 'WFS-user-profile');
    const dir = await copyFixture('seed-mid-run');
    await fs.writeFile(path.join(dir, '.workflow/WFS-user-profile/IMPL_PLAN.md'), '# newer plan');
    await fs.writeFile(
      path.join(dir, '.workflow/WFS-user-profile/.task/impl-2.json'),
      '{"id":"impl-2","status":"completed"}',
    );
    const plan = await exportInto(dir, s);
    expect(plan.writes.map((w) => w.path).sort()).toEqual([
      '.workflow/WFS-user-profile/.backups/session-2026-11-22-16-00.json',
      '.workflow/WFS-user-profile/workflow-session.json',
      '.workflow/session_status.jsonl',
    ]);
    expect(await read(dir, '.workflow/WFS-user-profile/IMPL_PLAN.md')).toBe('# newer plan');
  });
});
