/**
 * `inspect` for CCW: finds the sessions of every layout generation present (registry,
 * markers, active/archives folders), reads each `workflow-session.json` (or its latest good
 * backup when it is damaged), applies the layout's rule for which status wins, and reports
 * every integrity problem. Reads only, through the SafeDir; never throws on bad data.
 */
import type { SafeDir } from '../safe-dir.js';
import type { FormatProblem, ForeignSession, InspectReport } from '../types.js';
import { effectiveActive, NO_ACTIVE } from './facts.js';
import { problem, str } from '../util.js';
import { findCandidates } from './candidates.js';
import { LAYOUT_WORDS, layoutsFound, listSessionFolders, workflowPrefix } from './layout.js';
import { readCandidate } from './read-session.js';

/** Reads every CCW session under `dir`. Never throws on bad data. */
export async function inspectCcw(dir: SafeDir, _now: Date): Promise<InspectReport> {
  const report: InspectReport = { format: 'ccw', root: dir.root, sessions: [], problems: [] };
  const P = report.problems;
  const wf = await dir.check('.workflow');
  if (!wf.ok) {
    P.push({ ...wf.problem, hint: wf.problem.hint });
    return report;
  }
  const prefix = await workflowPrefix(dir);
  if (prefix === null) {
    P.push(
      problem(
        'UNKNOWN_FORMAT',
        'error',
        `${dir.root} holds no CCW workflow folder (.workflow/ with session_status.jsonl, .active-* markers, WFS-* folders, active/ or archives/).`,
        { hint: 'Give the project root that holds .workflow/, or the .workflow folder itself.' },
      ),
    );
    return report;
  }
  const wfDir = prefix.replace(/\/$/, '');
  const folders = await listSessionFolders(dir, prefix);
  const layouts = await layoutsFound(dir, prefix, folders);
  reportLayouts(layouts, wfDir || '.', P);

  const { byName, registry, registryRead, regPath } = await findCandidates(dir, prefix, wfDir, folders, P);

  const read: Array<{ s: ForeignSession; link: boolean }> = [];
  for (const c of [...byName.values()].sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0))) {
    if (c.folders.length === 0) {
      if (c.entry && !c.unsafe) {
        const status = str(c.entry.raw.status);
        P.push(
          problem(
            status === 'active' ? 'DANGLING_ACTIVE' : 'DANGLING_ENTRY',
            status === 'active' ? 'error' : 'warning',
            `Registry line ${c.entry.line} lists ${c.name} (${status ?? 'no status'}), but its folder ${str(c.entry.raw.directory) ?? c.name} does not exist.`,
            {
              path: regPath,
              sessionId: c.name,
              hint: 'Remove the line from session_status.jsonl, or restore the session folder.',
              details: { line: c.entry.line, directory: str(c.entry.raw.directory) },
            },
          ),
        );
      }
      continue;
    }
    const s = await readCandidate(dir, c, {
      prefix,
      registryPath: regPath,
      registryRead,
      markersLayout: layouts.includes('markers'),
      hasRegistry: registry !== null,
    });
    read.push({ s, link: c.folders.every((f) => f.link) });
  }

  report.sessions = keepOnePerId(read, P);
  const actives = report.sessions.filter((s) => s.active);
  reportActives(actives, registry, regPath, P);
  // No active session: what CCW's next command does then (Command Pre-execution Protocol).
  if (report.sessions.length > 0 && actives.length === 0) for (const s of report.sessions) s.noActive = NO_ACTIVE;
  return report;
}

