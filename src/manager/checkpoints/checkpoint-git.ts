import { BatonError } from '../../domain/errors.js';
import { hint } from '../../domain/hints.js';
import type { GitCopy } from '../../domain/resume/resume-plan-types.js';
import type { Checkpoint, CheckpointRead } from '../../store/types.js';
import type { GitStatus } from '../git.js';
import type { Workspace } from '../workspace.js';

/*
 * The git side of checkpoints: the ref that keeps a dirty tree's copy, the reset of
 * `restore --git`, and the commits that hold recorded files for the resume plan.
 */

/** Checkpoints (newest first) the resume plan looks at for copies of recorded files. */
const MAX_GIT_COPIES = 20;

/** The git ref that keeps the snapshot commit of a checkpoint taken on a dirty work tree. */
export function checkpointRef(sessionId: string, checkpointId: string): string {
  return `refs/baton/${sessionId}/${checkpointId}`;
}

/** What `restore --git` did: the commit HEAD is now at, the HEAD it left, the snapshot whose tree it checked out. */
export interface GitRestore {
  commit: string;
  previousHead: string | null;
  snapshot: string | null;
  /** With `force`: a commit holding the work tree as it was before, whose changes the restore discarded (kept under a ref). */
  saved?: string | null;
}

/**
 * The reset of `restore --git`, after every check: HEAD (the branch) back to the checkpoint's
 * commit, and the work tree back to what it held, uncommitted work included. Refuses (coded,
 * before anything changes) outside git, a checkpoint without a commit, a tracked store,
 * another branch, a missing commit, a dirty checkpoint without its copy, and a dirty tree
 * unless `force`.
 */
export function resetToCheckpoint(ws: Workspace | null, cp: Checkpoint, force: boolean): GitRestore {
  const where = ws ? ws.root : 'this workspace';
  const st = ws ? ws.git.status() : null;
  if (!ws || !st) {
    throw new BatonError(
      'BAD_INPUT',
      `${where} is not inside a git work tree (or git is not installed), so --git has nothing to reset.`,
      {
        hint: hint('restore.without-git', { checkpoint: cp.id }),
      },
    );
  }
  if (!cp.git?.head) {
    throw new BatonError(
      'BAD_INPUT',
      `Checkpoint ${cp.id} was taken ${cp.git ? 'in a repository without commits' : 'outside a git work tree'}; it has no commit to reset to.`,
      {
        hint: hint('restore.without-git', { checkpoint: cp.id }),
        details: { checkpointId: cp.id },
      },
    );
  }
  const commit = cp.git.head;
  const tracked = ws.git.trackedStoreFiles(st.top);
  if (tracked.length) {
    throw new BatonError(
      'BAD_INPUT',
      `git tracks files of the baton store (${tracked.slice(0, 3).join(', ')}${tracked.length > 3 ? ', …' : ''}); a reset would rewind baton's own journal.`,
      {
        hint: hint('restore.untrack-store'),
        details: { tracked: tracked.slice(0, 20) },
      },
    );
  }
  if (cp.git.branch !== null && st.branch !== cp.git.branch) {
    throw new BatonError(
      'CONFLICT',
      `The work tree is ${st.branch ? `on branch ${st.branch}` : 'on a detached HEAD'}; checkpoint ${cp.id} was taken on branch ${cp.git.branch}.`,
      {
        hint: `Switch first (\`git switch ${cp.git.branch}\`), then run the restore again; baton does not move another branch.`,
        details: { branch: st.branch, checkpointBranch: cp.git.branch },
      },
    );
  }
  const snapshot = cp.git.dirty ? (cp.git.snapshot ?? null) : null;
  if (cp.git.dirty && snapshot === null) {
    // Resetting to HEAD would drop the uncommitted work the checkpoint was taken on.
    throw new BatonError(
      'BAD_INPUT',
      `Checkpoint ${cp.id} was taken on a work tree with uncommitted changes, and holds no copy of them (${cp.git.snapshot === null ? 'the copy could not be made' : 'taken by an older baton'}); resetting to its commit ${commit.slice(0, 12)} would remove that work.`,
      {
        hint: hint('restore.without-git', { checkpoint: cp.id }),
        details: { checkpointId: cp.id, commit, dirty: true, snapshot: null },
      },
    );
  }
  for (const c of snapshot === null ? [commit] : [commit, snapshot]) {
    if (!ws.git.hasCommit(c)) {
      throw new BatonError(
        'NOT_FOUND',
        `${c === commit ? 'Commit' : 'The copy of the work tree'} ${c} of checkpoint ${cp.id} is not in this repository.`,
        {
          hint: hint('restore.commit-missing', { checkpoint: cp.id }),
          details: { commit: c },
        },
      );
    }
  }
  if (st.dirty.length && !force) {
    const shown = st.dirty.slice(0, 5).join(', ');
    throw new BatonError(
      'CONFLICT',
      `The work tree has uncommitted changes (${st.dirty.length} path(s): ${shown}${st.dirty.length > 5 ? ', …' : ''}); restoring would replace them.`,
      {
        hint: hint('restore.dirty-tree'),
        details: { dirty: st.dirty.slice(0, 100) },
      },
    );
  }
  const kept = st.dirty.length ? keepDiscarded(ws, st, cp) : null;
  ws.git.restoreTree(commit, snapshot, cp.git.branch === null);
  return { commit, previousHead: st.head, snapshot, ...(kept ? { saved: kept } : {}) };
}

/**
 * A copy of the dirty work tree `--force` is about to discard, kept under a baton ref; the
 * commit, or null when it could not be made (the restore goes on: the user forced it).
 */
function keepDiscarded(ws: Workspace, st: GitStatus, cp: Checkpoint): string | null {
  try {
    const saved = ws.git.snapshot(
      st.top,
      st.head,
      `baton: the work tree before restoring checkpoint ${cp.id} of session ${cp.sessionId}`,
    );
    ws.git.keepRef(`refs/baton/${cp.sessionId}/before-restore-${saved.slice(0, 12)}`, saved);
    return saved;
  } catch {
    return null;
  }
}

/**
 * Commits of this repository that hold files as checkpoints measured them (a dirty tree's
 * copy, or HEAD of a clean one), newest first, each with the measured files it holds.
 */
export function gitCopiesOf(ws: Workspace, reads: CheckpointRead[], max = MAX_GIT_COPIES): GitCopy[] {
  if (!ws.git.status()) return [];
  const out: GitCopy[] = [];
  for (const r of reads.filter((x) => x.valid).reverse()) {
    if (out.length >= max) break;
    const { git, files } = r.checkpoint;
    const commit = git ? (git.dirty ? (git.snapshot ?? null) : git.head) : null;
    if (!commit || !files.length || !ws.git.hasCommit(commit)) continue;
    const held = new Set(
      ws.git.pathsIn(
        commit,
        files.map((f) => f.path),
      ),
    );
    const map = Object.fromEntries(files.filter((f) => held.has(f.path)).map((f) => [f.path, f.sha256]));
    if (Object.keys(map).length) out.push({ checkpointId: r.checkpoint.id, commit, files: map });
  }
  return out;
}
