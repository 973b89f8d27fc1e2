/**
 * dist/baton.cjs runs the bundle through V8's code cache (src/cli/launcher.cjs). The cache is
 * only an optimisation: missing, damaged, from another build or unwritable, the command runs
 * the same. A copy of dist/ in a temp folder is the subject, so the cache files are this
 * test's own.
 */
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { tempDir } from '../support/temp.js';
import { BATON, baseEnv, needBuiltCli } from './helpers.js';

interface Copy {
  dist: string;
  work: string;
  home: string;
}

/** dist/baton.cjs and the bundles it starts, copied to a fresh folder, with a workspace and a cache home. */
function copyDist(): Copy {
  const root = tempDir('baton-launcher-');
  const dist = path.join(root, 'dist');
  fs.mkdirSync(dist);
  for (const f of ['baton.cjs', 'cli.cjs', 'hook.cjs'])
    fs.copyFileSync(path.join(path.dirname(BATON), f), path.join(dist, f));
  const work = path.join(root, 'work');
  const home = path.join(root, 'cache-home');
  fs.mkdirSync(work);
  return { dist, work, home };
}

function baton(
  c: Copy,
  args: string[],
  env: Record<string, string> = {},
): { status: number | null; stdout: string; stderr: string } {
  const r = spawnSync(process.execPath, [path.join(c.dist, 'baton.cjs'), ...args], {
    cwd: c.work,
    env: baseEnv({ XDG_CACHE_HOME: c.home, BATON_NOW: '2026-03-01T10:00:00.000Z', ...env }),
    encoding: 'utf8',
  });
  return { status: r.status, stdout: r.stdout, stderr: r.stderr };
}

/** The cache files beside the bundle (`cli-<hash>.v8cache` for the CLI, `hook-…` for the hook's bundle). */
function caches(dir: string, kind = 'cli'): string[] {
  return fs.existsSync(dir)
    ? fs
        .readdirSync(dir)
        .filter((f) => f.startsWith(`${kind}-`) && f.endsWith('.v8cache'))
        .map((f) => path.join(dir, f))
    : [];
}

/** The cache file's identity: a run that leaves it alone leaves these the same. */
function stamp(file: string): bigint[] {
  const st = fs.statSync(file, { bigint: true });
  return [st.ino, st.mtimeNs];
}

describe('the code cache of dist/baton.cjs', () => {
  beforeAll(() => needBuiltCli());

  it('is made by the first run beside the bundle, and left alone by the runs after it', () => {
    const c = copyDist();
    expect(caches(c.dist)).toEqual([]);
    expect(baton(c, ['init']).status).toBe(0);
    const [file] = caches(c.dist);
    const made = stamp(file!);
    expect(baton(c, ['start', 'Cached', '--id', 'cached']).status).toBe(0);
    const r = baton(c, ['tokens', 'add', '--agent', 'a', '--input', '5', '--json']);
    expect(r.status, r.stdout + r.stderr).toBe(0);
    expect(stamp(file!)).toEqual(made);
    expect(caches(c.dist)).toHaveLength(1);
    expect(caches(c.home, 'baton')).toEqual([]);
  });

  it('damaged, cut short or from another build, it is not used, the command runs the same, and it is made again', () => {
    const c = copyDist();
    expect(baton(c, ['init']).status).toBe(0);
    expect(baton(c, ['start', 'Cached', '--id', 'cached']).status).toBe(0);
    const expected = baton(c, ['status', '--json'], { BATON_NO_CODE_CACHE: '1' });
    expect(expected.status).toBe(0);
    const [file] = caches(c.dist);
    const good = fs.readFileSync(file!);
    const damaged: Buffer[] = [
      Buffer.from('not a cache at all'),
      Buffer.alloc(0),
      Buffer.alloc(5000, 7),
      good.subarray(0, Math.floor(good.length / 2)),
      good.subarray(100),
    ];
    for (const bytes of damaged) {
      fs.writeFileSync(file!, bytes);
      const r = baton(c, ['status', '--json']);
      expect(r).toEqual(expected);
      // Made again: the next run finds a cache it can use and leaves it alone.
      expect(fs.readFileSync(file!).equals(bytes)).toBe(false);
      const again = stamp(file!);
      expect(baton(c, ['status', '--json'])).toEqual(expected);
      expect(stamp(file!)).toEqual(again);
    }
  });

  it('where the bundle folder takes no file, it is kept in $XDG_CACHE_HOME/baton', () => {
    const c = copyDist();
    expect(baton(c, ['init']).status).toBe(0);
    const [file] = caches(c.dist);
    // Root writes anywhere, so a folder in the cache file's place stands for a read-only install.
    fs.rmSync(file!);
    fs.mkdirSync(file!);
    fs.writeFileSync(path.join(file!, 'x'), '');
    const r = baton(c, ['start', 'Elsewhere', '--id', 'elsewhere']);
    expect(r.status, r.stderr).toBe(0);
    const [homeFile] = caches(path.join(c.home, 'baton'));
    expect(path.basename(homeFile!)).toBe(path.basename(file!));
    const made = stamp(homeFile!);
    expect(baton(c, ['status', '--json']).status).toBe(0);
    expect(stamp(homeFile!)).toEqual(made);
  });

  it('`baton hook` has a cache of its own', () => {
    const c = copyDist();
    const r = baton(c, ['hook', 'claude-code', 'post-tool-use'], {});
    expect(r.status, r.stderr).not.toBeNull();
    expect(caches(c.dist, 'hook').length).toBe(1);
    expect(caches(c.dist, 'cli')).toEqual([]);
  });
});

describe('which bundle dist/baton.cjs starts', () => {
  beforeAll(() => needBuiltCli());

  it('the command table routes `hook` to its own bundle; every other command line, help and unknown words to the CLI', () => {
    const c = copyDist();
    expect(baton(c, ['init']).status).toBe(0);
    const help = baton(c, ['tokens', '--help']);
    expect(help.status).toBe(0);
    expect(help.stdout).toContain('Usage: baton tokens');
    const all = baton(c, ['--help']);
    for (const w of ['tokens', 'mcp', 'hooks', 'otel', 'ui', 'resume', 'completion']) expect(all.stdout).toContain(w);
    expect(baton(c, ['tokesn']).stderr).toContain('Did you mean `baton tokens`?');
    expect(baton(c, ['--json', 'status']).stdout).toContain('"error"');
    expect(caches(c.dist)).toHaveLength(1);
    expect(caches(c.dist, 'hook')).toEqual([]);
    // The hook answers as the hook does (always exit 0), from hook.cjs: its cache is made, not the CLI's.
    const cli = stamp(caches(c.dist)[0]!);
    expect(baton(c, ['hook', 'claude']).status).toBe(0);
    expect(caches(c.dist, 'hook')).toHaveLength(1);
    expect(stamp(caches(c.dist)[0]!)).toEqual(cli);
  });
});
