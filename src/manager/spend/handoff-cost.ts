import { costReport, costShown } from '../../domain/spend/cost.js';
import type { CostReport } from '../../domain/spend/cost.js';
import { isBatonError } from '../../domain/errors.js';
import type { SessionState } from '../../domain/state.js';
import type { ManagerCore } from '../types.js';

/**
 * The cost a handoff shows: none until some record names a model or a cost budget is set; a
 * pricing file that cannot be used is named instead of failing the briefing.
 */
export function handoffCost(
  m: Pick<ManagerCore, 'pricing'>,
  state: SessionState,
): CostReport | { problem: string } | null {
  if (!costShown(state)) return null;
  try {
    return costReport(state, m.pricing());
  } catch (e) {
    if (!isBatonError(e)) throw e;
    return { problem: e.message };
  }
}
