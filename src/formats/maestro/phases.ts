/**
 * Maestro phases (frontmatter `phases[]`) → normalized units, with every check a phase can
 * fail on its own: status outside the enum, illegal combinations, legacy `agent`, malformed
 * errors and file lists. Unmapped fields (parallel, downstream_context, planned_files,
 * requires_reconciliation, anything newer) stay verbatim in `metadata`.
 */
import type { FormatProblem, ForeignError, ForeignFile, ForeignUnit, UnitStatus } from '../types.js';
import { arr, obj, problem, rest, str } from '../util.js';

/** Phase statuses Maestro defines. */
export const MAESTRO_PHASE_STATUSES = ['pending', 'in_progress', 'completed', 'failed', 'skipped'] as const;
/** Error types the skill lists (`quota` comes from the docs). */
export const MAESTRO_ERROR_TYPES = ['validation', 'timeout', 'file_conflict', 'runtime', 'dependency', 'quota'];

/** Phase fields mapped onto {@link ForeignUnit}; everything else is kept in metadata. */
export const MAPPED_PHASE_FIELDS = [
  'id',
  'name',
  'status',
  'agents',
  'agent',
  'blocked_by',
  'started',
  'completed',
  'files_created',
  'files_modified',
  'files_deleted',
  'errors',
  'retry_count',
] as const;

const BATON_ID = /^[A-Za-z0-9][A-Za-z0-9._-]{0,127}$/;

/** Where a phase list lives, for problem reports. */
export interface PhaseCtx {
  sessionId: string;
  path: string;
  problems: FormatProblem[];
}

function fileList(
  v: unknown,
  field: string,
  action: ForeignFile['action'],
  unit: string,
  ctx: PhaseCtx,
): ForeignFile[] {
  if (v === undefined || v === null) return [];
  if (!Array.isArray(v)) {
    ctx.problems.push(
      problem('BAD_VALUE', 'warning', `Phase ${unit}: ${field} is not a list; ignored.`, {
        sessionId: ctx.sessionId,
        path: ctx.path,
        details: { phase: unit, field, value: v },
      }),
    );
    return [];
  }
  const out: ForeignFile[] = [];
  for (const f of v) {
    const p = typeof f === 'string' ? f : str(obj(f).path);
    if (p) out.push({ path: p, action });
    else
      ctx.problems.push(
        problem('BAD_VALUE', 'warning', `Phase ${unit}: an entry of ${field} is not a path; ignored.`, {
          sessionId: ctx.sessionId,
          path: ctx.path,
          details: { phase: unit, field, value: f },
        }),
      );
  }
  return out;
}

/** Reads a Maestro `errors[]` list (phase-level, or top-level in the minimal template). */
export function readErrors(v: unknown, unitId: string | null, ctx: PhaseCtx): ForeignError[] {
  if (v === undefined || v === null) return [];
  if (!Array.isArray(v)) {
    ctx.problems.push(
      problem('BAD_VALUE', 'warning', `Phase ${unitId ?? '-'}: errors is not a list; ignored.`, {
        sessionId: ctx.sessionId,
        path: ctx.path,
        details: { phase: unitId, field: 'errors' },
      }),
    );
    return [];
  }
  return v.map((raw, i) => {
    const e = obj(raw);
    const type = str(e.type);
    if (type !== null && !MAESTRO_ERROR_TYPES.includes(type)) {
      ctx.problems.push(
        problem(
          'BAD_VALUE',
          'info',
          `Phase ${unitId}: error ${i + 1} has type "${type}", not one Maestro lists; kept.`,
          { sessionId: ctx.sessionId, path: ctx.path, details: { phase: unitId, field: 'errors.type', value: type } },
        ),
      );
    }
    let resolved = e.resolved === true;
    if (typeof e.resolved !== 'boolean') {
      ctx.problems.push(
        problem(
          'MISSING_FIELD',
          'warning',
          `Phase ${unitId}: error ${i + 1} has no boolean "resolved"; taken as unresolved.`,
          {
            sessionId: ctx.sessionId,
            path: ctx.path,
            details: { phase: unitId, field: 'errors.resolved', assumed: false },
          },
        ),
      );
      resolved = false;
    }
    const resolution = str(e.resolution);
    return {
      unitId,
      agent: str(e.agent),
      time: str(e.timestamp),
      type: type ?? 'error',
      message: str(e.message) ?? '',
      resolved,
      // "pending" is Maestro's placeholder for "no resolution yet".
      resolution: resolution === 'pending' ? null : resolution,
    };
  });
}

