/**
 * How a baton plan maps onto Go Team's nine fixed steps (docs/formats/go-team.md "Export"):
 * a phase is a step only by identity (its id is the step number, `step-N`, or the step's
 * name; or its name is the step's name). A phase that is none of the nine is never placed
 * on a step by its position: it cannot be represented in Go Team's fixed workflow, the
 * export says so, and the phases of it not done yet are listed in `state.json`'s
 * `context.pending_tasks`. Also: where the session stands, as Go Team counts it, and the
 * token metrics.
 */
import { BatonError } from '../../domain/errors.js';
import type { Phase, SessionState, TokenCounts } from '../../domain/state.js';
import { UNATTRIBUTED } from '../import.js';
import type { FormatProblem } from '../types.js';
import { obj, problem } from '../util.js';
import { STEPS, stepOf, TOTAL_STEPS } from './steps.js';

const key = (s: string) =>
  s
    .trim()
    .toLowerCase()
    .replace(/[\s_]+/g, '-');

/** The Go Team step a baton phase is (1–9), or null when it is none of them. */
export function stepOfPhase(p: Phase): number | null {
  const n = stepOf(p.id) ?? stepOf(/^step-?0*(\d{1,2})$/i.exec(p.id)?.[1]);
  if (n !== null) return n;
  return STEPS.find((d) => key(d.name) === key(p.id) || key(d.name) === key(p.name))?.n ?? null;
}

/** The nine steps as baton phases (null: no phase is that step), and the phases that are no step. */
export function stepPhases(state: SessionState): { steps: Array<Phase | null>; unmapped: Phase[] } {
  const steps: Array<Phase | null> = Array.from({ length: TOTAL_STEPS }, () => null);
  const unmapped: Phase[] = [];
  for (const p of state.phases) {
    const n = stepOfPhase(p);
    if (n === null || steps[n - 1]) unmapped.push(p);
    else steps[n - 1] = p;
  }
  return { steps, unmapped };
}

/** Where the session stands in the nine steps, as Go Team counts it. */
export interface Position {
  phases: Array<Phase | null>;
  unmapped: Phase[];
  completedCount: number;
  firstOpen: number;
  currentStep: number;
  open: Phase | null;
}

/** See {@link Position}. */
export function positionOf(state: SessionState): Position {
  const { steps: phases, unmapped } = stepPhases(state);
  const isDone = (p: Phase | null) => p !== null && (p.status === 'completed' || p.status === 'skipped');
  const completedCount = phases.filter((p) => p?.status === 'completed').length;
  const firstOpen = phases.findIndex((p) => !isDone(p));
  let currentStep: number;
  if (state.status === 'completed' || firstOpen === -1) currentStep = TOTAL_STEPS;
  else {
    const p = phases[firstOpen] ?? null;
    const started = p !== null && (p.status === 'in_progress' || p.status === 'failed');
    currentStep = started || firstOpen === 0 ? firstOpen + 1 : firstOpen; // not started yet: Go Team stays on the last done step
  }
  const open = firstOpen === -1 ? null : (phases[firstOpen] ?? null);
  return { phases, unmapped, completedCount, firstOpen, currentStep, open };
}

/** Marks the pending-task lines baton writes for phases that are no Go Team step. */
export const BATON_TASK = 'baton phase ';

/** `context.pending_tasks` with one line per unmapped phase not done (replacing the lines of an earlier export). */
export function pendingTasks(prev: unknown, unmapped: Phase[]): unknown[] {
  const kept = (Array.isArray(prev) ? prev : []).filter((t) => !(typeof t === 'string' && t.startsWith(BATON_TASK)));
  const open = unmapped.filter((p) => p.status !== 'completed' && p.status !== 'skipped');
  return [...kept, ...open.map((p) => `${BATON_TASK}${p.id} (${p.name}): ${p.status.replace('_', ' ')}`)];
}

