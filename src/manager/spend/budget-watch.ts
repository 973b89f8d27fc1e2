/**
 * A held run's eye on its budgets (`manager.runs.hold`, `baton run`): every few seconds the
 * session is read and its budgets (and those of the run's phase and agent) judged; past one
 * with policy `stop`, the run is told to stop, as when it loses its lease, and its end is
 * recorded with cause `budget-exceeded`.
 */
import { budgetExceeded } from '../../domain/spend/budget-policy.js';
import type { BatonError } from '../../domain/errors.js';
import type { SessionState } from '../../domain/state.js';
import { runVerdict } from './budgets.js';
import type { ManagerCore } from '../types.js';

/** How often a held run judges its budgets by default (ms). */
export const BUDGET_CHECK_MS = 5_000;

/** The refusal when the session (or the run's phase or agent) is past a `stop` budget now, else null. */
export function overStop(
  m: ManagerCore,
  s: SessionState,
  agent: string | null,
  phase: string | null,
): BatonError | null {
  const v = runVerdict(s, () => m.pricing(), agent, phase);
  return v.action === 'stop' && v.worst ? budgetExceeded(s.id, v.worst) : null;
}

/** Judges a run's budgets on a timer; calls `onStop` once when a `stop` budget is exceeded. */
export class BudgetWatch {
  /** The refusal that stopped the run, or null. */
  stopped: BatonError | null = null;
  private timer: NodeJS.Timeout | null = null;
  private done = false;

  constructor(
    private readonly m: ManagerCore,
    private readonly id: string,
    private readonly o: { agent: string | null; phase: string | null; everyMs: number },
    private readonly onStop: (e: BatonError) => void,
  ) {}

  /** Starts judging (never when `everyMs` is 0). */
  start(): void {
    if (this.o.everyMs > 0) this.schedule();
  }

  /** Stops judging. */
  stop(): void {
    this.done = true;
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
  }

  private schedule(): void {
    if (this.done) return;
    this.timer = setTimeout(() => {
      this.timer = null;
      void this.check().finally(() => this.schedule());
    }, this.o.everyMs);
  }

  private async check(): Promise<void> {
    // A read that fails (the store away) is the lease keeper's business; the next check tries again.
    const s = await this.m.get(this.id).catch(() => null);
    if (!s || this.done || this.stopped) return;
    const e = overStop(this.m, s, this.o.agent, this.o.phase);
    if (!e) return;
    this.stopped = e;
    this.done = true;
    this.onStop(e);
  }
}
