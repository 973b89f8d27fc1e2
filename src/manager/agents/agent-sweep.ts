/**
 * Files changed by shell commands, which no file-tool hook reports: at the end of a turn the
 * work tree (git status, then a hash of each changed path) is compared with the session's
 * manifest. A path is reported when its content differs from what the session recorded,
 * unless it was already changed when the conversation was bound and its content is the same
 * as then (the user's own edits before the agent started). Content decides, never mtime.
 */
import path from 'node:path';
import type { MeasuredFile } from '../../domain/decide.js';
import type { AgentBinding, FileAction, FileRecord, SessionState } from '../../domain/state.js';
import type { ManagerCore } from '../types.js';
import { fileMeasurer } from '../measure.js';

/** Most paths looked at per sweep: a huge change (a build folder not ignored) stays cheap. */
export const MAX_SWEEP = 500;

/** A path the sweep found changed, measured, with the action to record. */
export interface SweptFile extends MeasuredFile {
  action: FileAction;
}

/** The changed paths to record (empty outside a git work tree). */
export function sweepWorkTree(m: Pick<ManagerCore, 'workspace'>, s: SessionState, binding: AgentBinding): SweptFile[] {
  const ws = m.workspace;
  if (!ws) return [];
  const st = ws.git.changes();
  if (!st) return [];
  const manifest = latestRecords(s);
  const dirtyAtStart = new Set(binding.dirtyAtStart);
  const measure = fileMeasurer(ws.root, ws);
  const added = new Set(st.added);
  const out: SweptFile[] = [];
  for (const rel of st.dirty.slice(0, MAX_SWEEP)) {
    const abs = path.join(st.top, rel);
    const f = measure(abs);
    const known = manifest.get(f.path);
    if (f.sha256 === null) {
      // Gone: a deletion, if the session knew the file or it was not already gone at the start.
      if (known ? known.action !== 'deleted' : !dirtyAtStart.has(rel)) out.push({ ...f, action: 'deleted' });
      continue;
    }
    if (known && known.sha256 === f.sha256 && known.action !== 'deleted') continue;
    // Changed before the conversation began: the agent's work only if its content moved since
    // (a binding without hashes, from an older baton, leaves it to the user).
    const atStart = binding.dirtyAtStartSha256;
    if (!known && dirtyAtStart.has(rel) && (!atStart || !Object.hasOwn(atStart, rel) || atStart[rel] === f.sha256))
      continue;
    out.push({ ...f, action: (known && known.action !== 'deleted') || !added.has(rel) ? 'modified' : 'created' });
  }
  return out;
}

/** The newest record of each path the session holds (phases and loose files). */
function latestRecords(s: SessionState): Map<string, FileRecord> {
  const all: FileRecord[] = [...s.phases.flatMap((p) => p.files), ...(s.looseFiles ?? [])];
  all.sort((a, b) => (a.recordedAt < b.recordedAt ? -1 : a.recordedAt > b.recordedAt ? 1 : 0));
  return new Map(all.map((f) => [f.path, f]));
}
