/**
 * Where a CCW tree keeps its sessions. CCW changed its layout three times within weeks
 * (docs/formats/ccw.md): (a) the seed-era JSONL registry `.workflow/session_status.jsonl` next to
 * flat `.workflow/WFS-<slug>/` folders; (b) one day later, marker files
 * `.workflow/.active-<session>` instead of the registry; (c) later, `.workflow/active/WFS-*`
 * and `.workflow/archives/WFS-*` (with `.workflow/sessions/` in between). All three are read.
 */
import type { SafeDir } from '../safe-dir.js';

/** The three generations of the CCW layout. */
export type CcwLayout = 'registry' | 'markers' | 'directories';

/** Words for each layout, used in reports. */
export const LAYOUT_WORDS: Record<CcwLayout, string> = {
  registry: 'seed-era JSONL registry (.workflow/session_status.jsonl)',
  markers: 'marker files (.workflow/.active-<session>)',
  directories: 'session folders (.workflow/active/, .workflow/archives/)',
};

/** Where a session folder sits. `flat` = directly in the workflow folder (layouts a and b). */
export type Place = 'flat' | 'sessions' | 'active' | 'archives';

/** Folders of layout (c), in the order CCW introduced them. */
export const PLACE_DIRS: Array<Exclude<Place, 'flat'>> = ['sessions', 'active', 'archives'];

export const REGISTRY_FILE = 'session_status.jsonl';
export const SESSION_FILE = 'workflow-session.json';
export const MARKER_PREFIX = '.active-';
export const ARCHIVING_MARKER = '.archiving';

/**
 * The prefix (relative to the inspected root) of the workflow folder: `.workflow/` when PATH
 * is the project root, `''` when PATH is the `.workflow` folder itself; null when neither
 * looks like CCW.
 */
export async function workflowPrefix(dir: SafeDir): Promise<string | null> {
  const top = await dir.list('');
  if (top.some((e) => e.name === '.workflow' && (e.kind === 'dir' || e.kind === 'link'))) return '.workflow/';
  if (looksLikeWorkflowDir(top.map((e) => e.name)) || /(^|[\\/])\.workflow$/.test(dir.root)) return '';
  return null;
}

/** True when folder entry names are those of a CCW workflow folder. */
export function looksLikeWorkflowDir(names: string[]): boolean {
  return names.some(
    (n) =>
      n === REGISTRY_FILE || n.startsWith(MARKER_PREFIX) || n.startsWith('WFS-') || n === 'active' || n === 'archives',
  );
}

/** A session folder found by listing. */
export interface FoundFolder {
  /** Folder name, e.g. `WFS-oauth`. */
  name: string;
  /** Relative to the inspected root. */
  rel: string;
  place: Place;
  /** The folder entry is a link (followed only when it stays inside PATH). */
  link: boolean;
}

/** True when a folder holds at least one file (links and subfolders looked into, bounded). */
async function holdsFiles(dir: SafeDir, rel: string, depth = 0): Promise<boolean> {
  for (const e of await dir.list(rel)) {
    if (e.kind === 'file' || e.kind === 'link' || e.kind === 'other') return true;
    if (e.kind === 'dir' && (depth >= 4 || (await holdsFiles(dir, e.path, depth + 1)))) return true;
  }
  return false;
}

/**
 * Every `WFS-*` folder (or link) in the flat place and in sessions/, active/, archives/.
 * Folders without any file are left out: a move done file by file (an archive) leaves the
 * emptied folder behind, and it holds no session.
 */
export async function listSessionFolders(dir: SafeDir, prefix: string): Promise<FoundFolder[]> {
  const out: FoundFolder[] = [];
  const scan = async (relDir: string, place: Place) => {
    for (const e of await dir.list(relDir)) {
      if (!e.name.startsWith('WFS-')) continue;
      if (e.kind !== 'dir' && e.kind !== 'link') continue;
      if (e.kind === 'dir' && !(await holdsFiles(dir, e.path))) continue;
      out.push({ name: e.name, rel: e.path, place, link: e.kind === 'link' });
    }
  };
  await scan(prefix.replace(/\/$/, ''), 'flat');
  for (const p of PLACE_DIRS) await scan(`${prefix}${p}`, p);
  return out;
}

/** Which layouts a workflow folder shows. */
export async function layoutsFound(dir: SafeDir, prefix: string, folders: FoundFolder[]): Promise<CcwLayout[]> {
  const names = (await dir.list(prefix.replace(/\/$/, ''))).map((e) => ({ name: e.name, kind: e.kind }));
  const found: CcwLayout[] = [];
  if (names.some((e) => e.name === REGISTRY_FILE)) found.push('registry');
  if (names.some((e) => e.name.startsWith(MARKER_PREFIX))) found.push('markers');
  if (names.some((e) => PLACE_DIRS.includes(e.name as never) && e.kind !== 'file')) found.push('directories');
  // Flat WFS folders with neither registry nor markers: the marker era with nothing active.
  if (found.length === 0 && folders.some((f) => f.place === 'flat')) found.push('markers');
  return found;
}
