/**
 * `baton doctor`, the part that needs the file store's folder layout: raw journal scans
 * (checksums, seq continuity, torn tails), snapshot files against a full replay, the registry
 * files against the session folders, leftover temp files, stale locks and lock markers.
 *
 * A check never changes a file. With `fix`, this module repairs only what lives in files
 * that are derived or abandoned (temp files and locks of dead processes, snapshots, the store
 * marker, missing top folders); damaged journals and the registry are reported as fixable and
 * repaired by the manager through the store's normal paths (`load` cuts a torn tail,
 * `repair` rebuilds a journal, `list --rebuild` the registry), so no repair logic is
 * duplicated here.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fold } from '../../domain/apply.js';
import { MAX_ID_LENGTH } from '../../domain/ids.js';
import { summarize } from '../../domain/summary.js';
import type { SessionSummary } from '../../domain/summary.js';
import type { StoreDoctorResult } from '../types.js';
import { decodeRecord } from './codec.js';
import { DIR_MODE, TEMP_PATTERN, atomicWrite } from '../atomic-write.js';
import { deadWriter, moveAside, pidAlive, readIfExists } from './fsutil.js';
import { scanJournal } from './journal.js';
import type { Scan } from './journal.js';
import { FOREIGN_STALE_MS, readOwner } from './lock.js';
import type { Layout } from './paths.js';
import { isPlainDir } from './paths.js';
import { snapshotMismatch } from './doctor-reads.js';
import type { SnapshotRecord } from './snapshot.js';
import { checkIndex } from './doctor-index.js';
import { ageMs, breakLock, oneLine, seconds } from './lock-break.js';
import type { SessionFolder } from './doctor-index.js';

/** What {@link fileDoctor} returns (the optional `SessionStore.doctor` contract). */
export type FileDoctorResult = StoreDoctorResult;
/** One problem found in the files. */
export type FileProblem = FileDoctorResult['problems'][number];

/** Problem codes this module checks; the manager skips its own generic version of these. */
export const FILE_CHECKED_CODES = [
  'STORE_MARKER',
  'STORE_LAYOUT',
  'TEMP_FILES',
  'STALE_LOCK',
  'DUPLICATE_FOLDER',
  'JOURNAL_MISSING',
  'JOURNAL_EMPTY',
  'TORN_TAIL',
  'JOURNAL_CHECKSUM',
  'SEQ_GAP',
  'EVENTS_LOST',
  'SNAPSHOT_CORRUPT',
  'SNAPSHOT_MISMATCH',
  'INDEX_CORRUPT',
  'INDEX_STALE',
] as const;

/** A lock file or marker untouched for this long was left by a process that is gone. */
export const MARKER_STALE_MS = 10_000;
/** A lock file without a readable owner is given this long to be written. */
const UNREADABLE_LOCK_GRACE_MS = 10_000;

const ID_PATTERN = /^[A-Za-z0-9][A-Za-z0-9._-]*$/;
const CREATING_PATTERN = /\.creating-(\d+)-/;

/** Options of {@link fileDoctor}. */
export interface FileDoctorOptions {
  fix: boolean;
  /** Clock for the names of files moved aside. */
  now: Date;
  /** Store format version this code writes (for the `store.json` marker and snapshots). */
  formatVersion: number;
}

/** What a session's journal scan gave, for the snapshot and registry checks. */
interface JournalInfo {
  scan: Scan;
  /** The journal reads cleanly up to an optional torn tail (no damaged inner line). */
  usable: boolean;
  /** The registry row the journal derives; null when it cannot be read. */
  summary: SessionSummary | null;
}

/**
 * Runs the file-level checks over the store at `layout` and, with `fix`, repairs what is
 * safe to repair here. Problems are reported with paths relative to the store root.
 */
export function fileDoctor(layout: Layout, o: FileDoctorOptions): FileDoctorResult {
  return new FileDoctor(layout, o).run();
}

class FileDoctor {
  private readonly problems: FileProblem[] = [];

  constructor(
    private readonly layout: Layout,
    private readonly o: FileDoctorOptions,
  ) {}

