/**
 * Where a Go Team tree keeps its files, relative to the inspected PATH. PATH may be the
 * `checkpoints/` folder itself, the go-team folder holding it, or a project root holding
 * `.claude/agents/microai/teams/go-team/checkpoints/`.
 */
import type { SafeDir } from '../safe-dir.js';

export const PROJECT_PREFIX = '.claude/agents/microai/teams/go-team';

/** Resolved layout: `cp` = the checkpoints folder, `team` = its parent (null when outside PATH). */
export interface Layout {
  cp: string;
  team: string | null;
}

/** `a/b` joined, tolerating empty parts. */
export function join(...parts: string[]): string {
  return parts.filter((p) => p !== '').join('/');
}

/**
 * A folder looks like a checkpoints folder: a registry, or a session folder holding
 * `cp-*.json` files or both `manifest.json` and `state.json` (a lone `manifest.json` is too
 * common, e.g. a web app's `public/`, to count).
 */
async function looksLikeCheckpoints(dir: SafeDir, rel: string): Promise<number> {
  if (await dir.exists(join(rel, 'sessions.json'))) return 1;
  const ents = await dir.list(rel);
  for (const e of ents) {
    if (e.kind !== 'dir' && e.kind !== 'link') continue;
    const inner = await dir.list(e.path);
    const has = (n: string) => inner.some((f) => f.name === n);
    if (inner.some((f) => /^cp-.*\.json$/.test(f.name)) || (has('manifest.json') && has('state.json'))) return 0.6;
  }
  return 0;
}

/**
 * Finds the checkpoints folder under `dir`, most specific first; null when none. `score` is
 * how sure the match is (1 = a registry was found).
 */
export async function locate(dir: SafeDir): Promise<(Layout & { score: number }) | null> {
  const candidates: Layout[] = [
    { cp: join(PROJECT_PREFIX, 'checkpoints'), team: PROJECT_PREFIX },
    { cp: 'checkpoints', team: '' },
    { cp: '', team: null },
  ];
  let best: (Layout & { score: number }) | null = null;
  for (const c of candidates) {
    const s = await looksLikeCheckpoints(dir, c.cp);
    if (s > 0 && (!best || s > best.score)) best = { ...c, score: s };
    if (s === 1) break;
  }
  return best;
}
