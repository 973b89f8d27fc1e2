import fs from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { BatonError } from '../domain/errors.js';

const require = createRequire(import.meta.url);

/** Outcome of one `git` invocation. */
export interface GitResult {
  /** Exit status 0. */
  ok: boolean;
  stdout: string;
  stderr: string;
  /** git is not installed (or not on PATH). */
  missing: boolean;
}

/** Runs git (with `env` added to the environment); swappable in tests. */
export type GitRunner = (args: string[], cwd: string, env?: Readonly<Record<string, string>>) => GitResult;

/**
 * Runs `git ARGS` in `cwd` with `execFileSync` (no shell; arguments are never interpreted).
 * child_process is loaded on first use: most `baton` invocations never run git.
 */
export const runGit: GitRunner = (args, cwd, env = {}) => {
  const cp = require('node:child_process') as typeof import('node:child_process');
  try {
    const stdout = cp.execFileSync('git', args, {
      cwd,
      encoding: 'utf8',
      stdio: ['ignore', 'pipe', 'pipe'],
      maxBuffer: 64 * 1024 * 1024,
      // Reading status must not take index.lock away from a git the user is running.
      env: { ...process.env, GIT_OPTIONAL_LOCKS: '0', GIT_TERMINAL_PROMPT: '0', ...env },
    });
    return { ok: true, stdout, stderr: '', missing: false };
  } catch (e) {
    const err = e as NodeJS.ErrnoException & { status?: number | null; stdout?: string; stderr?: string };
    if (err.code === 'ENOENT') return { ok: false, stdout: '', stderr: 'git is not installed', missing: true };
    return { ok: false, stdout: String(err.stdout ?? ''), stderr: String(err.stderr ?? err.message), missing: false };
  }
};

/** Where a git work tree is and what it holds now. */
export interface GitStatus {
  /** Top of the work tree (as git reports it: real path). */
  top: string;
  branch: string | null;
  head: string | null;
  /** Paths (relative to `top`) with uncommitted changes or untracked files, the store excluded. */
  dirty: string[];
  /** Of those, the paths that are new: untracked, or added to the index but not in HEAD. */
  added: string[];
}

/**
 * Git access for one workspace: every command runs with the workspace root as its working
 * directory, and the store folder (`.baton`) is left out of what counts as a change, since
 * baton writes it all the time.
 */
export class Git {
  private realStore: string | null | undefined;

  constructor(
    private readonly root: string,
    /** The store folder, excluded from status and protected from resets. */
    private readonly storeDir: string | null,
    private readonly run: GitRunner = runGit,
  ) {}

  /** The store's real path (git reports real paths), resolved on first use. */
  private get store(): string | null {
    if (this.realStore === undefined) {
      if (this.storeDir === null) this.realStore = null;
      else {
        try {
          this.realStore = fs.realpathSync(this.storeDir);
        } catch {
          this.realStore = path.resolve(this.storeDir);
        }
      }
    }
    return this.realStore;
  }

  /** The work tree's state, or null when `root` is not inside a git work tree (or git is missing). */
  status(): GitStatus | null {
    const inside = this.run(['rev-parse', '--is-inside-work-tree'], this.root);
    if (!inside.ok || inside.stdout.trim() !== 'true') return null;
    const topR = this.run(['rev-parse', '--show-toplevel'], this.root);
    if (!topR.ok) return null;
    const top = topR.stdout.trim();
    const head = this.run(['rev-parse', '--verify', '--quiet', 'HEAD^{commit}'], this.root);
    const branch = this.run(['symbolic-ref', '--quiet', '--short', 'HEAD'], this.root);
    const st = this.run(
      ['status', '--porcelain=v1', '-z', '--untracked-files=all', '--', ...this.pathspec(top)],
      this.root,
    );
    if (!st.ok) {
      throw new BatonError('STORE_UNAVAILABLE', `git status failed in ${this.root}: ${firstLine(st.stderr)}`, {
        hint: 'Check the repository (`git status`); a damaged index or a held index.lock can cause this.',
      });
    }
    return {
      top,
      branch: branch.ok ? branch.stdout.trim() || null : null,
      head: head.ok ? head.stdout.trim() || null : null,
      ...parsePorcelain(st.stdout),
    };
  }

