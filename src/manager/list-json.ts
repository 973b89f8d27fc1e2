/**
 * `list --json` through a store's list view (the file store keeps one, see
 * store/file/list-view.ts): the text of the last call is printed again while nothing it was
 * made of changed (the same registry, no lease run out since), so no row is read or sorted.
 */
import type { ListFilter } from './list-filter.js';
import { rowsToJsonArray } from '../store/row.js';
import type { RowText } from '../store/row.js';
import type { SessionStore } from '../store/types.js';

/**
 * The view that holds what `filter` lists: 'all' or 'live' (without archived sessions), or
 * null when the filter narrows the rows or derives them anew (status, workspace, claimable,
 * rebuild, no recheck or no persist), which no view holds.
 */
function viewKey(filter: ListFilter): 'all' | 'live' | null {
  const plain =
    filter.status === undefined &&
    filter.workspace === undefined &&
    !filter.claimable &&
    !filter.rebuild &&
    filter.recheck !== false &&
    filter.persist !== false;
  return plain ? (filter.all ? 'all' : 'live') : null;
}

/**
 * What `list --json` prints for `filter` at `now` when the store's view of it is current: its
 * UTF-8 bytes as kept, for the caller to print as they are (over 10,000 sessions the view is
 * 3 MB: decoding it costs more than the rest of the command); null otherwise.
 */
export function keptListJson(store: SessionStore, filter: ListFilter, now: string): Uint8Array | null {
  const key = viewKey(filter);
  return key && store.listView ? store.listView.read(key, now) : null;
}

/**
 * The JSON array `list --json` prints for `filter`, at `now`: the store's view when it is
 * current, else `compute`d (the rows, and how many were checked against their session) and
 * kept as the next view when it depends on the registry alone.
 */
export async function listJsonText(
  store: SessionStore,
  filter: ListFilter,
  now: string,
  compute: () => Promise<{ rows: RowText[]; rechecked: number }>,
): Promise<string> {
  const kept = keptListJson(store, filter, now);
  if (kept) return new TextDecoder().decode(kept);
  const key = viewKey(filter);
  const view = key ? store.listView : undefined;
  // Taken before the registry is read: the view is kept only if nothing changed since.
  const stamp = view?.stamp();
  const { rows, rechecked } = await compute();
  const text = rowsToJsonArray(rows);
  // A row checked against its session (a lapsed lease) depends on more than the registry.
  if (key && view && stamp && rechecked === 0) view.save(key, stamp, text, earliestLease(rows));
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
