import type { NewEvent, StoredEvent } from '../domain/events.js';
import type { SessionState } from '../domain/state.js';
import type { SessionSummary } from '../domain/summary.js';
import type { RowText } from './row.js';

/** What a backend can promise; tests gate on these, never on store names. */
export interface StoreCapabilities {
  /** Several processes on one machine may share sessions safely. */
  multiProcess: boolean;
  /** Several machines may share sessions safely. */
  multiMachine: boolean;
  /** An acknowledged append survives a crash of the process (and of the machine, after fsync). */
  durable: boolean;
}

/** The state at a revision, as saved to speed up loading. */
export interface Snapshot {
  revision: number;
  state: SessionState;
}

/** Something the store found damaged and repaired or set aside while reading. */
export interface RepairReport {
  sessionId: string | null;
  kind:
    | 'torn_tail'
    | 'snapshot_corrupt'
    | 'snapshot_stale'
    | 'index_corrupt'
    | 'index_rebuilt'
    | 'active_dangling'
    | 'journal_rewritten'
    | 'events_lost'
    | RetentionRepairKind;
  message: string;
  savedTo: string | null;
  /**
   * False when the problem was only found, not repaired, because the store cannot be written
   * (a read-only mount, another user's files, the dashboard): the read went on around it, and
   * the next writable open repairs it. Absent: repaired.
   */
  repaired?: false;
}

/** Repairs of interrupted archives and deletions, reported on the next open (see docs/storage.md). */
export type RetentionRepairKind = 'archive_completed' | 'archive_rolled_back' | 'delete_completed' | 'pending_failed';

/** What the caller of {@link SessionStore.delete} tells the store to remember of a deleted session. */
export interface TombstoneInfo {
  deletedAt: string;
  title: string;
  /** The status the session had (as readers reported it). */
  status: string;
}

/** The registry's record of a deleted session. */
export interface Tombstone extends TombstoneInfo {
  id: string;
  /** It was in the archive location when deleted. */
  archived: boolean;
}

/** A session as read: newest valid snapshot plus the events after it. */
export interface LoadResult {
  snapshot: Snapshot | null;
  /** Events after the snapshot (all events when there is none), in seq order. */
  events: StoredEvent[];
  /** Seq of the last event in the journal. */
  revision: number;
  repairs: RepairReport[];
}

/** Options of {@link SessionStore.append}. */
export interface AppendOptions {
  /** The session's registry row after this append, when it changed (status, progress…). */
  summary?: SessionSummary;
}

/** Result of {@link SessionStore.list}. */
export interface ListResult {
  summaries: SessionSummary[];
  /** Sessions the store holds but has no registry row for; the manager derives and saves them. */
  missing: string[];
  repairs: RepairReport[];
}

/** Git state of the workspace when a checkpoint was taken. */
export interface CheckpointGit {
  /** Current branch; null on a detached HEAD. */
  branch: string | null;
  /** HEAD commit; null in a repository without commits. */
  head: string | null;
  /** Uncommitted changes (or untracked files) outside the store. */
  dirty: boolean;
  /**
   * On a dirty tree: a commit (parent `head`) holding the work tree as it was, uncommitted
   * changes and untracked files included (ignored files and the store left out), kept under
   * `refs/baton/<session>/<checkpoint>`; `restore --git` brings back its tree. Null when it
   * could not be made; absent on a clean tree and in checkpoints of baton before 0.2.
   */
  snapshot?: string | null;
}

/** A file the session recorded, as measured in the workspace when the checkpoint was taken. */
export interface CheckpointFile {
  path: string;
  /** null when the file was missing or unreadable. */
  sha256: string | null;
  size: number | null;
}

