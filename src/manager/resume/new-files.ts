/**
 * The files the resume plan calls new: files in the work tree that git does not have in HEAD
 * (untracked, or added to the index only), that the session never recorded, that were not
 * already there when the session started, and that are not baton's own. Decided by content
 * (git compares the work tree with HEAD's blobs), never by birth or modification time: a file
 * `git checkout` or `git reset` put back equals HEAD and is no news, however new its inode.
 */
import fs from 'node:fs';
import path from 'node:path';
import { isBatonHookConfig, NEW_AT_START_KEY } from '../../domain/resume/resume-files.js';
import type { SessionState } from '../../domain/state.js';
import { recordedPaths } from '../checkpoints/checkpoint-lookup.js';
import type { MirrorRecord } from '../toolkits/mirror.js';
import type { Workspace } from '../workspace.js';

/** Most new paths looked at (and kept as the start's baseline): a build folder not ignored stays cheap. */
export const MAX_NEW_FILES = 1000;
/** A hook config larger than this is not read to see whether baton wrote it. */
const MAX_CONFIG_BYTES = 1024 * 1024;

/**
 * The paths (relative to the workspace root, sorted) git reports as not in HEAD, paths outside
 * the workspace left out; null outside a git work tree (nothing to compare contents with).
 */
export function notInHead(ws: Workspace): string[] | null {
  let st: ReturnType<Workspace['git']['changes']>;
  try {
    st = ws.git.changes();
  } catch {
    return null;
  }
  if (!st) return null;
  const out: string[] = [];
  for (const rel of st.added.slice(0, MAX_NEW_FILES)) {
    const p = path.relative(ws.root, path.join(st.top, rel));
    if (p && !p.startsWith('..') && !path.isAbsolute(p)) out.push(p.split(path.sep).join('/'));
  }
  return out.sort();
}

/**
 * The metadata a new session keeps in a git work tree: the paths that were already not in
 * HEAD when it started (an empty list too: it says the baseline was taken). None outside git.
 */
export function startBaseline(ws: Workspace | null): Record<string, unknown> {
  const paths = ws ? notInHead(ws) : null;
  return paths ? { [NEW_AT_START_KEY]: paths } : {};
}

/**
 * The new files of session `s` in workspace `ws`, as {@link planResume} takes them: not in
 * HEAD, not recorded, not there at the start (the start's baseline, else what the first agent
 * conversation found changed when it was bound), and not baton's own (the store, the hook
 * configs `baton hooks install` wrote, the session's mirror).
 */
export function newFilesOf(ws: Workspace, s: SessionState, mirror: MirrorRecord | null = null): string[] {
  const recorded = new Set(recordedPaths(s));
  const before = new Set<string>();
  const baseline = s.metadata[NEW_AT_START_KEY];
  if (Array.isArray(baseline)) {
    for (const p of baseline) if (typeof p === 'string') before.add(p);
  } else {
    // A session started before baselines were kept: what its first conversation found changed.
    for (const p of s.agentSessions?.[0]?.dirtyAtStart ?? []) before.add(p);
  }
  // The files the session's mirror last wrote (by path: the record of what baton wrote).
  const mirrored = new Set<string>();
  if (mirror)
    for (const f of Object.keys(mirror.files))
      mirrored.add(
        path
          .relative(ws.root, path.resolve(ws.root, mirror.out, f))
          .split(path.sep)
          .join('/'),
      );
  return (notInHead(ws) ?? []).filter((p) => {
    if (recorded.has(p) || before.has(p)) return false;
    if (p.split('/').includes('.baton')) return false;
    if (mirrored.has(p)) return false;
    return !isBatonHookConfig(p, () => readSmall(path.join(ws.root, p)));
  });
}

function readSmall(abs: string): string | null {
  try {
    if (fs.statSync(abs).size > MAX_CONFIG_BYTES) return null;
    return fs.readFileSync(abs, 'utf8');
  } catch {
    return null;
  }
}
