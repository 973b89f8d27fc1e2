/**
 * bmit steps → normalized units, with the checks bmit's own validator makes
 * (validate-session-state.mjs): status enum, step names, `completed` set on complete steps,
 * `started` set on in-progress ones, `sub_step` cleared on completion, sub-step names from
 * the step's checkpoint table, leftover v2.0 `claim` objects.
 */
import type { ProblemReport } from '../problems.js';
import type { SafeDir } from '../safe-dir.js';
import type { FormatProblem, ForeignFile, ForeignUnit } from '../types.js';
import { arr, obj, problem, rest, str } from '../util.js';
import { joinRel } from './layout.js';
import { normalizeStatus, STEP_NAMES, STEP_ORDER, stepLabel, SUB_STEPS } from './steps.js';

/** Step fields mapped onto {@link ForeignUnit}; every other field goes to `metadata`. */
export const STEP_FIELDS = [
  'name',
  'agent',
  'status',
  'sub_step',
  'started',
  'completed',
  'artifacts',
  'context_files_used',
] as const;

/** What reading the steps needs to know about the project. */
export interface StepContext {
  dir: SafeDir;
  sessionId: string;
  /** Relative path of the file the steps come from. */
  file: string;
  /** Project folder relative to the root (artifact paths are project-relative). */
  projectRel: string;
  /** Relative path of the `agent-output` folder when the root holds it (docs write `agent-output/<project>/…` paths). */
  repoRootRel: string | null;
}

/**
 * Step keys to read: the eight steps of the workflow always (a missing one is read from the
 * template, as pending), then keys bmit does not know, in file order.
 */
export function orderedKeys(steps: Record<string, unknown>): { keys: string[]; missing: string[]; unknown: string[] } {
  const present = Object.keys(steps);
  const unknown = present.filter((k) => !(STEP_ORDER as readonly string[]).includes(k));
  const missing = STEP_ORDER.filter((k) => !present.includes(k));
  return { keys: [...STEP_ORDER, ...unknown], missing, unknown };
}

/**
 * The folder an artifact path is relative to: the project folder (`agent-output/{project}/`,
 * as bmit's own files write them), or the folder holding `agent-output/` for a path written
 * from there (the docs' form); null for an absolute path.
 */
