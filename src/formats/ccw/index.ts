/**
 * The CCW (Claude-Code-Workflow) adapter: `.workflow/session_status.jsonl` + `WFS-*` folders
 * (seed era), `.workflow/.active-<session>` markers (a day later), and
 * `.workflow/active|archives/WFS-*` (later). See docs/formats/ccw.md and the comments in `read.ts`,
 * `resume.ts`, `write.ts`.
 */
import type { SafeDir } from '../safe-dir.js';
import type { FormatAdapter } from '../types.js';
import { reportingAccess } from '../util.js';
import { looksLikeWorkflowDir, workflowPrefix } from './layout.js';
import { inspectCcw } from './read.js';
import { planCcwExport } from './write.js';

export const ccwAdapter: FormatAdapter = {
  name: 'ccw',
  description:
    'Claude-Code-Workflow: .workflow/session_status.jsonl, .active-* markers, active/ + archives/ WFS-* folders',
  async detect(dir: SafeDir): Promise<number> {
    try {
      const prefix = await workflowPrefix(dir);
      if (prefix === null) return 0;
      const names = (await dir.list(prefix.replace(/\/$/, ''))).map((e) => e.name);
      // `sessions/` (CCW's short-lived intermediate layout) is too common a name to count
      // anywhere but inside a folder named .workflow.
      if (!looksLikeWorkflowDir(names)) return names.includes('sessions') ? 0.9 : 0.3;
      if (names.some((n) => n.startsWith('WFS-')) || (await dir.exists(`${prefix}session_status.jsonl`))) return 0.95;
      return 0.9;
    } catch {
      return 0;
    }
  },
  inspect: reportingAccess(inspectCcw),
  exportPlan: planCcwExport,
};
