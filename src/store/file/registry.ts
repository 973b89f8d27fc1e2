import fs from 'node:fs';
import type { SessionSummary } from '../../domain/summary.js';
import { RowText } from '../row.js';
import type { ListResult, ListRowsResult, RepairReport } from '../types.js';
import { FILE_MODE, atomicWrite, moveAside, readIfExists, removeStaleTemps } from './fsutil.js';
import type { Layout } from './paths.js';

/** index.log is folded into index.json once it holds this many bytes past logOffset. */
const COMPACT_AFTER_BYTES = 256 * 1024;

const HEADER = /^\{"format":"baton\.index","v":2,"logOffset":(\d+),"folders":"([0-9:]*)","sessions":\[$/;

/** The index as read: rows by id and how much of index.log they include. */
interface Index {
  logOffset: number;
  /** Change stamp of the sessions/ and archive/ folders when the rows were checked against them. */
  folders: string;
  rows: Map<string, RowText>;
  /** Read by splitting lines; false for a file of another shape, which is rewritten. */
  fast: boolean;
}

/**
 * The registry cache: `index.json` (rows of every session plus how much of `index.log` they
 * include) and `index.log` (one row appended whenever a session's row changes). Appending a
 * row is a single small O_APPEND write, so writers never rewrite the registry. Readers fold
 * the log tail into the index; whoever sees a long tail compacts it with an atomic rewrite
 * of index.json (the log is never truncated, so concurrent compactions cannot lose rows).
 * The cache is checked against the session folders on every read: a folder without a row is
 * returned as `missing` for the manager to derive, a row without a folder is dropped.
 *
 * index.json is plain JSON written with one row per line,
 * `{"format":"baton.index","v":2,"logOffset":N,"sessions":[` / rows / `]}`, so that it is read
 * by splitting lines rather than parsing megabytes; a file of any other shape that is still
 * valid JSON (edited by hand, or version 1) is parsed the slow way.
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
    fs.writeSync(this.logFd, `${RowText.of(row).json}\n`);
  }

  /** Appends several rows. */
  putMany(rows: SessionSummary[]): void {
    for (const r of rows) this.record(r);
  }

  close(): void {
    if (this.logFd !== null) fs.closeSync(this.logFd);
    this.logFd = null;
  }

  /** Reads the registry as row objects, reconciled with the session folders on disk. */
  list(rebuild: boolean): ListResult {
    const r = this.listRows(rebuild);
    return { summaries: r.rows.map((row) => row.summary), missing: r.missing, repairs: r.repairs };
  }

  /** Reads the registry as row texts, reconciled with the session folders on disk. */
  listRows(rebuild: boolean): ListRowsResult {
    const repairs: RepairReport[] = [];
    const index = rebuild ? null : this.readIndex(repairs);
    const rows = index ? index.rows : new Map<string, RowText>();
    const logOffset = index ? index.logOffset : 0;
    const logEnd = rebuild ? this.logSize() : this.foldLog(rows, logOffset);

    // Creating, archiving or removing a session folder changes its parent folder's mtime; if
    // neither parent changed since the rows were last checked, the folder set is the same and
    // reading 10,000 directory entries can be skipped. The stamp is taken before reading.
    // The parents' link counts (2 + subfolders) must also match the rows, which catches an
    // index edited by hand.
    const { stamp: folders, live, archived } = this.foldersStamp();
    const missing: string[] = [];
    let changed = false;
    if (index && folders !== '' && folders === index.folders && countsMatch(rows, live, archived)) {
      return this.finish(rows, missing, repairs, rebuild, changed, index, logOffset, logEnd, folders);
    }
    const onDisk = new Map<string, boolean>();
    for (const id of listDirs(this.layout.sessions)) onDisk.set(id, false);
    for (const id of listDirs(this.layout.archive)) if (!onDisk.has(id)) onDisk.set(id, true);

    for (const [id, isArchived] of onDisk) {
      const row = rows.get(id);
      if (!row) missing.push(id);
      else if (row.archived !== isArchived) {
        rows.set(id, row.withArchived(isArchived));
        changed = true;
      }
    }
    for (const id of rows.keys()) {
      if (!onDisk.has(id)) {
        rows.delete(id);
        changed = true;
      }
    }
    if (rebuild) {
      repairs.push({ sessionId: null, kind: 'index_rebuilt', message: `Registry rebuilt from ${onDisk.size} session folder(s).`, savedTo: null });
    }
    // Rows found missing are derived by the manager and logged; until then the stamp must not
    // claim the folders were fully checked.
    const stamp = missing.length ? '' : folders;
    return this.finish(rows, missing, repairs, rebuild, changed || stamp !== index?.folders, index, logOffset, logEnd, stamp);
  }

  private finish(
    rows: Map<string, RowText>,
    missing: string[],
    repairs: RepairReport[],
    rebuild: boolean,
    changed: boolean,
    index: Index | null,
    logOffset: number,
    logEnd: number,
    folders: string,
  ): ListRowsResult {
    if (rebuild || changed || logEnd - logOffset > COMPACT_AFTER_BYTES || (!index && logEnd > 0) || (index && !index.fast)) {
      // An index of an older shape is kept as index.json.bak when it is rewritten.
      this.writeIndex(rows, logEnd, folders, index !== null && !index.fast);
    }
    return { rows: [...rows.values()], missing, repairs };
  }

  /**
   * mtimes (ns) of sessions/ and archive/ as a stamp ('' when either cannot be read), and how
   * many subfolders each holds according to its link count (-1 where the file system does
   * not count them).
   */
  private foldersStamp(): { stamp: string; live: number; archived: number } {
    try {
      const a = fs.statSync(this.layout.sessions, { bigint: true });
      const b = fs.statSync(this.layout.archive, { bigint: true });
      const subdirs = (n: bigint): number => (n >= 2n ? Number(n) - 2 : -1);
      return { stamp: `${a.mtimeNs}:${b.mtimeNs}`, live: subdirs(a.nlink), archived: subdirs(b.nlink) };
    } catch {
      return { stamp: '', live: -1, archived: -1 };
    }
  }

  private logSize(): number {
    try {
      return fs.statSync(this.layout.indexLog).size;
    } catch {
      return 0;
    }
  }

  private readIndex(repairs: RepairReport[]): Index | null {
    const raw = readIfExists(this.layout.index);
    if (raw === null) return null;
    const text = raw.toString('utf8');
    const fast = splitIndex(text);
    if (fast) return fast;
    try {
      const parsed = JSON.parse(text) as { format?: unknown; logOffset?: unknown; sessions?: unknown };
      if (parsed.format !== 'baton.index' || typeof parsed.logOffset !== 'number' || typeof parsed.sessions !== 'object' || parsed.sessions === null) {
        throw new Error('not a baton index');
      }
      const list = (Array.isArray(parsed.sessions) ? parsed.sessions : Object.values(parsed.sessions)) as SessionSummary[];
      const rows = new Map<string, RowText>();
      for (const s of list) if (s && typeof s.id === 'string') rows.set(s.id, RowText.of(s));
      return { logOffset: parsed.logOffset, folders: '', rows, fast: false };
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
  private foldLog(rows: Map<string, RowText>, offset: number): number {
    const read = readFrom(this.layout.indexLog, offset);
    if (read === null) return 0;
    if (read.buf.length === 0) return read.start;
    // A log shorter than the offset was reset by hand: all of it is new.
    offset = read.start;
    const text = read.buf.toString('utf8');
    let end = offset;
    let pos = 0;
    for (;;) {
      const nl = text.indexOf('\n', pos);
      if (nl === -1) break;
      const line = text.slice(pos, nl);
      end += Buffer.byteLength(line) + 1;
      pos = nl + 1;
      try {
        const row = RowText.of(JSON.parse(line) as SessionSummary);
        const prev = rows.get(row.id);
        if (row.id && (!prev || row.summary.revision >= prev.summary.revision)) rows.set(row.id, row);
      } catch {
        // a torn row: the next list re-derives that session if it is missing
      }
    }
    return end;
  }

  /** Rewrites index.json with these rows, one per line. */
  private writeIndex(rows: Map<string, RowText>, logOffset: number, folders: string, backup = false): void {
    removeStaleTemps(this.layout.root, 'index.json');
    const body = [...rows.values()].map((r) => r.json).join(',\n');
    atomicWrite(this.layout.index, `{"format":"baton.index","v":2,"logOffset":${logOffset},"folders":"${folders}","sessions":[\n${body}${body ? '\n' : ''}]}\n`, { backup });
  }
}

/** True when the rows account for exactly `live` live and `archived` archived folders. */
function countsMatch(rows: Map<string, RowText>, live: number, archived: number): boolean {
  if (live < 0 || archived < 0) return false;
  let a = 0;
  for (const row of rows.values()) if (row.archived) a += 1;
  return a === archived && rows.size - a === live;
}

/** Reads index.json written by {@link Registry} by splitting lines; null if it has another shape. */
function splitIndex(text: string): Index | null {
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
  return { logOffset: Number(m[1]), folders: m[2]!, rows, fast: true };
}

/**
 * The bytes of `file` from `offset` on (the log only grows, so the part before the offset is
 * already in index.json and is not read again), or all of it when the file is shorter than
 * `offset`; null when it does not exist.
 */
function readFrom(file: string, offset: number): { buf: Buffer; start: number } | null {
  let fd: number;
  try {
    fd = fs.openSync(file, 'r');
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'ENOENT') return null;
    throw e;
  }
  try {
    const size = fs.fstatSync(fd).size;
    const start = size < offset ? 0 : offset;
    const buf = Buffer.allocUnsafe(size - start);
    if (buf.length) fs.readSync(fd, buf, 0, buf.length, start);
    return { buf, start };
  } finally {
    fs.closeSync(fd);
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
