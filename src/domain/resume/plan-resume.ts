/**
 * The resume plan: what the next agent or person needs to pick up a session that stopped,
 * computed from the session state and facts the caller measured (workspace hashes,
 * checkpoints, whether the plan file changed). Pure: no I/O, no clock, no environment.
 *
 * The rules (docs/architecture.md, docs/formats.md): resume by sub-step
 * (none ⇒ restart the phase), escalate past the retry limit instead of retrying, detect
 * edits made outside the session, and offer checkpoint / live / fresh recovery with what
 * each loses and a recommendation.
 */
import { continueWith, resumeStep } from '../agents/agent-sessions.js';
import { effectiveStatus, leaseExpired, leaseOf } from '../runs/lease.js';
import { list, plural } from '../phrasing.js';
import { checkFiles } from './resume-files.js';
import { outsideEdits } from './resume-outside.js';
import { alteredOutside, planRecovery } from './resume-recovery.js';
import type { PlannedRecovery } from './resume-recovery.js';
import { ESCALATION_CHOICES, ESCALATION_WORDS } from './resume-plan-types.js';
import { hint } from '../hints.js';
import {
  toolkitInFlight,
  toolkitNext,
  toolkitRecommendation,
  toolkitResume,
  toolkitWarnings,
} from './resume-toolkit.js';
import { toolkitRulesOf } from '../toolkits/toolkit-rules.js';
import { toolkitTokenNotes } from '../toolkits/toolkit-tokens.js';
import type {
  BlockedPhase,
  CompletedPhase,
  FailedPhase,
  FilesReport,
  InFlightPhase,
  NextPlan,
  OpenBlocker,
  OpenError,
  PhaseRef,
  ResumeInput,
  ResumePlan,
} from './resume-plan-types.js';
import type { Phase, PhaseStatus, SessionState } from '../state.js';

const DONE: readonly PhaseStatus[] = ['completed', 'skipped'];

function ref(p: Phase): PhaseRef {
  return { phaseId: p.id, name: p.name };
}

function openErrors(p: Phase): OpenError[] {
  return p.errors
    .filter((e) => !e.resolved)
    .map((e) => ({ id: e.id, type: e.type, message: e.message, agent: e.agent, time: e.time }));
}

function openBlockers(s: SessionState, p: Phase): OpenBlocker[] {
  const out: OpenBlocker[] = [];
  for (const b of p.blockedBy) {
    const dep = s.phases.find((x) => x.id === b);
    if (!dep) out.push({ phaseId: b, status: 'missing' });
    else if (!DONE.includes(dep.status)) out.push({ phaseId: b, status: dep.status });
  }
  return out;
}

