import type { Pool, PoolClient } from 'pg';
import { BatonError, isBatonError } from '../../domain/errors.js';
import type { NewEvent, StoredEvent } from '../../domain/events.js';
import { validateId } from '../../domain/ids.js';
import { validateWorkspace } from '../../domain/workspace-name.js';
import type { SessionSummary } from '../../domain/summary.js';
import { checkpointNotFound, conflict, exists, notFound } from '../errors.js';
import { readCheckpointRows, saveCheckpointRow } from './checkpoint-store.js';
import { loadSession, readSessionEvents } from './event-reads.js';
import { statementName } from './statement-name.js';
import { underAdvisoryLock } from './workspace-lock.js';
import { readTombstones } from './tombstones.js';
import { RowText } from '../row.js';
import { compareCheckpointIds } from '../types.js';
import type {
  AppendOptions,
  Checkpoint,
  CheckpointRead,
  ListResult,
  ListRowsResult,
  LoadResult,
  RepairReport,
  RowFilter,
  SessionStore,
  Snapshot,
  StoreCapabilities,
  Tombstone,
  TombstoneInfo,
} from '../types.js';
import { PgCursorTable } from './cursors.js';
import { PgStepResults } from './step-results.js';
import { migrate } from './migrations.js';
import { recoverLostRows } from './repair.js';
import { NOTIFY_SPACING_MS, REFRESH_SPACING_MS, Refresher } from './refresh.js';
import type { RefreshBatch } from './refresh.js';
import { encodeEvents } from './rows.js';
import { createPool, inTransaction, mapPgError, onConnection, sqlState } from './pool.js';
import { statements } from './sql.js';
import type { Statements } from './sql.js';
import { channelOf, ident, parsePgUrl } from './url.js';
import type { PgTarget } from './url.js';
import { registryQuery, registryRows } from './registry.js';
import type { RegistryRow } from './registry.js';
import { watchChanges } from './watch.js';
import { PgClaimQueue } from './claim-queue.js';
import type { StoreChange, WatchTiming } from './watch.js';

/** Options of {@link PostgresStore}. */
export interface PostgresStoreOptions {
  /** `postgres://…[?schema=NAME&pool=N&connect_timeout=S]`. */
  url: string;
  /** Longest wait for the workspace lock before `LOCKED` (default 30 s). */
  lockTimeoutMs?: number;
  /** How `watch` checks its LISTEN connection (tests shorten it; see watch.ts). */
  watchTiming?: WatchTiming;
  /**
   * The named workspace whose active pointer and lock this handle uses (default
   * {@link DEFAULT_WORKSPACE}: every handle that names none shares one).
   */
  workspace?: string;
}

/** The workspace of a handle that names none. */
export const DEFAULT_WORKSPACE = 'default';

/** Schemas this process has brought up to date, by connection string and schema. */
const migrated = new Map<string, Promise<number[]>>();

/**
 * The store for many workers on many machines: every session in one PostgreSQL schema.
 * Events are rows keyed by `(session_id, seq)`; the conditional append is one guarded
 * statement (see sql.ts), so the database itself decides which of two writers wins.
 * Connects on first use (the constructor does no I/O) and brings the schema up to date
 * once per process. A server that is down or a lost connection is `STORE_UNAVAILABLE`
 * (`details.retryable: true`).
 */
