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

/** JSON with object keys sorted at every level; `undefined` fields are left out, as JSON does. For comparing values. */
export function canonicalJson(v: unknown): string {
  if (v === null || typeof v !== 'object') return JSON.stringify(v) ?? 'null';
  if (Array.isArray(v)) return `[${v.map((x) => (x === undefined ? 'null' : canonicalJson(x))).join(',')}]`;
  const o = v as Record<string, unknown>;
  const keys = Object.keys(o)
    .filter((k) => o[k] !== undefined)
    .sort();
  return `{${keys.map((k) => `${JSON.stringify(k)}:${canonicalJson(o[k])}`).join(',')}}`;
}

/** canonicalJson, except that a missing value is not the same as null. */
function canonical(v: unknown): string {
  return v === undefined ? 'undefined' : canonicalJson(v);
}

/**
 * How a stored registry row differs from the derived one in what `list` shows (the fields
 * {@link summaryChanged} compares; revision and time lag behind on purpose), or [] when not.
 */
export function rowDiff(row: SessionSummary, derived: SessionSummary): string[] {
  if (!summaryChanged(row, derived)) return [];
  const out: string[] = [];
  const cmp = (name: string, a: unknown, b: unknown): void => {
    if (canonical(a ?? null) !== canonical(b ?? null))
      out.push(`${name} ${JSON.stringify(a ?? null)} should be ${JSON.stringify(b ?? null)}`);
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
