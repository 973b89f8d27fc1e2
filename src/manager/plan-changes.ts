import { decidePhaseAdd, decidePhaseRemove, decidePhaseUpdate } from '../domain/plan-change.js';
import type { PhaseAddInput, PhaseUpdateInput } from '../domain/plan-change.js';
import type { ChangeOptions, ChangeResult, ManagerCore } from './types.js';

export type { PhaseAddInput, PhaseUpdateInput } from '../domain/plan-change.js';

/**
 * Changes to a session's plan (`manager.plan`), each the user's decision recorded as an event
 * (`phase.added`, `phase.removed`, `phase.updated`) and validated first (domain/plan-change.ts):
 * the way out of an escalation that is neither a retry, a skip nor the end of the session.
 */
export class PlanChanges {
  constructor(private readonly m: ManagerCore) {}

  /** Adds a phase (default: at the end); the result is its id. */
  add(id: string, input: PhaseAddInput, o: ChangeOptions = {}): Promise<ChangeResult<string>> {
    return this.m.change(
      id,
      (s) => {
        const r = decidePhaseAdd(s, input);
        return { events: r.events, result: r.id };
      },
      o,
    );
  }

  /** Removes a pending phase that nothing depends on and nothing was recorded against. */
  remove(
    id: string,
    phase: string,
    o: ChangeOptions & { reason?: string | null } = {},
  ): Promise<ChangeResult<undefined>> {
    return this.m.change(id, (s) => ({ events: decidePhaseRemove(s, phase, o.reason), result: undefined }), o);
  }

  /** Changes a phase's retry limit and/or dependencies (the fields given). */
  set(id: string, phase: string, input: PhaseUpdateInput, o: ChangeOptions = {}): Promise<ChangeResult<undefined>> {
    return this.m.change(id, (s) => ({ events: decidePhaseUpdate(s, phase, input), result: undefined }), o);
  }
}