function planNext(s: SessionState, resumable: boolean, inFlight: InFlightPhase[], failed: FailedPhase[]): NextPlan {
  if (!resumable) return { steps: [], reason: notResumableReason(s) };
  if (inFlight.length) {
    return {
      steps: inFlight.map((p) => ({
        phaseId: p.phaseId,
        name: p.name,
        action: p.resumeAt === 'substep' ? 'resume' : 'restart',
        subStep: p.subStep,
        reason:
          p.resumeAt === 'substep'
            ? `in progress when the session stopped; resume at sub-step "${p.subStep}"`
            : 'in progress when the session stopped, with no sub-step recorded: restart the phase',
      })),
      reason: `${inFlight.length === 1 ? 'Phase' : 'Phases'} ${list(inFlight.map((p) => p.phaseId))} ${inFlight.length === 1 ? 'was' : 'were'} in flight: finish ${inFlight.length === 1 ? 'it' : 'them'} before anything else.`,
    };
  }
  const retry = failed.filter((p) => p.retriesLeft > 0);
  if (retry.length) {
    return {
      steps: retry.map((p) => ({
        phaseId: p.phaseId,
        name: p.name,
        action: 'retry',
        subStep: null,
        reason: `failed${p.failureReason ? ` (${p.failureReason})` : ''}; ${plural(p.retriesLeft, 'retry', 'retries')} left of ${p.maxRetries}`,
      })),
      reason: `Nothing is in flight; ${retry.length === 1 ? 'phase' : 'phases'} ${list(retry.map((p) => p.phaseId))} failed with retries left.`,
    };
  }
  const ready = s.phases.filter((p) => p.status === 'pending' && openBlockers(s, p).length === 0);
  const first = ready[0];
  if (first) {
    const group = first.parallelGroup === null ? [first] : ready.filter((p) => p.parallelGroup === first.parallelGroup);
    return {
      steps: group.map((p) => ({
        ...ref(p),
        action: 'start',
        subStep: null,
        reason:
          p === first
            ? p.blockedBy.length
              ? `first pending phase; its blockers ${list(p.blockedBy)} are done`
              : 'first pending phase, not blocked'
            : `runs in parallel group "${p.parallelGroup}" with ${first.id}`,
      })),
      reason:
        group.length === 1
          ? `Nothing is in flight or waiting for a retry; ${first.id} is the first pending phase that is not blocked.`
          : `Nothing is in flight or waiting for a retry; ${list(group.map((p) => p.id))} form parallel group "${first.parallelGroup}", the first pending work that is not blocked.`,
    };
  }
  const escalate = failed.filter((p) => p.escalation);
  if (escalate.length) {
    return {
      steps: escalate.map((p) => ({
        phaseId: p.phaseId,
        name: p.name,
        action: 'escalate',
        subStep: null,
        reason: `failed after ${p.retryCount} of ${p.maxRetries} retries: the user decides: ${ESCALATION_WORDS}`,
      })),
      reason: `No phase can proceed: ${list(escalate.map((p) => p.phaseId))} used all retries and need${escalate.length === 1 ? 's' : ''} a decision.`,
    };
  }
  if (s.phases.length === 0) return { steps: [], reason: 'The session has no phases.' };
  if (s.phases.every((p) => DONE.includes(p.status))) {
    return { steps: [], reason: 'All phases are completed or skipped: the session only needs to be marked completed.' };
  }
  const stuck = s.phases.filter((p) => p.status === 'pending').map((p) => p.id);
  return { steps: [], reason: `No phase can start: ${list(stuck)} ${stuck.length === 1 ? 'is' : 'are'} blocked.` };
}

function notResumableReason(s: SessionState): string {
  const rules = toolkitRulesOf(s);
  if (rules?.refuse && !s.archived && s.status !== 'completed' && s.status !== 'abandoned')
    return `${rules.toolkit} does not resume this session: ${rules.refuse}`;
  if (s.status === 'completed') return 'The session is completed: nothing to resume.';
  if (s.status === 'abandoned') return 'The session was abandoned: nothing to resume.';
  return 'The session is archived: nothing to resume.';
}

/** Phases in progress (plan order): where each resumes, by sub-step or from the start. */
function inFlightPhases(s: SessionState): InFlightPhase[] {
  return s.phases
    .filter((p) => p.status === 'in_progress')
    .map((p) => {
      const last = p.subSteps[p.subSteps.length - 1];
      return {
        ...ref(p),
        subStep: p.subStep,
        subStepAt: p.subStep !== null && last && last.name === p.subStep ? last.at : null,
        resumeAt: p.subStep !== null ? 'substep' : 'restart',
        startedAt: p.startedAt,
        agents: [...p.agents],
        retryCount: p.retryCount,
        maxRetries: p.maxRetries,
        unresolvedErrors: openErrors(p),
        ...(p.steps ? { steps: p.steps.map((x) => ({ ...x })), resumeStep: resumeStep(p.steps) } : {}),
      };
    });
}