  /**
   * Only the changed paths (as {@link status} reports them), with two git runs instead of
   * five: for a hook at the end of every turn. Null outside a git work tree; never throws.
   */
  changes(): Pick<GitStatus, 'top' | 'dirty' | 'added'> | null {
    if (this.run === runGit && !mayBeInRepo(this.root)) return null;
    const topR = this.run(['rev-parse', '--show-toplevel'], this.root);
    if (!topR.ok) return null;
    const top = topR.stdout.trim();
    const st = this.run(
      ['status', '--porcelain=v1', '-z', '--untracked-files=all', '--', ...this.pathspec(top)],
      this.root,
    );
    return st.ok ? { top, ...parsePorcelain(st.stdout) } : null;
  }

  /** Paths under the store that git tracks (a reset would rewind them). */
  trackedStoreFiles(top: string): string[] {
    const spec = this.storeSpec(top, false);
    if (!spec) return [];
    const r = this.run(['ls-files', '-z', '--', spec], this.root);
    return r.ok ? r.stdout.split('\0').filter(Boolean) : [];
  }

  /** True when `commit` names a commit in this repository. */
  hasCommit(commit: string): boolean {
    return this.run(['cat-file', '-e', `${commit}^{commit}`], this.root).ok;
  }

  /** `git reset --hard <commit>`: moves the current branch and resets index and work tree. */
  resetHard(commit: string): void {
    this.must(['reset', '--hard', '--quiet', commit], `reset the work tree to ${commit}`);
  }

  /** `git checkout --force --detach <commit>`: a detached HEAD at `commit`, work tree reset. */
  checkoutDetached(commit: string): void {
    this.must(['checkout', '--force', '--quiet', '--detach', commit], `check out ${commit}`);
  }

  /**
   * A commit object holding the work tree as it is now: tracked changes and untracked files
   * that are not ignored, the store left out; its parent is `head`. Built in a temporary
   * index (a copy of the user's, so unchanged files are not hashed again): the user's index,
   * branch, stash and work tree are not touched. Throws `STORE_UNAVAILABLE` when git fails.
   */
  snapshot(top: string, head: string | null, message: string): string {
    const os = require('node:os') as typeof import('node:os');
    const tmp = path.join(
      os.tmpdir(),
      `baton-index-${process.pid}-${Date.now().toString(36)}-${Math.random().toString(36).slice(2)}`,
    );
    const env = { GIT_INDEX_FILE: tmp, ...SNAPSHOT_IDENTITY };
    try {
      const real = this.run(['rev-parse', '--git-path', 'index'], this.root);
      let copied = false;
      if (real.ok) {
        try {
          fs.copyFileSync(path.resolve(this.root, real.stdout.trim()), tmp);
          copied = true;
        } catch {
          // No index yet (a fresh repository): start from HEAD's tree below.
        }
      }
      if (!copied) this.must(head ? ['read-tree', head] : ['read-tree', '--empty'], 'start a snapshot index', env);
      // An ignored store needs no exclusion (naming it would make `add` fail over an ignored path).
      const store = this.storeSpec(top, false) === null ? null : this.store;
      const ignored = store !== null && this.run(['check-ignore', '-q', '--', store], this.root).ok;
      this.must(
        ['add', '--all', '--', ...(ignored ? [':/'] : this.pathspec(top))],
        'add the work tree to a snapshot index',
        env,
      );
      const tree = this.must(['write-tree'], 'write the snapshot tree', env).trim();
      return this.must(
        ['commit-tree', '--no-gpg-sign', ...(head ? ['-p', head] : []), '-m', message, tree],
        'make the snapshot commit',
        env,
      ).trim();
    } finally {
      for (const f of [tmp, `${tmp}.lock`]) fs.rmSync(f, { force: true });
    }
  }

  /** Of `paths` (relative to the workspace), those `commit` holds as files. */
  pathsIn(commit: string, paths: string[]): string[] {
    const r = this.run(
      ['ls-tree', '-r', '-z', '--name-only', commit, '--', ...paths.map((p) => `:(literal)${p}`)],
      this.root,
    );
    return r.ok ? r.stdout.split('\0').filter(Boolean) : [];
  }