export class PostgresStore implements SessionStore {
  readonly kind = 'postgres';
  readonly capabilities: StoreCapabilities = { multiProcess: true, multiMachine: true, durable: true };
  readonly location: string;
  /** The schema holding this store's tables. */
  readonly schema: string;
  /** The named workspace whose active pointer and workspace lock this handle uses. */
  readonly workspace: string;
  private readonly target: PgTarget;
  private readonly sql: Statements;
  /** Longest wait for the workspace lock before `LOCKED`. */
  readonly lockTimeoutMs: number;
  private readonly watchTiming: WatchTiming | undefined;
  private pool: Pool | null = null;
  private ready: Promise<Pool> | null = null;
  private closed = false;
  /** The pool close() is ending, while the last refreshes drain (see refresh()). */
  private closingPool: Pool | null = null;
  private applied: number[] = [];
  /** Serialises this handle's own workspace-lock sections before they compete in the database. */
  private lockChain: Promise<unknown> = Promise.resolve();
  readonly cursors = new PgCursorTable(
    (text, values) => this.q(text, values),
    () => ident(this.schema),
  );
  /** Large results of durable steps (capability `step results`). */ readonly stepResults = new PgStepResults(
    (text, values) => this.q(text, values),
    () => ident(this.schema),
  );
  /** Claimers handed different sessions, woken when one needs a worker (capability `claim queue`, claim-queue.ts). */
  readonly claimQueue = new PgClaimQueue({
    hold: (fn) => this.tx(fn, this.sql.claimRelease),
    q: (text, values) => this.q(text, values),
    settle: () => this.settle(),
    listen: async (channel, onChange, timing) => {
      await this.connect().catch((e: unknown) => {
        throw mapPgError(e, this.location);
      });
      return watchChanges(this.target, this.sql.changedSince, onChange, timing ?? this.watchTiming, channel);
    },
    sql: () => this.sql,
    schema: () => this.schema,
  });
  /** Registry rows and notifications of acknowledged appends, brought up to date after the ack (refresh.ts). */
  private readonly refresher = new Refresher((b) => this.refresh(b), REFRESH_SPACING_MS, NOTIFY_SPACING_MS);

  constructor(options: PostgresStoreOptions) {
    this.target = parsePgUrl(options.url);
    this.location = this.target.location;
    this.schema = this.target.schema;
    this.sql = statements(ident(this.schema));
    this.lockTimeoutMs = options.lockTimeoutMs ?? 30_000;
    this.watchTiming = options.watchTiming;
    this.workspace = validateWorkspace(options.workspace ?? DEFAULT_WORKSPACE);
  }

  /** The pool, connected and migrated. A failed first attempt is forgotten, so the next call retries. */
  private connect(): Promise<Pool> {
    if (this.closed) return Promise.reject(this.closedError());
    const ready = (this.ready ??= (async () => {
      const pool = (this.pool ??= createPool(this.target));
      const key = `${this.target.connectionString}#${this.schema}`;
      // Another handle of this process already migrated the schema: this one applied nothing.
      const cached = migrated.get(key);
      const done = cached ?? migrate(pool, this.schema);
      if (!cached) {
        migrated.set(key, done);
        done.catch(() => migrated.delete(key));
      }
      const applied = cached ? await cached.then(() => []) : await done;
      // close() may have run while this waited: the pool is ended, never hand it out.
      if (this.closed) throw this.closedError();
      this.applied = applied;
      return pool;
    })());
    ready.catch(() => {
      if (this.ready === ready) this.ready = null;
    });
    return ready;
  }

  /** What a call on a closed store (or one closed while the call waited) gets. */
  private closedError(): BatonError {
    return new BatonError('STORE_UNAVAILABLE', `The PostgreSQL store at ${this.location} was closed.`, {
      hint: 'Open the store again.',
      details: { retryable: false, closed: true },
    });
  }

  /**
   * Connects and brings the schema up to date now (`baton init`); returns the migration
   * versions this process applied (empty when the schema was current).
   */
  async prepare(): Promise<number[]> {
    try {
      await this.connect();
    } catch (e) {
      throw mapPgError(e, this.location);
    }
    return [...this.applied];
  }

  /**
   * Runs one statement, prepared once per connection (named by a hash of its text: the
   * server parses and plans it once, not at every call); driver errors become `BatonError`s
   * where they mean something.
   */
  private async q<R extends Record<string, unknown>>(
    text: string,
    values: unknown[] = [],
  ): Promise<{ rows: R[]; rowCount: number }> {
    try {
      const pool = await this.connect();
      if (this.closed) throw this.closedError();
      const config = { name: statementName(text), text, values };
      const r = await pool.query<R>(config);
      return { rows: r.rows, rowCount: r.rowCount ?? 0 };
    } catch (e) {
      if (this.closed && !isBatonError(e)) throw this.closedError();
      if (sqlState(e) === '42P01' || sqlState(e) === '3F000') throw this.tablesGone(e);
      throw mapPgError(e, this.location);
    }
  }

