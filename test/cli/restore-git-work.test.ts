/*
 * Issue 25: automatic checkpoints taken on a dirty work tree, then `baton restore <cp> --git`,
 * removed every file the session had recorded (the reset went to a commit that never held
 * them), and the plan's advice afterwards could not work. A checkpoint now keeps the work tree
 * as it was (a commit object under refs/baton/…), restore brings exactly that tree back, and
 * every command a hint prints after it runs.
 */
import { spawnSync } from 'node:child_process';
import crypto from 'node:crypto';
import fs from 'node:fs';
import { describe, expect, it } from 'vitest';
import { Workspace as BatonWorkspace } from '../../src/manager/workspace.js';
import { runGit } from '../../src/manager/git.js';
import type { GitRunner } from '../../src/manager/git.js';
import { SessionManager } from '../../src/manager/manager.js';
import { openStore } from '../../src/store/open.js';
import { expectError, workspace } from './helpers.js';
import type { Workspace } from './helpers.js';

const IDENTITY = { GIT_AUTHOR_NAME: 't', GIT_AUTHOR_EMAIL: 't@t', GIT_COMMITTER_NAME: 't', GIT_COMMITTER_EMAIL: 't@t' };

function gitRun(ws: Workspace, args: string[]): { status: number | null; stdout: string; stderr: string } {
  const r = spawnSync('git', args, { cwd: ws.dir, encoding: 'utf8', env: { ...process.env, ...IDENTITY } });
  return { status: r.status, stdout: r.stdout, stderr: r.stderr };
}

function git(ws: Workspace, ...args: string[]): string {
  const r = gitRun(ws, args);
  if (r.status !== 0) throw new Error(`git ${args.join(' ')} failed: ${r.stderr}`);
  return r.stdout.trim();
}

/** Every file of the work tree (the store and .git left out) with its sha256. */
function tree(ws: Workspace): Record<string, string> {
  const out: Record<string, string> = {};
  for (const rel of fs.readdirSync(ws.dir, { recursive: true, encoding: 'utf8' }).sort()) {
    if (rel.startsWith('.git') || rel.startsWith('.baton')) continue;
    const abs = ws.path(rel);
    if (fs.statSync(abs).isFile()) out[rel] = crypto.createHash('sha256').update(fs.readFileSync(abs)).digest('hex');
  }
  return out;
}

/** A git repository on `main` with one commit (a.txt, keep.txt, old.txt), `.baton/` ignored, and a session started. */
async function repo(): Promise<{ ws: Workspace; base: string }> {
  const ws = workspace();
  git(ws, 'init', '-q', '-b', 'main');
  ws.write('.gitignore', '.baton/\n*.log\n');
  ws.write('a.txt', 'one\n');
  ws.write('keep.txt', 'committed and never touched\n');
  ws.write('old.txt', 'deleted by the work\n');
  git(ws, 'add', '.');
  git(ws, 'commit', '-q', '-m', 'base');
  await ws.ok(['start', 'Dirty work', '--id', 's', '--phases', 'design,build,test']);
  return { ws, base: git(ws, 'rev-parse', 'HEAD') };
}

/** The scenario: phase design completes on a dirty tree (recorded files uncommitted, a new untracked file, a deletion, a staged file). */
async function dirtyWork(ws: Workspace): Promise<void> {
  await ws.ok(['phase', 'start', 'design']);
  ws.write('a.txt', 'one\nchanged by design, not committed\n');
  ws.write('src/new.ts', 'export const made = "by design";\n');
  ws.write('bin/data.bin', Buffer.from([0, 1, 2, 255, 254, 10, 13, 0]));
  ws.write('staged.txt', 'staged, never committed\n');
  git(ws, 'add', 'staged.txt');
  fs.rmSync(ws.path('old.txt'));
  ws.write('build.log', 'ignored, not part of the work\n');
  await ws.ok(['file', 'modified', 'a.txt']);
  await ws.ok(['file', 'created', 'src/new.ts', 'bin/data.bin', 'staged.txt']);
  await ws.ok(['file', 'deleted', 'old.txt']);
  await ws.ok(['phase', 'complete', 'design']);
}

