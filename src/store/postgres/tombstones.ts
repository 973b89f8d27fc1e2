import type { Tombstone } from '../types.js';
import type { Query } from './query.js';
import type { Statements } from './sql.js';

/** The tombstones of the schema's deleted sessions, as the store hands them out. */
export async function readTombstones(q: Query, sql: Statements): Promise<Tombstone[]> {
  const r = await q<{ id: string; deleted_at: string; title: string; status: string; archived: boolean }>(
    sql.tombstones,
  );
  return r.rows.map((x) => ({
    id: x.id,
    deletedAt: x.deleted_at,
    title: x.title,
    status: x.status,
    archived: x.archived,
  }));
}
