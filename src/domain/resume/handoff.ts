/**
 * The handoff: a Markdown briefing for the next agent or person, built only from the
 * session state and its resume plan (nothing is invented). Pure and deterministic: the
 * same input always gives the same text.
 */
import { formatResumeCost } from '../spend/resume-cost.js';
import { ESCALATION_WORDS } from './resume-plan-types.js';
import type { FileCheck, ResumePlan } from './resume-plan-types.js';
import {
  describeCause,
  describeFileCheck,
  describeLease,
  describeNextStep,
  describeOutsideEdits,
  toolkitLine,
} from './render-resume.js';
import type { Phase, PhaseStatus, SessionState, TokenCounts } from '../state.js';
import { stepsText } from '../agents/agent-sessions.js';
import { stepOutcome } from '../durable-steps.js';
import { sessionBudget, toolkitTokenNotes } from '../toolkits/toolkit-tokens.js';
import { formatCost } from '../spend/cost.js';
import type { Cost, CostReport } from '../spend/cost.js';

/** Input of {@link renderHandoff}. */
export interface HandoffInput {
  state: SessionState;
  /** The resume plan of the same state (from `planResume`). */
  plan: ResumePlan;
  /** ISO time shown as the generation time. */
  now: string;
  /** Estimated cost of the token use (none: not shown); or why it could not be estimated. */
  cost?: CostReport | { problem: string } | null;
}

/** Phase indicators (Maestro's): ✓ completed, ○ in progress, ✗ failed, □ pending, – skipped. */
export const HANDOFF_INDICATORS: Readonly<Record<PhaseStatus, string>> = {
  completed: '✓',
  in_progress: '○',
  failed: '✗',
  pending: '□',
  skipped: '–',
};

/** How many of the latest notes the handoff shows. */
export const HANDOFF_NOTES = 10;

/** Escapes a table cell: `|` → `\|`, line breaks → `<br>`. */
export function escapeCell(text: string): string {
  return text.replace(/\|/g, '\\|').replace(/\r\n|\r|\n/g, '<br>');
}

/** Free text inside a list item: continuation lines are indented so the item stays one item. */
function inline(text: string): string {
  return text.replace(/\r\n|\r|\n/g, '\n  ');
}