function normalizeStatus(raw: string | null, unit: string, ctx: PhaseCtx): UnitStatus {
  if (raw === null) {
    ctx.problems.push(
      problem('MISSING_FIELD', 'warning', `Phase ${unit} has no status; taken as pending.`, {
        sessionId: ctx.sessionId,
        path: ctx.path,
        details: { phase: unit, field: 'status', assumed: 'pending' },
      }),
    );
    return 'pending';
  }
  if ((MAESTRO_PHASE_STATUSES as readonly string[]).includes(raw)) return raw as UnitStatus;
  ctx.problems.push(
    problem(
      'BAD_VALUE',
      'error',
      `Phase ${unit} has status "${raw}", outside Maestro's pending|in_progress|completed|failed|skipped; read as pending.`,
      {
        sessionId: ctx.sessionId,
        path: ctx.path,
        hint: 'Set the phase status to one of pending, in_progress, completed, failed, skipped.',
        details: { phase: unit, field: 'status', value: raw },
      },
    ),
  );
  return 'pending';
}

/** Reads `phases[]` into units, in file order. */
export function readPhases(list: unknown[], ctx: PhaseCtx): ForeignUnit[] {
  const units: ForeignUnit[] = [];
  const seen = new Set<string>();
  list.forEach((rawPhase, index) => {
    const p = obj(rawPhase);
    const id = phaseIdOf(p, index, seen, ctx);
    const rawStatus = str(p.status);
    const status = normalizeStatus(rawStatus, id, ctx);
    const metadata = rest(p, MAPPED_PHASE_FIELDS);

    const agents = agentsOf(p, id, metadata, ctx);

    const retries = retriesOf(p, id, ctx);

    const startedAt = str(p.started);
    const completedAt = str(p.completed);
    timeProblems(status, startedAt, completedAt, id, ctx);

    const blockedBy = arr(p.blocked_by)
      .map((b) => str(b))
      .filter((b): b is string => b !== null);
    units.push({
      id,
      name: str(p.name) ?? `Phase ${id}`,
      status,
      rawStatus,
      subStep: null,
      retries,
      agents,
      blockedBy,
      startedAt,
      completedAt,
      files: [
        ...fileList(p.files_created, 'files_created', 'created', id, ctx),
        ...fileList(p.files_modified, 'files_modified', 'modified', id, ctx),
        ...fileList(p.files_deleted, 'files_deleted', 'deleted', id, ctx),
      ],
      errors: readErrors(p.errors, id, ctx),
      metadata,
    });
    if (name(p) === null)
      ctx.problems.push(
        problem('MISSING_FIELD', 'info', `Phase ${id} has no name; "Phase ${id}" assumed.`, {
          sessionId: ctx.sessionId,
          path: ctx.path,
          details: { phase: id, field: 'name', assumed: `Phase ${id}` },
        }),
      );
  });

  blockerProblems(units, ctx);
  return units;
}

/** The phase's id: assumed from its position when missing, made a valid id, and made unique against `seen` (which it joins). */
function phaseIdOf(p: Record<string, unknown>, index: number, seen: Set<string>, ctx: PhaseCtx): string {
  let id = str(p.id);
  if (id === null) {
    id = String(index + 1);
    ctx.problems.push(
      problem('MISSING_FIELD', 'warning', `Phase number ${index + 1} has no id; ${id} assumed.`, {
        sessionId: ctx.sessionId,
        path: ctx.path,
        details: { phase: index + 1, field: 'id', assumed: id },
      }),
    );
  }
  if (!BATON_ID.test(id)) {
    const slug = id.replace(/[^A-Za-z0-9._-]+/g, '-').replace(/^[^A-Za-z0-9]+/, '') || String(index + 1);
    ctx.problems.push(
      problem('BAD_VALUE', 'warning', `Phase id "${id}" is not a valid phase id; read as "${slug}".`, {
        sessionId: ctx.sessionId,
        path: ctx.path,
        details: { phase: id, field: 'id', assumed: slug },
      }),
    );
    id = slug;
  }
  if (seen.has(id)) {
    let n = 2;
    while (seen.has(`${id}.dup${n}`)) n++;
    ctx.problems.push(
      problem('BAD_VALUE', 'error', `Phase id ${id} appears more than once; the repeat is read as ${id}.dup${n}.`, {
        sessionId: ctx.sessionId,
        path: ctx.path,
        details: { phase: id, field: 'id' },
      }),
    );
    id = `${id}.dup${n}`;
  }
  seen.add(id);
  return id;
}

