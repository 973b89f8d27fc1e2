/**
 * What resuming each of a session's conversations would cost now (resume-cost.ts), added to
 * its resume plan: the manager has the prices, the cache time to live and the clock. A pricing
 * file or cache setting that cannot be used leaves the estimates out and says why, rather than
 * failing the plan.
 */
import { isBatonError } from '../../domain/errors.js';
import { resumeCost } from '../../domain/spend/resume-cost.js';
import type { ResumePlan } from '../../domain/resume/resume-plan-types.js';
import type { ManagerCore } from '../types.js';

/** Sets `resumeCost` on each conversation of the plan whose last turn is known. */
export function addResumeCosts(m: Pick<ManagerCore, 'pricing' | 'cacheTtl' | 'time'>, plan: ResumePlan): void {
  const talks = plan.continueWith?.filter((c) => c.lastTurn) ?? [];
  if (!talks.length) return;
  try {
    const table = m.pricing();
    const ttl = m.cacheTtl();
    const now = m.time();
    for (const c of talks) c.resumeCost = resumeCost(c.cli, c.lastTurn!, table, now, ttl);
  } catch (e) {
    if (!isBatonError(e)) throw e;
    plan.warnings.push(`The cost of resuming the conversations is not estimated: ${e.message}`);
  }
}