  /**
   * The schema or a table disappeared after this process migrated it (dropped by hand): the
   * next call migrates again instead of trusting what this process remembered.
   */
  private tablesGone(e: unknown): BatonError {
    migrated.delete(`${this.target.connectionString}#${this.schema}`);
    this.ready = null;
    return new BatonError(
      'STORE_UNAVAILABLE',
      `The tables of schema ${this.schema} at ${this.location} are missing (dropped while baton was running?).`,
      {
        hint: 'Retry: the next call creates the schema again (empty), or restore it from a backup first.',
        details: { retryable: true, sqlState: sqlState(e) },
        cause: e,
      },
    );
  }

  async create(id: string, events: NewEvent[], summary: SessionSummary): Promise<{ revision: number }> {
    validateId(id);
    const revision = events.length;
    const { types, bodies } = encodeEvents(events);
    const payload = JSON.stringify({ session: id, revision });
    const r = await this.q(this.sql.create, [
      id,
      revision,
      RowText.of({ ...summary, revision }).json,
      types,
      bodies,
      channelOf(this.schema),
      payload,
    ]);
    if (r.rowCount === 0) throw exists(id);
    return { revision };
  }

  async exists(id: string): Promise<boolean> {
    validateId(id);
    return (await this.q(this.sql.exists, [id])).rowCount > 0;
  }

  async load(id: string): Promise<LoadResult> {
    // A session a claimer of this handle just picked was loaded by the pick's statement.
    return loadSession((text, values) => this.q(text, values), this.sql, id, this.claimQueue.takeLoad(id));
  }

  async readEvents(id: string, afterSeq = 0, limit?: number): Promise<StoredEvent[]> {
    return readSessionEvents((text, values) => this.q(text, values), this.sql, id, afterSeq, limit);
  }

  /**
   * One statement, autocommitted: the conditional insert of the events and nothing else
   * (issue 18). Once it is acknowledged, the session's registry row (from `options.summary`)
   * and the notification to watchers follow, coalesced with other appends of this handle
   * (refresh.ts; this handle's `list` waits for them, others derive a lagging row). A session
   * a claimer of this handle holds has its row in the statement: its refresh only announces it.
   */
  async append(
    id: string,
    expectedRevision: number,
    events: NewEvent[],
    options: AppendOptions = {},
  ): Promise<{ revision: number }> {
    validateId(id);
    const revision = expectedRevision + events.length;
    const { types, bodies } = encodeEvents(events);
    const mark = options.summary ? true : null; // only when the row changes (the manager passes one only then)
    const row = options.summary && this.claimQueue.holds(id) ? RowText.of({ ...options.summary, revision }).json : null;
    const [text, values] = row
      ? [this.sql.appendWithRow, [id, expectedRevision, types, bodies, row, revision]]
      : types.length === 1
        ? [this.sql.append, [id, expectedRevision, types[0], bodies[0], mark]]
        : [this.sql.appendMany, [id, expectedRevision, types, bodies, mark]];
    const r = await this.q(text, values).catch(async (e: unknown) => {
      // The primary key refused a seq that is taken: another writer got there first.
      if (sqlState(e) === '23505')
        throw conflict(id, expectedRevision, (await this.currentRevision(id)) ?? expectedRevision);
      // The session was deleted while this append waited for it.
      if (sqlState(e) === '23503') throw notFound(id);
      throw e;
    });
    if (r.rowCount === 0) {
      const actual = await this.currentRevision(id);
      if (actual === null) throw notFound(id);
      throw conflict(id, expectedRevision, actual);
    }
    this.refresher.note(id, revision, options.summary ?? null);
    return { revision };
  }

  /**
   * Runs one refresh batch (see refresh.ts) on the pool, also while close() drains it; never
   * throws (a lost refresh is repaired by `list`).
   */
  private async refresh(b: RefreshBatch): Promise<void> {
    const pool = this.pool ?? this.closingPool;
    if (!pool) return;
    // A batch of appends that left every row alone only announces them (no UPDATE).
    const [text, values] = b.rows.some((r) => r !== null)
      ? [this.sql.refresh, [b.ids, b.revisions, b.rows, b.rowRevisions, channelOf(this.schema)]]
      : [this.sql.notify, [b.ids, b.revisions, channelOf(this.schema)]];
    await pool.query({ name: statementName(text), text, values }).catch(() => undefined);
  }