/** What a baton session holds that Go Team's layout cannot: said in the export's output. */
export function notRepresented(
  state: SessionState,
  pos: Position,
  id: string,
  stateRel: string,
  imported: boolean,
): FormatProblem[] {
  const out: FormatProblem[] = [];
  if (pos.unmapped.length > 0) {
    const names = pos.unmapped.map((p) => `${p.id} (${p.status.replace('_', ' ')})`).join(', ');
    const at = STEPS[pos.currentStep - 1];
    out.push(
      problem(
        'NOT_REPRESENTED',
        'warning',
        `Go Team runs nine fixed steps (${STEPS.map((d) => d.name).join(', ')}); the baton phase(s) ${names} are none of them and were not placed on a step. Go Team will resume at step ${pos.currentStep} (${at?.name}); the phases not done are listed in ${stateRel} context.pending_tasks.`,
        {
          sessionId: id,
          path: stateRel,
          hint: "Name baton phases after Go Team's steps (e.g. --phases init,requirements,architecture) to export them as steps, or export to maestro, bmad or ccw, whose phases are free.",
          details: { phases: pos.unmapped.map((p) => p.id), currentStep: pos.currentStep },
        },
      ),
    );
  }
  const files = state.phases.reduce((n, p) => n + p.files.length, 0);
  const errors = state.phases.reduce((n, p) => n + p.errors.length, 0);
  // An imported session's files are its checkpoints' own (written back with them).
  if (!imported && files + errors > 0) {
    out.push(
      problem(
        'NOT_REPRESENTED',
        'info',
        `Go Team records files only in its checkpoints (git commits baton does not make) and keeps no error list: ${files} file record(s) and ${errors} error(s) of the session are not in the exported files.`,
        { sessionId: id, path: stateRel, details: { files, errors } },
      ),
    );
  }
  return out;
}

function tokenEntry(c: TokenCounts): Record<string, number> {
  return { input_tokens: c.input, output_tokens: c.output, cached_tokens: c.cached };
}

/**
 * Writes baton's token counts into go_team_state.token_metrics (the reader's first choice). A
 * breakdown baton does not hold (per-agent totals without input/output split, per-step
 * counts) is kept as found.
 */
export function writeTokenMetrics(
  ls: Record<string, unknown>,
  state: SessionState,
  docs: Record<string, unknown>,
): void {
  const t = state.tokens;
  const metricsKey = Object.keys(docs).find((k) => k.endsWith('metrics/session-metrics.json'));
  const metricsRec = metricsKey ? obj(obj(docs[metricsKey]).session) : null;
  if (ls.token_metrics === undefined && !metricsRec && t.input + t.output + t.cached === 0) return;
  const prev =
    ls.token_metrics !== undefined
      ? obj(ls.token_metrics)
      : metricsRec
        ? { by_agent: metricsRec.by_agent, by_step: metricsRec.by_step }
        : {};
  const byAgent: Record<string, unknown> = {};
  for (const [a, c] of Object.entries(t.byAgent)) if (a !== UNATTRIBUTED) byAgent[a] = tokenEntry(c);
  const tm: Record<string, unknown> = { ...prev, total_input: t.input, total_output: t.output, total_cached: t.cached };
  if (Object.keys(byAgent).length > 0) tm.by_agent = byAgent;
  if (tm.token_summary !== undefined)
    tm.token_summary = {
      ...obj(tm.token_summary),
      total_input: t.input,
      total_output: t.output,
      total_cached: t.cached,
      total_tokens: t.input + t.output,
    };
  const byStep: Record<string, unknown> = {};
  for (const [pid, c] of Object.entries(t.byPhase)) {
    const phase = state.phases.find((p) => p.id === pid);
    const n = phase ? stepOfPhase(phase) : stepOf(pid);
    const d = n === null ? null : STEPS[n - 1];
    if (d) byStep[`step-${String(d.n).padStart(2, '0')}-${d.name}`] = tokenEntry(c);
  }
  if (Object.keys(byStep).length > 0) tm.by_step = byStep;
  for (const k of Object.keys(tm)) if (tm[k] === undefined) delete tm[k];
  ls.token_metrics = tm;
}

/** baton's cost budget where Go Team's `*budget:set` keeps it (token-tracking.md's metrics.cost.budget). */
export function writeCostBudget(ls: Record<string, unknown>, state: SessionState): void {
  const usd = state.tokens.costBudgetUsd ?? null;
  const cost = obj(obj(ls.metrics).cost);
  if (usd !== null || (cost.budget ?? null) !== null)
    ls.metrics = { ...obj(ls.metrics), cost: { ...cost, budget: usd } };
}

/**
 * Refuses (`BAD_INPUT`, nothing written) a session not imported from Go Team none of whose
 * phases is a Go Team step: Go Team would start it over at step 1, which is no export of it.
 */
export function checkMappable(state: SessionState, pos: Position, imported: boolean): void {
  if (imported || state.phases.length === 0 || pos.unmapped.length < state.phases.length) return;
  throw new BatonError(
    'BAD_INPUT',
    `Go Team runs nine fixed steps (${STEPS.map((d) => d.name).join(', ')}); none of the phases of ${state.id} (${state.phases.map((p) => p.id).join(', ')}) is one of them, so Go Team could resume none of it. Nothing was written.`,
    {
      hint: "Name the phases after Go Team's steps (e.g. --phases init,requirements,architecture), or export to maestro, bmad or ccw, whose phases are free.",
      details: { phases: state.phases.map((p) => p.id) },
    },
  );
}