/** A named, checksummed copy of a session's state at one revision. */
export interface Checkpoint {
  /** `cp-<n>-<slug>`, validated like a session id. */
  id: string;
  sessionId: string;
  name: string;
  createdAt: string;
  /** The session revision the state belongs to. */
  revision: number;
  /** The full state at `revision`. */
  state: SessionState;
  /** null when the workspace is not inside a git work tree (or git is not installed). */
  git: CheckpointGit | null;
  files: CheckpointFile[];
  /** Why it was taken: by a person or agent, or automatically when a phase completed. */
  trigger: 'manual' | 'phase';
  /** The phase whose completion triggered it (trigger `phase`). */
  phaseId: string | null;
}

/**
 * A checkpoint as read: valid (checksum and shape check out) or not, with the reason. A
 * damaged checkpoint is reported, never thrown away.
 */
export type CheckpointRead =
  | { id: string; valid: true; checkpoint: Checkpoint }
  | {
      id: string;
      valid: false;
      problem: string /** Last change of the stored copy, when known. */;
      modifiedAt: string | null;
    };

/** Result of {@link SessionStore.listRows}: rows kept as their JSON text. */
/**
 * What a registry read may leave out (see {@link SessionStore.list}). Rows whose registry
 * entry is missing or unreadable are never left out: the manager derives them.
 */
export interface RowFilter {
  /** Include archived sessions (default: yes). */
  archived?: boolean;
  /** Only sessions started in this named workspace. */
  workspace?: string;
  /** Only sessions with this status as recorded (not `interrupted`: lapsed leases are judged by the reader). */
  status?: string;
  /** Only sessions a claimer may take at this ISO time: interrupted, or active under a lease that ended by then. */
  claimableAt?: string;
}

export interface ListRowsResult {
  rows: RowText[];
  missing: string[];
  repairs: RepairReport[];
}

/** What {@link StoreMaintenance.doctor} finds: the problems only this backend's files show. */
export interface StoreDoctorResult {
  /** The problem codes this check covers. */
  checked: string[];
  /** Every session folder found. */
  sessions: Array<{ id: string; archived: boolean }>;
  problems: Array<{
    code: string;
    sessionId: string | null;
    path: string | null;
    message: string;
    fixable: boolean;
    fixed: boolean;
  }>;
}

/**
 * The storage contract: the core every backend implements. Stores only load and
 * conditionally append; they hold no domain rules. Every method rejects with a `BatonError`
 * (`NOT_FOUND`, `EXISTS`, `CONFLICT`, `LOCKED`, `CORRUPT`, `STORE_UNAVAILABLE`, `BAD_INPUT`
 * for an invalid id). What only some backends can do is a named optional capability
 * ({@link StoreMaintenance}, {@link StoreWatch}, {@link StoreServerClock},
 * {@link StoreSessionFiles}, {@link StoreLocalDirectory}, {@link StoreCursors}), detected by the presence of its
 * members (see `store/capabilities.ts`), never by a backend's class or `kind`.
 */
