/**
 * The CCW reader is lenient and safe: CRLF and BOM variants read the same, damaged and
 * incomplete files are reported (never thrown), links leading outside PATH are reported and
 * not followed, PATH may be the project root or the .workflow folder, and nothing is written.
 */
import fs from 'node:fs/promises';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { ccwAdapter } from '../../src/formats/ccw/index.js';
import { SafeDir } from '../../src/formats/safe-dir.js';
import type { ForeignSession } from '../../src/formats/types.js';
import { copyFixture, facts, FIXTURES, inspect, session, tempDir, tree, withCode } from './ccw-helpers.js';

const CASES = [
  'seed-mid-run',
  'session-md-interrupted',
  'registry-truncated',
  'registry-unsafe',
  'markers',
  'directories-archiving',
  'archive-copied',
  'corrupt-with-backup',
  'mixed-legacy',
];

async function write(root: string, rel: string, content: string): Promise<void> {
  await fs.mkdir(path.dirname(path.join(root, rel)), { recursive: true });
  await fs.writeFile(path.join(root, rel), content);
}

function sessionJson(o: Record<string, unknown> = {}): string {
  return JSON.stringify({
    session_id: 'WFS-t',
    session_version: '2.0',
    project: 'T',
    current_phase: 'PLAN',
    status: 'active',
    created_at: '2025-09-07T10:00:00Z',
    updated_at: '2025-09-07T10:00:00Z',
    checkpoints: { plan: { status: 'in_progress' }, implement: { status: 'pending' }, review: { status: 'pending' } },
    ...o,
  });
}

describe('ccw: CRLF and BOM variants', () => {
  for (const name of ['seed-mid-run', 'registry-truncated', 'session-md-interrupted']) {
    it(`${name} with CRLF line endings and a UTF-8 BOM in every JSON/JSONL file reads the same facts`, async () => {
      const copy = await copyFixture(name);
      for (const f of await tree(copy)) {
        if (!/\.jsonl?$/.test(f)) continue;
        const text = await fs.readFile(path.join(copy, f), 'utf8');
        await fs.writeFile(path.join(copy, f), `\uFEFF${text.replace(/\n/g, '\r\n')}`);
      }
      const a = await inspect(name);
      const b = await inspect(copy);
      expect(b.sessions.map(facts)).toEqual(a.sessions.map(facts));
      expect(b.problems.map((p) => [p.code, p.sessionId, p.details])).toEqual(
        a.problems.map((p) => [p.code, p.sessionId, p.details]),
      );
    });
  }
});