/** The phase's agents from `agents`, or from the legacy singular `agent` (kept in `metadata` when both are present). */
function agentsOf(p: Record<string, unknown>, id: string, metadata: Record<string, unknown>, ctx: PhaseCtx): string[] {
  let agents: string[];
  if (Array.isArray(p.agents)) {
    agents = p.agents.map((a) => str(a)).filter((a): a is string => a !== null);
    if (p.agent !== undefined) metadata.agent = p.agent; // both present: keep the legacy one verbatim
  } else {
    agents = [];
    if (p.agents !== undefined)
      ctx.problems.push(
        problem('BAD_VALUE', 'warning', `Phase ${id}: agents is not a list; ignored.`, {
          sessionId: ctx.sessionId,
          path: ctx.path,
          details: { phase: id, field: 'agents', value: p.agents },
        }),
      );
    if (p.agent !== undefined) {
      agents = (Array.isArray(p.agent) ? p.agent : [p.agent]).map((a) => str(a)).filter((a): a is string => a !== null);
      ctx.problems.push(
        problem(
          'LEGACY_FIELD',
          'info',
          `Phase ${id} names its agent in the legacy singular "agent" field; read as agents.`,
          {
            sessionId: ctx.sessionId,
            path: ctx.path,
            hint: 'baton writes "agents" (a list) on export.',
            details: { phase: id, field: 'agent', current: 'agents' },
          },
        ),
      );
    }
  }
  return agents;
}

/** The phase's retry count (null when absent; 0 when it is not a count). */
function retriesOf(p: Record<string, unknown>, id: string, ctx: PhaseCtx): number | null {
  const retriesRaw = p.retry_count;
  let retries: number | null = null;
  if (typeof retriesRaw === 'number' && Number.isInteger(retriesRaw) && retriesRaw >= 0) retries = retriesRaw;
  else if (retriesRaw !== undefined && retriesRaw !== null) {
    ctx.problems.push(
      problem(
        'BAD_VALUE',
        'warning',
        `Phase ${id}: retry_count ${JSON.stringify(retriesRaw)} is not a count; read as 0.`,
        { sessionId: ctx.sessionId, path: ctx.path, details: { phase: id, field: 'retry_count', value: retriesRaw } },
      ),
    );
    retries = 0;
  }
  return retries;
}

/** Reports times that contradict the phase's status (completed without a time, pending with one). */
function timeProblems(
  status: ForeignUnit['status'],
  startedAt: string | null,
  completedAt: string | null,
  id: string,
  ctx: PhaseCtx,
): void {
  if (status === 'completed' && completedAt === null) {
    ctx.problems.push(
      problem('BAD_VALUE', 'warning', `Phase ${id} is completed but has completed: null.`, {
        sessionId: ctx.sessionId,
        path: ctx.path,
        hint: 'Set the completion time of the phase.',
        details: { phase: id, field: 'completed', status },
      }),
    );
  }
  if (status === 'pending' && (startedAt !== null || completedAt !== null)) {
    ctx.problems.push(
      problem(
        'BAD_VALUE',
        'warning',
        `Phase ${id} is pending but has a ${startedAt !== null ? 'started' : 'completed'} time.`,
        {
          sessionId: ctx.sessionId,
          path: ctx.path,
          details: { phase: id, field: startedAt !== null ? 'started' : 'completed', status },
        },
      ),
    );
  }
}

/** Reports dependencies on phases that do not exist, and phases that ran before the phases they are blocked by completed. */
function blockerProblems(units: ForeignUnit[], ctx: PhaseCtx): void {
  const ids = new Set(units.map((u) => u.id));
  for (const u of units) {
    for (const b of u.blockedBy) {
      if (!ids.has(b))
        ctx.problems.push(
          problem('BAD_VALUE', 'warning', `Phase ${u.id} is blocked by phase ${b}, which does not exist.`, {
            sessionId: ctx.sessionId,
            path: ctx.path,
            details: { phase: u.id, field: 'blocked_by', value: b },
          }),
        );
      const dep = units.find((x) => x.id === b);
      if (
        dep &&
        dep.status !== 'completed' &&
        (u.status === 'in_progress' || u.status === 'completed' || u.status === 'failed')
      ) {
        ctx.problems.push(
          problem(
            'PREREQUISITE',
            'warning',
            `Phase ${u.id} is ${u.status} while phase ${b}, which it is blocked by, is ${dep.status}.`,
            {
              sessionId: ctx.sessionId,
              path: ctx.path,
              details: { phase: u.id, blockedBy: b, blockerStatus: dep.status },
            },
          ),
        );
      }
    }
  }
}

function name(p: Record<string, unknown>): string | null {
  return str(p.name);
}