  run(): FileDoctorResult {
    this.checkStore();
    const folders = this.sessionFolders();
    // Only the derived rows are kept across sessions: one journal is in memory at a time.
    const derived = new Map<string, SessionSummary | null>();
    for (const f of folders) {
      this.checkLocks(f.dir, f.id);
      this.checkTemps(f.dir, f.id);
      this.checkTemps(path.join(f.dir, 'checkpoints'), f.id);
      const info = this.checkJournal(f);
      if (info) this.checkSnapshots(f, info);
      if (!derived.has(f.id)) derived.set(f.id, info?.summary ?? null);
    }
    checkIndex(this.layout, folders, derived, (...a) => this.add(...a));
    // Live sessions win over archived copies with the same id (as the store reads them).
    const seen = new Set<string>();
    const sessions = folders
      .filter((f) => !seen.has(f.id) && seen.add(f.id))
      .map((f) => ({ id: f.id, archived: f.archived }));
    return { checked: [...FILE_CHECKED_CODES], sessions, problems: this.problems };
  }

  private rel(p: string): string {
    return path.relative(this.layout.root, p) || '.';
  }

  private add(
    code: string,
    sessionId: string | null,
    file: string | null,
    message: string,
    fixable: boolean,
    fix?: () => string,
  ): void {
    message = oneLine(message);
    const p: FileProblem = {
      code,
      sessionId,
      path: file === null ? null : this.rel(file),
      message,
      fixable,
      fixed: false,
    };
    if (this.o.fix && fixable && fix) {
      try {
        p.message = `${message}; ${fix()}`;
        p.fixed = true;
      } catch (e) {
        p.message = `${message}; the fix failed: ${(e as Error).message}`;
      }
    }
    this.problems.push(p);
  }

  // ---- the store itself -----------------------------------------------------------------

  private checkStore(): void {
    const { layout, o } = this;
    const marker = { format: 'baton.store', version: o.formatVersion };
    const raw = readIfExists(layout.meta);
    let problem: string | null = null;
    if (raw === null) problem = 'is missing';
    else {
      try {
        const m = JSON.parse(raw.toString('utf8')) as { format?: unknown; version?: unknown };
        if (m.format !== 'baton.store' || typeof m.version !== 'number') problem = 'is not a baton store marker';
      } catch {
        problem = 'is not valid JSON';
      }
    }
    if (problem) {
      this.add('STORE_MARKER', null, layout.meta, `store.json ${problem}`, true, () => {
        const saved = raw === null ? null : moveAside(layout.meta, o.now);
        atomicWrite(layout.meta, `${JSON.stringify(marker)}\n`);
        return `rewritten as format ${o.formatVersion}${saved ? ` (the old file is kept as ${path.basename(saved)})` : ''}`;
      });
    }
    for (const dir of [layout.sessions, layout.archive]) {
      if (isPlainDir(dir)) continue;
      const exists = fs.existsSync(dir);
      const name = path.basename(dir);
      this.add(
        'STORE_LAYOUT',
        null,
        dir,
        exists
          ? `${name}/ is not a plain directory (a link or a file); its contents are not read`
          : `${name}/ is missing`,
        !exists,
        () => {
          fs.mkdirSync(dir, { recursive: true, mode: DIR_MODE });
          return 'created';
        },
      );
    }
    this.checkLocks(layout.root, null);
    this.checkTemps(layout.root, null);
  }

  /** Session folders (live first, then archived), and leftovers of creations that died. */
  private sessionFolders(): SessionFolder[] {
    const out: SessionFolder[] = [];
    const live = new Set<string>();
    for (const [parent, archived] of [
      [this.layout.sessions, false],
      [this.layout.archive, true],
    ] as const) {
      let entries: fs.Dirent[];
      try {
        entries = fs.readdirSync(parent, { withFileTypes: true });
      } catch {
        continue;
      }
      for (const e of entries.sort((a, b) => a.name.localeCompare(b.name))) {
        const full = path.join(parent, e.name);
        if (CREATING_PATTERN.test(e.name) || TEMP_PATTERN.test(e.name)) {
          this.leftover(full, null);
          continue;
        }
        if (!e.isDirectory() || !isPlainDir(full)) continue;
        if (e.name.length > MAX_ID_LENGTH || !ID_PATTERN.test(e.name) || e.name.includes('..')) continue;
        if (archived && live.has(e.name)) {
          this.add(
            'DUPLICATE_FOLDER',
            e.name,
            full,
            `session ${e.name} has a live folder and an archived one; the live one is used and ${this.rel(full)} is ignored. Compare them and remove the one you do not need`,
            false,
          );
          continue;
        }
        if (!archived) live.add(e.name);
        out.push({ id: e.name, dir: full, archived });
      }
    }
    return out;
  }

  // ---- leftovers: temp files and locks --------------------------------------------------