describe('ccw: PATH may be the .workflow folder itself', () => {
  it('reads the same sessions with paths relative to .workflow', async () => {
    const a = await inspect('seed-mid-run');
    const b = await inspect(path.join(FIXTURES, 'seed-mid-run', '.workflow'));
    expect(b.sessions.map((s) => [s.id, s.status, s.active])).toEqual(
      a.sessions.map((s) => [s.id, s.status, s.active]),
    );
    expect(session(b, 'WFS-user-profile').path).toBe('WFS-user-profile/workflow-session.json');
    // The same units; the folder their documents are relative to is named from the root inspected.
    const rebased = (s: ForeignSession) =>
      s.units.map((u) => ({ ...u, files: u.files.map((f) => ({ ...f, base: f.base?.replace(/^\.workflow\//, '') })) }));
    expect(rebased(session(b, 'WFS-user-profile'))).toEqual(rebased(session(a, 'WFS-user-profile')));
    expect(session(b, 'WFS-user-profile').units[0]?.files[0]?.base).toBe('WFS-user-profile');
    expect(session(b, 'WFS-user-profile').resume.warnings).toEqual([]);
  });

  it('detect is sure for both spellings and 0 for a folder that is not CCW', async () => {
    for (const c of CASES)
      expect(await ccwAdapter.detect(await SafeDir.open(path.join(FIXTURES, c))), c).toBeGreaterThanOrEqual(0.9);
    expect(
      await ccwAdapter.detect(await SafeDir.open(path.join(FIXTURES, 'markers', '.workflow'))),
    ).toBeGreaterThanOrEqual(0.9);
    const empty = await tempDir();
    expect(await ccwAdapter.detect(await SafeDir.open(empty))).toBe(0);
    const r = await inspect(empty);
    expect(r.sessions).toEqual([]);
    expect(r.problems.map((p) => p.code)).toEqual(['UNKNOWN_FORMAT']);
  });
});

describe('ccw: links leading outside PATH', () => {
  it('a session folder that links outside is UNSAFE_PATH and is not read; one that links inside is read', async () => {
    const root = await tempDir();
    const outside = await tempDir('outside');
    await write(outside, 'WFS-x/workflow-session.json', sessionJson({ session_id: 'WFS-x' }));
    await write(root, 'project/.workflow/active/WFS-in/workflow-session.json', sessionJson({ session_id: 'WFS-in' }));
    await fs.symlink(path.join(outside, 'WFS-x'), path.join(root, 'project/.workflow/WFS-x'));
    await fs.mkdir(path.join(root, 'project/.workflow/archives'), { recursive: true });
    await fs.symlink(path.join(outside, 'WFS-x'), path.join(root, 'project/.workflow/archives/WFS-y'));
    await fs.symlink(
      path.join(root, 'project/.workflow/active/WFS-in'),
      path.join(root, 'project/.workflow/WFS-alias'),
    );
    const r = await inspect(path.join(root, 'project'));
    const u = withCode(r.problems, 'UNSAFE_PATH');
    expect(u.map((p) => [p.sessionId, p.path])).toEqual([
      ['WFS-x', '.workflow/WFS-x'],
      ['WFS-y', '.workflow/archives/WFS-y'],
    ]);
    expect(u[0]!.message).toMatch(/outside the folder/);
    expect(r.sessions.map((s) => s.id)).toEqual(['WFS-in']);
    expect(r.sessions[0]!.path).toBe('.workflow/active/WFS-in/workflow-session.json');
    expect(withCode(r.problems, 'DUPLICATE_SESSION')[0]!.details).toEqual({
      read: '.workflow/active/WFS-in/workflow-session.json',
      ignored: '.workflow/WFS-alias/workflow-session.json',
    });
    expect(r.sessions.some((s) => s.sources.some((x) => x.includes('WFS-x') || x.includes('WFS-y')))).toBe(false);
  });

  it('a registry directory that goes through a link outside is UNSAFE_PATH', async () => {
    const root = await tempDir();
    const outside = await tempDir('outside');
    await write(outside, 'WFS-z/workflow-session.json', sessionJson({ session_id: 'WFS-z' }));
    await write(
      root,
      '.workflow/session_status.jsonl',
      `${JSON.stringify({ id: 'WFS-z', status: 'active', directory: '.workflow/ext/WFS-z' })}\n`,
    );
    await fs.symlink(outside, path.join(root, '.workflow/ext'));
    const r = await inspect(root);
    const u = withCode(r.problems, 'UNSAFE_PATH');
    expect(u).toHaveLength(1);
    expect(u[0]!.sessionId).toBe('WFS-z');
    expect(u[0]!.details).toEqual({ line: 1, directory: '.workflow/ext/WFS-z' });
    expect(r.sessions).toEqual([]);
  });

  it('a .workflow folder that is a link outside PATH is refused', async () => {
    const root = await tempDir();
    const outside = await tempDir('outside');
    await write(outside, 'WFS-q/workflow-session.json', sessionJson({ session_id: 'WFS-q' }));
    await fs.symlink(outside, path.join(root, '.workflow'));
    const r = await inspect(root);
    expect(r.sessions).toEqual([]);
    expect(r.problems.map((p) => p.code)).toEqual(['UNSAFE_PATH']);
  });
});

describe('ccw: inspect writes nothing', () => {
  it('bytes and mtimes of every fixture file are unchanged and no file appears', async () => {
    const snap = async () => {
      const out: Record<string, [string, number]> = {};
      for (const c of CASES) {
        for (const f of await tree(path.join(FIXTURES, c))) {
          const p = path.join(FIXTURES, c, f);
          out[`${c}/${f}`] = [(await fs.readFile(p)).toString('base64'), (await fs.stat(p)).mtimeMs];
        }
      }
      return out;
    };
    const before = await snap();
    for (const c of CASES) await inspect(c);
    expect(await snap()).toEqual(before);
  });
});

describe('ccw: incomplete and odd files are reported, never thrown', () => {
  it('empty session file, missing session file, missing fields, unknown statuses', async () => {
    const root = await tempDir();
    await write(root, '.workflow/active/WFS-empty/workflow-session.json', '');
    await write(root, '.workflow/active/WFS-nofile/IMPL_PLAN.md', '# plan');
    await fs.mkdir(path.join(root, '.workflow/active/WFS-emptied/.backups'), { recursive: true });
    await write(root, '.workflow/active/WFS-bare/workflow-session.json', JSON.stringify({ status: 'active' }));
    await write(
      root,
      '.workflow/active/WFS-odd/workflow-session.json',
      sessionJson({
        session_id: 'WFS-odd',
        status: 'sleeping',
        current_phase: 'DEPLOY',
        checkpoints: { plan: { status: 'weird' } },
      }),
    );
    const r = await inspect(root);
    const empty = session(r, 'WFS-empty');
    expect(withCode(empty.problems, 'EMPTY_FILE')[0]!.details).toEqual({ backup: null });
    expect(empty.resume.recommended).toBe('fresh');
    const nofile = session(r, 'WFS-nofile');
    expect(withCode(nofile.problems, 'MISSING_FILE')).toHaveLength(1);
    expect(r.sessions.map((x) => x.id)).not.toContain('WFS-emptied'); // an emptied folder (left by a move) holds no session
    const bare = session(r, 'WFS-bare');
    expect(withCode(bare.problems, 'MISSING_FIELD').map((p) => (p.details as { field: string }).field)).toEqual([
      'session_id',
      'checkpoints',
    ]);
    expect(bare.units.map((u) => [u.id, u.status])).toEqual([
      ['plan', 'pending'],
      ['implement', 'pending'],
      ['review', 'pending'],
    ]);
    expect(bare.resume).toMatchObject({ unitId: 'plan', action: 'start' });
    const odd = session(r, 'WFS-odd');
    expect(odd.status).toBe('paused');
    expect(odd.rawStatus).toBe('sleeping');
    expect(odd.units.map((u) => [u.id, u.status, u.rawStatus])).toEqual([['plan', 'pending', 'weird']]);
    expect(withCode(odd.problems, 'BAD_VALUE').map((p) => (p.details as { field: string }).field)).toEqual([
      'checkpoints.plan.status',
      'current_phase',
      'status',
    ]);
  });

  it('garbled middle lines and non-entry lines of the registry are skipped, the rest read', async () => {
    const root = await tempDir();
    const lines = [
      JSON.stringify({ id: 'WFS-a', status: 'paused', directory: '.workflow/WFS-a' }),
      '{garbage',
      '[1,2]',
      JSON.stringify({ status: 'paused' }),
      JSON.stringify({ id: 'WFS-b', status: 'active', directory: '.workflow/WFS-b' }),
    ];
    await write(root, '.workflow/session_status.jsonl', `${lines.join('\n')}\n`);
    await write(root, '.workflow/WFS-a/workflow-session.json', sessionJson({ session_id: 'WFS-a', status: 'paused' }));
    await write(root, '.workflow/WFS-b/workflow-session.json', sessionJson({ session_id: 'WFS-b' }));
    const r = await inspect(root);
    expect(r.sessions.map((s) => [s.id, s.active])).toEqual([
      ['WFS-a', false],
      ['WFS-b', true],
    ]);
    expect(withCode(r.problems, 'TRUNCATED_LINE').map((p) => (p.details as { line: number }).line)).toEqual([2]);
    expect(withCode(r.problems, 'BAD_VALUE').map((p) => (p.details as { line: number }).line)).toEqual([3]);
    expect(withCode(r.problems, 'MISSING_FIELD').map((p) => (p.details as { line: number }).line)).toEqual([4]);
  });

  it('a session file naming another id than its folder is reported', async () => {
    const root = await tempDir();
    await write(root, '.workflow/active/WFS-folder/workflow-session.json', sessionJson({ session_id: 'WFS-other' }));
    const s = (await inspect(root)).sessions[0]!;
    expect(s.id).toBe('WFS-other');
    expect(withCode(s.problems, 'REGISTRY_MISMATCH')[0]!.details).toEqual({
      field: 'session_id',
      file: 'WFS-other',
      folder: 'WFS-folder',
    });
  });

  it('current_phase REVIEW while IMPLEMENT is not done: prerequisite warning', async () => {
    const root = await tempDir();
    await write(
      root,
      '.workflow/active/WFS-p/workflow-session.json',
      sessionJson({
        session_id: 'WFS-p',
        current_phase: 'REVIEW',
        checkpoints: {
          plan: { status: 'completed' },
          implement: { status: 'in_progress' },
          review: { status: 'pending' },
        },
      }),
    );
    await write(root, '.workflow/active/WFS-p/IMPL_PLAN.md', '#');
    await write(root, '.workflow/active/WFS-p/TODO_LIST.md', '-');
    const s = (await inspect(root)).sessions[0]!;
    expect(s.resume).toMatchObject({ unitId: 'review', action: 'review' });
    const p = withCode(s.problems, 'PREREQUISITE');
    expect(p).toHaveLength(1);
    expect(p[0]!.details).toEqual({ unit: 'review', missing: 'implement' });
    expect(s.resume.warnings).toEqual(['review is the current phase while the earlier implement is in_progress.']);
  });

  it('several sessions active in active/ is reported as info (CCW asks which one)', async () => {
    const root = await tempDir();
    await write(root, '.workflow/active/WFS-1/workflow-session.json', sessionJson({ session_id: 'WFS-1' }));
    await write(root, '.workflow/active/WFS-2/workflow-session.json', sessionJson({ session_id: 'WFS-2' }));
    const t = withCode((await inspect(root)).problems, 'TWO_ACTIVE');
    expect(t).toHaveLength(1);
    expect(t[0]!.severity).toBe('info');
  });
});

describe('ccw: registry directories and the intermediate sessions/ layout', () => {
  it('a registry directory relative to .workflow is found there', async () => {
    const root = await tempDir();
    await write(
      root,
      '.workflow/session_status.jsonl',
      `${JSON.stringify({ id: 'WFS-rel', status: 'active', directory: 'WFS-rel' })}\n`,
    );
    await write(root, '.workflow/WFS-rel/workflow-session.json', sessionJson({ session_id: 'WFS-rel' }));
    const r = await inspect(root);
    expect(r.sessions.map((s) => [s.id, s.active])).toEqual([['WFS-rel', true]]);
    expect(withCode(r.problems, 'REGISTRY_MISMATCH')).toEqual([]);
    expect(withCode(r.problems, 'DANGLING_ACTIVE')).toEqual([]);
  });

  it('.workflow/sessions/ alone is detected and read as layout (c)', async () => {
    const root = await tempDir();
    await write(root, '.workflow/sessions/WFS-mid/workflow-session.json', sessionJson({ session_id: 'WFS-mid' }));
    expect(await ccwAdapter.detect(await SafeDir.open(root))).toBeGreaterThanOrEqual(0.9);
    const r = await inspect(root);
    expect(withCode(r.problems, 'CCW_LAYOUT')[0]!.details).toMatchObject({ layouts: ['directories'] });
    expect(r.sessions.map((s) => [s.id, s.active, s.path])).toEqual([
      ['WFS-mid', true, '.workflow/sessions/WFS-mid/workflow-session.json'],
    ]);
  });

  it('a folder with only sessions/ that is not .workflow is not taken for CCW', async () => {
    const root = await tempDir();
    await write(root, 'sessions/abc.yaml', 'id: abc\n');
    expect(await ccwAdapter.detect(await SafeDir.open(root))).toBe(0);
  });
});