export interface SessionStore
  extends Partial<StoreMaintenance>,
    Partial<StoreWatch>,
    Partial<StoreServerClock>,
    Partial<StoreSessionFiles>,
    Partial<StoreLocalDirectory>,
    Partial<StoreCursors>,
    Partial<StoreStepResults>,
    Partial<StoreClaimQueue> {
  /** Short backend name, for messages only: never branch on it. */
  readonly kind: string;
  /** Where the data lives (a directory, a URL without password). */
  readonly location: string;
  readonly capabilities: StoreCapabilities;
  /**
   * Why this handle never writes (a read-only mount, another user's files, opened read-only
   * for the dashboard), or absent/null when it writes. A read-only store reads as usual but
   * writes no cache, snapshot, lock or repair on the way, reporting what it would have
   * repaired (`RepairReport.repaired: false`); every write rejects with `STORE_READ_ONLY`.
   */
  readonly readOnly?: string | null;

  /** Creates a session whose journal starts with `events` (seq 1…). `EXISTS` if the id is taken. */
  create(id: string, events: NewEvent[], summary: SessionSummary): Promise<{ revision: number }>;
  /** True when a session with this id exists (live or archived). */
  exists(id: string): Promise<boolean>;
  /** Reads a session: newest valid snapshot plus the tail. Repairs a torn tail (a read-only store reports it and reads without it). */
  load(id: string): Promise<LoadResult>;
  /**
   * Every event with seq > `afterSeq`, in order; with `limit`, only the first `limit` of them,
   * read without reading the rest of the journal (a page of a long session costs a page).
   */
  readEvents(id: string, afterSeq?: number, limit?: number): Promise<StoredEvent[]>;
  /**
   * Appends `events` only if the journal's last seq is `expectedRevision`; otherwise rejects
   * with `CONFLICT` and writes nothing. Resolves once the events are durable.
   */
  append(
    id: string,
    expectedRevision: number,
    events: NewEvent[],
    options?: AppendOptions,
  ): Promise<{ revision: number }>;
  /**
   * Saves a snapshot; a later load may start from it. Never changes the journal. A snapshot
   * below the stored one's revision is dropped without an error: background snapshots can
   * land out of order, and the newer one speeds loading up more and proves more (repair).
   * `BAD_INPUT` when the revision is past the journal end.
   */
  writeSnapshot(id: string, snapshot: Snapshot): Promise<void>;
  /**
   * Registry rows of every session, live and archived. With `filter`, a store that can
   * (an indexed registry) may leave out rows the filter excludes; it may also return them
   * all: callers filter again.
   */
  list(options?: { rebuild?: boolean; filter?: RowFilter }): Promise<ListResult>;
  /**
   * Optional fast path of {@link list} for stores that keep rows as JSON text: `list --json`
   * over many sessions filters, sorts and prints them without parsing each row.
   */
  listRows?(options?: { rebuild?: boolean; filter?: RowFilter }): Promise<ListRowsResult>;
  /**
   * The named workspace whose active pointer and workspace lock this handle uses, on a store
   * shared by many workspaces (PostgreSQL). Absent: the store is one workspace (a file
   * store: its folder).
   */
  readonly workspace?: string;
  /**
   * Optional: what `list --json` printed, kept while nothing it was computed from changed
   * (the file store: see store/file/list-view.ts). `stamp` is taken before the registry is
   * read; `save` keeps nothing if the stamp changed since; `read` gives the text, as UTF-8
   * bytes (printed as they are), only while the stamp is the same and `now` is before `until`
   * (the earliest lease end in it).
   */
  readonly listView?: {
    stamp(): string;
    read(key: string, now: string): Uint8Array | null;
    save(key: string, stamp: string, text: string, until: string | null): void;
  };
  /** Stores registry rows derived by the manager. */
  putSummaries(rows: SessionSummary[]): Promise<void>;
  /** The workspace's active session id, or null (see {@link workspace}). */
  getActive(): Promise<string | null>;
  /** Sets or clears the active pointer. */
  setActive(id: string | null): Promise<void>;
  /** Runs `fn` while holding the workspace-wide lock (start, switch: one active session). */
  withWorkspaceLock<T>(fn: () => Promise<T>): Promise<T>;
  /** Moves a session to the archive location. Its `session.archived` event is appended first. */
  archive(id: string): Promise<void>;
  /** True when the session lives in the archive location. */
  isArchived(id: string): Promise<boolean>;
  /**
   * Deletes a session, live or archived, if its journal is still at `expectedRevision` (else
   * `CONFLICT`, nothing removed), and records a {@link Tombstone} for it. Afterwards the id is
   * unknown (`NOT_FOUND`; it may be used again) and `list` has no row for it. The caller
   * checks that the session may go (not running, not pinned); the active pointer is left to it.
   */
  delete(id: string, expectedRevision: number, info: TombstoneInfo): Promise<Tombstone>;
  /** Tombstones of every deleted session, oldest deletion first. */
  listTombstones(): Promise<Tombstone[]>;
  /**
   * Stores a checkpoint of session `id` (durably, atomically). `EXISTS` when the session
   * already has a checkpoint with `checkpoint.id`; `BAD_INPUT` for an invalid checkpoint id;
   * `NOT_FOUND` for an unknown session. Never changes the journal.
   */
  saveCheckpoint(id: string, checkpoint: Checkpoint): Promise<void>;
  /**
   * Every checkpoint of session `id`, damaged ones included (as invalid, with the reason), in
   * creation order: by the number in `cp-<n>-…` (ids compared with {@link compareCheckpointIds}).
   */
  listCheckpoints(id: string): Promise<CheckpointRead[]>;
  /** One checkpoint, checked; `NOT_FOUND` when there is none with that id. */
  readCheckpoint(id: string, checkpointId: string): Promise<CheckpointRead>;
  /** Releases locks and handles. */
  close(): Promise<void>;
}

