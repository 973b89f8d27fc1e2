/**
 * The resume briefing a SessionStart hook hands the agent CLI as additional context: where
 * to resume, the plan's steps, retries left, unresolved errors, changes made outside the
 * session and the next actions, in plain text of bounded size. Pure and deterministic.
 */
import { formatResumeCost } from '../spend/resume-cost.js';
import { resumeStep, stepsText } from '../agents/agent-sessions.js';
import { nextActions } from './handoff.js';
import type { ResumePlan } from './resume-plan-types.js';
import { runLabel } from '../runs/runs.js';
import type { Run } from '../runs/runs.js';
import type { Phase, PlanStep, SessionState } from '../state.js';

/** Default size bound of the briefing, in characters (the CLIs cap additional context near 10,000). */
export const BRIEFING_MAX_CHARS = 6000;

/** Input of {@link briefing}. */
export interface BriefingInput {
  plan: ResumePlan;
  state: SessionState;
  /** SessionStart's source: startup, resume, clear, compact. */
  source: string;
  cli: string;
  agentSessionId: string;
  maxChars?: number;
  /** The session's runs as known now: those live (other than this conversation's) and those that died. */
  runs?: { live: Run[]; dead: Run[] };
}

/** The steps of a phase, else what was salvaged from the dead run that owned it. */
function phaseSteps(s: SessionState, p: Phase | undefined): readonly PlanStep[] | null {
  if (!p) return null;
  if (p.steps?.length) return p.steps;
  const dead = [...(s.runs ?? [])]
    .reverse()
    .find((r) => r.ended?.how === 'died' && (p.owner === r.id || r.phases.includes(p.id)) && r.salvage?.steps?.length);
  return dead?.salvage?.steps ?? null;
}

/** The phase a run works on (the last it started or claimed still in progress, else the last it had). */
function runPhase(s: SessionState, r: Run): Phase | undefined {
  const owned = s.phases.filter((p) => p.owner === r.id && p.status === 'in_progress');
  return owned.at(-1) ?? s.phases.find((p) => p.id === r.phases.at(-1));
}

/** Lines naming the other live runs and the dead ones: who, on which phase and step, what a dead one wrote last. */
function runLines(s: SessionState, runs: { live: Run[]; dead: Run[] }): string[] {
  const out: string[] = [];
  const at = (r: Run): string => {
    const p = runPhase(s, r);
    const steps = phaseSteps(s, p);
    const step = steps ? resumeStep(steps) : null;
    return p ? ` on phase ${p.id}${step ? `, step "${step.name}"` : ''}` : '';
  };
  if (runs.live.length)
    out.push(
      'Other agents working now (do not take their phases or write their files):',
      ...runs.live.map((r) => `  ${runLabel(r)}${at(r)}`),
    );
  for (const r of runs.dead) {
    const files = s.phases
      .flatMap((p) => p.files)
      .filter((f) => f.run === r.id)
      .sort((a, b) => (a.recordedAt < b.recordedAt ? -1 : 1))
      .slice(-5)
      .map((f) => f.path);
    const tools = r.salvage?.lastTools?.length
      ? `; its last tool calls: ${r.salvage.lastTools.slice(-3).join(', ')}`
      : '';
    out.push(
      `A run died: ${runLabel(r)} at ${r.ended?.at ?? '?'} (${r.ended?.cause ?? 'died'})${at(r)}; files it wrote last: ${files.length ? files.join(', ') : 'none'}${tools}. Resume its work where it stopped.`,
    );
  }
  return out;
}

function stepLines(steps: readonly PlanStep[]): string[] {
  return stepsText(steps, resumeStep(steps));
}

