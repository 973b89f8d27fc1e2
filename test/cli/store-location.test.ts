/**
 * Issue 15, "Where the store lives": in a git work tree, `start` and `init` put `.baton/` at
 * the work tree's root whatever the current subfolder, and the store ignores itself in git
 * (its own `.gitignore`), unless a shared, committed store was asked for (`--shared`).
 * Checked with a real `git init` and `git status --porcelain`.
 */
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { workspace } from './helpers.js';

function git(cwd: string, ...args: string[]): string {
  return execFileSync('git', ['-c', 'user.email=t@example.com', '-c', 'user.name=t', ...args], {
    cwd,
    encoding: 'utf8',
  });
}

function repo() {
  const ws = workspace();
  git(ws.dir, 'init', '-q');
  ws.write('README.md', 'hello\n');
  ws.write('src/deep/a.ts', 'export {};\n');
  git(ws.dir, 'add', '.');
  git(ws.dir, 'commit', '-qm', 'first');
  return ws;
}

describe('.baton/ in a git work tree', () => {
  it('start in a subfolder creates the store at the work tree root, and git status stays clean', async () => {
    const ws = repo();
    const sub = ws.path('src', 'deep');
    await ws.ok(['start', 'From a subfolder', '--id', 'sf', '--phases', 'a'], { cwd: sub });
    expect(fs.existsSync(ws.path('.baton', 'sessions', 'sf'))).toBe(true);
    expect(fs.existsSync(path.join(sub, '.baton'))).toBe(false);
    expect(fs.readFileSync(ws.path('.baton', '.gitignore'), 'utf8')).toMatch(/^\*$/m);
    // The journal, the handoff file and everything else the store writes stays out of git.
    await ws.ok(['phase', 'start', 'a'], { cwd: sub });
    expect(git(ws.dir, 'status', '--porcelain', '--untracked-files=all')).toBe('');
    // Every later command, from any folder of the tree, finds that one store.
    expect((await ws.status(undefined, { cwd: ws.path('src') })).id).toBe('sf');
  });

  it('init does the same, and says the store is private', async () => {
    const ws = repo();
    const r = await ws.json<{ store: string; created: boolean; shared: boolean }>(['init'], { cwd: ws.path('src') });
    expect(r).toEqual({ store: ws.path('.baton'), created: true, shared: false });
    expect(git(ws.dir, 'status', '--porcelain', '--untracked-files=all')).toBe('');
  });

  it('--shared makes a store that git sees, to be committed with the project', async () => {
    const ws = repo();
    await ws.ok(['start', 'Shared', '--id', 'sh', '--shared'], { cwd: ws.path('src') });
    expect(fs.existsSync(ws.path('.baton', '.gitignore'))).toBe(false);
    const status = git(ws.dir, 'status', '--porcelain', '--untracked-files=all');
    expect(status).toMatch(/^\?\? \.baton\/sessions\/sh\/journal\.jsonl$/m);
  });

  it('init --shared turns an existing private store into a shared one, and never touches a .gitignore the user wrote', async () => {
    const ws = repo();
    await ws.ok(['start', 'Private first', '--id', 'pf']);
    expect(git(ws.dir, 'status', '--porcelain')).toBe('');
    expect((await ws.ok(['init', '--shared'])).stdout).toBe(
      `Store already present at ${ws.path('.baton')}; now shared: commit it with the project\n`,
    );
    expect(git(ws.dir, 'status', '--porcelain')).toBe('?? .baton/\n');
    // A .gitignore of the user's own stays as it is, shared or not.
    fs.writeFileSync(ws.path('.baton', '.gitignore'), 'index.*\n');
    await ws.ok(['init']);
    await ws.ok(['init', '--shared']);
    expect(fs.readFileSync(ws.path('.baton', '.gitignore'), 'utf8')).toBe('index.*\n');
  });

  it('outside a git work tree the store goes in the current folder, still with its .gitignore', async () => {
    const ws = workspace();
    fs.mkdirSync(ws.path('sub'));
    await ws.ok(['start', 'No git', '--id', 'ng'], { cwd: ws.path('sub') });
    expect(fs.existsSync(ws.path('sub', '.baton', '.gitignore'))).toBe(true);
  });
});