/** Capability `maintenance`: checks and repairs of what only this backend's storage shows (`baton doctor`, `baton repair`). */
export interface StoreMaintenance {
  /**
   * Rewrites a journal whose inner lines are damaged: the original is kept aside, each
   * unreadable line becomes a `repair.unreadable_line` event holding its raw text, so no
   * byte is lost and seq stays contiguous. `NOT_FOUND` for an unknown session.
   */
  repair(id: string): Promise<RepairReport[]>;
  /** Checks what only this backend's files show and, with `fix`, repairs the file-level problems. */
  doctor(options: { fix: boolean }): Promise<StoreDoctorResult>;
  /**
   * Repairs the store made when it was opened (interrupted archives and deletions
   * finished), handed out once; otherwise the next `load` or `list` reports them.
   */
  takeRepairs(): RepairReport[];
}

/** Capability `watch`: change notification across processes. */
export interface StoreWatch {
  /**
   * Calls `onChange` after each committed create or append to any session of this store, by
   * any process (at least once per change; a burst may be reported by its last revision
   * only). Resolves once it listens; the returned function stops it.
   */
  watch(onChange: (c: { sessionId: string; revision: number }) => void): Promise<() => Promise<void>>;
}

/** Capability `server clock`, for stores shared by many machines. */
export interface StoreServerClock {
  /**
   * The store's own clock (the database server's), read now. Claims judge lease expiry by
   * it, so a worker whose clock runs ahead does not take over live runs. Absent: this
   * machine's clock is the store's.
   */
  serverTime(): Promise<Date>;
}

/**
 * Capability `session files`: small derived files kept beside a session (its handoff
 * briefing, a mirror's record), for stores that keep each session in a folder a person can
 * open. Names are plain file names (no separators). They are not part of the journal.
 */
export interface StoreSessionFiles {
  /** The folder holding a session's files, for display; null for an unknown session. */
  sessionFolder(id: string): string | null;
  /** The text of file `name` beside session `id`, or null when it does not exist. */
  readSessionFile(id: string, name: string): Promise<string | null>;
  /**
   * Replaces file `name` beside session `id` atomically (a reader sees the old or the new
   * text, never a mix). Derived data: not fsynced. `NOT_FOUND` for an unknown session.
   */
  writeSessionFile(id: string, name: string, text: string): Promise<void>;
  /** Removes file `name` beside session `id`; nothing when it does not exist. */
  removeSessionFile(id: string, name: string): Promise<void>;
}

/**
 * Capability `local directory`: the store lives in a directory of this machine inside a
 * workspace (the `.baton` folder). A child process reopens it by this path (`BATON_DIR`),
 * and the workspace is its parent folder.
 */
export interface StoreLocalDirectory {
  readonly directory: string;
}

/**
 * Capability `cursors`: small named positions that readers of the store keep in it, so a
 * reader on any machine sharing the store resumes where the last one stopped (`baton otel
 * follow` keeps one per session and destination). Not part of any session's journal.
 */
export interface StoreCursors {
  readonly cursors: CursorTable;
}