  /** Resolves once the registry rows and notifications of every append acknowledged so far are written (or failed). */
  async settle(): Promise<void> {
    await this.refresher.flush();
  }

  /** The session's revision; null when there is no such session. */
  private async currentRevision(id: string): Promise<number | null> {
    const r = await this.q<{ revision: number | null }>(this.sql.revision, [id]);
    return r.rows[0] ? (r.rows[0].revision ?? 0) : null;
  }

  async writeSnapshot(id: string, snapshot: Snapshot): Promise<void> {
    validateId(id);
    const r = await this.q(this.sql.writeSnapshot, [id, snapshot.revision, JSON.stringify(snapshot.state)]);
    if (r.rowCount > 0) return;
    const actual = await this.currentRevision(id);
    if (actual === null) throw notFound(id);
    // Not past the end: a newer snapshot is stored and stays (see the statement).
    if (snapshot.revision <= actual) return;
    throw new BatonError('BAD_INPUT', `Snapshot revision ${snapshot.revision} is past the journal end ${actual}.`);
  }

  async list(options: { rebuild?: boolean; filter?: RowFilter } = {}): Promise<ListResult> {
    const r = await this.listRows(options);
    return { summaries: r.rows.map((row) => row.summary), missing: r.missing, repairs: r.repairs };
  }

  /**
   * The registry rows, read from the sessions table, after this handle's own refreshes are
   * written. A row that lags its journal (its refresh lost to a crash, or still in flight in
   * another worker) is handed back as missing, so the manager derives it from the journal
   * and stores it; so is every row with `rebuild`.
   */
  async listRows(options: { rebuild?: boolean; filter?: RowFilter } = {}): Promise<ListRowsResult> {
    await this.refresher.flush();
    const [text, values] = options.rebuild ? [this.sql.list, []] : registryQuery(this.sql, options.filter ?? {});
    return registryRows((await this.q<RegistryRow>(text, values)).rows, options.rebuild === true);
  }

  async putSummaries(rows: SessionSummary[]): Promise<void> {
    if (!rows.length) return;
    await this.q(this.sql.putSummaries, [
      rows.map((x) => x.id),
      rows.map((x) => RowText.of(x).json),
      rows.map((x) => x.revision),
    ]);
  }

  async getActive(): Promise<string | null> {
    const r = await this.q<{ value: string }>(this.sql.getActive, [this.workspace]);
    return r.rows[0]?.value ?? null;
  }

  async setActive(id: string | null): Promise<void> {
    if (id === null) {
      await this.q(this.sql.clearActive, [this.workspace]);
      return;
    }
    validateId(id);
    if ((await this.q(this.sql.setActive, [id, this.workspace])).rowCount === 0) throw notFound(id);
  }

  /**
   * The workspace lock is a transaction-level advisory lock keyed by the schema and the
   * workspace (workers of other workspaces never wait for it), held on a
   * connection of its own while `fn` runs (with other connections of the pool): a worker that
   * dies or loses its connection releases it with its session. Waits at most `lockTimeoutMs`,
   * then `LOCKED`.
   */
  async withWorkspaceLock<T>(fn: () => Promise<T>): Promise<T> {
    const run = this.lockChain.then(
      () => this.underAdvisoryLock(fn),
      () => this.underAdvisoryLock(fn),
    );
    this.lockChain = run.catch(() => undefined);
    return run;
  }

  private underAdvisoryLock<T>(fn: () => Promise<T>): Promise<T> {
    return underAdvisoryLock(
      {
        connect: () => this.connect(),
        location: this.location,
        schema: this.schema,
        workspace: this.workspace,
        lockTimeoutMs: this.lockTimeoutMs,
        closed: () => (this.closed ? this.closedError() : null),
      },
      fn,
    );
  }

  async archive(id: string): Promise<void> {
    validateId(id);
    if ((await this.q(this.sql.archive, [id])).rowCount === 0) throw notFound(id);
  }