  /** Temp files `*.tmp-<pid>-…` of processes that died, in one folder. */
  private checkTemps(dir: string, sessionId: string | null): void {
    let names: string[];
    try {
      names = fs.readdirSync(dir).sort();
    } catch {
      return;
    }
    for (const name of names) if (TEMP_PATTERN.test(name)) this.leftover(path.join(dir, name), sessionId);
  }

  /** A temp file or half-created session folder: a problem once the process that made it is gone. */
  private leftover(file: string, sessionId: string | null): void {
    const name = path.basename(file);
    const folder = CREATING_PATTERN.test(name);
    const pid = deadWriter(name, folder ? CREATING_PATTERN : TEMP_PATTERN);
    if (pid === null) return; // a write in progress
    const what = folder ? 'half-created session folder' : 'temp file';
    this.add(
      'TEMP_FILES',
      sessionId,
      file,
      `${this.rel(file)}: ${what} left by pid ${pid}, which is no longer running (its write was never acknowledged)`,
      true,
      () => {
        fs.rmSync(file, { recursive: true, force: true });
        return 'removed';
      },
    );
  }

  /** Lock files (`lock`, `*.lock`) of dead owners and old `.want`/`.break` markers in one folder. */
  private checkLocks(dir: string, sessionId: string | null): void {
    let names: string[];
    try {
      names = fs.readdirSync(dir).sort();
    } catch {
      return;
    }
    // Markers first: breaking a lock takes a fresh `.break` marker of its own.
    for (const name of names)
      if (/(^|\.)lock\.(want|break)$/.test(name)) this.checkMarker(path.join(dir, name), sessionId);
    for (const name of names)
      if (name === 'lock' || name.endsWith('.lock')) this.checkLock(path.join(dir, name), sessionId);
  }

  private checkLock(file: string, sessionId: string | null): void {
    let owner: ReturnType<typeof readOwner>;
    try {
      owner = readOwner(file);
    } catch {
      return; // not a readable file (a folder?): not ours to judge
    }
    if (owner === undefined) return;
    const age = ageMs(file);
    let why: string | null = null;
    if (owner === null) {
      if (age > UNREADABLE_LOCK_GRACE_MS) why = `has no readable owner and is ${seconds(age)} old`;
    } else if (owner.host === os.hostname()) {
      if (owner.pid !== process.pid && !pidAlive(owner.pid))
        why = `is held by pid ${owner.pid}, which is no longer running`;
    } else if (Date.now() - owner.time > FOREIGN_STALE_MS) {
      why = `is held by pid ${owner.pid} on ${owner.host} since ${seconds(Date.now() - owner.time)} ago`;
    }
    if (!why) return;
    this.add('STALE_LOCK', sessionId, file, `${this.rel(file)} ${why}`, true, () => {
      breakLock(file, owner);
      return 'removed (waiting writers would have broken it too)';
    });
  }

  private checkMarker(file: string, sessionId: string | null): void {
    const age = ageMs(file);
    let why: string | null = null;
    if (age > MARKER_STALE_MS) why = `is ${seconds(age)} old`;
    else if (file.endsWith('.want')) {
      const pid = Number(readIfExists(file)?.toString('utf8').trim());
      if (Number.isSafeInteger(pid) && pid > 0 && pid !== process.pid && !pidAlive(pid))
        why = `was left by pid ${pid}, which is no longer running`;
    }
    if (!why) return;
    const kind = file.endsWith('.want') ? 'wait marker' : 'lock-break marker';
    this.add('STALE_LOCK', sessionId, file, `${this.rel(file)}: ${kind} that ${why}`, true, () => {
      fs.rmSync(file, { force: true });
      return 'removed';
    });
  }

  // ---- journals and snapshots -----------------------------------------------------------