/** The named positions of {@link StoreCursors}. Names match `[A-Za-z0-9][A-Za-z0-9._-]*`, at most 200 characters. */
export interface CursorTable {
  /** The value of cursor `name`, or null when it was never set. */
  get(name: string): Promise<string | null>;
  /**
   * Sets cursor `name` to `value` (at most 64 KiB) if it still holds `expected` (null: not
   * set yet); otherwise `CONFLICT` and nothing is written. Atomic and durable: a reader sees
   * the old or the new value, and an acknowledged value survives a crash.
   */
  put(name: string, value: string, expected: string | null): Promise<void>;
  /** Every cursor whose name starts with `prefix`, by name. */
  list(prefix: string): Promise<Array<{ name: string; value: string }>>;
}

/**
 * Capability `step results`: large results of durable steps (`manager.steps`), kept beside
 * the session's journal under their sha256 while the journal's `step.completed` event holds
 * only the hash and size. Gone with the session when it is deleted.
 */
export interface StoreStepResults {
  readonly stepResults: {
    /** Stores `text` under `sha256` for session `id`, durably (acknowledged: on disk). `NOT_FOUND` for an unknown session. */
    put(id: string, sha256: string, text: string): Promise<void>;
    /** The text stored under `sha256` for session `id`, or null when there is none. */
    get(id: string, sha256: string): Promise<string | null>;
  };
}

/** Who took a lease: the holder fields of its `lease.acquired` event (see StoreClaimQueue `leaseHolders`). */
export interface LeaseHolder {
  owner: string;
  token: number;
  host: string;
  pid: number;
  boot?: string;
  detached?: boolean;
}

/**
 * Capability `claim queue`: claimers of a store shared by many processes and machines are
 * handed different sessions without racing for the same one, and a waiting claimer is woken
 * when a session needs a worker instead of polling (PostgreSQL: `FOR UPDATE SKIP LOCKED`
 * semantics, LISTEN/NOTIFY). Without it, claimers list the candidates and race; the
 * conditional append decides either way, so a session is claimed once with or without it.
 */
export interface StoreClaimQueue {
  readonly claimQueue: {
    /**
     * Hands the sessions a claimer may take at `at` (ISO time, the store's clock: interrupted,
     * or active under a lease that ended by then; as {@link RowFilter.claimableAt}), oldest
     * first, to `take`, one at a time. Each is held while `take` runs, so concurrent callers
     * (any process, any machine) are handed other sessions meanwhile: a held session is
     * skipped, never waited for. Sessions in `skip` are never handed. Returns the first
     * non-null result of `take`; null when no session is left. A rejection of `take` ends
     * the hold and is passed on.
     */
    next<T>(at: string, skip: readonly string[], take: (id: string) => Promise<T | null>): Promise<T | null>;
    /**
     * Optional: who took the current lease of each of sessions `ids` (the `lease.acquired` of
     * its latest lease, by a read of that event alone, not of the session), in one look: a
     * claimer tells this machine's leases from the others' without loading each session. A
     * session without one is left out; the caller checks the token against its row's.
     */
    leaseHolders?(ids: readonly string[]): Promise<Map<string, LeaseHolder>>;
    /** Wakes the waiting claimers of every process: sessions `ids` need a worker (said after the change that says so is durable). */
    announce(ids: readonly string[]): Promise<void>;
    /**
     * Calls `onWake` when sessions may need a worker (an {@link announce} by anyone, or a
     * change found by the feed's own poll after a lost connection). Resolves once listening;
     * the returned function stops it.
     */
    listen(onWake: () => void): Promise<() => Promise<void>>;
  };
}

/**
 * Creation order of checkpoint ids: digit runs compare as numbers (`cp-2-…` before
 * `cp-10-…`), the rest as text. Every store lists checkpoints in this order.
 */
export function compareCheckpointIds(a: string, b: string): number {
  const pa = a.split(/(\d+)/);
  const pb = b.split(/(\d+)/);
  for (let i = 0; i < Math.min(pa.length, pb.length); i++) {
    const x = pa[i]!;
    const y = pb[i]!;
    if (x === y) continue;
    if (i % 2 === 1) {
      const d = Number(x) - Number(y);
      if (d !== 0) return d < 0 ? -1 : 1;
    }
    return x < y ? -1 : 1;
  }
  return pa.length - pb.length;
}