/** Says which layouts were found, and warns when a migration left an older one behind. */
function reportLayouts(layouts: Awaited<ReturnType<typeof layoutsFound>>, where: string, P: FormatProblem[]): void {
  P.push(
    problem(
      'CCW_LAYOUT',
      'info',
      `CCW layout${layouts.length > 1 ? 's' : ''} found: ${layouts.map((l) => LAYOUT_WORDS[l]).join('; ') || 'none (an empty workflow folder)'}.`,
      {
        path: where,
        details: { layouts, workflowDir: where },
      },
    ),
  );
  if (layouts.length > 1) {
    P.push(
      problem(
        'NEEDS_MIGRATION',
        'warning',
        `The workflow folder mixes CCW layouts (${layouts.join(' + ')}): an older ${layouts[0] === 'registry' ? 'registry' : 'marker'} layout was left behind by a migration.`,
        {
          path: where,
          hint: 'Move every session to .workflow/active/ or .workflow/archives/ and remove the legacy registry/markers (baton export --format ccw writes the current layout).',
          details: { from: layouts.filter((l) => l !== 'directories'), to: 'directories', layouts },
        },
      ),
    );
  }
}

/**
 * Two folders holding the same session id (a second copy, or a link inside PATH to the
 * same folder): one session is kept, a real folder before a link, the first otherwise; sorted by id.
 */
function keepOnePerId(read: Array<{ s: ForeignSession; link: boolean }>, P: FormatProblem[]): ForeignSession[] {
  read.sort((a, b) => Number(a.link) - Number(b.link));
  const kept = new Map<string, ForeignSession>();
  for (const { s } of read) {
    const first = kept.get(s.id);
    if (first) {
      P.push(
        problem(
          'DUPLICATE_SESSION',
          'warning',
          `${first.path} and ${s.path} both hold the session ${s.id}; ${first.path} was read, the other left out.`,
          {
            sessionId: s.id,
            path: s.path,
            hint: 'Keep one folder per session (remove the copy or the link), or give each its own session_id.',
            details: { read: first.path, ignored: s.path },
          },
        ),
      );
    } else kept.set(s.id, s);
  }
  return [...kept.values()].sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
}

/** Reports more than one session active, by the session files or by the registry's lines. */
function reportActives(
  actives: ForeignSession[],
  registry: Awaited<ReturnType<typeof findCandidates>>['registry'],
  regPath: string,
  P: FormatProblem[],
): void {
  if (actives.length > 1) {
    const legacy = actives.some((s) => !/\/(active|sessions)\//.test(`/${s.path}`));
    const { effective, why } = effectiveActive(actives);
    P.push(
      problem(
        'TWO_ACTIVE',
        legacy ? 'warning' : 'info',
        `${actives.length} sessions claim to be active: ${actives.map((s) => s.id).join(', ')}${legacy ? ' (CCW allows one active session)' : ' (CCW asks which one to resume)'}. The effective one is ${effective.id}: ${why}.`,
        {
          hint: `Pause all but ${effective.id} (/workflow:session pause), or switch to the one you mean.`,
          details: { sessions: actives.map((s) => s.id), effective: effective.id, why },
        },
      ),
    );
  }
  // The registry's own Single Active Rule (seed 004): two lines both `active` break it even
  // when the session files settle which one is active (issue 27: it went unreported then).
  if (registry) {
    const regActive = [...registry.entries.values()]
      .filter((e) => str(e.raw.status) === 'active')
      .sort((a, b) => a.line - b.line);
    // With several sessions active, the TWO_ACTIVE above already says it (one problem, not two).
    if (regActive.length > 1 && actives.length <= 1) {
      const effective = actives.length === 1 ? actives[0]!.id : null;
      P.push(
        problem(
          'TWO_ACTIVE',
          'warning',
          `${regPath} has ${regActive.length} lines with status active (${regActive.map((e) => `line ${e.line}: ${e.id}`).join(', ')}): CCW's Single Active Rule allows one. ${effective ? `The session files leave ${effective} the only active one.` : 'No session file confirms any of them as active.'}`,
          {
            path: regPath,
            hint: `Set every line but ${effective ?? 'the one you mean'} to "paused" (/workflow:session pause, or switch to the one you mean).`,
            details: {
              registry: regPath,
              lines: regActive.map((e) => e.line),
              sessions: regActive.map((e) => e.id),
              effective,
            },
          },
        ),
      );
    }
  }
}
