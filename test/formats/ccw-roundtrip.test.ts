/**
 * CCW through the formats core: inspect → import (the core's mapping) → export (runExport) →
 * inspect gives the same facts, into the original tree and into an empty folder; import →
 * export → import through the manager gives the same baton state; progress made in baton
 * is written back in CCW's own fields; re-importing an unchanged tree changes nothing.
 */
import fs from 'node:fs/promises';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import type { SessionState } from '../../src/domain/state.js';
import { ccwAdapter } from '../../src/formats/ccw/index.js';
import { exportInput, runExport } from '../../src/formats/export.js';
import { importedState } from '../../src/formats/import.js';
import { SafeDir } from '../../src/formats/safe-dir.js';
import type { ForeignSession } from '../../src/formats/types.js';
import type { SessionManager } from '../../src/manager/manager.js';
import { copyFixture, facts, FIXTURES, inspect, NOW, session, tempDir, withCode } from './ccw-helpers.js';
import { clockedManager } from './core-helpers.js';

const CTX = { importedAt: '2026-11-22T15:00:00.000Z', root: '/src' };

async function exportVia(s: ForeignSession, out: string) {
  const state = importedState(s, CTX, s.id);
  return runExport(ccwAdapter, exportInput(state, 'ccw', NOW), await SafeDir.open(out));
}

/** Facts without the raw status string (baton writes its reading of the status back). */
function same(s: ForeignSession) {
  const { rawStatus: _r, ...f } = facts(s);
  return f;
}

const CASES = [
  'seed-mid-run',
  'session-md-interrupted',
  'registry-truncated',
  'markers',
  'directories-archiving',
  'archive-copied',
  'corrupt-with-backup',
  'mixed-legacy',
];
/** Sessions whose export deliberately changes them: an interrupted archive is finished; a lost file is rebuilt. */
const CHANGED = new Set(['WFS-feature-b', 'WFS-lost']);

describe('ccw: inspect(export(import(X))) has the facts of inspect(X)', () => {
  it.each(CASES)('%s, exported into a copy of the tree', async (c) => {
    const before = await inspect(c);
    const out = await copyFixture(c);
    for (const s of before.sessions) await exportVia(s, out);
    const after = await inspect(out);
    expect(after.sessions.map((s) => s.id)).toEqual(before.sessions.map((s) => s.id));
    for (const s of before.sessions) if (!CHANGED.has(s.id)) expect(same(session(after, s.id)), s.id).toEqual(same(s));
  });

  it.each(CASES)('%s, exported into an empty folder', async (c) => {
    const before = await inspect(c);
    const out = await tempDir();
    for (const s of before.sessions) await exportVia(s, out);
    const after = await inspect(out);
    expect(after.sessions.map((s) => s.id)).toEqual(before.sessions.map((s) => s.id));
    for (const s of before.sessions) if (!CHANGED.has(s.id)) expect(same(session(after, s.id)), s.id).toEqual(same(s));
    for (const s of after.sessions)
      for (const code of ['CORRUPT_FILE', 'ARCHIVE_COPIED', 'UNSAFE_PATH'])
        expect(withCode(s.problems, code)).toEqual([]);
  });

  it('the interrupted archive is finished by the export; the lost file is rebuilt with its units', async () => {
    const b = session(await inspect('directories-archiving'), 'WFS-feature-b');
    const out = await copyFixture('directories-archiving');
    await exportVia(b, out);
    const after = session(await inspect(out), 'WFS-feature-b');
    expect(after.archived).toBe(true);
    expect(after.path).toBe('.workflow/archives/WFS-feature-b/workflow-session.json');
    expect(after.units).toEqual(b.units);
    expect(after.resume.action).toBe('none');

    const lost = session(await inspect('corrupt-with-backup'), 'WFS-lost');
    const out2 = await tempDir();
    await exportVia(lost, out2);
    const rebuilt = session(await inspect(out2), 'WFS-lost');
    expect(rebuilt.problems.filter((p) => p.severity === 'error')).toEqual([]);
    expect(rebuilt.units.map((u) => [u.id, u.status])).toEqual(lost.units.map((u) => [u.id, u.status]));
    // CCW's set has no crash status: the lost session is written (and read back) as paused (issue 14).
    expect(rebuilt.status).toBe('paused');
  });

  it('unknown fields survive byte for byte in meaning: top level, checkpoints, registry line', async () => {
    const s = session(await inspect('seed-mid-run'), 'WFS-user-profile');
    const out = await tempDir();
    await exportVia(s, out);
    const doc = JSON.parse(
      await fs.readFile(path.join(out, '.workflow/WFS-user-profile/workflow-session.json'), 'utf8'),
    );
    const orig = s.documents['.workflow/WFS-user-profile/workflow-session.json'] as Record<string, unknown>;
    expect({ ...doc, updated_at: null }).toEqual({ ...orig, updated_at: null });
    const reg = JSON.parse((await fs.readFile(path.join(out, '.workflow/session_status.jsonl'), 'utf8')).trim());
    expect(reg).toEqual(s.documents['.workflow/session_status.jsonl']);
  });
});

