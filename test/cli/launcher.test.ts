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
import { BATON, ROOT, baseEnv, needBuiltCli } from './helpers.js';

const MAGIC = 'baton-v8cache/1 ';

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
  for (const f of ['baton.cjs', 'cli.cjs', 'core.cjs', 'hook.cjs'])
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

/** The cache files beside the bundle (`core-<hash>.v8cache` for the everyday commands, `cli-…`, `hook-…`). */
function caches(dir: string, kind = 'core'): string[] {
  return fs.existsSync(dir)
    ? fs
        .readdirSync(dir)
        .filter((f) => f.startsWith(`${kind}-`) && f.endsWith('.v8cache'))
        .map((f) => path.join(dir, f))
    : [];
}

function words(file: string): string[] {
  const text = fs.readFileSync(file).toString('latin1', 0, 4096);
  expect(text.startsWith(MAGIC)).toBe(true);
  return text.slice(MAGIC.length, text.indexOf('\n')).split(',');
}

describe('the code cache of dist/baton.cjs', () => {
  beforeAll(() => needBuiltCli());

  it('is made by the first run beside the bundle, and extended once by each further command', () => {
    const c = copyDist();
    expect(caches(c.dist)).toEqual([]);
    expect(baton(c, ['init']).status).toBe(0);
    const [file] = caches(c.dist);
    expect(words(file!)).toEqual(['init']);
    expect(baton(c, ['start', 'Cached', '--id', 'cached']).status).toBe(0);
    expect(words(file!)).toEqual(['init', 'start']);
    const r = baton(c, ['tokens', 'add', '--agent', 'a', '--input', '5', '--json']);
    expect(r.status, r.stdout + r.stderr).toBe(0);
    expect(words(file!)).toEqual(['init', 'start', 'tokens']);
    // A command already named leaves the file alone.
    const before = fs.statSync(file!, { bigint: true });
    expect(baton(c, ['tokens', 'add', '--agent', 'a', '--input', '5']).status).toBe(0);
    const after = fs.statSync(file!, { bigint: true });
    expect([after.ino, after.mtimeNs]).toEqual([before.ino, before.mtimeNs]);
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
      Buffer.concat([Buffer.from(`${MAGIC}status\n`), Buffer.alloc(5000, 7)]),
      good.subarray(0, Math.floor(good.length / 2)),
      Buffer.concat([Buffer.from(`${MAGIC}status\n`), good.subarray(good.indexOf(10) + 1, good.length - 100)]),
    ];
    for (const bytes of damaged) {
      fs.writeFileSync(file!, bytes);
      const r = baton(c, ['status', '--json']);
      expect(r).toEqual(expected);
      expect(words(file!)).toContain('status');
      expect(baton(c, ['status', '--json'])).toEqual(expected);
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
    expect(words(homeFile!)).toEqual(['start']);
    expect(baton(c, ['status', '--json']).status).toBe(0);
    expect(words(homeFile!)).toEqual(['start', 'status']);
  });

  it('`baton hook` has a cache of its own', () => {
    const c = copyDist();
    const r = baton(c, ['hook', 'claude-code', 'post-tool-use'], {});
    expect(r.status, r.stderr).not.toBeNull();
    expect(caches(c.dist, 'hook').length).toBe(1);
    expect(caches(c.dist, 'cli')).toEqual([]);
    expect(caches(c.dist, 'core')).toEqual([]);
  });
});

