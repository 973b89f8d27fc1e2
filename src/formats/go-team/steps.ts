/**
 * Go Team's fixed workflow (seed 001, workflow.md): nine steps, three of which carry a "b"
 * sub-step, and a review loop of at most three iterations inside step 6. Checkpoint ids are
 * matched to steps by their `cp-<NN>` prefix, never by exact id, because the toolkit's own
 * documents disagree on the rest of the name (docs/formats/go-team.md).
 */

/** One of the nine steps. */
export interface StepDef {
  n: number;
  name: string;
  agents: string[];
  /** Name of the "b" sub-step (1b, 5b, 8b), if the step has one. */
  sub: string | null;
}

export const STEPS: readonly StepDef[] = [
  { n: 1, name: 'init', agents: ['orchestrator'], sub: 'codebase-analysis' },
  { n: 2, name: 'requirements', agents: ['pm-agent'], sub: null },
  { n: 3, name: 'architecture', agents: ['architect-agent'], sub: null },
  { n: 4, name: 'implementation', agents: ['go-coder-agent'], sub: null },
  { n: 5, name: 'testing', agents: ['test-agent', 'security-agent'], sub: 'security' },
  { n: 6, name: 'review', agents: ['reviewer-agent', 'go-coder-agent', 'test-agent'], sub: null },
  { n: 7, name: 'optimization', agents: ['optimizer-agent'], sub: null },
  { n: 8, name: 'release', agents: ['devops-agent'], sub: 'documentation' },
  { n: 9, name: 'synthesis', agents: ['orchestrator'], sub: null },
];

export const TOTAL_STEPS = 9;
/** The review loop (step 6) runs at most this many iterations (`max_iterations`). */
export const REVIEW_MAX_ITERATIONS = 3;
/** Auto-save interval and the silence after which an `active` session counts as interrupted. */
export const AUTO_SAVE_SECONDS = 30;
export const HEARTBEAT_LIMIT_SECONDS = 60;

/** What a checkpoint id says about its step. */
export interface CheckpointIdInfo {
  step: number;
  /** `"5b"` for a sub-step checkpoint, `"review-2"` / `"review-final"` inside step 6, else null. */
  subStep: string | null;
  /** True for a review-iteration checkpoint (`cp-06-review-2`): it does not complete step 6. */
  iteration: boolean;
}

/**
 * Parses `cp-03-architecture`, `cp-04-implementation-20251228-214500`, `cp-05b-security`,
 * `cp-06-review-2`, `cp-06-review-final`, `cp-09-synthesis-final`, `cp-4-…`; null when the
 * id does not start with `cp-<step>`.
 */
export function parseCheckpointId(id: string): CheckpointIdInfo | null {
  const m = /^cp-0*(\d{1,2})([a-z])?(?:-(.*))?$/.exec(id);
  if (!m) return null;
  const step = Number(m[1]);
  if (step < 1 || step > TOTAL_STEPS) return null;
  const rest = m[3] ?? '';
  if (m[2]) return { step, subStep: `${step}${m[2]}`, iteration: false };
  if (step === 6) {
    const it = /^review-(\d{1,3})(?:-|$)/.exec(rest);
    if (it && !/^review-\d{8}-\d{6}$/.test(rest)) return { step, subStep: `review-${Number(it[1])}`, iteration: true };
    if (/^review-final(?:-|$)/.test(rest)) return { step, subStep: 'review-final', iteration: false };
  }
  return { step, subStep: null, iteration: false };
}

/** The step a `step_number` / `current_step` value names (1–9, also "5b" → 5), or null. */
export function stepOf(v: unknown): number | null {
  if (typeof v === 'number' && Number.isInteger(v) && v >= 1 && v <= TOTAL_STEPS) return v;
  if (typeof v === 'string') {
    const m = /^0*(\d{1,2})([a-z])?$/.exec(v.trim());
    if (m) return stepOf(Number(m[1]));
  }
  return null;
}

/** Sub-step named by a live `state.phase` inside `step` (e.g. "security" in step 5 → "5b"). */
export function subStepOfPhase(step: number, phase: string | null, iteration: number | null): string | null {
  const def = STEPS[step - 1];
  if (!def) return null;
  if (def.sub && phase?.toLowerCase().replace(/[_\s]/g, '-').includes(def.sub)) return `${step}b`;
  if (step === 6 && iteration !== null && iteration > 0) return `review-${iteration}`;
  return null;
}
