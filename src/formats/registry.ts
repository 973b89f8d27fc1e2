/**
 * The format adapters baton knows. Each adapter lives in `src/formats/<name>/` and is listed
 * here once; `--format auto` asks each one's `detect` and takes the surest.
 */
import { maestroAdapter } from './maestro/index.js';
import { goTeamAdapter } from './go-team/index.js';
import { bmadAdapter } from './bmad/index.js';
import { bmitAdapter } from './bmit/index.js';
import { ccwAdapter } from './ccw/index.js';
import type { FormatAdapter, FormatName } from './types.js';

/** Every adapter, in FORMAT_NAMES order. */
export const ADAPTERS: FormatAdapter[] = [maestroAdapter, goTeamAdapter, bmitAdapter, bmadAdapter, ccwAdapter];

/** The adapter called `name`, or undefined. */
export function adapterFor(name: FormatName): FormatAdapter | undefined {
  return ADAPTERS.find((a) => a.name === name);
}