  /** Points `ref` at `commit` (a baton ref, so git's garbage collection keeps the commit). */
  keepRef(ref: string, commit: string): void {
    this.must(['update-ref', ref, commit], `keep ${commit} under ${ref}`);
  }

  /**
   * Puts the work tree back to `snapshot`'s tree with HEAD at `head`: the current branch is
   * reset to `head` (or, `detached`, HEAD is detached there), then the snapshot's tree is read
   * into the index and the work tree (files in `head` but not in the snapshot are removed, as
   * they were), then the index is set back to `head`'s tree, so what was uncommitted when the
   * snapshot was taken is uncommitted again. Untracked files outside the snapshot are kept.
   */
  restoreTree(head: string, snapshot: string | null, detached: boolean): void {
    if (detached) this.checkoutDetached(head);
    else this.resetHard(head);
    if (snapshot === null) return;
    this.must(['read-tree', '-u', '--reset', snapshot], `check out the snapshot ${snapshot}`);
    this.must(['reset', '--quiet', head, '--'], `set the index back to ${head}`);
  }

  private must(args: string[], what: string, env?: Readonly<Record<string, string>>): string {
    const r = this.run(args, this.root, env);
    if (!r.ok) {
      throw new BatonError('STORE_UNAVAILABLE', `git could not ${what}: ${firstLine(r.stderr)}`, {
        hint: `Run \`git ${args.join(' ')}\` yourself to see the full message, fix the cause, and try again.`,
        details: { args },
      });
    }
    return r.stdout;
  }

  /** The whole work tree minus the store. */
  private pathspec(top: string): string[] {
    const exclude = this.storeSpec(top, true);
    return exclude ? [':/', exclude] : [':/'];
  }

  private storeSpec(top: string, exclude: boolean): string | null {
    const store = this.store;
    if (!store) return null;
    const rel = relativeInside(top, store);
    if (rel === null) return null;
    return `:(top,literal${exclude ? ',exclude' : ''})${rel}`;
  }
}

/** Who makes a snapshot commit: baton, whatever the user's identity settings (or lack of them). */
const SNAPSHOT_IDENTITY = {
  GIT_AUTHOR_NAME: 'baton',
  GIT_AUTHOR_EMAIL: 'baton@localhost',
  GIT_COMMITTER_NAME: 'baton',
  GIT_COMMITTER_EMAIL: 'baton@localhost',
};

/** `to` relative to `from` with forward slashes, or null when it is not inside `from`. */
function relativeInside(from: string, to: string): string | null {
  const rel = path.relative(from, to);
  if (rel === '' || rel.startsWith('..') || path.isAbsolute(rel)) return null;
  return rel.split(path.sep).join('/');
}

/**
 * False only when git cannot find a repository from `dir`: no `.git` in it or any folder
 * above, and no GIT_DIR / GIT_WORK_TREE naming one. Spares a hook at the end of every turn
 * the git process outside a work tree.
 */
function mayBeInRepo(dir: string): boolean {
  if (process.env['GIT_DIR'] || process.env['GIT_WORK_TREE']) return true;
  for (let d = path.resolve(dir); ; d = path.dirname(d)) {
    if (fs.existsSync(path.join(d, '.git'))) return true;
    if (path.dirname(d) === d) return false;
  }
}

/** Paths of `git status --porcelain=v1 -z` output (a rename's source is skipped), and which are new. */
function parsePorcelain(out: string): { dirty: string[]; added: string[] } {
  const parts = out.split('\0');
  const dirty: string[] = [];
  const added: string[] = [];
  for (let i = 0; i < parts.length; i++) {
    const entry = parts[i]!;
    if (entry.length < 4) continue;
    dirty.push(entry.slice(3));
    if (entry.startsWith('??') || entry[0] === 'A') added.push(entry.slice(3));
    if (entry[0] === 'R' || entry[0] === 'C') i += 1;
  }
  return { dirty, added };
}

function firstLine(s: string): string {
  return s.trim().split('\n')[0] ?? '';
}
