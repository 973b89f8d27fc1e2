/**
 * Which events `baton log` shows: `--type` (exact types, or a family: `phase` and `phase.*`
 * mean every `phase.…` type), `--agent` (who recorded the event, or the agent it is about),
 * and by default not the lease renewals a running worker writes every 30 s (`--all`, a
 * `--type` that names them, or `--json` shows them).
 */
import { BatonError, EVENT_TYPES } from '../../manager/index.js';
import type { StoredEvent } from '../../manager/index.js';

/** What `log` was asked to show. */
export interface LogFilter {
  /** The `--type` values, each possibly a comma list. */
  types: readonly string[];
  agent: string | null;
  /** `--all`: the renewals too. */
  all: boolean;
}

/** Event types hidden unless asked for: a heartbeat, not something that happened. */
export const NOISE: ReadonlySet<string> = new Set(['lease.renewed', 'run.renewed']);

/** One `--type` pattern as a test of an event type; a pattern no known type matches is BAD_INPUT. */
function typeTest(pattern: string): (type: string) => boolean {
  const p = pattern.endsWith('.*') ? pattern.slice(0, -2) : pattern;
  const test = p.includes('.') ? (t: string) => t === p : (t: string) => t === p || t.startsWith(`${p}.`);
  if (!(EVENT_TYPES as readonly string[]).some(test)) {
    const families = [...new Set(EVENT_TYPES.map((t) => t.split('.')[0]!))];
    throw new BatonError('BAD_INPUT', `--type ${JSON.stringify(pattern)} matches no event type.`, {
      hint: `Give a type (phase.completed) or a family (phase, or phase.*): ${families.join(', ')}.`,
    });
  }
  return test;
}

/** The test `log` applies to each event for `f`. */
export function logFilter(f: LogFilter): (e: StoredEvent) => boolean {
  const patterns = f.types
    .flatMap((t) => t.split(','))
    .map((t) => t.trim())
    .filter(Boolean);
  const tests = patterns.map(typeTest);
  return (e) => {
    if (tests.length ? !tests.some((t) => t(e.type)) : !f.all && NOISE.has(e.type)) return false;
    if (f.agent !== null) {
      const about = (e.data as Record<string, unknown> | null)?.['agent'];
      if (e.actor?.agent !== f.agent && about !== f.agent) return false;
    }
    return true;
  };
}