  async isArchived(id: string): Promise<boolean> {
    validateId(id);
    const r = await this.q<{ archived: boolean }>(this.sql.archived, [id]);
    if (!r.rows[0]) throw notFound(id);
    return r.rows[0].archived;
  }

  /**
   * Deletes in one transaction: the session's row is locked first (appends wait for it, and
   * fail with NOT_FOUND once it is gone), then the revision is checked, then everything goes.
   */
  async delete(id: string, expectedRevision: number, info: TombstoneInfo): Promise<Tombstone> {
    validateId(id);
    const archived = await this.tx(async (c) => {
      if (!(await c.query(this.sql.lockForDelete, [id])).rows[0]) throw notFound(id);
      const revision = (await c.query<{ revision: number | null }>(this.sql.revision, [id])).rows[0]?.revision ?? 0;
      if (revision !== expectedRevision) throw conflict(id, expectedRevision, revision);
      const r = await c.query<{ archived: boolean }>(this.sql.delete, [id, info.deletedAt, info.title, info.status]);
      return r.rows[0]!.archived;
    });
    return { id, deletedAt: info.deletedAt, title: info.title, status: info.status, archived };
  }

  /** Runs `fn` in a transaction on one connection (with `letGo`: outside one, see onConnection); driver errors mapped as in {@link q}. */
  private async tx<T>(fn: (c: PoolClient) => Promise<T>, letGo?: string): Promise<T> {
    try {
      const pool = await this.connect();
      return await (letGo ? onConnection(pool, fn, letGo) : inTransaction(pool, fn));
    } catch (e) {
      if (this.closed && !isBatonError(e)) throw this.closedError();
      throw mapPgError(e, this.location);
    }
  }

  async listTombstones(): Promise<Tombstone[]> {
    return readTombstones((text, values) => this.q(text, values), this.sql);
  }

  /** Rows are never torn: the one repair is of acknowledged events lost (see repair.ts). */
  async repair(id: string): Promise<RepairReport[]> {
    validateId(id);
    return this.tx((c) => recoverLostRows(c, ident(this.schema), channelOf(this.schema), id));
  }

  async saveCheckpoint(id: string, checkpoint: Checkpoint): Promise<void> {
    await saveCheckpointRow(
      (text, values) => this.q(text, values),
      this.sql,
      id,
      checkpoint,
      () => this.currentRevision(id),
    );
  }

  async listCheckpoints(id: string): Promise<CheckpointRead[]> {
    return (await this.readCheckpoints(id, null)).sort((a, b) => compareCheckpointIds(a.id, b.id));
  }

  async readCheckpoint(id: string, checkpointId: string): Promise<CheckpointRead> {
    validateId(checkpointId, 'checkpoint id');
    const [r] = await this.readCheckpoints(id, checkpointId);
    if (!r) throw checkpointNotFound(id, checkpointId);
    return r;
  }

  private readCheckpoints(id: string, checkpointId: string | null): Promise<CheckpointRead[]> {
    return readCheckpointRows((text, values) => this.q(text, values), this.sql, id, checkpointId);
  }

  /**
   * Calls `onChange` for every session created or appended to in this schema, by any worker,
   * after it committed (see watch.ts: a connection of its own, reconnected when lost).
   */
  async watch(onChange: (c: StoreChange) => void): Promise<() => Promise<void>> {
    await this.connect().catch((e: unknown) => {
      throw mapPgError(e, this.location);
    });
    return watchChanges(this.target, this.sql.changedSince, onChange, this.watchTiming);
  }

  /** The database server's clock, read now (see SessionStore.serverTime). */
  async serverTime(): Promise<Date> {
    const r = await this.q<{ ms: number }>('SELECT (extract(epoch FROM clock_timestamp()) * 1000)::float8 AS ms');
    return new Date(Math.round(Number(r.rows[0]!.ms)));
  }

  async close(): Promise<void> {
    this.closed = true;
    const pool = this.pool;
    this.pool = null;
    this.ready = null;
    // The refreshes of acknowledged appends still go out on the old pool (a lost one is
    // repaired by `list`, but costs a derivation); new calls already fail as closed.
    this.closingPool = pool;
    await this.refresher.flush();
    this.closingPool = null;
    if (pool) await pool.end().catch(() => undefined);
  }
}
