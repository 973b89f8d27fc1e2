/**
 * The resume plan as text for people: `baton resume` without `--json`, the MCP `resume_plan`
 * tool's `text`, and the phrases the handoff shares. No colours; no decisions (those are in
 * plan-resume.ts).
 */
import { formatResumeCost } from '../spend/resume-cost.js';
import { stepsText } from '../agents/agent-sessions.js';
import type { Hint } from '../hints.js';
import { list } from '../phrasing.js';
import { ESCALATION_WORDS } from './resume-plan-types.js';
import type {
  FileCheck,
  NextStep,
  OutsideEdits,
  Recommendation,
  RecoveryOption,
  ResumePlan,
} from './resume-plan-types.js';
import type { SessionStatus, StatusCause } from '../state.js';

/** "lease-expired: pid 12 gone, at 2026-…". */
export function describeCause(cause: StatusCause): string {
  return `${cause.cause}${cause.detail ? `: ${cause.detail}` : ''}, at ${cause.at}`;
}

/** "held by A (pid 1 on h), token 3, until 2026-…" (or "expired at …"). */
export function describeLease(l: NonNullable<ResumePlan['lease']>): string {
  return `held by ${l.owner} (pid ${l.pid} on ${l.host}), token ${l.token}, ${l.expired ? 'expired at' : 'until'} ${l.expiresAt}`;
}

/** "interrupted (lease-expired: pid 12 gone, at 2026-…)". */
export function describeStatus(status: SessionStatus, cause: StatusCause | null): string {
  return cause ? `${status} (${describeCause(cause)})` : status;
}

/** One line per next step, shared with the handoff. */
export function describeNextStep(n: NextStep): string {
  switch (n.action) {
    case 'resume':
      return `Resume phase ${n.phaseId} (${n.name}) at sub-step "${n.subStep}"`;
    case 'restart':
      return `Restart phase ${n.phaseId} (${n.name}): no sub-step was recorded`;
    case 'retry':
      return `Retry phase ${n.phaseId} (${n.name}): ${n.reason}`;
    case 'start':
      return `Start phase ${n.phaseId} (${n.name})`;
    case 'escalate':
      return `Decide on phase ${n.phaseId} (${n.name}): ${n.reason}`;
    case 'review':
      return `Review phase ${n.phaseId} (${n.name}) before archiving: ${n.reason}`;
    case 'decide':
      return `Decide on error ${n.errorId ?? '?'} of phase ${n.phaseId} (${n.name}): ${n.reason}`;
  }
}

/** "changed", "vanished"… with the hashes, for people. */
export function describeFileCheck(f: FileCheck): string {
  const short = (h: string | null): string => (h === null ? 'none' : h.slice(0, 12));
  switch (f.kind) {
    case 'changed':
      return `changed (sha256 ${short(f.recordedSha256)} → ${short(f.currentSha256)})`;
    case 'vanished':
      return `vanished (recorded ${f.recordedAction}, missing now)`;
    case 'reappeared':
      return 'reappeared (recorded deleted, present now)';
    case 'unverified':
      return 'unverified (recorded without a hash)';
    case 'unchanged':
      return 'unchanged since recorded';
  }
}

function optionLine(o: RecoveryOption, recommended: Recommendation | null): string {
  const mark = recommended && recommended.kind === o.kind ? '*' : ' ';
  const label =
    o.kind === 'checkpoint' && o.checkpoint
      ? `checkpoint:${o.checkpoint.id} "${o.checkpoint.name}" (revision ${o.checkpoint.revision})`
      : o.kind;
  const body = o.available ? `loses ${o.loses.summary}` : o.notes.join(' ');
  const notes = o.available && o.notes.length ? ` — ${o.notes.join(' ')}` : '';
  return `  ${mark} ${label}: ${body}${notes}`;
}

/** How a surface words a hint (the CLI as a command, the MCP server as a tool call); null: it has no words for it. */
export type HintWords = (h: Hint) => string | null;

/**
 * The outside edits and the choices for them, one line each; with `words`, each choice is
 * followed by the surface's words for its actions. Shared with the handoff.
 */
export function describeOutsideEdits(e: OutsideEdits, words?: HintWords): { files: string[]; choices: string[] } {
  const files = e.phases.map((g) => `${g.phaseId}: ${list(g.files.map((f) => `${f.path} (${f.kind})`))}`);
  const choices = e.choices.map((c) => {
    const how = words ? c.hints.map(words).filter((w): w is string => w !== null) : [];
    return `${c.kind}: ${c.summary}${how.length ? ` ${how.join(' ')}` : ''}`;
  });
  return { files, choices };
}

/**
 * The plan as compact plain text for people (no colours). Ends with a newline. `words`
 * words the actions of the outside-edit choices and escalations for the caller's surface;
 * without it the choices are described without commands.
 */
