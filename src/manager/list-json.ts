/**
 * `list --json` through a store's list view (the file store keeps one, see
 * store/file/list-view.ts): the text of the last call is printed again while nothing it was
 * made of changed (the same registry, no lease run out since), so no row is read or sorted.
 */
import type { SessionStatus } from '../domain/state.js';
import { rowsToJsonArray } from '../store/row.js';
import type { RowText } from '../store/row.js';
import type { SessionStore } from '../store/types.js';

/**
 * The JSON array `list --json` prints for `filter`, at `now`: the store's view when it is
 * current (its UTF-8 bytes as kept, to be printed as they are), else `compute`d (the rows,
 * and how many were checked against their session) and kept as the next view when it depends
 * on the registry alone.
 */
export async function listJsonBytes(
  store: SessionStore,
  filter: { status?: SessionStatus; all?: boolean; rebuild?: boolean },
  now: string,
  compute: () => Promise<{ rows: RowText[]; rechecked: number }>,
): Promise<Uint8Array | string> {
  const view = filter.status || filter.rebuild ? undefined : store.listView;
  const key = filter.all ? 'all' : 'live';
  const kept = view?.read(key, now);
  if (kept) return kept;
  // Taken before the registry is read: the view is kept only if nothing changed since.
  const stamp = view?.stamp();
  const { rows, rechecked } = await compute();
  const text = rowsToJsonArray(rows);
  // A row checked against its session (a lapsed lease) depends on more than the registry.
  if (view && stamp && rechecked === 0) view.save(key, stamp, text, earliestLease(rows));
  return text;
}

/** The earliest lease end among active rows (ISO-8601), or null. */
function earliestLease(rows: RowText[]): string | null {
  let min: string | null = null;
  for (const r of rows) {
    if (r.status !== 'active') continue;
    const e = r.leaseExpiresAt;
    if (e !== null && (min === null || e < min)) min = e;
  }
  return min;
}
