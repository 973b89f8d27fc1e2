/** The registry's text: index.json's header, reading it by lines, and folding index.log's rows. */
import type { SessionSummary } from '../../domain/summary.js';
import { RowText } from '../row.js';

export const HEADER =
  /^\{"format":"baton\.index","v":2,"logOffset":(\d+),"folders":"([0-9:]*)",(?:"log":"(\d+)",)?"sessions":\[$/;

/** The index as read: rows by id and how much of index.log they include. */
export interface Index {
  logOffset: number;
  /** Change stamp of the sessions/ and archive/ folders when the rows were checked against them. */
  folders: string;
  /** Inode of the index.log that `logOffset` counts in; null in an index written before logs rotated. */
  log: string | null;
  /** Inode of index.json itself as read: a rewrite replaces the file, so it tells whether one happened since. */
  self: string;
  rows: Map<string, RowText>;
  /** Read by splitting lines; false for a file of another shape, which is rewritten. */
  fast: boolean;
}

/**
 * The log line saying that session `id` was deleted (or its id is being taken again):
 * `{"id":…,"deleted":true}`. Folding it removes the id's row whatever its revision, so a
 * session re-created under the id starts from revision 1 rather than losing to the old row.
 */
export function deletedLine(id: string): string {
  return `${JSON.stringify({ id, deleted: true })}\n`;
}

/**
 * Folds the complete rows of `buf` (log lines) into `rows`, the newest revision winning, a
 * {@link deletedLine} removing the id's row; returns the bytes they span.
 */
export function foldRows(rows: Map<string, RowText>, buf: Buffer): number {
  const text = buf.toString('utf8');
  let end = 0;
  let pos = 0;
  for (;;) {
    const nl = text.indexOf('\n', pos);
    if (nl === -1) break;
    const line = text.slice(pos, nl);
    end += Buffer.byteLength(line) + 1;
    pos = nl + 1;
    try {
      const parsed = JSON.parse(line) as SessionSummary & { deleted?: unknown };
      if (parsed.deleted === true) {
        rows.delete(parsed.id);
        continue;
      }
      const row = RowText.of(parsed);
      const prev = rows.get(row.id);
      if (row.id && (!prev || row.summary.revision >= prev.summary.revision)) rows.set(row.id, row);
    } catch {
      // a torn row: the next list re-derives that session if it is missing
    }
  }
  return end;
}

/** True when the rows account for exactly `live` live and `archived` archived folders. */
export function countsMatch(rows: Map<string, RowText>, live: number, archived: number): boolean {
  if (live < 0 || archived < 0) return false;
  let a = 0;
  for (const row of rows.values()) if (row.archived) a += 1;
  return a === archived && rows.size - a === live;
}

/** Reads index.json written by {@link Registry} by splitting lines; null if it has another shape. */
export function splitIndex(text: string, self: string): Index | null {
  const lines = text.split('\n');
  if (lines[lines.length - 1] === '') lines.pop();
  const m = HEADER.exec(lines[0] ?? '');
  if (!m || lines[lines.length - 1] !== ']}' || lines.length < 2) return null;
  const rows = new Map<string, RowText>();
  for (let i = 1; i < lines.length - 1; i++) {
    const line = lines[i]!;
    const row = new RowText(i < lines.length - 2 ? (line.endsWith(',') ? line.slice(0, -1) : '') : line);
    if (!row.wellFormed) return null;
    rows.set(row.id, row);
  }
  return { logOffset: Number(m[1]), folders: m[2]!, log: m[3] ?? null, self, rows, fast: true };
}