/** The briefing text (ends with a newline, at most `maxChars` long). */
export function briefing(input: BriefingInput): string {
  const { plan, state: s } = input;
  const max = input.maxChars ?? BRIEFING_MAX_CHARS;
  const out: string[] = [];
  out.push(
    `[baton] This conversation works on baton session ${s.id} "${s.title.replace(/\s+/g, ' ')}" (revision ${s.revision}, ${plan.status}).`,
  );
  out.push(
    'Files you write, your todo list, sub-agents, failed tools and tokens are recorded by hooks; you need not call baton for them.',
  );
  if (input.source !== 'startup')
    out.push(`This is a ${input.source} of the conversation: continue where the session stands.`);
  const done = s.phases.filter((p) => p.status === 'completed' || p.status === 'skipped').length;
  if (input.runs) out.push(...runLines(s, input.runs));
  if (s.phases.length)
    out.push(
      `Progress: ${done} of ${s.phases.length} phases done; last completed: ${plan.lastCompleted ? `${plan.lastCompleted.phaseId} (${plan.lastCompleted.name})` : 'none'}.`,
    );
  for (const p of plan.inFlight) {
    const phase = s.phases.find((x) => x.id === p.phaseId);
    const steps = phaseSteps(s, phase);
    const step = steps ? resumeStep(steps) : null;
    const at = step
      ? `resume at step "${step.name}"`
      : p.resumeAt === 'substep'
        ? `resume at sub-step "${p.subStep}"`
        : 'no step recorded: restart the phase';
    out.push(
      `Where to resume: phase ${p.phaseId} (${p.name}), ${at}; retries ${p.retryCount} of ${p.maxRetries} used.`,
    );
    if (steps?.length) out.push(`Steps of ${p.phaseId}:`, ...stepLines(steps));
  }
  if (!plan.inFlight.length && s.steps?.length) out.push('Steps:', ...stepLines(s.steps));
  for (const f of plan.failed) {
    out.push(
      `Failed: phase ${f.phaseId} (${f.name}): ${f.escalation ? `retries exhausted (${f.retryCount}/${f.maxRetries}), escalate` : `${f.retriesLeft} retr${f.retriesLeft === 1 ? 'y' : 'ies'} left`}${f.failureReason ? ` — ${f.failureReason}` : ''}.`,
    );
  }
  const errors = [
    ...plan.inFlight.flatMap((p) => p.unresolvedErrors),
    ...plan.failed.flatMap((p) => p.unresolvedErrors),
  ];
  if (errors.length) {
    out.push('Unresolved errors:');
    for (const e of errors) out.push(`  ${e.id} ${e.type}: ${e.message.replace(/\s+/g, ' ')}`);
  }
  const outside = plan.files.byPhase.flatMap((g) =>
    g.files.filter((f) => f.kind !== 'unchanged').map((f) => `${f.path} (${f.kind})`),
  );
  if (outside.length) out.push(`Changed outside the session since recorded: ${outside.join(', ')}.`);
  if (plan.files.newFiles.length)
    out.push(`New files the session has not recorded: ${plan.files.newFiles.join(', ')}.`);
  // Other conversations of the session, and what continuing one would cost instead of starting afresh.
  for (const c of plan.continueWith ?? [])
    if (c.resumeCost && !(c.cli === input.cli && c.agentSessionId === input.agentSessionId))
      out.push(`Earlier conversation: \`${c.command}\`: ${formatResumeCost(c.resumeCost)}.`);
  const actions = nextActions(plan);
  if (actions.length) out.push('Next actions:', ...actions.map((a, i) => `  ${i + 1}. ${a.replace(/\s+/g, ' ')}`));
  return bound(out, max);
}

/** Joins lines, cutting whole lines past `max` characters with a note of what was left out. */
function bound(lines: string[], max: number): string {
  let text = '';
  for (let i = 0; i < lines.length; i++) {
    const line = `${lines[i]!.slice(0, Math.max(40, max - 100))}\n`;
    const tail = `… ${lines.length - i} more line${lines.length - i === 1 ? '' : 's'}: run \`baton resume\` for the full plan.\n`;
    if (text.length + line.length + (i < lines.length - 1 ? tail.length : 0) > max)
      return `${text}${tail}`.slice(0, max);
    text += line;
  }
  return text;
}
