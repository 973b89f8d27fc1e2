import fs from 'node:fs';
import type { SessionSummary } from '../../domain/summary.js';
import type { ListResult, RepairReport } from '../types.js';
import { FILE_MODE, atomicWrite, moveAside, readIfExists, removeStaleTemps } from './fsutil.js';
import type { Layout } from './paths.js';

interface IndexFile {
  format: 'baton.index';
  v: 1;
  /** Bytes of index.log already folded into `sessions`. */
  logOffset: number;
  sessions: Record<string, SessionSummary>;
}

/** index.log is folded into index.json once it holds this many bytes past logOffset. */
const COMPACT_AFTER_BYTES = 256 * 1024;

/**
 * The registry cache: `index.json` (rows of every session plus how much of `index.log` they
 * include) and `index.log` (one row appended whenever a session's row changes). Appending a
 * row is a single small O_APPEND write, so writers never rewrite the registry. Readers fold
 * the log tail into the index; whoever sees a long tail compacts it with an atomic rewrite
 * of index.json (the log is never truncated, so concurrent compactions cannot lose rows).
 * The cache is checked against the session folders on every read: a folder without a row is
 * returned as `missing` for the manager to derive, a row without a folder is dropped.
 */
export class Registry {
  private logFd: number | null = null;

  constructor(
    private readonly layout: Layout,
    private readonly now: () => Date,
  ) {}

  /** Appends a changed row. Not fsynced: the registry is a cache that `list --rebuild` restores. */
  record(row: SessionSummary): void {
    if (this.logFd === null) {
      this.logFd = fs.openSync(this.layout.indexLog, fs.constants.O_WRONLY | fs.constants.O_APPEND | fs.constants.O_CREAT, FILE_MODE);
    }
    fs.writeSync(this.logFd, `${JSON.stringify(row)}\n`);
  }

  /** Appends several rows. */
  putMany(rows: SessionSummary[]): void {
    for (const r of rows) this.record(r);
  }

  close(): void {
    if (this.logFd !== null) fs.closeSync(this.logFd);
    this.logFd = null;
  }

  /** Reads the registry, reconciled with the session folders on disk. */
  list(rebuild: boolean): ListResult {
    const repairs: RepairReport[] = [];
    const index = rebuild ? null : this.readIndex(repairs);
    const rows: Record<string, SessionSummary> = index ? { ...index.sessions } : {};
    const logOffset = index ? index.logOffset : 0;
    const logEnd = rebuild ? this.logSize() : this.foldLog(rows, logOffset);

    const live = listDirs(this.layout.sessions);
    const archived = listDirs(this.layout.archive);
    const onDisk = new Map<string, boolean>();
    for (const id of live) onDisk.set(id, false);
    for (const id of archived) if (!onDisk.has(id)) onDisk.set(id, true);

    const missing: string[] = [];
    for (const [id, isArchived] of onDisk) {
      const row = rows[id];
      if (!row) missing.push(id);
      else if (row.archived !== isArchived) rows[id] = { ...row, archived: isArchived };
    }
    let dropped = 0;
    for (const id of Object.keys(rows)) {
      if (!onDisk.has(id)) {
        delete rows[id];
        dropped += 1;
      }
    }
    if (rebuild) {
      repairs.push({ sessionId: null, kind: 'index_rebuilt', message: `Registry rebuilt from ${onDisk.size} session folder(s).`, savedTo: null });
    }
    if (rebuild || dropped > 0 || logEnd - logOffset > COMPACT_AFTER_BYTES || (!index && logEnd > 0)) {
      this.writeIndex(rows, logEnd);
    }
    return { summaries: Object.values(rows), missing, repairs };
  }

  private logSize(): number {
    try {
      return fs.statSync(this.layout.indexLog).size;
    } catch {
      return 0;
    }
  }

  private readIndex(repairs: RepairReport[]): IndexFile | null {
    const raw = readIfExists(this.layout.index);
    if (raw === null) return null;
    try {
      const parsed = JSON.parse(raw.toString('utf8')) as IndexFile;
      if (parsed.format !== 'baton.index' || typeof parsed.logOffset !== 'number' || typeof parsed.sessions !== 'object' || parsed.sessions === null) {
        throw new Error('not a baton index');
      }
      return parsed;
    } catch (e) {
      let savedTo: string | null = null;
      try {
        savedTo = moveAside(this.layout.index, this.now());
      } catch {
        // moved by another process already
      }
      repairs.push({
        sessionId: null,
        kind: 'index_corrupt',
        message: `index.json was unreadable (${(e as Error).message}); moved aside and rebuilt from the session folders.`,
        savedTo,
      });
      return null;
    }
  }

  /** Folds log rows after `offset` into `rows`; returns the offset of the last complete row. */
  private foldLog(rows: Record<string, SessionSummary>, offset: number): number {
    const raw = readIfExists(this.layout.indexLog);
    if (raw === null || raw.length <= offset) return Math.min(offset, raw?.length ?? 0);
    const text = raw.toString('utf8', offset);
    let end = offset;
    let pos = 0;
    for (;;) {
      const nl = text.indexOf('\n', pos);
      if (nl === -1) break;
      const line = text.slice(pos, nl);
      end += Buffer.byteLength(line) + 1;
      pos = nl + 1;
      try {
        const row = JSON.parse(line) as SessionSummary;
        const prev = rows[row.id];
        if (row.id && (!prev || row.revision >= prev.revision)) rows[row.id] = row;
      } catch {
        // a torn row: the next list re-derives that session if it is missing
      }
    }
    return end;
  }

  /** Saves rows derived by the manager and rewrites index.json with them. */
  private writeIndex(rows: Record<string, SessionSummary>, logOffset: number): void {
    const file: IndexFile = { format: 'baton.index', v: 1, logOffset, sessions: rows };
    removeStaleTemps(this.layout.root, 'index.json');
    atomicWrite(this.layout.index, `${JSON.stringify(file)}\n`);
  }
}

function listDirs(dir: string): string[] {
  try {
    return fs
      .readdirSync(dir, { withFileTypes: true })
      .filter((d) => d.isDirectory() && !d.name.includes('.creating-'))
      .map((d) => d.name);
  } catch {
    return [];
  }
}
