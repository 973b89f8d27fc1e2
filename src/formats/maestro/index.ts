/**
 * The Maestro adapter (Gemini CLI `session-management` skill, v1.x YAML era and v1.6 JSON
 * frontmatter): `<state_dir>/state/active-session.md`, `state/archive/<id>.md`, `plans/`,
 * `state/<id>.design-gate.json`, with `<state_dir>` the inspected folder itself or its
 * `.gemini/` or `docs/maestro/`. See docs/formats/maestro.md.
 */
import type { FormatAdapter } from '../types.js';
import { reportingAccess } from '../util.js';
import { detectMaestro, inspectMaestro } from './inspect.js';
import { maestroExportPlan } from './write.js';

/** Reads and writes Maestro session state. */
export const maestroAdapter: FormatAdapter = {
  name: 'maestro',
  description:
    'Maestro (Gemini CLI): <state_dir>/state/active-session.md with YAML or JSON frontmatter, state/archive/, plans/',
  detect: (dir) => detectMaestro(dir),
  inspect: reportingAccess((dir) => inspectMaestro(dir)),
  exportPlan: (input, out) => maestroExportPlan(input, out),
};