/** Failed phases (plan order), with the retries left or the escalation past the limit. */
function failedPhases(s: SessionState): FailedPhase[] {
  return s.phases
    .filter((p) => p.status === 'failed')
    .map((p) => {
      const retriesLeft = Math.max(0, p.maxRetries - p.retryCount);
      return {
        ...ref(p),
        failedAt: p.failedAt,
        failureReason: p.failureReason,
        unresolvedErrors: openErrors(p),
        retryCount: p.retryCount,
        maxRetries: p.maxRetries,
        retriesLeft,
        escalation:
          retriesLeft > 0
            ? null
            : {
                reason: `Phase ${p.id} failed after using ${p.retryCount} of ${p.maxRetries} retries; it is not retried automatically.`,
                choices: [...ESCALATION_CHOICES],
                hint: hint('phase.escalate', {
                  session: s.id,
                  phase: p.id,
                  maxRetries: p.maxRetries,
                  active: s.status === 'active',
                }),
              },
      };
    });
}

/** What {@link planWarnings} reads. */
interface WarningFacts {
  s: SessionState;
  status: ResumePlan['status'];
  lease: ResumePlan['lease'];
  resumable: boolean;
  files: FilesReport;
  planned: PlannedRecovery;
  failed: FailedPhase[];
  planChanged: boolean | null;
}

/** The plan's warnings, for people, in a fixed order. */
function planWarnings({ s, status, lease, resumable, files, planned, failed, planChanged }: WarningFacts): string[] {
  const warnings: string[] = [];
  const { touchedDone } = planned;
  const { fallback } = planned.recovery;
  if (s.archived && s.status !== 'completed' && s.status !== 'abandoned')
    warnings.push('The session is archived: nothing to resume.');
  if (s.status === 'completed') warnings.push('The session is completed: nothing to resume.');
  if (s.status === 'abandoned') warnings.push('The session was abandoned: nothing to resume.');
  if (resumable && status === 'failed') warnings.push('The session is marked failed; resuming reopens it.');
  if (resumable && lease && !lease.expired) {
    warnings.push(
      `The session's lease is held by ${lease.owner} (pid ${lease.pid} on ${lease.host}) until ${lease.expiresAt}: another writer may still be working on it.`,
    );
  } else if (resumable && status === 'active') {
    warnings.push('The session is marked active: make sure no other agent is still working on it.');
  }
  if (resumable && s.phases.length > 0 && s.phases.every((p) => DONE.includes(p.status))) {
    warnings.push('All phases are completed or skipped: the session only needs to be marked completed.');
  }
  for (const g of files.byPhase) {
    if (!g.possiblyHalfWritten) continue;
    warnings.push(
      `Phase ${g.phaseId} was in flight: its ${plural(g.files.length, 'file')} may be half-written (${list(g.files.map((f) => f.path))}); check ${g.files.length === 1 ? 'it' : 'them'} before continuing.`,
    );
  }
  for (const g of touchedDone) {
    const n = g.files.filter((f) => alteredOutside(f.kind)).length;
    warnings.push(
      `${plural(n, 'file')} of completed phase ${g.phaseId} changed, vanished or reappeared outside the session.`,
    );
  }
  const otherTouched = files.byPhase.filter((g) => !g.possiblyHalfWritten && !touchedDone.includes(g));
  for (const g of otherTouched) {
    const where =
      g.phaseId === null ? 'recorded without a phase' : `of ${g.phaseStatus?.replace('_', ' ')} phase ${g.phaseId}`;
    warnings.push(
      `${plural(g.files.length, 'file')} ${where} differ${g.files.length === 1 ? 's' : ''} from the record: ${list(g.files.map((f) => `${f.path} (${f.kind})`))}.`,
    );
  }
  if (files.newFiles.length)
    warnings.push(`${plural(files.newFiles.length, 'new file')} appeared in the workspace since the session started.`);
  if (planChanged === true)
    warnings.push('The plan file changed since the session started: check that the phases still match it.');
  if (files.unmeasured.length)
    warnings.push(
      `${plural(files.unmeasured.length, 'recorded file')} could not be compared (not measured): ${list(files.unmeasured)}.`,
    );
  if (fallback) {
    const names = list(fallback.skipped.map((c) => `${c.id}${c.problem ? ` (${c.problem})` : ''}`));
    warnings.push(
      fallback.offered
        ? `Corrupt checkpoint ${names} skipped; offering the previous valid checkpoint ${fallback.offered.id} instead.`
        : `Corrupt checkpoint ${names} skipped; no valid checkpoint is left.`,
    );
  }
  for (const f of failed)
    if (f.escalation) warnings.push(`${f.escalation.reason} The user decides: ${ESCALATION_WORDS}.`);
  return warnings;
}

