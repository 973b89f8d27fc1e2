/**
 * `baton export --bundle FILE` and `baton import FILE` (docs/cli.md "Carrying a session to
 * another machine"): a session carried from one workspace (a git repository on a branch) to
 * another folder, its paths re-rooted and checkpoints valid, the handoff inside naming the
 * branch to fetch and the resume command; a damaged bundle and a clash refused; the foreign
 * layouts' use of export and import unchanged.
 */
import { execFileSync } from 'node:child_process';
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
    expect(await b.json<unknown[]>(['list', '--all'])).toEqual([]);

    const clash = expectError(await a.ws.run(['import', file]), 'EXISTS');
    expect(clash.hint).toContain('--as NEW_ID');
    expect(clash.hint).toContain('--replace');
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
