import type { SessionSummary } from '../../domain/summary.js';
import type { FileLock } from './lock.js';
import { whileJournalEndsAt } from './session-lock.js';

/** Where a session's lock and journal are, for {@link putDerivedRows}. */
export interface SessionFiles {
  lock: FileLock;
  journal: string;
}

/**
 * Stores registry rows derived from the journals (`record` each), each written while its
 * session's journal, read under the session's lock, ends at the row's revision, and before
 * that lock is let go. A writer logs its in-doubt marker under the same lock, so a derived row
 * never lands after a newer marker of its revision (the later line wins at equal revisions,
 * and would hide it: a writer killed before its row would leave a row that looks right and is
 * not). A row not stored (the lock held by another process, the journal moved on, the session
 * gone or damaged: `files` returns null or throws) is derived again at the next read.
 */
export function putDerivedRows(
  rows: readonly SessionSummary[],
  files: (id: string) => SessionFiles | null,
  record: (row: SessionSummary) => void,
): void {
  for (const row of rows) {
    try {
      const f = files(row.id);
      if (f) whileJournalEndsAt(f.lock, f.journal, row.revision, () => record(row));
    } catch {
      // Archived, deleted or damaged meanwhile: not stored; the next read derives it again.
    }
  }
}