/** The commands a text quotes in backticks. */
function quoted(text: string): string[] {
  return [...text.matchAll(/`([^`]+)`/g)].map((m) => m[1]!);
}

/** Shell words of a command line as the hints write them (plain words and '…' quoting). */
function words(line: string): string[] {
  return [...line.matchAll(/'((?:[^']|'\\'')*)'|(\S+)/g)].map((m) =>
    m[1] !== undefined ? m[1].replace(/'\\''/g, "'") : m[2]!,
  );
}

/** Runs a quoted command: `baton …` through the CLI, `git …` with git. Returns its exit status and output. */
async function runQuoted(ws: Workspace, line: string): Promise<{ code: number | null; out: string }> {
  const [cmd, ...args] = words(line);
  if (cmd === 'baton') {
    const r = await ws.run(args);
    return { code: r.code, out: r.stdout + r.stderr };
  }
  if (cmd === 'git') {
    const r = gitRun(ws, args);
    return { code: r.status, out: r.stdout + r.stderr };
  }
  throw new Error(`a hint quotes ${JSON.stringify(line)}, which is neither a baton nor a git command`);
}

describe('restore --git on a checkpoint taken on a dirty work tree (issue 25)', () => {
  it('keeps the work tree in a commit under refs/baton without touching the index, branch or stash', async () => {
    const { ws, base } = await repo();
    await dirtyWork(ws);
    const indexBefore = git(ws, 'ls-files', '--stage');
    const [cp] = await ws.json<
      Array<{ id: string; git: { branch: string; head: string; dirty: boolean; snapshot: string } }>
    >(['checkpoints']);
    expect(cp!.git).toMatchObject({ branch: 'main', head: base, dirty: true });
    const snapshot = cp!.git.snapshot;
    expect(snapshot).toMatch(/^[0-9a-f]{40}$/);
    expect(git(ws, 'rev-parse', `refs/baton/s/${cp!.id}`)).toBe(snapshot);
    expect(git(ws, 'rev-parse', `${snapshot}^`)).toBe(base);
    expect(git(ws, 'ls-tree', '-r', '--name-only', snapshot).split('\n').sort()).toEqual([
      '.gitignore',
      'a.txt',
      'bin/data.bin',
      'keep.txt',
      'src/new.ts',
      'staged.txt',
    ]);
    // The user's repository is as it was: branch, HEAD, index (staged.txt still staged), no stash.
    expect(git(ws, 'symbolic-ref', '--short', 'HEAD')).toBe('main');
    expect(git(ws, 'rev-parse', 'HEAD')).toBe(base);
    expect(git(ws, 'ls-files', '--stage')).toBe(indexBefore);
    expect(git(ws, 'stash', 'list')).toBe('');
    expect(gitRun(ws, ['status', '--porcelain']).stdout).toBe(
      ' M a.txt\n D old.txt\nA  staged.txt\n?? bin/\n?? src/\n',
    );
  });

  it('brings every recorded file back byte for byte, with --force over later changes and without it on a clean tree', async () => {
    const { ws, base } = await repo();
    await dirtyWork(ws);
    const atCheckpoint = tree(ws);
    const [cp] = await ws.json<Array<{ id: string }>>(['checkpoints']);

    // More work after the checkpoint: a recorded file changed, one deleted, a new untracked file.
    ws.write('a.txt', 'rewritten later\n');
    fs.rmSync(ws.path('src/new.ts'));
    ws.write('later.txt', 'made after the checkpoint, never recorded\n');
    const refused = expectError(await ws.run(['restore', cp!.id, '--git']), 'CONFLICT');
    expect(refused.hint).toContain('--force');
    expect(fs.readFileSync(ws.path('a.txt'), 'utf8')).toBe('rewritten later\n');

    const out = await ws.ok(['restore', cp!.id, '--git', '--force']);
    // What --force discarded is kept: a commit under refs/baton holds the tree as it was.
    const saved = /kept in commit ([0-9a-f]{40})/.exec(out.stdout)![1]!;
    expect(git(ws, 'show', `${saved}:a.txt`)).toBe('rewritten later');
    expect(git(ws, 'for-each-ref', '--format=%(objectname)', 'refs/baton/s/')).toContain(saved);
    const { 'later.txt': later, ...rest } = tree(ws);
    expect(later).toBeDefined(); // untracked and unknown to the checkpoint: kept
    expect(rest).toEqual(atCheckpoint);
    expect(git(ws, 'symbolic-ref', '--short', 'HEAD')).toBe('main');
    expect(git(ws, 'rev-parse', 'HEAD')).toBe(base);
    // The index is the commit's: the work is uncommitted again, nothing staged behind the user's back.
    expect(git(ws, 'diff', '--cached', '--name-only')).toBe('');
    expect(git(ws, 'stash', 'list')).toBe('');
    expect(out.stdout).toContain('its uncommitted work put back from');

    // Commit the work (a clean tree), go on, then restore without --force: HEAD goes back, the tree is the checkpoint's.
    fs.rmSync(ws.path('later.txt'));
    git(ws, 'add', '-A');
    git(ws, 'commit', '-q', '-m', 'design work');
    ws.write('a.txt', 'after the commit\n');
    git(ws, 'commit', '-q', '-am', 'more');
    const r = await ws.json<{ git: { commit: string; previousHead: string; snapshot: string } }>([
      'restore',
      cp!.id,
      '--git',
    ]);
    expect(r.git.commit).toBe(base);
    expect(tree(ws)).toEqual(atCheckpoint);
    expect(git(ws, 'rev-parse', 'HEAD')).toBe(base);
    expect(gitRun(ws, ['status', '--porcelain']).stdout).toBe(
      ' M a.txt\n D old.txt\n?? bin/\n?? src/\n?? staged.txt\n',
    );
  });

  it('every command the restore and the resume plan print afterwards runs, and the restore-files one puts the recorded bytes back', async () => {
    const { ws } = await repo();
    await dirtyWork(ws);
    const atCheckpoint = tree(ws);
    const [cp] = await ws.json<Array<{ id: string }>>(['checkpoints']);
    git(ws, 'commit', '-q', '-m', 'staged work');
    ws.write('a.txt', 'later\n');
    const restored = await ws.ok(['restore', cp!.id, '--git', '--force']);
    expect(tree(ws)).toEqual(atCheckpoint);
    await ws.ok(['pause']);
    const edit = (): void => {
      ws.write('a.txt', 'edited outside the session\n');
      fs.rmSync(ws.path('src/new.ts'));
    };
    // Edits outside the session after the restore: the plan offers accept, restore-files, keep-going.
    edit();
    const plan = (await ws.ok(['resume'])).stdout;
    const commands = quoted(plan).filter((c) => /^(baton|git) /.test(c));
    const restoreFiles = commands.filter((c) => c.startsWith('git '));
    expect(restoreFiles).toEqual([expect.stringMatching(/^git restore --source=[0-9a-f]{40} -- a\.txt src\/new\.ts$/)]);
    for (const c of restoreFiles) {
      const r = await runQuoted(ws, c);
      expect(r.code, `${c}\n${r.out}`).toBe(0);
    }
    expect(tree(ws)).toEqual(atCheckpoint);
    expect((await ws.ok(['resume'])).stdout).not.toContain('Outside edits');

    // The other choice: accept the edits; then keep going. Each command runs, and the plan stops reporting them.
    edit();
    const accept = quoted((await ws.ok(['resume'])).stdout).filter((c) => c.startsWith('baton '));
    expect(accept.length).toBeGreaterThan(1);
    for (const c of accept) {
      const r = await runQuoted(ws, c);
      expect(r.code, `${c}\n${r.out}`).toBe(0);
    }
    expect((await ws.ok(['resume'])).stdout).not.toContain('Outside edits');
    for (const c of quoted(restored.stdout)) {
      const r = await runQuoted(ws, c);
      expect(r.code, `${c}\n${r.out}`).toBe(0);
    }
  });

  it('refuses a checkpoint taken on a dirty tree that holds no copy of it, with a hint that works', async () => {
    const { ws, base } = await repo();
    // A baton whose git cannot make the copy (as a checkpoint of an older baton has none).
    const failing: GitRunner = (args, cwd, env) =>
      args[0] === 'commit-tree' ? { ok: false, stdout: '', stderr: 'no', missing: false } : runGit(args, cwd, env);
    const warnings: string[] = [];
    const m = new SessionManager({
      store: openStore({ dir: ws.store, cwd: ws.dir, env: {} }),
      workspace: new BatonWorkspace(ws.dir, ws.store, failing),
      onWarning: (w) => warnings.push(w),
    });
    await m.phase('s', 'design', 'start');
    ws.write('a.txt', 'uncommitted\n');
    await m.files('s', 'modified', ['a.txt'], 'design');
    await m.phase('s', 'design', 'complete');
    await m.close();
    expect(warnings.join('\n')).toContain('could not be copied');
    const [cp] = await ws.json<Array<{ id: string; git: { dirty: boolean; snapshot: string | null } }>>([
      'checkpoints',
    ]);
    expect(cp!.git).toMatchObject({ dirty: true, snapshot: null });

    const e = expectError(await ws.run(['restore', cp!.id, '--git', '--force']), 'BAD_INPUT');
    expect(e.message).toContain('holds no copy of them');
    expect(fs.readFileSync(ws.path('a.txt'), 'utf8')).toBe('uncommitted\n');
    expect(git(ws, 'rev-parse', 'HEAD')).toBe(base);
    const hinted = quoted(e.hint ?? '');
    expect(hinted).toEqual([`baton restore ${cp!.id}`]);
    for (const c of hinted) expect((await runQuoted(ws, c)).code).toBe(0);
    expect(fs.readFileSync(ws.path('a.txt'), 'utf8')).toBe('uncommitted\n');
  });
});
