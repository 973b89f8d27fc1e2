/**
 * `baton export --bundle FILE` and `baton import FILE` (docs/cli.md "Carrying a session to
 * another machine"): a session carried from one workspace (a git repository on a branch) to
 * another folder, its paths re-rooted and checkpoints valid, the handoff inside naming the
 * branch to fetch and the resume command; a damaged bundle and a clash refused; the foreign
 * layouts' use of export and import unchanged.
 */
import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { tempDir } from '../support/temp.js';
import { expectError, workspace } from './helpers.js';

function git(cwd: string, ...args: string[]): string {
  return execFileSync('git', args, {
    cwd,
    encoding: 'utf8',
    env: {
      ...process.env,
      GIT_AUTHOR_NAME: 't',
      GIT_AUTHOR_EMAIL: 't@x',
      GIT_COMMITTER_NAME: 't',
      GIT_COMMITTER_EMAIL: 't@x',
    },
  }).trim();
}

/** A workspace that is a git repository on branch feature-x, with session `carry` in it. */
async function sender(): Promise<{ ws: ReturnType<typeof workspace>; root: string; head: string }> {
  const ws = workspace();
  const root = fs.realpathSync(ws.dir);
  git(root, 'init', '-q', '-b', 'feature-x');
  fs.writeFileSync(path.join(root, '.gitignore'), '.baton/\n');
  ws.write('src/app.ts', 'export {};\n');
  git(root, 'add', '.');
  git(root, 'commit', '-qm', 'first');
  await ws.ok(['start', 'Carry me', '--id', 'carry', '--phases', 'build,ship']);
  await ws.ok(['phase', 'start', 'build']);
  await ws.ok(['artifact', 'add', path.join(root, 'src', 'app.ts'), '--kind', 'code']);
  await ws.ok(['checkpoint', 'first']);
  return { ws, root, head: git(root, 'rev-parse', 'HEAD') };
}

