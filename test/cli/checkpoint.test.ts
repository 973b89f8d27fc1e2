import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { EXIT_CODES, expectError, expectJsonError, workspace } from './helpers.js';
import type { EventJson, StatusJson, Workspace } from './helpers.js';

interface CheckpointJson {
  id: string;
  name: string;
  revision: number | null;
  createdAt: string;
  valid: boolean;
  superseded: boolean;
  problem?: string;
  trigger: 'manual' | 'phase';
  phaseId: string | null;
  git: { branch: string | null; head: string | null; dirty: boolean } | null;
  files: number | null;
  recorded: boolean;
}

interface RestoreJson {
  session: string;
  revision: number;
  status: string;
  checkpoint: CheckpointJson;
  superseded: string[];
  git: { commit: string; previousHead: string | null } | null;
}

function git(ws: Workspace, ...args: string[]): string {
  const r = spawnSync('git', args, {
    cwd: ws.dir,
    encoding: 'utf8',
    env: {
      ...process.env,
      GIT_AUTHOR_NAME: 't',
      GIT_AUTHOR_EMAIL: 't@t',
      GIT_COMMITTER_NAME: 't',
      GIT_COMMITTER_EMAIL: 't@t',
    },
  });
  if (r.status !== 0) throw new Error(`git ${args.join(' ')} failed: ${r.stderr}`);
  return r.stdout.trim();
}

/** A workspace that is a git repository with `.baton/` ignored and one commit holding a.txt. */
async function repo(): Promise<Workspace> {
  const ws = workspace();
  git(ws, 'init', '-q', '-b', 'main');
  ws.write('.gitignore', '.baton/\n');
  ws.write('a.txt', 'one\n');
  git(ws, 'add', '.');
  git(ws, 'commit', '-q', '-m', 'one');
  await ws.ok(['start', 'Checkpointed', '--id', 's', '--phases', 'design,build,test']);
  return ws;
}

function commit(ws: Workspace, message: string): string {
  git(ws, 'add', '-A');
  git(ws, 'commit', '-q', '-m', message);
  return git(ws, 'rev-parse', 'HEAD');
}

function cpFile(ws: Workspace, id: string): string {
  return ws.path('.baton', 'sessions', 's', 'checkpoints', `${id}.json`);
}