describe('which bundle dist/baton.cjs starts', () => {
  beforeAll(() => needBuiltCli());

  /** The same command line run by the whole CLI, dist/cli.cjs, started without the launcher. */
  function whole(
    c: Copy,
    cwd: string,
    args: string[],
    now = '2026-03-01T10:00:00.000Z',
  ): { status: number | null; stdout: string; stderr: string } {
    const r = spawnSync(process.execPath, [path.join(c.dist, 'cli.cjs'), ...args], {
      cwd,
      env: baseEnv({ XDG_CACHE_HOME: c.home, BATON_NOW: now }),
      encoding: 'utf8',
    });
    return { status: r.status, stdout: r.stdout, stderr: r.stderr };
  }

  /**
   * Output without what two runs of one command line differ in: the workspace's path, the
   * process ids (`baton log`) and the time a command took (each clock starts at BATON_NOW and
   * runs on: on a busy machine a run can end a second later than its twin, so an age or a
   * time left can differ by a unit).
   */
  const same = (r: { status: number | null; stdout: string; stderr: string }, dir: string) => {
    const plain = (s: string) =>
      s
        .replaceAll(dir, 'WS')
        // `baton log` pads the pid to a column: a pid of one more digit takes one space less.
        .replace(/pid \d+ +/g, 'pid N ')
        .replace(/pid \d+/g, 'pid N')
        .replace(/"pid": ?\d+/g, '"pid": N')
        .replace(/\d\d:\d\d:\d\d(\.\d+)?/g, 'HH:MM:SS')
        // Ages and times left: "60s" of one twin can be "59s" or "1m" of the other.
        .replace(/\b\d+[smhd] ago/g, 'N ago')
        .replace(/\bin \d+[smh]\b/g, 'in N');
    return { status: r.status, stdout: plain(r.stdout), stderr: plain(r.stderr) };
  };

  it('every core command runs from core.cjs and answers as the whole CLI does, errors included', async () => {
    const c = copyDist();
    // Some commands load packages (zod for --phases): the copy sees the checkout's.
    fs.symlinkSync(path.join(ROOT, 'node_modules'), path.join(path.dirname(c.dist), 'node_modules'));
    const twin = path.join(path.dirname(c.work), 'twin');
    fs.mkdirSync(twin);
    fs.writeFileSync(path.join(c.work, 'README.md'), '# a\n');
    fs.writeFileSync(path.join(twin, 'README.md'), '# a\n');
    const lines: string[][] = [
      ['init'],
      ['start', 'Core run', '--id', 'core-run', '--phases', 'design,build'],
      ['status'],
      ['status', '--json'],
      ['list'],
      ['phase', 'start', 'design'],
      ['substep', 'design', 'sketch'],
      ['file', 'created', 'README.md'],
      ['error', 'add', '--phase', 'design', '--type', 'runtime', '--message', 'crash'],
      ['tokens', 'add', '--agent', 'a', '--input', '5', '--output', '2'],
      ['tokens', 'add', '--agent', 'a', '--input', 'five'],
      ['budget', 'set', '100000'],
      ['pricing'],
      ['decision', 'add', '--title', 'Format', '--choice', 'json', '--rationale', 'simple'],
      ['finding', 'add', 'fast enough', '--severity', 'low'],
      ['note', 'add', 'a note'],
      ['milestone', 'add', 'Beta'],
      ['artifact', 'add', 'out.txt'],
      ['context', 'set', 'the summary'],
      ['phase', 'done', 'design'],
      ['phase'],
      ['phase', 'strat', 'build'],
      ['log'],
      ['repair'],
      ['pause'],
      ['switch', 'core-run'],
      ['start', 'Second', '--id', 'second', '--switch'],
      ['complete'],
      ['fail', '--session', 'core-run'],
      ['abandon', '--session', 'core-run'],
      ['archive', '--session', 'second'],
      ['list', '--all', '--json'],
      ['status', '--bogus'],
    ];
    // Each line at its own minute, the same for both twins: each process's clock starts at
    // BATON_NOW, so one time for all would order sessions by how fast each process ran.
    for (const [i, args] of lines.entries()) {
      const now = new Date(Date.parse('2026-03-01T10:00:00.000Z') + i * 60_000).toISOString();
      expect(same(baton(c, args, { BATON_NOW: now }), c.work), args.join(' ')).toEqual(
        same(whole(c, twin, args, now), twin),
      );
      // 66 processes in a row: the worker's event loop turns between them (vitest's calls to
      // a worker that stands still for a minute fail).
      await new Promise((r) => setImmediate(r));
    }
    // Each core word went to core.cjs (its cache names them all), none to the whole CLI.
    const [file] = caches(c.dist, 'core');
    expect(new Set(words(file!))).toEqual(new Set(lines.map((a) => a[0])));
    expect(caches(c.dist, 'cli')).toEqual([]);
  });

  it('help, completion, an unknown word and a global option first go to the whole CLI, which lists every command', () => {
    const c = copyDist();
    const help = baton(c, ['tokens', '--help']);
    expect(help.status).toBe(0);
    expect(help.stdout).toContain('Usage: baton tokens');
    expect(baton(c, ['note', 'add', '-h']).stdout).toContain('Usage: baton note add');
    const all = baton(c, ['--help']);
    for (const w of ['tokens', 'mcp', 'hooks', 'otel', 'ui', 'resume', 'completion']) expect(all.stdout).toContain(w);
    expect(baton(c, ['completion', 'bash']).status).toBe(0);
    expect(baton(c, ['tokesn']).stderr).toContain('Did you mean `baton tokens`?');
    const first = baton(c, ['--json', 'status']);
    expect(first.stdout).toContain('"error"');
    expect(first).toEqual(whole(c, c.work, ['--json', 'status']));
    expect(caches(c.dist, 'core')).toEqual([]);
    const [file] = caches(c.dist, 'cli');
    expect(words(file!)).toEqual(['tokens', 'note', '-', 'completion', 'tokesn']);
  });
});