  private checkJournal(f: SessionFolder): JournalInfo | null {
    const file = this.layout.files(f.dir).journal;
    let st: fs.Stats;
    try {
      st = fs.lstatSync(file);
    } catch {
      this.add(
        'JOURNAL_MISSING',
        f.id,
        file,
        `session ${f.id} has no journal.jsonl; its folder ${this.rel(f.dir)} cannot be read. Restore the journal from a backup (or a commit), or move the folder away`,
        false,
      );
      return null;
    }
    if (!st.isFile()) {
      this.add(
        'JOURNAL_MISSING',
        f.id,
        file,
        `${this.rel(file)} is not a regular file (links inside .baton are not followed)`,
        false,
      );
      return null;
    }
    const buf = fs.readFileSync(file);
    const scan = scanJournal(buf, 0, 1);
    const checksum = scan.bad.filter((b) => !b.reason.startsWith('seq '));
    const order = scan.bad.filter((b) => b.reason.startsWith('seq '));
    if (checksum.length) {
      const first = checksum[0]!;
      this.add(
        'JOURNAL_CHECKSUM',
        f.id,
        file,
        `${checksum.length} damaged journal line(s) followed by good ones, first at line ${first.line} (${first.reason}); commands on this session fail with CORRUPT`,
        true,
      );
    }
    if (order.length) {
      const first = order[0]!;
      this.add(
        'SEQ_GAP',
        f.id,
        file,
        `journal seq is not contiguous at line ${first.line} (${first.reason}); ${order.length} line(s) out of order`,
        true,
      );
    }
    if (scan.tornAt !== null) {
      this.add(
        'TORN_TAIL',
        f.id,
        file,
        `the journal ends in a torn append (${buf.length - scan.tornAt} byte(s) from byte ${scan.tornAt}) that was never acknowledged`,
        true,
      );
    }
    const usable = scan.bad.length === 0;
    let summary: SessionSummary | null = null;
    if (usable) {
      const state = fold(null, scan.events, f.id);
      if (!state) {
        this.add(
          'JOURNAL_EMPTY',
          f.id,
          file,
          `session ${f.id}'s journal holds no session.created event, so it has no state. Restore the journal from a backup, or move the folder away`,
          false,
        );
      } else summary = { ...summarize(state), archived: f.archived };
    }
    return { scan, usable, summary };
  }

  /** snapshot.json and its .bak: readable, of this session, at a journal line, equal to a replay. */
  private checkSnapshots(f: SessionFolder, info: JournalInfo): void {
    const main = this.layout.files(f.dir).snapshot;
    for (const file of [main, `${main}.bak`]) {
      let raw: Buffer | null;
      try {
        raw = readIfExists(file);
      } catch (e) {
        this.add(
          'SNAPSHOT_CORRUPT',
          f.id,
          file,
          `${this.rel(file)} cannot be read (${(e as NodeJS.ErrnoException).code ?? (e as Error).message})`,
          false,
        );
        continue;
      }
      if (raw === null) continue;
      const moveIt = (): string =>
        `moved aside as ${path.basename(moveAside(file, this.o.now))}; loads replay the journal until the next snapshot is written`;
      const d = decodeRecord(raw.toString('utf8').trimEnd());
      const rec = d.ok ? (d.value as Partial<SnapshotRecord>) : null;
      let broken: string | null = null;
      if (!d.ok) broken = d.reason;
      else if (rec!.format !== 'baton.snapshot') broken = 'not a snapshot file';
      else if (rec!.sessionId !== f.id) broken = `a snapshot of session ${JSON.stringify(rec!.sessionId)}`;
      else if (
        typeof rec!.offset !== 'number' ||
        typeof rec!.revision !== 'number' ||
        typeof rec!.state !== 'object' ||
        rec!.state === null
      )
        broken = 'lacks its revision, offset or state';
      if (broken) {
        this.add('SNAPSHOT_CORRUPT', f.id, file, `${this.rel(file)} is unreadable (${broken})`, true, moveIt);
        continue;
      }
      const r = rec as SnapshotRecord;
      if (typeof r.v === 'number' && r.v > this.o.formatVersion) {
        this.add(
          'SNAPSHOT_CORRUPT',
          f.id,
          file,
          `${this.rel(file)} has format ${r.v}; this baton reads up to ${this.o.formatVersion}. Upgrade baton`,
          false,
        );
        continue;
      }
      if (r.revision > info.scan.maxSeq) {
        // Proof that acknowledged events were lost: kept, it is what the recovery starts from.
        this.add(
          'EVENTS_LOST',
          f.id,
          file,
          `${this.rel(file)} is at revision ${r.revision} but the journal ends at ${info.scan.maxSeq}: acknowledged events ${info.scan.maxSeq + 1}–${r.revision} are lost`,
          true,
        );
        continue;
      }
      // A journal with damaged lines is rebuilt by the fix, which drops its snapshots anyway.
      if (!info.usable) continue;
      const mismatch = snapshotMismatch(f.id, r, info.scan);
      if (mismatch)
        this.add(
          'SNAPSHOT_MISMATCH',
          f.id,
          file,
          `${this.rel(file)} (revision ${r.revision}) ${mismatch}`,
          true,
          moveIt,
        );
    }
  }
}
