/**
 * Where Maestro itself would resume a session (session-management skill, "Resume Protocol",
 * and the v1.6 express-mode rules): last completed = highest completed id; current = first
 * in_progress or pending; failed phases with unresolved errors are handled first (retry while
 * `retry_count` < MAESTRO_MAX_RETRIES, default 2, else escalate: the user picks retry, skip or
 * abort); all phases done but the session still in progress → review, then archive.
 */
import type { ForeignUnit, ResumeAdvice } from '../types.js';
import { reconcileText } from './reconcile.js';

/**
 * MAESTRO_MAX_RETRIES' default: retries allowed per phase before escalating to the user.
 * Always applied: the adapter interface carries no environment, and reading process.env here
 * would make a report depend on baton's shell rather than Maestro's (docs/formats/maestro.md).
 */
export const MAESTRO_MAX_RETRIES = 2;

/** What the resume rules need to know about the session besides its phases. */
export interface ResumeContext {
  rawStatus: string | null;
  archived: boolean;
  workflowMode: string | null;
  minimal: boolean;
}

function byIdOrder(units: ForeignUnit[]): ForeignUnit[] {
  const numeric = units.every((u) => /^\d+$/.test(u.id));
  return numeric ? [...units].sort((a, b) => Number(a.id) - Number(b.id)) : units;
}

function advice(p: Partial<ResumeAdvice> & Pick<ResumeAdvice, 'action' | 'reason'>): ResumeAdvice {
  return {
    unitId: null,
    subStep: null,
    retryLimit: null,
    retriesUsed: null,
    lastCompleted: null,
    options: [],
    recommended: null,
    warnings: [],
    ...p,
  };
}

/** Maestro's resume decision for one session. */
export function maestroResume(units: ForeignUnit[], ctx: ResumeContext): ResumeAdvice {
  const ordered = byIdOrder(units);
  const completed = ordered.filter((u) => u.status === 'completed');
  const lastCompleted = completed.length ? completed[completed.length - 1]!.id : null;
  const warnings: string[] = [];
  for (const u of units) {
    if (u.metadata.requires_reconciliation === true)
      warnings.push(
        `Phase ${u.id} still requires reconciliation (requires_reconciliation: true): reconcile it before archiving.${reconcileText(u)}`,
      );
  }
  const express = ctx.workflowMode === 'express';

  if (ctx.archived) {
    if (ctx.rawStatus !== null && ctx.rawStatus !== 'completed')
      warnings.push(
        `The archived session says status "${ctx.rawStatus}"; Maestro only resumes state/active-session.md, so move it back there to resume it.`,
      );
    return advice({
      action: 'none',
      lastCompleted,
      warnings,
      reason: 'The session is archived (state/archive/): Maestro has nothing to resume.',
    });
  }
  if (ctx.rawStatus === 'completed') {
    return advice({
      action: 'archive',
      lastCompleted,
      warnings,
      reason:
        'The session is completed but still in state/active-session.md: finish the archive (move plans to plans/archive/, move the file to state/archive/<id>.md).',
    });
  }

  const unitWarnings = (u: ForeignUnit): string[] => {
    const w: string[] = [];
    const notDone = u.blockedBy.filter((b) => units.find((x) => x.id === b)?.status !== 'completed');
    if (notDone.length) w.push(`Phase ${u.id} is blocked by phase(s) ${notDone.join(', ')}, not completed yet.`);
    return w;
  };

  const failed = ordered.find((u) => u.status === 'failed');
  if (failed) {
    const used = failed.retries ?? 0;
    const open = failed.errors.filter((e) => !e.resolved).length;
    const errs = open ? ` with ${open} unresolved error(s)` : '';
    if (used >= MAESTRO_MAX_RETRIES) {
      return advice({
        action: 'escalate',
        unitId: failed.id,
        retryLimit: MAESTRO_MAX_RETRIES,
        retriesUsed: used,
        lastCompleted,
        warnings: [...warnings, ...unitWarnings(failed)],
        reason: `Phase ${failed.id} failed${errs} and has used ${used} of ${MAESTRO_MAX_RETRIES} retries (MAESTRO_MAX_RETRIES): escalate, the user picks retry, skip, abort or adjust parameters.`,
      });
    }
    return advice({
      action: 'retry',
      unitId: failed.id,
      retryLimit: MAESTRO_MAX_RETRIES,
      retriesUsed: used,
      lastCompleted,
      warnings: [...warnings, ...unitWarnings(failed)],
      reason: `Phase ${failed.id} failed${errs}; retry ${used + 1} of ${MAESTRO_MAX_RETRIES} (mark it in_progress and increment retry_count)${open ? ' once the user chose retry over skip, abort or adjust' : ''}.`,
    });
  }

  const current = ordered.find((u) => u.status === 'in_progress') ?? ordered.find((u) => u.status === 'pending');
  if (current) {
    const w = [...warnings, ...unitWarnings(current)];
    const open = current.errors.filter((e) => !e.resolved).length;
    if (open)
      w.push(
        `Phase ${current.id} has ${open} unresolved error(s): present them and let the user choose retry, skip, abort or adjust.`,
      );
    if (current.status === 'in_progress') {
      if (current.files.length)
        w.push(
          `Phase ${current.id} started but did not finish: ${current.files.length} file(s) it touched may be partially modified.`,
        );
      return advice({
        action: 'continue',
        unitId: current.id,
        retryLimit: MAESTRO_MAX_RETRIES,
        retriesUsed: current.retries ?? 0,
        lastCompleted,
        warnings: w,
        reason: express
          ? `Express mode: phase ${current.id} is in progress; re-delegate the same scope to ${current.agents[0] ?? 'its agent'}.`
          : `Phase ${current.id} is the first phase in progress; continue it.`,
      });
    }
    return advice({
      action: 'start',
      unitId: current.id,
      retryLimit: MAESTRO_MAX_RETRIES,
      retriesUsed: current.retries ?? 0,
      lastCompleted,
      warnings: w,
      reason: express
        ? `Express mode: phase ${current.id} is pending; re-present the brief and start it.`
        : `Phase ${current.id} is the first pending phase; mark it in_progress and start it.`,
    });
  }

  if (units.length === 0) {
    return advice({ action: 'none', warnings, reason: 'The session has no phases to resume.' });
  }
  return advice({
    action: 'review',
    lastCompleted,
    warnings,
    reason:
      'Every phase is completed or skipped but the session is still in progress: run the code review, then archive the session.',
  });
}
