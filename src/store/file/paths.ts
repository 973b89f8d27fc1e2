import fs from 'node:fs';
import path from 'node:path';
import { BatonError } from '../../domain/errors.js';
import { validateId } from '../../domain/ids.js';

/** Name of the store directory looked for in the working directory and its parents. */
export const STORE_DIR_NAME = '.baton';

/** Every path of a file store, built in this one place and checked to stay inside the root. */
export class Layout {
  readonly sessions: string;
  readonly archive: string;
  readonly index: string;
  readonly indexLog: string;
  /** Held while index.json is rewritten or index.log rotated (see registry.ts). */
  readonly indexLock: string;
  readonly active: string;
  readonly workspaceLock: string;
  readonly meta: string;
  /** Intent markers of archives and deletions in progress (see retention.ts). */
  readonly pending: string;
  /** Folders of deleted sessions, until they are removed. */
  readonly trash: string;
  /** One line per deleted session (the tombstones). */
  readonly tombstones: string;
  /** Named positions of the store's readers (`baton otel follow`; see cursors.ts). */
  readonly cursors: string;

  constructor(readonly root: string) {
    this.sessions = path.join(root, 'sessions');
    this.archive = path.join(root, 'archive');
    this.index = path.join(root, 'index.json');
    this.indexLog = path.join(root, 'index.log');
    this.indexLock = path.join(root, 'index.lock');
    this.active = path.join(root, 'active');
    this.workspaceLock = path.join(root, 'workspace.lock');
    this.meta = path.join(root, 'store.json');
    this.pending = path.join(root, 'pending');
    this.trash = path.join(root, 'trash');
    this.tombstones = path.join(root, 'tombstones.jsonl');
    this.cursors = path.join(root, 'cursors');
  }

  /** The intent marker of an archive or deletion of session `id`: `pending/<id>.json`. */
  pendingFile(id: string): string {
    const f = path.join(this.pending, `${validateId(id)}.json`);
    this.inside(f);
    return f;
  }

  /** Where a deleted session's folder waits to be removed: `trash/<id>-<stamp>`. */
  trashDir(id: string, stamp: string): string {
    const d = path.join(this.trash, `${validateId(id)}-${stamp}`);
    this.inside(d);
    return d;
  }

  /** The folder of a session, live or archived. */
  sessionDir(id: string, archived = false): string {
    const dir = path.join(archived ? this.archive : this.sessions, validateId(id));
    this.inside(dir);
    return dir;
  }

  /** Files of a session folder. */
  files(dir: string): { journal: string; snapshot: string; lock: string } {
    return {
      journal: path.join(dir, 'journal.jsonl'),
      snapshot: path.join(dir, 'snapshot.json'),
      lock: path.join(dir, 'lock'),
    };
  }

  /** The checkpoints folder of a session folder. */
  checkpointsDir(dir: string): string {
    const d = path.join(dir, 'checkpoints');
    this.inside(d);
    return d;
  }

  /** The file of one checkpoint in a session folder: `checkpoints/<cpid>.json`. */
  checkpointFile(dir: string, checkpointId: string): string {
    const f = path.join(this.checkpointsDir(dir), `${validateId(checkpointId, 'checkpoint id')}.json`);
    this.inside(f);
    return f;
  }

  private inside(p: string): void {
    const rel = path.relative(this.root, p);
    if (rel.startsWith('..') || path.isAbsolute(rel)) {
      throw new BatonError('BAD_INPUT', `Path ${p} would leave the store ${this.root}.`, {
        hint: 'Use a plain session id.',
      });
    }
  }
}

/**
 * Finds the store directory: `explicit` (from --dir or BATON_DIR) if given, else the first
 * `.baton` directory in `cwd` or one of its parents, like git finds `.git`. Returns null
 * when there is none.
 */
