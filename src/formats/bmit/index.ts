/**
 * The bmit adapter (jonathan-vella/bmit-2026 session-resume skill, docs/formats/bmit.md): one
 * foreign session per project folder `agent-output/<project>/` holding
 * `00-session-state.json` (schema 1.0/2.0/3.0), its `.bak`, and `00-handoff.md`.
 */
import type { SafeDir } from '../safe-dir.js';
import type { FormatAdapter, InspectReport } from '../types.js';
import { problem, reportingAccess } from '../util.js';
import { findProjects, STATE_FILE } from './layout.js';
import { readProject } from './read.js';
import { bmitExportPlan } from './write.js';

/** bmit: `agent-output/<project>/00-session-state.json` (+ `.bak`, `00-handoff.md`). */
export const bmitAdapter: FormatAdapter = {
  name: 'bmit',
  description: 'bmit session-resume: agent-output/<project>/00-session-state.json (+ .bak, 00-handoff.md)',

  async detect(dir: SafeDir): Promise<number> {
    try {
      const found = await findProjects(dir);
      if (found.projects.length === 0) return 0;
      for (const p of found.projects) {
        if (await dir.exists(p.rel === '' ? STATE_FILE : `${p.rel}/${STATE_FILE}`))
          return found.layout === 'agent-output' ? 0.9 : 0.95;
      }
      return 0.6;
    } catch {
      return 0;
    }
  },

  inspect: reportingAccess(async (dir: SafeDir): Promise<InspectReport> => {
    const found = await findProjects(dir);
    const repoRootRel = found.layout === 'root' ? '' : null;
    const sessions = [];
    for (const p of found.projects) sessions.push(await readProject(dir, p, repoRootRel));
    const problems = [...found.problems];
    if (sessions.length > 1) {
      problems.push(
        problem(
          'MULTIPLE_PROJECTS',
          'info',
          `${sessions.length} bmit projects found (${sessions.map((s) => s.id).join(', ')}).`,
          {
            hint: "bmit's orchestrator asks which project to resume; pass the project folder to pick one.",
            details: { projects: sessions.map((s) => s.id) },
          },
        ),
      );
    }
    if (found.layout === 'none' && problems.length === 0) {
      problems.push(
        problem(
          'UNKNOWN_FORMAT',
          'error',
          `No bmit project (agent-output/<project>/${STATE_FILE}) under ${dir.root}.`,
          { hint: 'Give the repository root, its agent-output folder or one project folder.' },
        ),
      );
    }
    return { format: 'bmit', root: dir.root, sessions, problems };
  }),

  exportPlan: bmitExportPlan,
};