function baseOf(ctx: StepContext, p: string): string | null {
  const norm = p.replace(/\\/g, '/');
  if (/^([A-Za-z]:)?\//.test(norm)) return null;
  return norm.startsWith('agent-output/') && ctx.repoRootRel !== null ? ctx.repoRootRel : ctx.projectRel;
}

/** Checks a project-provided path; returns the problem when it is unsafe. */
async function checkPath(ctx: StepContext, p: string): Promise<FormatProblem | null> {
  const norm = p.replace(/\\/g, '/');
  // An absolute path is checked as given (joining it under the project would hide it).
  const base = baseOf(ctx, p);
  const c = await ctx.dir.check(base === null ? norm : joinRel(base, norm));
  if (c.ok) return null;
  return {
    ...c.problem,
    sessionId: ctx.sessionId,
    path: ctx.file,
    message: `Artifact path ${JSON.stringify(p)}: ${c.problem.message}`,
    details: { artifact: p },
  };
}

type Report = ProblemReport;

/** Reports a step whose times, sub-step or v2.0 claim contradict its status or schema 3.0. */
function stepStateProblems(
  s: Record<string, unknown>,
  key: string,
  name: string,
  rawStatus: string | null,
  subStep: string | null,
  p: Report,
): void {
  const started = str(s['started']);
  const completed = str(s['completed']);
  if (rawStatus === 'complete' && !completed) {
    p(
      'MISSING_FIELD',
      'warning',
      `${stepLabel(key, name)} is complete but has no "completed" time.`,
      'bmit sets "completed" when a step is done.',
      { field: `steps.${key}.completed`, assumed: null },
    );
  }
  if (rawStatus === 'in_progress' && !started) {
    p(
      'MISSING_FIELD',
      'warning',
      `${stepLabel(key, name)} is in_progress but has no "started" time.`,
      'bmit sets "started" when a step begins.',
      { field: `steps.${key}.started`, assumed: null },
    );
  }
  if (rawStatus === 'complete' && subStep !== null) {
    p(
      'BAD_VALUE',
      'warning',
      `${stepLabel(key, name)} is complete but its sub_step ${JSON.stringify(subStep)} was not cleared.`,
      'bmit clears sub_step when a step completes; baton keeps the value as it is.',
      { field: `steps.${key}.sub_step`, value: subStep },
    );
  }
  if ('claim' in s) {
    p(
      'LEGACY_FIELD',
      'warning',
      `steps.${key}.claim is a v2.0 lock/claim object that schema 3.0 removed; it is dropped on export.`,
      'Migrate to schema 3.0 (baton export writes 3.0).',
      { field: `steps.${key}.claim`, current: null, value: s['claim'] },
    );
  }
}

/** The step's artifacts (created) and context files (read), each path checked. */
async function stepFiles(
  s: Record<string, unknown>,
  key: string,
  ctx: StepContext,
  p: Report,
  problems: FormatProblem[],
): Promise<ForeignFile[]> {
  const files: ForeignFile[] = [];
  for (const [field, action] of [
    ['artifacts', 'created'],
    ['context_files_used', 'read'],
  ] as const) {
    const v = s[field];
    if (v !== undefined && v !== null && !Array.isArray(v)) {
      p('BAD_VALUE', 'warning', `steps.${key}.${field} is not a list; ignored.`, null, {
        field: `steps.${key}.${field}`,
        value: v,
      });
    }
    for (const item of arr(v)) {
      const fp = str(item);
      if (fp === null || fp === '') continue;
      const bad = await checkPath(ctx, fp);
      if (bad) problems.push(bad);
      const base = baseOf(ctx, fp);
      files.push({ path: fp, action, ...(base !== null ? { base } : {}) });
    }
  }
  return files;
}

/** Reads one step into a unit, pushing the validator's findings onto `problems`. */
export async function readStep(
  key: string,
  raw: unknown,
  present: boolean,
  ctx: StepContext,
  problems: FormatProblem[],
): Promise<ForeignUnit> {
  const s = obj(raw);
  const p = (
    code: string,
    sev: 'error' | 'warning' | 'info',
    msg: string,
    hint: string | null,
    details?: Record<string, unknown>,
  ) => problems.push(problem(code, sev, msg, { sessionId: ctx.sessionId, path: ctx.file, hint, details }));
  if (present && (raw === null || typeof raw !== 'object' || Array.isArray(raw))) {
    p(
      'BAD_VALUE',
      'warning',
      `steps.${key} is not an object; ${stepLabel(key)} is read as pending.`,
      'Rewrite the step from the template.',
      { field: `steps.${key}`, value: raw },
    );
  }
  const rawStatus = str(s['status']);
  const norm = normalizeStatus(rawStatus);
  if (present && rawStatus === null) {
    p(
      'MISSING_FIELD',
      'warning',
      `steps.${key}.status is missing; ${stepLabel(key)} is read as pending.`,
      'Set the status to pending, in_progress, complete or skipped.',
      { field: `steps.${key}.status`, assumed: 'pending' },
    );
  } else if (rawStatus !== null && !norm.known) {
    p(
      'BAD_VALUE',
      'warning',
      `steps.${key}.status is ${JSON.stringify(rawStatus)}, not one of pending, in_progress, complete, skipped; read as ${norm.status}.`,
      "Use one of bmit's four statuses.",
      { field: `steps.${key}.status`, value: rawStatus, readAs: norm.status },
    );
  }
  const name = str(s['name']) ?? STEP_NAMES[key] ?? key;
  if (STEP_NAMES[key] && str(s['name']) !== null && str(s['name']) !== STEP_NAMES[key]) {
    p(
      'BAD_VALUE',
      'info',
      `steps.${key}.name is ${JSON.stringify(s['name'])}; bmit names this step ${JSON.stringify(STEP_NAMES[key])}.`,
      null,
      { field: `steps.${key}.name`, value: s['name'], expected: STEP_NAMES[key] },
    );
  }
  const subStep = str(s['sub_step']);
  const table = SUB_STEPS[key];
  if (subStep !== null && table && !table.includes(subStep)) {
    p(
      'BAD_VALUE',
      'warning',
      `steps.${key}.sub_step ${JSON.stringify(subStep)} is not a checkpoint of ${stepLabel(key, name)} (${table.join(' → ')}).`,
      "Resuming at an unknown checkpoint is a guess: check the step's artifacts or restart the step.",
      { field: `steps.${key}.sub_step`, value: subStep, known: [...table] },
    );
  }
  const started = str(s['started']);
  const completed = str(s['completed']);
  stepStateProblems(s, key, name, rawStatus, subStep, p);
  const files = await stepFiles(s, key, ctx, p, problems);
  const agent = str(s['agent']);
  return {
    id: key,
    name,
    status: norm.status,
    rawStatus,
    subStep,
    retries: null,
    agents: agent ? [agent] : [],
    blockedBy: [],
    startedAt: started,
    completedAt: completed,
    files,
    errors: [],
    metadata: rest(s, STEP_FIELDS),
  };
}