export function findStoreDir(cwd: string, explicit?: string | null): string | null {
  if (explicit) return path.resolve(cwd, explicit);
  const found = walkUpForStore(cwd);
  if (found) return found;
  // A linked git worktree (`git worktree add ../x`, Claude Code's EnterWorktree) shares the
  // store of its repository's main work tree: agents in sibling worktrees record into one store.
  const main = mainWorkTree(cwd);
  return main ? walkUpForStore(main) : null;
}

/**
 * The main work tree of the linked git worktree holding `cwd`, or null (not in a linked
 * worktree). Read without running git: the worktree's `.git` file names its git folder
 * (`gitdir: <repo>/.git/worktrees/<name>`), whose `commondir` names the repository's git
 * folder; the main work tree is that folder's parent.
 */
export function mainWorkTree(cwd: string): string | null {
  const top = findWorkTreeRoot(cwd);
  if (!top) return null;
  try {
    const dotGit = path.join(top, '.git');
    if (!fs.statSync(dotGit).isFile()) return null;
    const m = /^gitdir:\s*(.+)$/m.exec(fs.readFileSync(dotGit, 'utf8'));
    if (!m) return null;
    const gitDir = path.resolve(top, m[1]!.trim());
    const common = path.resolve(gitDir, fs.readFileSync(path.join(gitDir, 'commondir'), 'utf8').trim());
    if (path.basename(common) !== '.git') return null;
    const main = path.dirname(common);
    return main === top ? null : main;
  } catch {
    return null;
  }
}

function walkUpForStore(cwd: string): string | null {
  let dir = path.resolve(cwd);
  for (;;) {
    const candidate = path.join(dir, STORE_DIR_NAME);
    try {
      if (fs.statSync(candidate).isDirectory()) return candidate;
    } catch {
      // not here; keep walking up
    }
    const parent = path.dirname(dir);
    if (parent === dir) return null;
    dir = parent;
  }
}

/**
 * The root of the git work tree holding `cwd` (the nearest folder with a `.git` folder or
 * file, as a linked work tree or submodule has), or null outside one. Found by looking,
 * not by running git: a new store is placed there, and starting git costs more than the
 * whole command.
 */
export function findWorkTreeRoot(cwd: string): string | null {
  let dir = path.resolve(cwd);
  for (;;) {
    if (fs.existsSync(path.join(dir, '.git'))) return dir;
    const parent = path.dirname(dir);
    if (parent === dir) return null;
    dir = parent;
  }
}

/** The `.gitignore` a private store keeps in its folder: everything in it, itself included. */
export const PRIVATE_GITIGNORE = '# A private baton store: not committed (`baton init --shared` commits it).\n*\n';

/**
 * Makes the store folder `root` private (a `.gitignore` ignoring all of it) or shared (that
 * file removed, so the store can be committed). A `.gitignore` the user wrote is never
 * touched. Returns whether anything changed.
 */
export function setStoreSharing(root: string, shared: boolean): boolean {
  const file = path.join(root, '.gitignore');
  let current: string | null = null;
  try {
    current = fs.readFileSync(file, 'utf8');
  } catch {
    // none yet
  }
  if (shared) {
    if (current !== PRIVATE_GITIGNORE) return false;
    fs.rmSync(file, { force: true });
    return true;
  }
  if (current !== null) return false;
  fs.writeFileSync(file, PRIVATE_GITIGNORE, { mode: 0o644 });
  return true;
}

/** True when the store folder `root` keeps the private `.gitignore` (see {@link setStoreSharing}). */
export function isPrivateStore(root: string): boolean {
  try {
    return fs.readFileSync(path.join(root, '.gitignore'), 'utf8') === PRIVATE_GITIGNORE;
  } catch {
    return false;
  }
}

/** True when `p` is a real directory and not a symbolic link. */
export function isPlainDir(p: string): boolean {
  try {
    // A missing folder is an answer (an archived session is looked for where live ones are first), not an error to build.
    const st = fs.lstatSync(p, { throwIfNoEntry: false });
    return st?.isDirectory() === true && !st.isSymbolicLink();
  } catch {
    return false;
  }
}