describe('baton checkpoint, checkpoints, checkpoint show|validate', () => {
  it('saves named checkpoints with git HEAD, branch, dirty flag and file hashes, and lists them', async () => {
    const ws = await repo();
    const head1 = git(ws, 'rev-parse', 'HEAD');
    await ws.ok(['phase', 'start', 'design']);
    await ws.ok(['file', 'created', 'a.txt']);
    const out = await ws.ok(['checkpoint', 'Before the build']);
    expect(out.stdout).toBe(
      `Checkpoint cp-1-before-the-build "Before the build" at revision 3 · git main@${head1.slice(0, 7)} · 1 file(s) hashed\n`,
    );

    ws.write('a.txt', 'two\n');
    const head2 = commit(ws, 'two');
    ws.write('scratch.txt', 'not committed');
    const second = await ws.json<{ session: string; revision: number; status: string; checkpoint: CheckpointJson }>([
      'checkpoint',
    ]);
    expect(second).toMatchObject({ session: 's', revision: 5, status: 'active' });
    expect(second.checkpoint).toMatchObject({
      id: 'cp-2-revision-4',
      name: 'revision 4',
      revision: 4,
      valid: true,
      git: { branch: 'main', head: head2, dirty: true },
      files: 1,
    });

    const list = await ws.json<CheckpointJson[]>(['checkpoints']);
    expect(list).toHaveLength(2);
    expect(list[0]).toEqual({
      id: 'cp-1-before-the-build',
      name: 'Before the build',
      revision: 3,
      createdAt: expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/),
      valid: true,
      superseded: false,
      trigger: 'manual',
      phaseId: null,
      git: { branch: 'main', head: head1, dirty: false },
      files: 1,
      recorded: true,
      completedPhases: [],
    });
    const human = (await ws.ok(['checkpoints'])).stdout.split('\n');
    expect(human[0]).toMatch(/^ID\s+REV\s+WHEN\s+GIT\s+STATE\s+NAME$/);
    expect(human[1]).toMatch(
      new RegExp(`^cp-1-before-the-build\\s+3\\s+\\d+s ago\\s+main@${head1.slice(0, 7)}\\s+ok\\s+Before the build$`),
    );
    expect(human[2]).toMatch(
      new RegExp(`^cp-2-revision-4\\s+4\\s+\\d+s ago\\s+main@${head2.slice(0, 7)}\\*\\s+ok\\s+revision 4$`),
    );

    // show: the state it holds and its files compared with the workspace now.
    const show = await ws.json<
      CheckpointJson & { files: Array<{ path: string; sha256: string; status: string }>; state: StatusJson }
    >(['checkpoint', 'show', 'cp-1-before-the-build']);
    expect(show.state.revision).toBe(3);
    expect(show.state.phases.map((p) => p.status)).toEqual(['in_progress', 'pending', 'pending']);
    expect(show.files).toEqual([expect.objectContaining({ path: 'a.txt', status: 'changed' })]);
    const text = (await ws.ok(['checkpoint', 'show', 'cp-1-before-the-build'])).stdout;
    expect(text).toContain(`Git: branch main, HEAD ${head1}, clean`);
    expect(text).toContain('Phases: design in_progress, build pending, test pending');
    expect(text).toMatch(/a\.txt\s+[0-9a-f]{12}\s+now changed/);

    expect((await ws.ok(['checkpoint', 'validate', 'cp-2-revision-4'])).stdout).toBe(
      'Checkpoint cp-2-revision-4 is valid: checksum and contents check out (revision 4).\n',
    );
    expect(await ws.json(['checkpoint', 'validate', 'cp-1-before-the-build'])).toMatchObject({
      valid: true,
      checkpoint: { id: 'cp-1-before-the-build' },
    });

    // The journal records each one; the files are 0600 in checkpoints/.
    const types = (await ws.log()).map((e) => e.type);
    expect(types.filter((t) => t === 'checkpoint.created')).toHaveLength(2);
    expect(fs.statSync(cpFile(ws, 'cp-1-before-the-build')).mode & 0o777).toBe(0o600);
    expect(fs.statSync(path.dirname(cpFile(ws, 'cp-1-before-the-build'))).mode & 0o777).toBe(0o700);
  });

  it('refuses unknown and invalid ids with coded errors', async () => {
    const ws = await repo();
    const nf = expectError(await ws.run(['checkpoint', 'show', 'cp-9']), 'NOT_FOUND');
    expect(nf.hint).toContain('baton checkpoint');
    expectError(await ws.run(['checkpoint', 'validate', 'cp-9']), 'NOT_FOUND');
    expectError(await ws.run(['restore', 'cp-9']), 'NOT_FOUND');
    for (const bad of ['../x', 'a/b', '.hidden']) {
      expectError(await ws.run(['checkpoint', 'show', bad]), 'BAD_INPUT');
      expectJsonError(await ws.run(['restore', bad, '--json']), 'BAD_INPUT');
    }
    expectError(await ws.run(['checkpoint', '']), 'BAD_INPUT');
    expectError(await ws.run(['checkpoint', 'x', '--name', 'y']), 'BAD_INPUT');
    expect((await ws.ok(['checkpoint', '--name', 'show'])).stdout).toMatch(/^Checkpoint cp-1-show "show"/);
    expectError(await ws.run(['checkpoint', 'late', '--if-revision', '1']), 'CONFLICT');
    expectError(await ws.run(['restore', 'cp-1-show', '--force']), 'BAD_INPUT');
    await ws.ok(['complete', '--force']);
    expectError(await ws.run(['checkpoint', 'after the end', '--session', 's']), 'INVALID_TRANSITION');
    expect(fs.readdirSync(ws.path('.baton', 'sessions', 's', 'checkpoints'))).toEqual(['cp-1-show.json']);
  });
});

