/**
 * What the resume briefing, `baton resume` and the handoff call new or changed is decided by
 * content, in a real git repository: the hook configs `baton hooks install` wrote and files
 * `git checkout`/`git reset` put back (equal to HEAD) are no news, a file untracked before the
 * session started is not new, a file made since is; a file as recorded is never "changed
 * outside the session".
 */
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { Workspace as CliWorkspace } from '../cli/helpers.js';
import { runFixture, workspace } from './helpers.js';

function git(dir: string, ...a: string[]): string {
  return execFileSync('git', a, {
    cwd: dir,
    encoding: 'utf8',
    env: {
      ...process.env,
      GIT_AUTHOR_NAME: 't',
      GIT_AUTHOR_EMAIL: 't@t',
      GIT_COMMITTER_NAME: 't',
      GIT_COMMITTER_EMAIL: 't@t',
    },
  });
}

async function briefing(dir: string): Promise<string> {
  const out = await runFixture('claude', 'SessionStart', dir);
  return (JSON.parse(out) as { hookSpecificOutput: { additionalContext: string } }).hookSpecificOutput
    .additionalContext;
}

interface PlanJson {
  files: {
    newFiles: string[];
    outsideChanges: boolean;
    byPhase: Array<{ files: Array<{ path: string; kind: string }> }>;
  };
  warnings: string[];
}

describe('new and changed files are decided by content, not by the age of the inode', () => {
  it('after `baton hooks install`, the briefing lists no new files (baton wrote the hook configs)', async () => {
    const w = await workspace();
    const cli = new CliWorkspace(w.dir);
    for (const c of ['claude', 'codex', 'gemini']) await cli.ok(['hooks', 'install', c]);
    expect(fs.existsSync(path.join(w.dir, '.claude', 'settings.json'))).toBe(true);
    const text = await briefing(w.dir);
    expect(text).not.toContain('New files');
    expect(text).not.toContain('settings.json');
    expect(text).not.toContain('hooks.json');
    const plan = await cli.json<PlanJson>(['resume', '--session', 'hooked']);
    expect(plan.files.newFiles).toEqual([]);
    expect(plan.files.outsideChanges).toBe(false);
  });

  it('a hook config the user wrote without baton in it is news like any new file', async () => {
    const w = await workspace();
    fs.mkdirSync(path.join(w.dir, '.claude'));
    fs.writeFileSync(path.join(w.dir, '.claude', 'settings.json'), '{ "model": "opus" }\n');
    expect(await briefing(w.dir)).toContain('New files the session has not recorded: .claude/settings.json.');
  });

  it('files put back by `git checkout` and `git reset --hard` are no news; a file made since the start is', async () => {
    const w = await workspace();
    // Edited by hand, then put back: the content equals HEAD's, the inode is brand new.
    fs.writeFileSync(path.join(w.dir, 'README.md'), 'scratch\n');
    git(w.dir, 'checkout', '--', 'README.md');
    fs.writeFileSync(path.join(w.dir, 'src', 'a.txt'), 'scratch\n');
    fs.rmSync(path.join(w.dir, 'old.txt'));
    git(w.dir, 'reset', '-q', '--hard', 'HEAD');
    fs.writeFileSync(path.join(w.dir, 'made-later.txt'), 'someone else\n');
    const text = await briefing(w.dir);
    expect(text).toContain('New files the session has not recorded: made-later.txt.');
    for (const p of ['README.md', 'src/a.txt', 'old.txt']) expect(text).not.toContain(p);
    const plan = await new CliWorkspace(w.dir).json<PlanJson>(['resume', '--session', 'hooked']);
    expect(plan.files.newFiles).toEqual(['made-later.txt']);
  });

  it('a file untracked before the session started is not new; the same file recorded and unchanged is not changed', async () => {
    const dir = (await workspace({ start: false })).dir;
    fs.writeFileSync(path.join(dir, 'notes.local'), 'mine\n');
    const cli = new CliWorkspace(dir);
    await cli.ok(['start', 'Later', '--id', 'later', '--phases', 'build']);
    await cli.ok(['phase', 'start', 'build']);
    fs.writeFileSync(path.join(dir, 'out.txt'), 'built\n');
    await cli.ok(['file', 'created', 'out.txt']);
    const plan = await cli.json<PlanJson>(['resume']);
    expect(plan.files.newFiles).toEqual([]);
    expect(plan.files.outsideChanges).toBe(false);
    const handoff = (await cli.ok(['handoff'])).stdout;
    const outside = handoff.slice(
      handoff.indexOf('Changed outside the session'),
      handoff.indexOf('Written by a phase in flight'),
    );
    expect(outside).not.toContain('unchanged since recorded');
    expect(outside).not.toContain('out.txt');
    expect(outside).toContain('- none detected');
    // It is still named, as the work of the phase in flight to check.
    expect(handoff).toContain(
      'Written by a phase in flight, as recorded (possibly half-written):\n\n- build: `out.txt`',
    );
  });
});
