/**
 * The file store doctor's registry check: index.json and index.log against the session folders
 * and the rows their journals derive.
 */
import path from 'node:path';
import { rowDiff } from '../../domain/compare.js';
import type { SessionSummary } from '../../domain/summary.js';
import { foldLog, isTombstone, tombstonedIds } from './doctor-reads.js';
import { readIfExists } from './fsutil.js';
import type { Layout } from './paths.js';

/** A session's folder, live or archived. */
export interface SessionFolder {
  id: string;
  dir: string;
  archived: boolean;
}

/** How a check reports a problem (code, session, file, message, fixable). */
export type AddProblem = (
  code: string,
  sessionId: string | null,
  file: string | null,
  message: string,
  fixable: boolean,
) => void;

/**
 * index.json (+ the index.log rows after its offset) against the session folders and the
 * rows their journals derive. Read as `list` reads it, without writing anything.
 */
export function checkIndex(
  layout: Layout,
  folders: SessionFolder[],
  derived: Map<string, SessionSummary | null>,
  add: AddProblem,
): void {
  const rows = new Map<string, SessionSummary>();
  let logOffset = 0;
  let raw: Buffer | null;
  try {
    raw = readIfExists(layout.index);
  } catch (e) {
    add('INDEX_CORRUPT', null, layout.index, `index.json cannot be read (${(e as Error).message})`, true);
    return;
  }
  if (raw !== null) {
    try {
      const parsed = JSON.parse(raw.toString('utf8')) as {
        format?: unknown;
        logOffset?: unknown;
        sessions?: unknown;
      };
      if (
        parsed.format !== 'baton.index' ||
        typeof parsed.logOffset !== 'number' ||
        typeof parsed.sessions !== 'object' ||
        parsed.sessions === null
      ) {
        throw new Error('not a baton index');
      }
      logOffset = parsed.logOffset;
      const list = (
        Array.isArray(parsed.sessions) ? parsed.sessions : Object.values(parsed.sessions)
      ) as SessionSummary[];
      for (const s of list) if (s && typeof s.id === 'string') rows.set(s.id, s);
    } catch (e) {
      add(
        'INDEX_CORRUPT',
        null,
        layout.index,
        `index.json is unreadable (${e instanceof SyntaxError ? 'not valid JSON' : (e as Error).message})`,
        true,
      );
      return;
    }
  }
  foldLog(layout.indexLog, logOffset, rows);

  const where = new Map<string, boolean>();
  for (const f of folders) if (!where.has(f.id)) where.set(f.id, f.archived);
  for (const [id, archived] of where) {
    const row = rows.get(id);
    const summary = derived.get(id) ?? null;
    // A session whose journal cannot be read yields no row; its journal problem says so.
    if (!summary) continue;
    if (!row) {
      add(
        'INDEX_STALE',
        id,
        layout.index,
        `the registry has no row for session ${id} (${archived ? 'archived' : 'live'} folder); \`list\` derives it each time until the registry is rebuilt`,
        true,
      );
      continue;
    }
    if ((row as { inDoubt?: unknown }).inDoubt === true) {
      add(
        'INDEX_STALE',
        id,
        layout.index,
        `the registry row of ${id} is in doubt: a writer stopped between an append and its row; \`list\` derives it from the journal and stores it`,
        true,
      );
      continue;
    }
    const diff = rowDiff(row, summary);
    if (diff.length)
      add(
        'INDEX_STALE',
        id,
        layout.index,
        `the registry row of ${id} differs from its journal: ${diff.join(', ')}`,
        true,
      );
  }
  const deleted = tombstonedIds(path.join(layout.root, 'tombstones.jsonl'));
  for (const [id, row] of rows) {
    // A deleted session's row lingers until the next `list` drops it: not a problem.
    if (where.has(id) || deleted.has(id) || isTombstone(row)) continue;
    add('INDEX_STALE', id, layout.index, `the registry has a row for session ${id}, which has no folder`, true);
  }
}