describe('baton restore', () => {
  it('--git resets HEAD and files to the recorded commit; a dirty tree is refused without --force', async () => {
    const ws = await repo();
    const head1 = git(ws, 'rev-parse', 'HEAD');
    await ws.ok(['phase', 'start', 'design']);
    await ws.ok(['checkpoint', 'one']);
    ws.write('a.txt', 'two\n');
    ws.write('b.txt', 'added in two\n');
    await ws.ok(['file', 'modified', 'a.txt']);
    await ws.ok(['file', 'created', 'b.txt']);
    await ws.ok(['phase', 'complete', 'design']);
    const head2 = commit(ws, 'two');
    await ws.ok(['checkpoint', 'two']);
    const before = await ws.log();

    // Uncommitted changes: refused, nothing changes.
    ws.write('a.txt', 'edited, not committed\n');
    const dirty = expectError(await ws.run(['restore', 'cp-1-one', '--git']), 'CONFLICT');
    expect(dirty.message).toContain('uncommitted changes (1 path(s): a.txt)');
    expect(dirty.hint).toContain('--force');
    git(ws, 'checkout', '--', 'a.txt');
    ws.write('untracked.txt', 'mine');
    const untracked = expectJsonError(await ws.run(['restore', 'cp-1-one', '--git', '--json']), 'CONFLICT');
    expect(untracked.message).toContain('untracked.txt');
    expect(git(ws, 'rev-parse', 'HEAD')).toBe(head2);
    expect(await ws.log()).toEqual(before);
    ws.write('a.txt', 'edited again\n');

    // --force: reset to the first commit; tracked changes discarded, untracked files kept.
    const r = await ws.json<RestoreJson>(['restore', 'cp-1-one', '--git', '--force']);
    expect(r).toMatchObject({
      session: 's',
      revision: before.length + 1,
      status: 'active',
      superseded: ['cp-2-design-done', 'cp-3-two'],
      git: { commit: head1, previousHead: head2 },
    });
    expect(r.checkpoint).toMatchObject({ id: 'cp-1-one', valid: true, superseded: false });
    expect(git(ws, 'rev-parse', 'HEAD')).toBe(head1);
    expect(git(ws, 'symbolic-ref', '--short', 'HEAD')).toBe('main');
    expect(fs.readFileSync(ws.path('a.txt'), 'utf8')).toBe('one\n');
    expect(fs.existsSync(ws.path('b.txt'))).toBe(false);
    expect(fs.readFileSync(ws.path('untracked.txt'), 'utf8')).toBe('mine');

    // The session's work is the checkpoint's again; history is kept, one event appended.
    const s = await ws.status();
    expect(s.phases.map((p) => p.status)).toEqual(['in_progress', 'pending', 'pending']);
    expect(s.phases[0]!.files).toEqual([]);
    const after = await ws.log();
    expect(after.slice(0, before.length)).toEqual(before);
    expect(after.slice(before.length).map((e) => e.type)).toEqual(['checkpoint.restored']);
    expect(after.at(-1)!.data).toMatchObject({
      checkpointId: 'cp-1-one',
      supersedes: ['cp-2-design-done', 'cp-3-two'],
      git: { commit: head1, previousHead: head2 },
    });
    const list = await ws.json<CheckpointJson[]>(['checkpoints']);
    expect(list.map((c) => [c.id, c.superseded])).toEqual([
      ['cp-1-one', false],
      ['cp-2-design-done', true],
      ['cp-3-two', true],
    ]);

    // Back to the later checkpoint, by its commit again.
    const human = await ws.ok(['restore', 'cp-3-two', '--git', '--force']);
    const [first, second, third] = human.stdout.split('\n');
    expect([first, second]).toEqual([
      `Restored cp-3-two "two" (revision ${before.length - 1}) as revision ${before.length + 2}`,
      `Work tree reset to ${head2.slice(0, 12)} (HEAD was ${head1.slice(0, 12)}: \`git reset --hard ${head1}\` goes back to it, discarding what the restore put back)`,
    ]);
    // untracked.txt made the tree dirty: --force kept a copy of it.
    expect(third).toMatch(
      /^The changes --force discarded are kept in commit [0-9a-f]{40} \(refs\/baton\/s\/before-restore-[0-9a-f]{12}\)$/,
    );
    expect(fs.readFileSync(ws.path('b.txt'), 'utf8')).toBe('added in two\n');
  });

  it('without --git only appends the event and supersedes later checkpoints; files and HEAD stay', async () => {
    const ws = await repo();
    await ws.ok(['phase', 'start', 'design']);
    await ws.ok(['note', 'add', 'kept in the checkpoint']);
    await ws.ok(['checkpoint', 'base']);
    await ws.ok(['note', 'add', 'set aside by the restore']);
    await ws.ok(['tokens', 'add', '--agent', 'a', '--input', '10', '--output', '1']);
    ws.write('a.txt', 'changed after\n');
    const head2 = commit(ws, 'two');
    await ws.ok(['checkpoint', 'later']);
    const before = await ws.log();
    const r = await ws.json<RestoreJson>(['restore', 'cp-1-base']);
    expect(r).toMatchObject({ revision: before.length + 1, superseded: ['cp-2-later'], git: null });
    expect(git(ws, 'rev-parse', 'HEAD')).toBe(head2);
    expect(fs.readFileSync(ws.path('a.txt'), 'utf8')).toBe('changed after\n');
    const s = await ws.status();
    expect(s.notes.map((n) => n.text)).toEqual(['kept in the checkpoint']);
    expect(s.tokens.input).toBe(10);
    expect(s.revision).toBe(before.length + 1);
    const after = await ws.log();
    expect(after.slice(0, before.length)).toEqual(before);
    expect(after.at(-1)!.type).toBe('checkpoint.restored');
    expect((await ws.json<CheckpointJson[]>(['checkpoints'])).map((c) => [c.id, c.superseded])).toEqual([
      ['cp-1-base', false],
      ['cp-2-later', true],
    ]);
    const human = (await ws.ok(['checkpoints'])).stdout;
    expect(human).toMatch(/cp-2-later .* superseded\s+later\n/);
    // A note added now gets a new id: ids are never handed out twice.
    expect((await ws.ok(['note', 'add', 'new line'])).stdout).toBe('note-3\n');
  });

  it('--git needs a git work tree, a checkpoint with a commit, and an untracked store', async () => {
    const plain = workspace();
    await plain.ok(['start', 'Plain', '--id', 's']);
    const cp = await plain.json<{ checkpoint: CheckpointJson }>(['checkpoint', 'no git']);
    expect(cp.checkpoint.git).toBeNull();
    const e = expectError(await plain.run(['restore', 'cp-1-no-git', '--git']), 'BAD_INPUT');
    expect(e.hint).toContain('without --git');
    await plain.ok(['restore', 'cp-1-no-git']);

    // A store committed to git would be rewound by a reset: refused.
    const ws = await repo();
    ws.write('.gitignore', '');
    await ws.ok(['init', '--shared']); // a store committed with the project
    commit(ws, 'track the store');
    await ws.ok(['checkpoint', 'tracked']);
    commit(ws, 'more store');
    const t = expectError(await ws.run(['restore', 'cp-1-tracked', '--git', '--force']), 'BAD_INPUT');
    expect(t.message).toContain("rewind baton's own journal");
  });
});

