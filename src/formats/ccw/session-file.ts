/**
 * `workflow-session.json`, in the two shapes the same CCW release documents:
 * - principles doc: `checkpoints{plan, implement{agents_completed, current_agent, todos},
 *   review{quality_checks}}`, `current_phase` PLAN|IMPLEMENT|REVIEW, `session_version` "2.0";
 * - session.md: `phases{INIT, BRAINSTORM, PLAN, IMPLEMENT, REVIEW}{status, enabled,
 *   completed_at, files_created, …}`, `documents`, `task_system`, `registry`; a pause writes
 *   status "interrupted".
 * Units are the checkpoints/phases in order, statuses normalized, unknown fields kept.
 */
import type { SessionStatus } from '../../domain/state.js';
import type { ForeignError, ForeignFile, ForeignUnit, FormatProblem, UnitStatus } from '../types.js';
import { arr, obj, problem, rest, str } from '../util.js';

/** The version the principles doc describes; an older major needs manual migration. */
export const CURRENT_VERSION = '2.0';

export type Shape = 'principles' | 'session-md';

/** Checkpoint keys of the principles shape, in execution order. */
export const PRINCIPLE_UNITS = ['plan', 'implement', 'review'] as const;

/** Unit metadata key holding the `.task/impl-*.json` summary (derived; never written back). */
export const TASK_FILES_KEY = 'taskFiles';

const UNIT_STATUS: Record<string, UnitStatus> = {
  pending: 'pending',
  not_started: 'pending',
  in_progress: 'in_progress',
  active: 'in_progress',
  running: 'in_progress',
  completed: 'completed',
  complete: 'completed',
  done: 'completed',
  failed: 'failed',
  error: 'failed',
  skipped: 'skipped',
  blocked: 'blocked',
};

/** CCW session statuses (both documents) → baton. */
export const SESSION_STATUS: Record<string, SessionStatus> = {
  active: 'active',
  paused: 'paused',
  // session.md's pause writes "interrupted", outside the principles' enum: it means paused (facts.ts).
  interrupted: 'paused',
  completed: 'completed',
};

/** The session file, read into baton's terms. */
export interface SessionDoc {
  shape: Shape;
  id: string | null;
  title: string | null;
  rawStatus: string | null;
  createdAt: string | null;
  updatedAt: string | null;
  version: string | null;
  units: ForeignUnit[];
  /** `current_phase` as stored. */
  currentPhase: string | null;
  /** Id of the unit `current_phase` names (null when absent or unknown). */
  currentUnit: string | null;
  problems: FormatProblem[];
}

function unitStatus(
  raw: string | null,
  ctx: { sessionId: string; path: string; unit: string; field: string; problems: FormatProblem[] },
): UnitStatus {
  if (raw === null) return 'pending';
  const s = UNIT_STATUS[raw.toLowerCase()];
  if (s) return s;
  ctx.problems.push(
    problem(
      'BAD_VALUE',
      'warning',
      `${ctx.unit} of ${ctx.sessionId} has status ${JSON.stringify(raw)}, not one of completed|in_progress|pending; read as pending.`,
      {
        sessionId: ctx.sessionId,
        path: ctx.path,
        hint: 'Set the status to completed, in_progress or pending.',
        details: { field: ctx.field, value: raw },
      },
    ),
  );
  return 'pending';
}

function unit(id: string): ForeignUnit {
  return {
    id,
    name: id,
    status: 'pending',
    rawStatus: null,
    subStep: null,
    retries: null,
    agents: [],
    blockedBy: [],
    startedAt: null,
    completedAt: null,
    files: [],
    errors: [],
    metadata: {},
  };
}

/** A principles-shape checkpoint as a unit. */
function principlesUnit(
  key: string,
  cp: Record<string, unknown>,
  ctx: { sessionId: string; path: string; problems: FormatProblem[] },
): ForeignUnit {
  const u = unit(key);
  u.name = key.toUpperCase();
  u.rawStatus = str(cp.status);
  u.status = unitStatus(u.rawStatus, { ...ctx, unit: `checkpoint ${key}`, field: `checkpoints.${key}.status` });
  const done = arr(cp.agents_completed)
    .map(str)
    .filter((a): a is string => a !== null);
  const current = str(cp.current_agent);
  u.agents = [...new Set([...done, ...(current ? [current] : [])])];
  u.subStep = current;
  // The checkpoint's `timestamp` is when it was last saved: the end of a completed one, the
  // start of one in flight.
  const ts = str(cp.timestamp);
  const known = ['status', 'current_agent', 'documents'];
  if (u.status === 'completed') u.completedAt = ts;
  else if (u.status === 'in_progress') u.startedAt = ts;
  if (ts !== null && (u.status === 'completed' || u.status === 'in_progress')) known.push('timestamp');
  u.files = arr(cp.documents)
    .map(str)
    .filter((p): p is string => p !== null)
    .map((p): ForeignFile => ({ path: p, action: 'created' }));
  u.metadata = rest(cp, known);
  if (key === 'review') {
    for (const [name, v] of Object.entries(obj(cp.quality_checks))) {
      if (str(v) === 'failed') u.errors.push(qualityError(key, name, ts));
    }
  }
  return u;
}