describe('ccw: import → export → import through the manager', () => {
  const manager = (): SessionManager => clockedManager('2026-11-22T15:00:00Z');
  const view = (x: SessionState) => ({
    title: x.title,
    status: x.status,
    archived: x.archived,
    phases: x.phases.map((p) => ({
      id: p.id,
      status: p.status,
      subStep: p.subStep,
      agents: p.agents,
      files: p.files.map((f) => [f.path, f.action]),
      startedAt: p.startedAt,
      completedAt: p.completedAt,
      errors: p.errors.map((e) => [e.type, e.message, e.resolved]),
      metadata: p.metadata,
    })),
  });

  it.each([
    'seed-mid-run',
    'session-md-interrupted',
    'markers',
    'archive-copied',
    'corrupt-with-backup',
    'mixed-legacy',
  ])('%s: the second import equals the first', async (c) => {
    const o = { cwd: '/', now: () => NOW, adapters: [ccwAdapter] };
    const m1 = manager();
    const first = await m1.formats.import(path.join(FIXTURES, c), 'ccw', o);
    const out = await tempDir();
    for (const s of first.sessions) {
      expect(s.action).toBe('created');
      await m1.formats.export(s.id as string, 'ccw', out, o);
    }
    const m2 = manager();
    const second = await m2.formats.import(out, 'ccw', o);
    expect(second.sessions.map((s) => [s.id, s.action])).toEqual(first.sessions.map((s) => [s.id, 'created']));
    for (const s of first.sessions) {
      const a = await m1.get(s.id as string);
      const b = await m2.get(s.id as string);
      // CCW has no crash status: a session baton reads as interrupted (its file lost) is written as paused (issue 14).
      const va = view(a) as { status: string };
      expect(view(b), s.id as string).toEqual(va.status === 'interrupted' ? { ...va, status: 'paused' } : va);
    }
  });

  it('re-importing an unchanged tree appends nothing', async () => {
    const o = { cwd: '/', now: () => NOW, adapters: [ccwAdapter] };
    const m = manager();
    await m.formats.import(path.join(FIXTURES, 'seed-mid-run'), 'ccw', o);
    const again = await m.formats.import(path.join(FIXTURES, 'seed-mid-run'), 'ccw', o);
    expect(again.sessions.map((s) => s.action)).toEqual(['unchanged', 'unchanged', 'unchanged']);
  });

  it('progress made in baton is written in CCW fields: next agent, completed phase, review started', async () => {
    const o = { cwd: '/', now: () => NOW, adapters: [ccwAdapter] };
    const m = manager();
    await m.formats.import(path.join(FIXTURES, 'seed-mid-run'), 'ccw', o);
    await m.substep('WFS-user-profile', 'implement', 'test-agent');
    await m.phase('WFS-user-profile', 'implement', 'complete');
    await m.phase('WFS-user-profile', 'review', 'start');
    const out = await copyFixture('seed-mid-run');
    const before = await fs.readFile(path.join(out, '.workflow/WFS-user-profile/workflow-session.json'), 'utf8');
    const r = await m.formats.export('WFS-user-profile', 'ccw', out, o);
    expect(r.written.sort()).toEqual([
      '.workflow/WFS-user-profile/.backups/session-2026-11-22-16-00.json',
      '.workflow/WFS-user-profile/workflow-session.json',
      '.workflow/session_status.jsonl',
    ]);
    expect(
      await fs.readFile(path.join(out, '.workflow/WFS-user-profile/.backups/session-2026-11-22-16-00.json'), 'utf8'),
    ).toBe(before);
    const doc = JSON.parse(
      await fs.readFile(path.join(out, '.workflow/WFS-user-profile/workflow-session.json'), 'utf8'),
    );
    expect(doc.current_phase).toBe('REVIEW');
    expect(doc.status).toBe('active');
    expect(doc.updated_at).toBe(NOW.toISOString());
    // `tester` (the manager's agent) reached the sub-step and completed the phase: it is one of the phase's agents.
    expect(doc.checkpoints.implement).toMatchObject({
      status: 'completed',
      agents_completed: ['code-developer', 'code-review-agent', 'tester', 'test-agent'],
      current_agent: null,
      todos: { total: 12, completed: 8, in_progress: 1 },
    });
    expect(doc.checkpoints.review.status).toBe('in_progress');
    const s = session(await inspect(out), 'WFS-user-profile');
    expect(s.resume).toMatchObject({ unitId: 'review', action: 'review', lastCompleted: 'implement' });
    expect(s.units.map((u) => u.status)).toEqual(['completed', 'completed', 'in_progress']);
  });

  it('an agent working on a phase in flight is written as current_agent and read back as the same place, not a new sub-step', async () => {
    const o = { cwd: '/', now: () => NOW, adapters: [ccwAdapter] };
    const m = manager();
    const out = await copyFixture('markers');
    await m.formats.import(out, 'ccw', o);
    await m.tokens('WFS-old', { agent: 'baton-agent', phase: 'plan', input: 10, output: 0, cached: 0 });
    await m.formats.export('WFS-old', 'ccw', out, o);
    const doc = JSON.parse(await fs.readFile(path.join(out, '.workflow/WFS-old/workflow-session.json'), 'utf8'));
    expect(doc.checkpoints.plan).toMatchObject({ status: 'in_progress', current_agent: 'baton-agent' });
    const before = (await m.get('WFS-old')).revision;
    const again = await m.formats.import(out, 'ccw', o);
    expect(again.sessions.find((x) => x.id === 'WFS-old')?.action).toBe('updated');
    const added = (await m.log('WFS-old')).filter((e) => e.seq > before).map((e) => e.type);
    expect(added).not.toContain('substep.reached');
    expect((await m.get('WFS-old')).phases[0]).toMatchObject({ id: 'plan', subStep: null, agents: ['baton-agent'] });
  });

  it('a session born in baton exports to .workflow/active/ and imports back', async () => {
    const o = { cwd: '/', now: () => NOW, adapters: [ccwAdapter] };
    const m = manager();
    const st = await m.start({
      title: 'Born here',
      phases: [
        { id: 'plan', name: 'Plan' },
        { id: 'implement', name: 'Implement' },
        { id: 'review', name: 'Review' },
      ],
    });
    await m.phase(st.id, 'plan', 'start');
    await m.phase(st.id, 'plan', 'complete');
    await m.phase(st.id, 'implement', 'start');
    await m.substep(st.id, 'implement', 'code-developer');
    const out = await tempDir();
    await m.formats.export(st.id, 'ccw', out, o);
    const r = await inspect(out);
    expect(r.sessions).toHaveLength(1);
    const s = r.sessions[0]!;
    expect(s.path.startsWith('.workflow/active/WFS-')).toBe(true);
    expect(s.title).toBe('Born here');
    expect(s.units.map((u) => [u.id, u.status, u.subStep])).toEqual([
      ['plan', 'completed', null],
      ['implement', 'in_progress', 'code-developer'],
      ['review', 'pending', null],
    ]);
    expect(s.resume).toMatchObject({ unitId: 'implement', action: 'skip-to-substep', subStep: 'code-developer' });
    const m2 = manager();
    const back = await m2.formats.import(out, 'ccw', o);
    expect(back.sessions).toHaveLength(1);
    const b = await m2.get(back.sessions[0]!.id as string);
    expect(b.phases.map((p) => [p.id, p.status, p.subStep])).toEqual([
      ['plan', 'completed', null],
      ['implement', 'in_progress', 'code-developer'],
      ['review', 'pending', null],
    ]);
  });
});

describe('ccw: source hash', () => {
  it("changes with the session's own registry line and files, not with another session's line", async () => {
    const dir = await copyFixture('seed-mid-run');
    const h = async () => Object.fromEntries((await inspect(dir)).sessions.map((s) => [s.id, s.sourceHash]));
    const before = await h();
    const reg = path.join(dir, '.workflow/session_status.jsonl');
    const lines = (await fs.readFile(reg, 'utf8')).split('\n');
    lines[2] = lines[2]!.replace('"completed"', '"paused"'); // WFS-bug-fix-123's line
    await fs.writeFile(reg, lines.join('\n'));
    const after = await h();
    expect(after['WFS-bug-fix-123']).not.toBe(before['WFS-bug-fix-123']);
    expect(after['WFS-user-profile']).toBe(before['WFS-user-profile']);
    expect(after['WFS-oauth-integration']).toBe(before['WFS-oauth-integration']);
    await fs.appendFile(path.join(dir, '.workflow/WFS-user-profile/TODO_LIST.md'), '- [ ] more\n');
    expect((await h())['WFS-user-profile']).not.toBe(before['WFS-user-profile']);
  });
});