describe('damaged checkpoints', () => {
  it('are listed invalid with the reason, kept as they are, and the previous valid one is offered', async () => {
    const ws = await repo();
    await ws.ok(['checkpoint', 'good']);
    await ws.ok(['note', 'add', 'x']);
    await ws.ok(['checkpoint', 'bad']);
    const file = cpFile(ws, 'cp-2-bad');
    const bytes = fs.readFileSync(file);
    const damaged = Buffer.from(bytes);
    const at = damaged.indexOf('"name":"bad"') + 9;
    damaged[at] = 'B'.charCodeAt(0);
    fs.writeFileSync(file, damaged);

    const list = await ws.json<CheckpointJson[]>(['checkpoints']);
    expect(list[1]).toMatchObject({
      id: 'cp-2-bad',
      name: 'bad',
      revision: 3,
      valid: false,
      problem: 'checksum mismatch',
      recorded: true,
      git: null,
      files: null,
    });
    expect(list[0]).toMatchObject({ id: 'cp-1-good', valid: true });
    expect((await ws.ok(['checkpoints'])).stdout).toMatch(/cp-2-bad .*INVALID\s+bad\s+\(checksum mismatch\)\n/);

    const v = expectError(await ws.run(['checkpoint', 'validate', 'cp-2-bad']), 'CORRUPT');
    expect(v.message).toBe('Checkpoint cp-2-bad of session s is damaged: checksum mismatch.');
    expect(v.hint).toBe('The previous valid checkpoint is cp-1-good ("good", revision 1): `baton restore cp-1-good`.');
    const j = expectJsonError(await ws.run(['restore', 'cp-2-bad', '--json']), 'CORRUPT');
    expect(j.hint).toContain('cp-1-good');
    expectError(await ws.run(['checkpoint', 'show', 'cp-2-bad']), 'CORRUPT');
    expect((await ws.run(['checkpoint', 'validate', 'cp-2-bad'])).code).toBe(EXIT_CODES.CORRUPT);
    // Never thrown away or rewritten.
    expect(fs.readFileSync(file)).toEqual(damaged);

    // A truncated or emptied file, and one that vanished, are reported the same way.
    fs.writeFileSync(file, bytes.subarray(0, 100));
    expect((await ws.json<CheckpointJson[]>(['checkpoints']))[1]).toMatchObject({
      valid: false,
      problem: 'no checksum (the file is cut short)',
    });
    fs.rmSync(file);
    expect((await ws.json<CheckpointJson[]>(['checkpoints']))[1]).toMatchObject({
      valid: false,
      problem: 'its file is missing (the journal recorded it)',
    });
    const gone = expectError(await ws.run(['restore', 'cp-2-bad']), 'CORRUPT');
    expect(gone.hint).toContain('cp-1-good');
    // The offered one restores.
    await ws.ok(['restore', 'cp-1-good']);
    expect((await ws.status()).notes).toEqual([]);
  });
});