export function renderResumePlan(plan: ResumePlan, words?: HintWords): string {
  const out: string[] = [];
  out.push(`Resume plan for ${plan.sessionId} "${plan.title}" (revision ${plan.revision})`);
  out.push(`Status: ${describeStatus(plan.status, plan.statusCause)}`);
  if (plan.lease) out.push(`Lease: ${describeLease(plan.lease)}`);
  out.push(
    `Last completed: ${plan.lastCompleted ? `${plan.lastCompleted.phaseId} (${plan.lastCompleted.name})` : 'none'}`,
  );
  if (plan.inFlight.length) {
    out.push('In flight:');
    for (const p of plan.inFlight) {
      out.push(
        `  ${p.phaseId} (${p.name}): ${p.resumeAt === 'substep' ? `resume at sub-step "${p.subStep}"` : 'no sub-step recorded, restart the phase'}`,
      );
      if (p.steps?.length) out.push(...stepsText(p.steps, p.resumeStep ?? null, '    '));
      for (const e of p.unresolvedErrors) out.push(`    ${e.id} ${e.type}: ${e.message}`);
    }
  }
  if (plan.failed.length) {
    out.push('Failed:');
    for (const p of plan.failed) {
      const retries = p.escalation
        ? `retries exhausted (${p.retryCount}/${p.maxRetries}): escalate`
        : `${p.retryCount}/${p.maxRetries} retries used, ${p.retriesLeft} left`;
      out.push(`  ${p.phaseId} (${p.name}): ${retries}${p.failureReason ? ` — ${p.failureReason}` : ''}`);
      for (const e of p.unresolvedErrors) out.push(`    ${e.id} ${e.type}: ${e.message}`);
      if (p.escalation) out.push(`    ${words?.(p.escalation.hint) ?? `The user decides: ${ESCALATION_WORDS}.`}`);
    }
  }
  if (plan.blocked.length) {
    out.push('Blocked:');
    for (const p of plan.blocked)
      out.push(
        `  ${p.phaseId} (${p.name}): waiting for ${list(p.openBlockers.map((b) => `${b.phaseId} (${b.status.replace('_', ' ')})`))}`,
      );
  }
  out.push(`Next: ${plan.next.reason}`);
  for (const n of plan.next.steps) out.push(`  → ${describeNextStep(n)}`);
  const f = plan.files;
  if (f.byPhase.length || f.newFiles.length || f.unmeasured.length) {
    out.push('Files:');
    for (const g of f.byPhase) {
      const head = g.phaseId === null ? '(no phase)' : `${g.phaseId} (${g.phaseStatus?.replace('_', ' ')})`;
      out.push(`  ${head}${g.possiblyHalfWritten ? ' — possibly half-written' : ''}:`);
      for (const x of g.files) out.push(`    ${x.path}: ${describeFileCheck(x)}`);
    }
    if (f.newFiles.length) out.push(`  new: ${list(f.newFiles)}`);
    if (f.unmeasured.length) out.push(`  not measured: ${list(f.unmeasured)}`);
  } else {
    out.push('Files: no changes outside the session.');
  }
  if (plan.outsideEdits) {
    const e = describeOutsideEdits(plan.outsideEdits, words);
    out.push('Outside edits (files of completed phases changed outside the session):');
    for (const f of e.files) out.push(`  ${f}`);
    out.push('  Choose:');
    for (const c of e.choices) out.push(`    - ${c}`);
  }
  out.push(
    `Plan file: ${plan.planChanged === null ? 'unknown' : plan.planChanged ? 'changed since the start' : 'unchanged'}`,
  );
  out.push('Recovery options:');
  for (const o of plan.recovery.options) out.push(optionLine(o, plan.recovery.recommended));
  for (const c of plan.recovery.corruptCheckpoints) {
    out.push(
      `  corrupt: ${c.id}${c.name !== c.id ? ` "${c.name}"` : ''}${c.revision !== null ? ` (revision ${c.revision})` : ''}${c.superseded ? ' (superseded)' : ''}${c.problem ? `: ${c.problem}` : ''}`,
    );
  }
  out.push(
    plan.recovery.recommended
      ? `Recommended: ${plan.recovery.recommended.from} — ${plan.recovery.recommended.reason}`
      : 'Recommended: none (nothing to resume)',
  );
  const t = plan.toolkit;
  if (t) {
    // An imported session: what its toolkit's rules decided.
    out.push(`Toolkit (${t.toolkit}): ${toolkitLine(t)}`);
    // Its notes: git targets, uncommitted changes, the task to resume at…
    for (const n of t.notes) out.push(`  ${n}`);
    for (const line of t.tokens ?? []) out.push(`  ${line}`);
  }
  if (plan.warnings.length) {
    out.push('Warnings:');
    for (const w of plan.warnings) out.push(`  ! ${w}`);
  }
  if (plan.continueWith?.length) {
    out.push('Continue the conversation:');
    for (const c of plan.continueWith)
      out.push(
        `  ${c.command}${c.ended ? ' (ended)' : ''}${c.model ? ` — ${c.model}` : ''}${c.resumeCost ? `: ${formatResumeCost(c.resumeCost)}` : ''}`,
      );
  }
  return `${out.join('\n')}\n`;
}

/** What the toolkit's rules decided, on one line (shared with the handoff). */
export function toolkitLine(t: NonNullable<ResumePlan['toolkit']>): string {
  const rec = t.recommended
    ? `recommends ${t.recommended.kind}${t.recommended.checkpoint ? ` ${t.recommended.checkpoint}` : ''}`
    : 'has no recovery recommendation';
  return `${t.refused ? `does not resume it (${t.refused})` : `${rec}${t.followed === true ? ', followed' : t.departure ? `; baton departs: ${t.departure}` : ''}`}${t.choices.length ? `; choices: ${t.choices.join(', ')}` : ''}`;
}
