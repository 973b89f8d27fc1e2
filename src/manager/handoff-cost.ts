import { costReport, costShown } from '../domain/cost.js';
import type { CostReport } from '../domain/cost.js';
import { isBatonError } from '../domain/errors.js';
import type { PricingTable } from '../domain/pricing.js';
import type { SessionState } from '../domain/state.js';

/** The cost shown in a handoff; a pricing file that cannot be used is named instead of failing the briefing. */
export function handoffCost(m: { pricing(): PricingTable }, state: SessionState): CostReport | { problem: string } | null {
  if (!costShown(state)) return null;
  try {
    return costReport(state, m.pricing());
  } catch (e) {
    if (!isBatonError(e)) throw e;
    return { problem: e.message };
  }
}