/**
 * Computes the resume plan of a session. Changes nothing.
 *
 * Recommendation rule (nothing is recommended for a completed, abandoned or archived
 * session): always **live**, the only option that keeps the work of in-flight phases. Its
 * reason says what to look at first: files of *completed* phases that changed, vanished or
 * reappeared since they were recorded (work counted as done was altered outside the session:
 * {@link ResumePlan.outsideEdits} gives the choices, accept, put back with git or keep going),
 * or the warnings (half-written files of in-flight phases, new files, a changed plan). A
 * checkpoint is never recommended for outside edits: restoring it puts back the session's
 * record, not the files, so the plan after it would report the same edits.
 *
 * 'fresh' is never recommended: it is offered, with what it loses, for a person to choose.
 */
export function planResume(input: ResumeInput): ResumePlan {
  const s = input.state;
  const { status, cause: statusCause } = effectiveStatus(s, input.now, input.dead);
  const held = leaseOf(s);
  const lease = held
    ? {
        owner: held.owner,
        pid: held.pid,
        host: held.host,
        token: held.token,
        expiresAt: held.expiresAt,
        expired: leaseExpired(held, input.now),
      }
    : null;
  const rules = toolkitRulesOf(s);
  const resumable = !s.archived && status !== 'completed' && status !== 'abandoned' && !rules?.refuse;

  let lastCompleted: CompletedPhase | null = null;
  for (const p of s.phases) if (p.status === 'completed') lastCompleted = { ...ref(p), completedAt: p.completedAt };
  const inFlight = inFlightPhases(s);
  if (rules) toolkitInFlight(inFlight, rules);
  const failed = failedPhases(s);
  const blocked: BlockedPhase[] = s.phases
    .filter((p) => p.status === 'pending')
    .map((p) => ({ ...ref(p), openBlockers: openBlockers(s, p) }))
    .filter((p) => p.openBlockers.length > 0);

  const baseNext = planNext(s, resumable, inFlight, failed);
  const next = rules ? toolkitNext(baseNext, rules, failed, s, resumable) : baseNext;
  const files = checkFiles(s, input);
  const planned = planRecovery(s, input, inFlight, files, resumable, rules?.recommended?.checkpoint ?? null);
  const own = planWarnings({ s, status, lease, resumable, files, planned, failed, planChanged: input.planChanged });
  // The toolkit's rules come first; its required steps replace "only needs to be marked completed".
  const warnings = rules
    ? [
        ...toolkitWarnings(rules),
        ...toolkitTokenNotes(s).warnings,
        ...own.filter((w) => !(rules.required.length && w.startsWith('All phases are completed or skipped'))),
      ]
    : own;
  const rec = rules ? toolkitRecommendation(rules, planned.recovery, planned.touchedDone, s) : null;
  if (rec) planned.recovery.recommended = resumable ? rec.recommended : null;

  return {
    sessionId: s.id,
    title: s.title,
    revision: s.revision,
    generatedAt: input.now,
    status,
    statusCause,
    lease,
    resumable,
    lastCompleted,
    inFlight,
    failed,
    blocked,
    next,
    files,
    planChanged: input.planChanged,
    recovery: planned.recovery,
    outsideEdits: resumable ? outsideEdits(s, planned.touchedDone, status, input.gitCopies) : null,
    warnings,
    ...(s.agentSessions?.length ? { continueWith: continueWith(s) } : {}),
    ...(rules && rec ? { toolkit: toolkitResume(rules, rec, toolkitTokenNotes(s).lines) } : {}),
  };
}