describe('baton export --bundle / baton import FILE', () => {
  it('carries a session to another folder: same state with paths re-rooted, checkpoints valid, handoff names branch and resume', async () => {
    const a = await sender();
    const file = path.join(tempDir('baton-bundle-cli-'), 'carry.baton');
    expect((await a.ws.ok(['export', '--bundle', `${file}.first`])).stdout).toContain(
      'the handoff inside (`baton import carry.baton.first --handoff`) says what else',
    );
    const out = await a.ws.json<Record<string, unknown>>(['export', '--bundle', file]);
    expect(out).toMatchObject({ id: 'carry', file, checkpoints: 1, git: { branch: 'feature-x', head: a.head } });
    const text = fs.readFileSync(file, 'utf8');
    expect(text).not.toContain(a.root);
    const handoff = (JSON.parse(text.split('\n')[0]!) as { handoff: string }).handoff;
    expect(handoff).toContain('## Receiving this session');
    expect(handoff).toContain('git fetch origin feature-x && git switch feature-x');
    expect(handoff).toContain('baton resume carry --apply');

    const b = workspace();
    const rootB = fs.realpathSync(b.dir);
    // The receiver reads the handoff inside first: verified, nothing imported, no store made.
    const read = await b.ok(['import', file, '--handoff']);
    expect(read.stdout).toBe(`${handoff.trimEnd()}\n`);
    expect(await b.json<Record<string, unknown>>(['import', file, '--handoff'])).toEqual({ file, handoff });
    expect(fs.existsSync(path.join(b.dir, '.baton'))).toBe(false);
    expect(expectError(await b.run(['import', file, '--handoff', '--as', 'x']), 'BAD_INPUT').message).toContain(
      '--handoff only reads the bundle',
    );
    const r = await b.json<Record<string, unknown>>(['import', file]);
    expect(r).toMatchObject({ id: 'carry', root: rootB, active: false, git: { branch: 'feature-x', head: a.head } });
    expect(r['next']).toEqual([
      expect.stringContaining('git fetch origin feature-x'),
      'baton resume carry --apply   # without --apply: only shows the plan',
    ]);
    const sa = await a.ws.status('carry');
    const sb = await b.status('carry');
    expect(JSON.stringify(sb).split(rootB).join('<root>')).toBe(JSON.stringify(sa).split(a.root).join('<root>'));
    expect(JSON.stringify(sb)).toContain(path.join(rootB, 'src', 'app.ts'));
    const cps = await b.json<Array<{ id: string; valid: boolean; git: { branch: string } | null }>>([
      'checkpoints',
      '--session',
      'carry',
    ]);
    expect(cps).toMatchObject([{ valid: true, git: { branch: 'feature-x' } }]);
    await b.ok(['checkpoint', 'validate', cps[0]!.id, '--session', 'carry']);
    // Human output names what comes next.
    const again = await b.ok(['import', file, '--as', 'carry-2']);
    expect(again.stdout).toContain('Imported carry-2 (carry in the bundle)');
    expect(again.stdout).toContain('git fetch origin feature-x');
  });

  it('refuses a damaged bundle (CORRUPT, nothing created) and a clash (EXISTS, hint --as/--replace)', async () => {
    const a = await sender();
    const file = path.join(tempDir('baton-bundle-cli-'), 'carry.baton');
    await a.ws.ok(['export', '--bundle', file]);
    const bytes = fs.readFileSync(file);
    const damaged = Buffer.from(bytes);
    damaged[damaged.indexOf('Carry me')] = 'c'.charCodeAt(0);
    const bad = `${file}.damaged`;
    fs.writeFileSync(bad, damaged);
    const b = workspace();
    const e = expectError(await b.run(['import', bad]), 'CORRUPT');
    expect(e.message).toContain('does not match its sha256 checksum');
    fs.writeFileSync(bad, bytes.subarray(0, bytes.length - 20));
    expectError(await b.run(['import', bad]), 'CORRUPT');
    // Refused before a store is opened: none was made.
    expect(fs.existsSync(path.join(b.dir, '.baton'))).toBe(false);

    const clash = expectError(await a.ws.run(['import', file]), 'EXISTS');
    expect(clash.hint).toContain('--as NEW_ID');
    expect(clash.hint).toContain('--replace');
  });

  it('refuses a newer, a foreign, a missing and a damaged bundle before opening a store; a clash or a blocked --replace leaves the session as it was', async () => {
    const a = await sender();
    const dir = tempDir('baton-bundle-cli-');
    const file = path.join(dir, 'carry.baton');
    await a.ws.ok(['export', '--bundle', file]);
    const text = fs.readFileSync(file, 'utf8');

    // A bundle written by a newer baton (format version 2), its checksum right.
    const body = JSON.parse(text.split('\n')[0]!) as Record<string, unknown>;
    const line = `${JSON.stringify({ ...body, v: 2, baton: '9.0.0' })}\n`;
    const newer = path.join(dir, 'newer.baton');
    fs.writeFileSync(newer, `${line}${JSON.stringify({ sha256: createHash('sha256').update(line).digest('hex') })}\n`);
    const notes = path.join(dir, 'notes.md');
    fs.writeFileSync(notes, '# Notes\n\nnot a bundle\n');
    const cut = path.join(dir, 'cut.baton');
    fs.writeFileSync(cut, text.slice(0, text.length / 2));

    const b = workspace();
    const v = expectError(await b.run(['import', newer]), 'UNSUPPORTED_VERSION');
    expect(v.message).toContain('has format version 2, written by baton 9.0.0; this baton reads up to 1');
    expect(v.hint).toContain('Upgrade baton');
    const f = expectError(await b.run(['import', notes]), 'BAD_INPUT');
    expect(f.message).toBe(`${notes} is not a baton session bundle: it does not begin as one does.`);
    expect(f.hint).toContain("to import a toolkit's sessions, give their folder");
    const gone = expectError(await b.run(['import', path.join(dir, 'nothing.baton')]), 'NOT_FOUND');
    expect(gone.message).toBe(`There is no file or folder at ${path.join(dir, 'nothing.baton')}.`);
    expect(gone.hint).toContain('export --bundle');
    expect(expectError(await b.run(['import', cut]), 'CORRUPT').message).toContain('Nothing was imported');
    // None of them made a store where there was none.
    expect(fs.existsSync(path.join(b.dir, '.baton'))).toBe(false);

    // A clash, and a --replace of the session while it is active: refused, the session untouched.
    const before = await a.ws.json<unknown[]>(['log', '--session', 'carry']);
    expectError(await a.ws.run(['import', file]), 'EXISTS');
    const blocked = expectError(await a.ws.run(['import', file, '--replace']), 'INVALID_TRANSITION');
    expect(blocked.message).toBe(
      'The session carry here cannot be replaced: Session carry is active; it cannot be deleted. Nothing was imported and it is as it was (or import the bundle beside it with --as NEW_ID).',
    );
    expect(blocked.hint).toContain('baton complete --session carry');
    expect(await a.ws.json<unknown[]>(['log', '--session', 'carry'])).toEqual(before);

    // Paused, it is replaced by the bundle's copy.
    await a.ws.ok(['pause']);
    const r = await a.ws.json<Record<string, unknown>>(['import', file, '--replace']);
    expect(r).toMatchObject({ id: 'carry', replaced: true, revision: before.length });
    expect(await a.ws.json<unknown[]>(['log', '--session', 'carry'])).toEqual(before);
  });

  it('keeps export and import of foreign layouts as they were, and says which options belong to which', async () => {
    const a = await sender();
    expect(expectError(await a.ws.run(['export', '--format', 'maestro']), 'BAD_INPUT').message).toContain('--out');
    const file = path.join(tempDir('baton-bundle-cli-'), 'carry.baton');
    expect(
      expectError(await a.ws.run(['export', '--bundle', file, '--format', 'maestro']), 'BAD_INPUT').message,
    ).toContain('--format do not apply');
    await a.ws.ok(['export', '--bundle', file]);
    expect(expectError(await a.ws.run(['import', file, '--id-prefix', 'x-']), 'BAD_INPUT').message).toContain(
      'is a file (a session bundle)',
    );
    expect(expectError(await a.ws.run(['import', a.ws.dir, '--as', 'x']), 'BAD_INPUT').message).toContain(
      'only apply to a session bundle',
    );
    const outDir = tempDir('baton-bundle-cli-maestro-');
    await a.ws.ok(['export', '--format', 'maestro', '--out', outDir]);
    expect(fs.readdirSync(outDir).length).toBeGreaterThan(0);
  });
});
