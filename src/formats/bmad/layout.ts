/**
 * Where BMAD's sessions folder is under a folder. PATH may be the project root (holding
 * `_bmad-output/sessions/`), the `_bmad-output` folder (holding `sessions/`), or the
 * `sessions` folder itself (holding `<id>.yaml`, `active-session.yaml`, `archive/`).
 */
import type { DirEntry, SafeDir } from '../safe-dir.js';
import type { FormatProblem } from '../types.js';

export const POINTER_FILE = 'active-session.yaml';
export const ARCHIVE_DIR = 'archive';
/** Suffix of the document key holding a session file's text as read (`<path>#source`). */
export const SOURCE_SUFFIX = '#source';

/** `a/b` joined, '' parts dropped. */
export function joinRel(...parts: string[]): string {
  return parts.filter((p) => p !== '').join('/');
}

/** True for a `.yaml`/`.yml` file name that is not the pointer. */
export function isSessionFileName(name: string): boolean {
  return /\.ya?ml$/i.test(name) && name !== POINTER_FILE;
}

/** The id a session file name stands for. */
export function idOfFileName(name: string): string {
  return name.replace(/\.ya?ml$/i, '');
}

function isDir(e: DirEntry | undefined): boolean {
  return !!e && (e.kind === 'dir' || e.kind === 'link');
}

/**
 * The sessions folder relative to the root ('' = the root itself), or null when none is
 * recognisable. A `_bmad-output` or `sessions` link leading outside the root is reported.
 */
export async function findSessionsDir(dir: SafeDir): Promise<{ rel: string | null; problems: FormatProblem[] }> {
  const top = await dir.list('');
  const byName = new Map(top.map((e) => [e.name, e]));
  for (const candidate of ['_bmad-output', 'sessions']) {
    const e = byName.get(candidate);
    if (!isDir(e)) continue;
    const c = await dir.check(candidate);
    if (!c.ok) return { rel: null, problems: [c.problem] };
    if (candidate === 'sessions') return { rel: 'sessions', problems: [] };
    const inner = (await dir.list('_bmad-output')).find((x) => x.name === 'sessions');
    if (isDir(inner)) {
      const c2 = await dir.check('_bmad-output/sessions');
      if (!c2.ok) return { rel: null, problems: [c2.problem] };
      return { rel: '_bmad-output/sessions', problems: [] };
    }
  }
  if (byName.has(POINTER_FILE) || isDir(byName.get(ARCHIVE_DIR))) return { rel: '', problems: [] };
  for (const e of top) {
    if (e.kind !== 'file' || !isSessionFileName(e.name)) continue;
    const r = await dir.read(e.path);
    if (r.kind === 'ok' && /^\s*session_id\s*:/m.test(r.text)) return { rel: '', problems: [] };
  }
  return { rel: null, problems: [] };
}

/** Session files directly in `rel` (links checked: outside ones become problems, not entries). */
export async function sessionFiles(dir: SafeDir, rel: string, problems: FormatProblem[]): Promise<DirEntry[]> {
  const out: DirEntry[] = [];
  for (const e of await dir.list(rel)) {
    if ((e.kind !== 'file' && e.kind !== 'link') || !isSessionFileName(e.name)) continue;
    if (e.kind === 'link') {
      const c = await dir.check(e.path);
      if (!c.ok) {
        problems.push(c.problem);
        continue;
      }
    }
    out.push(e);
  }
  return out;
}
