import { RowText } from '../row.js';
import type { ListRowsResult, RepairReport, RowFilter } from '../types.js';
import type { Statements } from './sql.js';

/** A row of the sessions table as the registry statements return it. */
export type RegistryRow = {
  id: string;
  archived: boolean;
  summary: string | null;
  /** An append that changed the row is past the row's revision (its refresh lost or in flight; see sql-registry.ts). */
  stale: boolean | null;
};

/**
 * The registry statement for a filter, with its values: each one is served by an index (see
 * sql-registry.ts), so `list` in one workspace and `claim` cost what they return, not what
 * the store holds. A filter the store cannot narrow reads every row (callers filter again).
 */
export function registryQuery(sql: Statements, f: RowFilter): [string, unknown[]] {
  if (f.claimableAt !== undefined) return [sql.claimable, [f.claimableAt]];
  if (f.workspace !== undefined) return [sql.listWorkspace, [f.workspace, f.archived !== false]];
  if (f.status !== undefined && f.status !== 'interrupted') return [sql.listStatus, [f.status]];
  if (f.archived === false) return [sql.listLive, []];
  return [sql.list, []];
}

/**
 * Registry rows read from the sessions table. Rows are refreshed after the append they
 * describe is acknowledged (refresh.ts), so one can lag its journal (a crash in between, or a
 * refresh still in flight in another worker): such a row is handed back as missing, for the
 * manager to derive again from the journal, and so is every row with `rebuild`, and a row
 * that is missing or unreadable (reported).
 */
export function registryRows(rows: RegistryRow[], rebuild: boolean): ListRowsResult {
  const out: RowText[] = [];
  const missing: string[] = [];
  const repairs: RepairReport[] = [];
  for (const x of rows) {
    if (rebuild || x.summary === null || x.stale === true) {
      missing.push(x.id);
      continue;
    }
    let row = new RowText(x.summary);
    if (!row.wellFormed || row.id !== x.id) {
      missing.push(x.id);
      repairs.push({
        sessionId: x.id,
        kind: 'index_rebuilt',
        message: `Session ${x.id}: its registry row was unreadable; derived again.`,
        savedTo: null,
      });
      continue;
    }
    // Like a store on disk, the row's `archived` follows where the session lives.
    if (row.archived !== x.archived) row = row.withArchived(x.archived);
    out.push(row);
  }
  return { rows: out, missing, repairs };
}
