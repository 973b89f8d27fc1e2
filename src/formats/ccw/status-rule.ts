/**
 * Which status wins for a CCW session, by the rule of the layout its folder belongs to:
 * the registry line, the `.active-*` marker, the folder (active/ or archives/), or the
 * session file alone for an orphan. Disagreements are reported, never thrown.
 */
import type { SessionStatus } from '../../domain/state.js';
import type { FormatProblem } from '../types.js';
import { problem, str } from '../util.js';
import type { Candidate } from './candidates.js';
import { type FoundFolder, REGISTRY_FILE } from './layout.js';
import { SESSION_STATUS } from './session-file.js';

/** How the session's status is decided, by the layout its folder belongs to. */
type Rule = 'registry' | 'markers' | 'orphan' | 'directories';

/** What the status of one session is decided from. */
export interface StatusInput {
  c: Candidate;
  /** The folder read (its place decides the rule). */
  main: FoundFolder;
  /** The status in the session file (or the backup read instead), null when it has none. */
  fileStatus: string | null;
  /** Whether a session file or backup could be read at all. */
  hasDoc: boolean;
  id: string;
  filePath: string;
  folder: string;
  registryPath: string;
  markersLayout: boolean;
  hasRegistry: boolean;
}

/** The status decided, whether the session is the active one, and whether it is archived. */
export function decideStatus(
  s: StatusInput,
  problems: FormatProblem[],
): { status: SessionStatus; active: boolean; isArchived: boolean; regStatus: string | null } {
  const { c, main, fileStatus, id, filePath, folder } = s;
  const doc = s.hasDoc;
  const ctx = { registryPath: s.registryPath, markersLayout: s.markersLayout, hasRegistry: s.hasRegistry };
  const mapped = fileStatus !== null ? (SESSION_STATUS[fileStatus] ?? null) : null;
  if (doc && fileStatus !== null && mapped === null) {
    problems.push(
      problem(
        'BAD_VALUE',
        'warning',
        `${id} has status ${JSON.stringify(fileStatus)}, not one of active|paused|interrupted|completed; read as paused.`,
        { sessionId: id, path: filePath, details: { field: 'status', value: fileStatus } },
      ),
    );
  }
  const rule: Rule =
    main.place !== 'flat'
      ? 'directories'
      : c.entry
        ? 'registry'
        : ctx.markersLayout && !ctx.hasRegistry
          ? 'markers'
          : c.marker
            ? 'markers'
            : 'orphan';
  const regStatus = c.entry ? str(c.entry.raw.status) : null;
  // Nothing readable says otherwise: a session whose file is lost stopped mid-way.
  let status: SessionStatus =
    mapped ??
    (regStatus ? (SESSION_STATUS[regStatus] ?? 'paused') : c.marker ? 'active' : doc ? 'paused' : 'interrupted');
  let active = false;
  const isArchived = main.place === 'archives';
  if (rule === 'registry') {
    ({ active, status } = registryRule(s, mapped, regStatus, status, problems));
  } else if (rule === 'markers') {
    ({ active, status } = markersRule(s, mapped, status, problems));
  } else if (rule === 'orphan') {
    active = false;
    if (ctx.hasRegistry) {
      problems.push(
        problem('ORPHAN_SESSION', 'warning', `${folder} is not listed in ${ctx.registryPath}.`, {
          sessionId: id,
          path: folder,
          hint: `Add a line for ${id} to the registry, or remove the folder.`,
          details: { folder },
        }),
      );
    }
    if (status === 'active') status = 'paused';
  } else {
    active = !isArchived && status === 'active';
    if (isArchived && status !== 'completed') {
      problems.push(
        problem(
          'REGISTRY_MISMATCH',
          'warning',
          `${id} is in archives/ but its session file says ${fileStatus ?? 'nothing'}; an archived session is completed.`,
          {
            sessionId: id,
            path: filePath,
            hint: 'Set its status to completed, or move it back to active/ to continue it.',
            details: { field: 'status', place: 'archives', file: fileStatus },
          },
        ),
      );
      status = 'completed';
    }
  }
  return { status, active, isArchived, regStatus };
}

type Outcome = { active: boolean; status: SessionStatus };

/** The registry layout: the registry names the active session; a session file that says otherwise wins. */
function registryRule(
  s: StatusInput,
  mapped: SessionStatus | null,
  regStatus: string | null,
  status: SessionStatus,
  problems: FormatProblem[],
): Outcome {
  const { c, fileStatus, id } = s;
  const ctx = { registryPath: s.registryPath };
  const active = regStatus === 'active' && (mapped === null || mapped === 'active');
  const regMapped = regStatus ? (SESSION_STATUS[regStatus] ?? null) : null;
  if (regStatus !== null && regMapped === null) {
    problems.push(
      problem(
        'BAD_VALUE',
        'warning',
        `Registry line ${c.entry!.line} gives ${id} the status ${JSON.stringify(regStatus)}, not one of active|paused|completed.`,
        {
          sessionId: id,
          path: ctx.registryPath,
          details: { field: 'status', value: regStatus, line: c.entry!.line },
        },
      ),
    );
  }
  const agree = regMapped === mapped || (regMapped === 'paused' && mapped === 'interrupted');
  if (mapped && regMapped && !agree) {
    problems.push(
      problem(
        'REGISTRY_MISMATCH',
        'warning',
        `The registry says ${id} is ${regStatus}, its session file says ${fileStatus}; the session file wins (${status}).`,
        {
          sessionId: id,
          path: ctx.registryPath,
          hint: `Update line ${c.entry!.line} of ${REGISTRY_FILE} to "${fileStatus === 'interrupted' ? 'paused' : fileStatus}".`,
          details: { field: 'status', registry: regStatus, file: fileStatus, line: c.entry!.line },
        },
      ),
    );
  }
  return { active, status: !mapped && regMapped ? regMapped : status };
}

/** The marker layout: an .active-<name> marker, not the session file, says which session is active. */
function markersRule(
  s: StatusInput,
  mapped: SessionStatus | null,
  given: SessionStatus,
  problems: FormatProblem[],
): Outcome {
  const { c, fileStatus, id, filePath } = s;
  let status = given;
  const active = c.marker !== null;
  if (active) {
    if (mapped && mapped !== 'active') {
      problems.push(
        problem(
          'REGISTRY_MISMATCH',
          'info',
          `${id} has an active marker but its session file says ${fileStatus}; in the marker layout the marker wins (active).`,
          { sessionId: id, path: c.marker, details: { field: 'status', marker: 'active', file: fileStatus } },
        ),
      );
    }
    status = 'active';
  } else if (mapped === 'active') {
    problems.push(
      problem(
        'REGISTRY_MISMATCH',
        'info',
        `${id}'s session file says active but it has no .active-${c.name} marker; in the marker layout the marker wins (not active: paused).`,
        { sessionId: id, path: filePath, details: { field: 'status', marker: null, file: fileStatus } },
      ),
    );
    status = 'paused';
  }
  return { active, status };
}
