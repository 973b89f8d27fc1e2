/**
 * Where bmit projects are under a folder. PATH may be a repository root holding
 * `agent-output/`, the `agent-output` folder itself, or one project folder; each project is
 * a folder with `00-session-state.json` (or only its `.bak`/`.tmp` leftovers or the
 * `00-handoff.md` companion, which are reported rather than ignored).
 */
import path from 'node:path';
import type { SafeDir } from '../safe-dir.js';
import type { FormatProblem } from '../types.js';

export const STATE_FILE = '00-session-state.json';
export const BAK_FILE = `${STATE_FILE}.bak`;
export const TMP_FILE = `${STATE_FILE}.tmp`;
export const HANDOFF_FILE = '00-handoff.md';
const PROJECT_FILES = [STATE_FILE, BAK_FILE, TMP_FILE, HANDOFF_FILE];

/** A project folder found under the inspected root. */
export interface BmitProject {
  /** Folder name = bmit's project id. */
  name: string;
  /** Folder relative to the root ('' when the root is the project). */
  rel: string;
}

export type BmitLayout = 'root' | 'agent-output' | 'project' | 'none';

/** `a/b` joined, '' parts dropped. */
export function joinRel(...parts: string[]): string {
  return parts.filter((p) => p !== '').join('/');
}

async function hasProjectFiles(dir: SafeDir, rel: string): Promise<boolean> {
  const names = new Set((await dir.list(rel)).map((e) => e.name));
  return PROJECT_FILES.some((f) => names.has(f));
}

/** Project folders directly under `rel`; links leading outside the root are reported, not followed. */
async function projectsUnder(dir: SafeDir, rel: string, problems: FormatProblem[]): Promise<BmitProject[]> {
  const out: BmitProject[] = [];
  for (const e of await dir.list(rel)) {
    if (e.kind !== 'dir' && e.kind !== 'link') continue;
    if (e.kind === 'link') {
      const c = await dir.check(e.path);
      if (!c.ok) {
        problems.push(c.problem);
        continue;
      }
    }
    if (await hasProjectFiles(dir, e.path)) out.push({ name: e.name, rel: e.path });
  }
  return out;
}

/** Finds the layout and the projects of `dir`. Never throws. */
export async function findProjects(
  dir: SafeDir,
): Promise<{ layout: BmitLayout; projects: BmitProject[]; problems: FormatProblem[] }> {
  const problems: FormatProblem[] = [];
  const top = await dir.list('');
  const ao = top.find((e) => e.name === 'agent-output' && (e.kind === 'dir' || e.kind === 'link'));
  if (ao) {
    const c = await dir.check(ao.path);
    if (!c.ok) return { layout: 'root', projects: [], problems: [c.problem] };
    return { layout: 'root', projects: await projectsUnder(dir, 'agent-output', problems), problems };
  }
  if (top.some((e) => PROJECT_FILES.includes(e.name))) {
    return { layout: 'project', projects: [{ name: path.basename(dir.root), rel: '' }], problems };
  }
  const projects = await projectsUnder(dir, '', problems);
  return { layout: projects.length > 0 || problems.length > 0 ? 'agent-output' : 'none', projects, problems };
}
