/**
 * Comparing derived values with stored ones, for doctor checks: which top-level keys of two
 * states differ, and how a stored registry row differs from the one derived from its session.
 */
import { summaryChanged } from './summary.js';
import type { SessionSummary } from './summary.js';

/** Top-level keys whose values differ, compared as JSON with sorted keys. */
export function differingKeys(a: Record<string, unknown>, b: Record<string, unknown>): string[] {
  const out: string[] = [];
  for (const k of new Set([...Object.keys(a), ...Object.keys(b)])) {
    if (canonical(a[k]) !== canonical(b[k])) out.push(k);
  }
  return out.sort();
}

/** JSON text with object keys sorted and `undefined` dropped, for comparing values. */
export function canonical(v: unknown): string {
  if (v === undefined) return 'undefined';
  return JSON.stringify(v, (_k, x: unknown) => {
    if (x && typeof x === 'object' && !Array.isArray(x)) {
      return Object.fromEntries(Object.entries(x as Record<string, unknown>).sort(([p], [q]) => (p < q ? -1 : p > q ? 1 : 0)));
    }
    return x;
  });
}

/**
 * How a stored registry row differs from the derived one in what `list` shows (the fields
 * {@link summaryChanged} compares; revision and time lag behind on purpose), or [] when not.
 */
export function rowDiff(row: SessionSummary, derived: SessionSummary): string[] {
  if (!summaryChanged(row, derived)) return [];
  const out: string[] = [];
  const cmp = (name: string, a: unknown, b: unknown): void => {
    if (canonical(a ?? null) !== canonical(b ?? null)) out.push(`${name} ${JSON.stringify(a ?? null)} should be ${JSON.stringify(b ?? null)}`);
  };
  cmp('status', row.status, derived.status);
  cmp('title', row.title, derived.title);
  cmp('archived', row.archived, derived.archived);
  cmp('phasesDone', row.phasesDone, derived.phasesDone);
  cmp('phasesTotal', row.phasesTotal, derived.phasesTotal);
  cmp('currentPhase', row.currentPhase, derived.currentPhase);
  cmp('cause', row.cause?.cause, derived.cause?.cause);
  cmp('leaseToken', row.leaseToken, derived.leaseToken);
  return out.length ? out : ['a field `list` shows'];
}