function qualityError(unitId: string, name: string, time: string | null): ForeignError {
  return {
    unitId,
    agent: null,
    time,
    type: 'quality_check',
    message: `Quality check ${name} failed.`,
    resolved: false,
    resolution: null,
  };
}

/** A session.md-shape phase as a unit. */
function sessionMdUnit(
  key: string,
  ph: Record<string, unknown>,
  ctx: { sessionId: string; path: string; problems: FormatProblem[] },
): ForeignUnit {
  const u = unit(key);
  u.rawStatus = str(ph.status);
  u.status = unitStatus(u.rawStatus, { ...ctx, unit: `phase ${key}`, field: `phases.${key}.status` });
  // A phase switched off for this complexity level is skipped, not waiting.
  if (ph.enabled === false && u.status === 'pending') u.status = 'skipped';
  u.completedAt = str(ph.completed_at);
  u.startedAt = str(ph.started_at);
  u.files = arr(ph.files_created)
    .map(str)
    .filter((p): p is string => p !== null)
    .map((p): ForeignFile => ({ path: p, action: 'created' }));
  u.metadata = rest(ph, ['status', 'completed_at', 'started_at', 'files_created']);
  return u;
}

/** Reads a parsed `workflow-session.json`. Never throws. */
export function readSessionDoc(doc: Record<string, unknown>, path: string, fallbackId: string): SessionDoc {
  const problems: FormatProblem[] = [];
  const id = str(doc.session_id) ?? str(doc.id);
  const sessionId = id ?? fallbackId;
  const ctx = { sessionId, path, problems };
  if (id === null) {
    problems.push(
      problem('MISSING_FIELD', 'info', `${path} has no session_id; the folder name ${fallbackId} was used.`, {
        sessionId,
        path,
        details: { field: 'session_id', assumed: fallbackId },
      }),
    );
  }
  const shape: Shape = doc.phases !== undefined && doc.checkpoints === undefined ? 'session-md' : 'principles';
  let units: ForeignUnit[];
  if (shape === 'session-md') {
    const phases = obj(doc.phases);
    units = Object.keys(phases).map((k) => sessionMdUnit(k, obj(phases[k]), ctx));
  } else {
    if (doc.checkpoints === undefined) {
      problems.push(
        problem(
          'MISSING_FIELD',
          'warning',
          `${path} has neither "checkpoints" nor "phases"; PLAN, IMPLEMENT and REVIEW are assumed pending.`,
          {
            sessionId,
            path,
            hint: 'Restore the file from .backups/ or rebuild the checkpoints from the planning documents.',
            details: { field: 'checkpoints', assumed: 'pending' },
          },
        ),
      );
    }
    const cps = obj(doc.checkpoints);
    // Without any checkpoint, CCW's three phases are all still ahead.
    const keys = Object.keys(cps).length === 0 ? [...PRINCIPLE_UNITS] : Object.keys(cps);
    units = keys.map((k) => principlesUnit(k, obj(cps[k]), ctx));
  }
  const version = str(doc.session_version);
  if (version !== null && version !== CURRENT_VERSION) {
    const major = version.split('.')[0];
    const sameMajor = major === CURRENT_VERSION.split('.')[0];
    problems.push(
      problem(
        'NEEDS_MIGRATION',
        sameMajor ? 'info' : 'warning',
        `${path} is session_version ${version}; CCW's current is ${CURRENT_VERSION} (${sameMajor ? 'a minor version: CCW migrates it automatically' : 'a major version: CCW asks for manual migration'}).`,
        {
          sessionId,
          path,
          hint: sameMajor ? null : 'Check the fields against the 2.0 structure before resuming with CCW.',
          details: { from: version, to: CURRENT_VERSION },
        },
      ),
    );
  }
  const currentPhase = str(doc.current_phase);
  let currentUnit: string | null = null;
  if (currentPhase !== null) {
    currentUnit = units.find((u) => u.id.toLowerCase() === currentPhase.toLowerCase())?.id ?? null;
    if (currentUnit === null) {
      problems.push(
        problem(
          'BAD_VALUE',
          'warning',
          `${path} has current_phase ${JSON.stringify(currentPhase)}, which names none of its ${shape === 'session-md' ? 'phases' : 'checkpoints'}.`,
          {
            sessionId,
            path,
            hint: 'Set current_phase to PLAN, IMPLEMENT or REVIEW.',
            details: { field: 'current_phase', value: currentPhase },
          },
        ),
      );
    }
  }
  return {
    shape,
    id,
    title: str(doc.project) ?? str(doc.description),
    rawStatus: str(doc.status),
    createdAt: str(doc.created_at),
    updatedAt: str(doc.updated_at),
    version,
    units,
    currentPhase,
    currentUnit,
    problems,
  };
}