/** A path as inline code, with a longer fence when the path holds backticks. */
function code(text: string): string {
  const runs = text.match(/`+/g) ?? [];
  const longest = runs.reduce((m, r) => Math.max(m, r.length), 0);
  const fence = '`'.repeat(longest + 1);
  const pad = longest > 0 ? ' ' : '';
  return `${fence}${pad}${text.replace(/\r\n|\r|\n/g, ' ')}${pad}${fence}`;
}

function num(n: number): string {
  return String(n).replace(/\B(?=(\d{3})+(?!\d))/g, ',');
}

function counts(t: TokenCounts): string {
  return `${num(t.input)} in / ${num(t.output)} out / ${num(t.cached)} cached${t.cacheWrite ? ` / ${num(t.cacheWrite)} cache write` : ''}`;
}

function phaseLabel(s: SessionState, id: string | null): string {
  if (id === null) return '(no phase)';
  const p = s.phases.find((x) => x.id === id);
  return p && p.name !== p.id ? `${p.id} (${p.name})` : id;
}

function by(parts: Array<string | null | undefined>): string {
  const kept = parts.filter((x): x is string => typeof x === 'string' && x !== '');
  return kept.length ? ` (${kept.join(', ')})` : '';
}

function phaseRow(p: Phase): string {
  const cells = [
    p.id,
    p.name,
    `${HANDOFF_INDICATORS[p.status]} ${p.status.replace('_', ' ')}`,
    p.agents.join(', '),
    `${p.retryCount}/${p.maxRetries}`,
    p.subStep ?? '',
  ];
  return `| ${cells.map(escapeCell).join(' | ')} |`;
}

function fileLine(f: FileCheck): string {
  return `${code(f.path)} — ${describeFileCheck(f)}`;
}

/** Appends a `## title` section heading to `out`. */
function section(out: string[], title: string): void {
  out.push('', `## ${title}`, '');
}

/** Title, goal, status, phases and where to resume. */
function renderPosition(out: string[], { state: s, plan, now }: HandoffInput): void {
  out.push(`# Handoff: ${s.title.replace(/\r\n|\r|\n/g, ' ')}`, '');
  out.push(`Session ${code(s.id)} · revision ${s.revision} · generated ${now}`);

  section(out, 'Goal');
  out.push(
    s.contextSummary && s.contextSummary.trim() !== '' ? s.contextSummary.trim() : '_No context summary recorded._',
  );

  section(out, 'Status');
  // The plan's status: an expired lease already reads as interrupted.
  out.push(
    `- Status: **${plan.status}**${plan.statusCause ? ` — ${inline(describeCause(plan.statusCause))}` : ''}${s.archived ? ' · archived' : ''}`,
  );
  if (plan.lease) out.push(`- Lease: ${describeLease(plan.lease)}`);
  const done = s.phases.filter((p) => p.status === 'completed' || p.status === 'skipped').length;
  out.push(`- Progress: ${done} of ${s.phases.length} phases done`);
  out.push(`- Resumable: ${plan.resumable ? 'yes' : `no — ${plan.next.reason}`}`);
  out.push(
    `- Plan file: ${plan.planChanged === null ? 'unknown whether it changed' : plan.planChanged ? 'changed since the session started' : 'unchanged since the session started'}`,
  );

  section(out, 'Phases');
  if (s.phases.length) {
    out.push('| id | name | status | agents | retries | sub-step |');
    out.push('|---|---|---|---|---|---|');
    for (const p of s.phases) out.push(phaseRow(p));
  } else {
    out.push('No phases.');
  }

  section(out, 'Where to resume');
  out.push(
    `- Last completed: ${plan.lastCompleted ? `${phaseLabel(s, plan.lastCompleted.phaseId)}${plan.lastCompleted.completedAt ? `, at ${plan.lastCompleted.completedAt}` : ''}` : 'none'}`,
  );
  for (const p of plan.inFlight) {
    out.push(
      `- In flight: ${phaseLabel(s, p.phaseId)} — ${p.resumeAt === 'substep' ? `resume at sub-step "${inline(p.subStep ?? '')}"` : 'no sub-step recorded, restart the phase'}`,
    );
    if (p.steps?.length)
      out.push(...stepsText(p.steps, p.resumeStep ?? null, '  - ').map((l) => l.replace(/\r\n|\r|\n/g, ' ')));
  }
  for (const c of plan.continueWith ?? [])
    out.push(
      `- Continue the ${c.cli} conversation: ${code(c.command)}${c.ended ? ' (it ended; this reopens it)' : ''}${c.resumeCost ? `: ${formatResumeCost(c.resumeCost)}` : ''}`,
    );
  for (const b of plan.blocked) {
    out.push(
      `- Blocked: ${phaseLabel(s, b.phaseId)} waits for ${b.openBlockers.map((x) => `${x.phaseId} (${x.status.replace('_', ' ')})`).join(', ')}`,
    );
  }
  out.push(`- Why: ${plan.next.reason}`);
  for (const n of plan.next.steps) out.push(`- → ${inline(describeNextStep(n))}`);
}

/** Unresolved errors, retries, decisions and open findings. */
function renderRecords(out: string[], { state: s, plan }: HandoffInput): void {
  section(out, 'Unresolved errors');
  const errors = s.phases.flatMap((p) => p.errors.filter((e) => !e.resolved));
  if (errors.length) {
    for (const e of errors)
      out.push(`- ${code(e.id)} [${e.phaseId}] ${inline(e.type)}: ${inline(e.message)}${by([e.agent, e.time])}`);
  } else {
    out.push('None.');
  }

  section(out, 'Retries');
  const retried = s.phases.filter((p) => p.retryCount > 0 || p.status === 'failed');
  if (retried.length) {
    for (const p of retried) {
      const left = Math.max(0, p.maxRetries - p.retryCount);
      const f = plan.failed.find((x) => x.phaseId === p.id);
      const tail = f?.escalation ? ` — escalate, the user decides: ${ESCALATION_WORDS}` : '';
      out.push(`- ${phaseLabel(s, p.id)}: ${p.retryCount} of ${p.maxRetries} used, ${left} left${tail}`);
    }
  } else {
    out.push('None used.');
  }

  section(out, 'Decisions');
  if (s.decisions.length) {
    for (const d of s.decisions) {
      out.push(
        `- **${inline(d.title)}**: ${inline(d.choice)}${by([d.id, d.phaseId ? `phase ${d.phaseId}` : null, d.agent])}`,
      );
      if (d.rationale) out.push(`  - Rationale: ${inline(d.rationale).replace(/\n {2}/g, '\n    ')}`);
      if (d.alternatives.length)
        out.push(`  - Alternatives: ${d.alternatives.map((a) => a.replace(/\r\n|\r|\n/g, ' ')).join('; ')}`);
    }
  } else {
    out.push('None recorded.');
  }

  section(out, 'Open findings');
  const findings = s.findings.filter((f) => !f.removed);
  if (findings.length) {
    for (const f of findings)
      out.push(
        `- ${f.severity ? `[${f.severity}] ` : ''}${inline(f.text)}${by([f.id, f.phaseId ? `phase ${f.phaseId}` : null, f.agent])}`,
      );
  } else {
    out.push('None.');
  }
}

/** Durable steps (`manager.steps`), only when there are some: a completed one is not run again; a running one may be half done. */
function renderSteps(out: string[], { state: s }: HandoffInput): void {
  if (!s.durableSteps?.length) return;
  section(out, 'Durable steps');
  for (const d of s.durableSteps)
    out.push(`- ${code(d.key)}${d.phaseId ? ` [${d.phaseId}]` : ''}: ${stepOutcome(d, inline)}`);
}

/** Files recorded per phase, and those changed outside the session. */
function renderFiles(out: string[], { state: s, plan }: HandoffInput): void {
  section(out, 'Files');
  out.push('Recorded by the session, per phase:', '');
  const recorded = s.phases.filter((p) => p.files.length);
  if (recorded.length) {
    for (const p of recorded) {
      const files = [...p.files].sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
      out.push(`- ${phaseLabel(s, p.id)}: ${files.map((f) => `${code(f.path)} ${f.action}`).join(', ')}`);
    }
  } else {
    out.push('- none');
  }
  out.push('', 'Changed outside the session (since recorded):', '');
  const fr = plan.files;
  // A file as recorded is not a change: the unchanged files of a phase in flight are listed apart.
  const changed = fr.byPhase
    .map((g) => ({ ...g, files: g.files.filter((f) => f.kind !== 'unchanged') }))
    .filter((g) => g.files.length);
  if (changed.length || fr.newFiles.length || fr.unmeasured.length) {
    for (const g of changed) {
      const head =
        g.phaseId === null ? '(no phase)' : `${phaseLabel(s, g.phaseId)}, ${g.phaseStatus?.replace('_', ' ')}`;
      out.push(`- ${head}${g.possiblyHalfWritten ? ' — possibly half-written' : ''}:`);
      for (const f of g.files) out.push(`  - ${fileLine(f)}`);
    }
    if (fr.newFiles.length) out.push(`- New files: ${fr.newFiles.map(code).join(', ')}`);
    if (fr.unmeasured.length) out.push(`- Not measured: ${fr.unmeasured.map(code).join(', ')}`);
  } else {
    out.push('- none detected');
  }
  const inFlight = fr.byPhase
    .map((g) => ({ ...g, files: g.files.filter((f) => f.kind === 'unchanged' && g.possiblyHalfWritten) }))
    .filter((g) => g.files.length);
  if (inFlight.length) {
    out.push('', 'Written by a phase in flight, as recorded (possibly half-written):', '');
    for (const g of inFlight)
      out.push(
        `- ${g.phaseId === null ? '(no phase)' : phaseLabel(s, g.phaseId)}: ${g.files.map((f) => code(f.path)).join(', ')}`,
      );
  }
}

/** Tokens and budget, milestones, artifacts and the last notes. */
function renderBookkeeping(out: string[], { state: s, cost }: HandoffInput): void {
  section(out, 'Tokens');
  const t = s.tokens;
  const b = sessionBudget(s);
  out.push(`- Used: ${counts(t)}`);
  out.push(
    b.max === null
      ? `- Budget: none set (${num(b.used)} counted)`
      : `- Budget: ${num(b.used)} of ${num(b.max)} (${b.percent}%, ${b.level})`,
  );
  const kit = toolkitTokenNotes(s);
  for (const line of [...kit.lines, ...kit.warnings]) out.push(`- ${line}`);
  const agents = Object.keys(t.byAgent).sort();
  if (agents.length) out.push(`- By agent: ${agents.map((a) => `${a} ${counts(t.byAgent[a]!)}`).join('; ')}`);
  const phaseIds = Object.keys(t.byPhase).sort((x, y) => {
    const ix = s.phases.findIndex((p) => p.id === x);
    const iy = s.phases.findIndex((p) => p.id === y);
    return ix !== iy ? (ix === -1 ? 1 : iy === -1 ? -1 : ix - iy) : x < y ? -1 : x > y ? 1 : 0;
  });
  if (phaseIds.length) out.push(`- By phase: ${phaseIds.map((p) => `${p} ${counts(t.byPhase[p]!)}`).join('; ')}`);
  costLines(out, cost ?? null);

  section(out, 'Milestones');
  if (s.milestones.length) {
    for (const m of s.milestones) {
      out.push(
        `- [${m.done ? 'x' : ' '}] ${inline(m.title)}${m.done ? (m.doneAt ? ` (done ${m.doneAt})` : '') : m.targetDate ? ` (target ${m.targetDate})` : ''}`,
      );
    }
  } else {
    out.push('None.');
  }

  section(out, 'Artifacts');
  if (s.artifacts.length) {
    for (const a of s.artifacts) {
      out.push(
        `- ${code(a.path)}${a.kind ? ` (${a.kind})` : ''}${a.description ? ` — ${inline(a.description)}` : ''}${by([a.phaseId ? `phase ${a.phaseId}` : null, a.agent])}`,
      );
    }
  } else {
    out.push('None.');
  }

  const notes = s.notes.slice(-HANDOFF_NOTES);
  section(out, s.notes.length > HANDOFF_NOTES ? `Notes (last ${HANDOFF_NOTES} of ${s.notes.length})` : 'Notes');
  if (notes.length) {
    for (const n of notes)
      out.push(`- ${n.time}${n.phaseId ? ` · ${n.phaseId}` : ''}${n.agent ? ` · ${n.agent}` : ''}: ${inline(n.text)}`);
  } else {
    out.push('None.');
  }
}

/** Recovery options, warnings and next actions. */
function renderRecovery(out: string[], { plan }: HandoffInput): void {
  section(out, 'Recovery options');
  const rec = plan.recovery.recommended;
  for (const o of plan.recovery.options) {
    const label =
      o.kind === 'checkpoint' && o.checkpoint
        ? `**checkpoint:${o.checkpoint.id}** "${o.checkpoint.name}" (revision ${o.checkpoint.revision})`
        : `**${o.kind}**`;
    const body = o.available ? `loses ${o.loses.summary}` : `unavailable — ${o.notes.join(' ')}`;
    const notesTail = o.available && o.notes.length ? ` ${o.notes.join(' ')}` : '';
    out.push(`- ${label}: ${body}.${notesTail}${rec && rec.kind === o.kind ? ' ← recommended' : ''}`);
  }
  for (const c of plan.recovery.corruptCheckpoints) {
    out.push(
      `- Corrupt checkpoint ${code(c.id)}${c.superseded ? ' (superseded)' : ''}${c.problem ? `: ${inline(c.problem)}` : ''}`,
    );
  }
  out.push(rec ? `- Recommended: ${code(rec.from)} — ${rec.reason}` : '- Recommended: none (nothing to resume)');
  const t = plan.toolkit;
  if (t) {
    // An imported session: its toolkit's rules, git targets and notes travel with the handoff.
    out.push(`- Toolkit (${t.toolkit}): ${inline(toolkitLine(t))}`);
    for (const n of t.notes) out.push(`  - ${inline(n)}`);
  }
  if (plan.outsideEdits) {
    const e = describeOutsideEdits(plan.outsideEdits);
    out.push(`- Outside edits: ${inline(e.files.join('; '))}. Choose one:`);
    for (const c of e.choices) out.push(`  - ${inline(c)}`);
  }

  if (plan.warnings.length) {
    section(out, 'Warnings');
    for (const w of plan.warnings) out.push(`- ${inline(w)}`);
  }

  section(out, 'Next actions');
  const actions = nextActions(plan);
  actions.forEach((a, i) => out.push(`${i + 1}. ${inline(a)}`));
}

/**
 * Renders the handoff document. Sections, in order: title and goal, status, phases (table),
 * where to resume, unresolved errors, retries, decisions, open findings, files (recorded per
 * phase, changed outside the session), tokens and budget, milestones, artifacts, notes (the
 * last {@link HANDOFF_NOTES}), recovery options, warnings, next actions. Ends with a newline.
 */
export function renderHandoff(input: HandoffInput): string {
  const out: string[] = [];
  renderPosition(out, input);
  renderRecords(out, input);
  renderSteps(out, input);
  renderFiles(out, input);
  renderBookkeeping(out, input);
  renderRecovery(out, input);
  return `${out.join('\n')}\n`;
}

/**
 * The "Next actions" list, derived from the plan only: nothing to resume; else recover
 * (recommended option), check half-written files, review outside edits, new files and a
 * changed plan, then the next steps, escalations not already listed, and unresolved errors.
 */
export function nextActions(plan: ResumePlan): string[] {
  if (!plan.resumable) return [`Nothing to resume: ${plan.next.reason}`];
  const out: string[] = [];
  const rec = plan.recovery.recommended;
  if (rec)
    out.push(
      rec.kind === 'live'
        ? `Continue from the live state (\`live\`): ${rec.reason}`
        : `Recover from \`${rec.from}\`: ${rec.reason}`,
    );
  for (const g of plan.files.byPhase) {
    if (g.possiblyHalfWritten)
      out.push(
        `Check the possibly half-written files of phase ${g.phaseId}: ${g.files.map((f) => code(f.path)).join(', ')}.`,
      );
  }
  const outside = plan.files.byPhase.filter((g) => !g.possiblyHalfWritten).flatMap((g) => g.files);
  if (outside.length)
    out.push(
      `Review the files changed outside the session: ${outside.map((f) => `${code(f.path)} (${f.kind})`).join(', ')}.`,
    );
  if (plan.files.newFiles.length)
    out.push(`Look at the files that appeared since the session started: ${plan.files.newFiles.map(code).join(', ')}.`);
  if (plan.planChanged === true) out.push('Check the plan file: it changed since the session started.');
  for (const n of plan.next.steps) out.push(`${describeNextStep(n)}.`);
  if (!plan.next.steps.length) out.push(plan.next.reason);
  const listed = new Set(plan.next.steps.filter((n) => n.action === 'escalate').map((n) => n.phaseId));
  for (const f of plan.failed) {
    if (f.escalation && !listed.has(f.phaseId))
      out.push(
        `Decide on phase ${f.phaseId} (${f.name}): retries exhausted (${f.retryCount}/${f.maxRetries}); the user decides: ${ESCALATION_WORDS}.`,
      );
  }
  const errs = [...plan.inFlight.flatMap((p) => p.unresolvedErrors), ...plan.failed.flatMap((p) => p.unresolvedErrors)];
  if (errs.length)
    out.push(
      `Resolve or acknowledge ${errs.length === 1 ? 'the unresolved error' : `${errs.length} unresolved errors`}: ${errs.map((e) => e.id).join(', ')}.`,
    );
  return out;
}

/** The estimated cost lines of the Tokens section. */
function costLines(out: string[], cost: CostReport | { problem: string } | null): void {
  if (!cost) return;
  if ('problem' in cost) {
    out.push(`- Cost: not estimated (${cost.problem})`);
    return;
  }
  out.push(`- Cost (estimate): ${formatCost(cost.total)}`);
  const b = cost.budget;
  if (b.maxUsd !== null)
    out.push(
      `- Cost budget: $${b.usedUsd.toFixed(2)} of $${b.maxUsd.toFixed(2)} (${b.percent}%, ${b.level}${b.complete ? '' : '; some tokens not priced'})`,
    );
  const list = (m: Record<string, Cost>): string =>
    Object.keys(m)
      .sort()
      .map((k) => `${k} ${formatCost(m[k]!)}`)
      .join('; ');
  if (Object.keys(cost.byAgent).length) out.push(`- Cost by agent: ${list(cost.byAgent)}`);
  if (Object.keys(cost.byPhase).length) out.push(`- Cost by phase: ${list(cost.byPhase)}`);
  if (Object.keys(cost.byModel).length) out.push(`- Cost by model: ${list(cost.byModel)}`);
}