describe('automatic checkpoints', () => {
  it('are taken when a phase completes, unless the session was started with --no-auto-checkpoint', async () => {
    const ws = await repo();
    await ws.ok(['phase', 'start', 'design']);
    const done = await ws.json<{ revision: number }>(['phase', 'complete', 'design']);
    const s = await ws.status();
    expect(done.revision).toBe(s.revision);
    const log = await ws.log();
    expect(log.slice(-2).map((e: EventJson) => e.type)).toEqual(['phase.completed', 'checkpoint.created']);
    expect(log.at(-1)!.data).toMatchObject({
      checkpointId: 'cp-1-design-done',
      trigger: 'phase',
      phaseId: 'design',
      revision: s.revision - 1,
    });
    const list = await ws.json<CheckpointJson[]>(['checkpoints']);
    expect(list).toEqual([
      expect.objectContaining({
        id: 'cp-1-design-done',
        name: 'design done',
        trigger: 'phase',
        phaseId: 'design',
        valid: true,
      }),
    ]);
    expect((await ws.ok(['checkpoints'])).stdout).toContain('design done (auto)');
    await ws.ok(['phase', 'start', 'build']);
    await ws.ok(['phase', 'fail', 'build']);
    await ws.ok(['phase', 'skip', 'test']);
    expect(await ws.json<CheckpointJson[]>(['checkpoints'])).toHaveLength(1);

    await ws.ok(['start', 'Quiet', '--id', 'q', '--phases', 'a', '--no-auto-checkpoint', '--switch']);
    expect((await ws.status()).metadata).toMatchObject({ autoCheckpoint: false });
    await ws.ok(['phase', 'start', 'a']);
    await ws.ok(['phase', 'complete', 'a']);
    expect(await ws.json(['checkpoints'])).toEqual([]);
    expect((await ws.log()).map((e) => e.type)).not.toContain('checkpoint.created');
  });
});
