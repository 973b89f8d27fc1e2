/**
 * The Go Team adapter (`--format go-team`): the checkpoint/session system of the Go Team
 * workflow (`.claude/agents/microai/teams/go-team/checkpoints/`; docs/formats/go-team.md).
 */
import type { SafeDir } from '../safe-dir.js';
import type { FormatAdapter } from '../types.js';
import { obj, parseDocument, reportingAccess } from '../util.js';
import { join, locate } from './layout.js';
import { inspectTree } from './read.js';
import { planExport } from './write.js';

async function detect(dir: SafeDir): Promise<number> {
  try {
    const found = await locate(dir);
    if (!found) return 0;
    const r = await dir.read(join(found.cp, 'sessions.json'));
    if (r.kind === 'ok') {
      const p = parseDocument(r);
      if (p.ok && Array.isArray(p.value.sessions)) {
        const first = obj(p.value.sessions[0]);
        return 'current_step' in first || 'git_branch' in first || 'last_active_session' in p.value ? 1 : 0.9;
      }
      return 0.6; // a damaged registry in the right place
    }
    return found.score;
  } catch {
    return 0;
  }
}

/** Reads and writes Go Team sessions. */
export const goTeamAdapter: FormatAdapter = {
  name: 'go-team',
  description:
    'Go Team checkpoints: checkpoints/sessions.json registry, <session>/manifest.json, state.json, recovery.json, cp-*.json',
  detect,
  inspect: reportingAccess(inspectTree),
  exportPlan: planExport,
};
