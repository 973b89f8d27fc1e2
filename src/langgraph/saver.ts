/**
 * `BatonSaver`: a LangGraph.js checkpoint saver on baton's stores. A thread is a session
 * (thread.ts names it); each checkpoint is a `graph.checkpoint` event and each task's
 * pending writes a `graph.writes` event, appended through the manager's conditional append,
 * which is what keeps two workers from forking a thread (see docs/langgraph.md).
 */
import type { RunnableConfig } from '@langchain/core/runnables';
import {
  BaseCheckpointSaver,
  TASKS,
  WRITES_IDX_MAP,
  compareWritesSortKeys,
  copyCheckpoint,
  maxChannelVersion,
  writesSortKey,
} from '@langchain/langgraph-checkpoint';
import type {
  ChannelVersions,
  Checkpoint,
  CheckpointListOptions,
  CheckpointMetadata,
  CheckpointTuple,
  PendingWrite,
  SerializerProtocol,
} from '@langchain/langgraph-checkpoint';
import { BatonError, isBatonError, openManager } from '../manager/index.js';
import type { SessionManager, SessionState, StoredEvent } from '../manager/index.js';
import { THREAD_KEY, TITLE_PREFIX, ThreadView, bytesOf, threadSessionId, toTyped } from './thread.js';
import type { CheckpointRecord, Typed, WritesRecord } from './thread.js';

/** How to open the store: the options of `openStore`, plus the saver's own. */
export interface BatonSaverOptions {
  /** `file:/path`, a directory, `postgres://…` or `memory:` (see docs/storage.md). */
  url?: string | null;
  /** An explicit `.baton` directory. */
  dir?: string | null;
  /** Where a file store is looked for (like git finds `.git`) or created; default `process.cwd()`. */
  cwd?: string;
  /** Create a file store when none is found (default true: a checkpointer just works). */
  create?: boolean;
  /** The named workspace on a shared (PostgreSQL) store. */
  workspace?: string | null;
  /** How long to wait for a busy session lock before `LOCKED`. */
  lockTimeoutMs?: number;
  /** Where `BATON_STORE` / `BATON_DIR` are read when neither `url` nor `dir` is given (default `process.env`). */
  env?: Readonly<Record<string, string | undefined>>;
  /** The agent named in the events (default `langgraph`). */
  agent?: string;
  /**
   * `refuse` (default): a put whose parent is not the newest checkpoint of its namespace
   * is refused with `CONFLICT` (another worker advanced the thread). `allow`: such puts
   * branch the thread, as LangGraph's own savers do (time travel from an old checkpoint).
   * One run may branch on purpose with `baton_fork: true` in its `configurable`.
   */
  forks?: 'refuse' | 'allow';
  /** The serializer of checkpoints and writes (default: LangGraph's JSON+ serializer). */
  serde?: SerializerProtocol;
}

type Configurable = { thread_id?: unknown; checkpoint_ns?: unknown; checkpoint_id?: unknown; baton_fork?: unknown };

const conf = (config: RunnableConfig): Configurable => (config.configurable ?? {}) as Configurable;
const threadOf = (config: RunnableConfig): string | undefined => {
  const t = conf(config).thread_id;
  return t === undefined || t === null || t === '' ? undefined : String(t);
};
const nsOf = (config: RunnableConfig): string => String(conf(config).checkpoint_ns ?? '');
const idOf = (config: RunnableConfig): string | undefined => {
  const id = conf(config).checkpoint_id;
  return typeof id === 'string' && id !== '' ? id : undefined;
};
const configOf = (thread_id: string, checkpoint_ns: string, checkpoint_id: string): RunnableConfig => ({
  configurable: { thread_id, checkpoint_ns, checkpoint_id },
});

function needThread(config: RunnableConfig, what: string): string {
  const t = threadOf(config);
  if (t === undefined) {
    throw new BatonError('BAD_INPUT', `Cannot ${what}: the config has no configurable.thread_id.`, {
      hint: 'Pass { configurable: { thread_id } } to the graph, as every LangGraph checkpointer needs.',
    });
  }
  return t;
}

/**
 * A LangGraph.js checkpointer whose threads are baton sessions, on any baton store (the
 * file store, PostgreSQL, memory). `new BatonSaver({ url })` opens the store as `openStore`
 * does; call {@link BatonSaver.close} when done. Every method rejects with a `BatonError`;
 * `put` rejects with `CONFLICT` when it would fork the thread (see {@link BatonSaverOptions.forks}).
 */
export class BatonSaver extends BaseCheckpointSaver {
  /** The manager the saver writes through (its store is `manager.store`). */
  readonly manager: SessionManager;
  private readonly agent: string;
  private readonly forks: 'refuse' | 'allow';

  constructor(o: BatonSaverOptions = {}) {
    super(o.serde);
    const env = o.env ?? process.env;
    const url = o.url ?? (o.dir ? null : env['BATON_STORE'] || null);
    const dir = o.dir ?? (url ? null : env['BATON_DIR'] || null);
    this.manager = openManager({
      url,
      dir,
      cwd: o.cwd ?? process.cwd(),
      create: o.create !== false,
      agent: o.agent ?? 'langgraph',
      env: {},
      ...(o.workspace ? { workspace: o.workspace } : {}),
      ...(o.lockTimeoutMs ? { lockTimeoutMs: o.lockTimeoutMs } : {}),
      // A thread's handoff document would be rewritten at every step: the steps are in `status`.
      derivedFiles: { handoff: false },
    });
    this.agent = o.agent ?? 'langgraph';
    this.forks = o.forks ?? 'refuse';
  }

  /** Same as `new BatonSaver({ url, ...options })`. */
  static open(url: string, o: Omit<BatonSaverOptions, 'url'> = {}): BatonSaver {
    return new BatonSaver({ ...o, url });
  }

  /** The session id that holds `threadId` (see docs/langgraph.md). */
  static sessionId(threadId: string): string {
    return threadSessionId(threadId);
  }

  /** Waits for pending work and closes the store. */
  close(): Promise<void> {
    return this.manager.close();
  }

  async getTuple(config: RunnableConfig): Promise<CheckpointTuple | undefined> {
    const threadId = threadOf(config);
    if (threadId === undefined) return undefined;
    const view = await this.view(threadId);
    const rec = view?.find(nsOf(config), idOf(config));
    return view && rec ? this.tuple(view, rec) : undefined;
  }

  async *list(config: RunnableConfig, options: CheckpointListOptions = {}): AsyncGenerator<CheckpointTuple> {
    const { before, filter } = options;
    let limit = options.limit;
    const wantNs = conf(config).checkpoint_ns;
    const wantId = idOf(config);
    const beforeId = before ? idOf(before) : undefined;
    const threadId = threadOf(config);
    for (const tid of threadId !== undefined ? [threadId] : await this.threadIds()) {
      const view = await this.view(tid);
      if (!view) continue;
      for (const [ns, recs] of view.checkpoints) {
        if (wantNs !== undefined && ns !== String(wantNs)) continue;
        // Newest first, by checkpoint id (LangGraph's ids sort by time), as LangGraph's savers list.
        for (const rec of [...recs].sort((a, b) =>
          a.checkpointId < b.checkpointId ? 1 : a.checkpointId > b.checkpointId ? -1 : 0,
        )) {
          if (wantId && rec.checkpointId !== wantId) continue;
          if (beforeId && rec.checkpointId >= beforeId) continue;
          if (filter) {
            const metadata = (await this.load(rec.metadata)) as Record<string, unknown>;
            if (!Object.entries(filter).every(([k, v]) => metadata?.[k] === v)) continue;
          }
          if (limit !== undefined) {
            if (limit <= 0) return;
            limit -= 1;
          }
          yield await this.tuple(view, rec);
        }
      }
    }
  }

  async put(
    config: RunnableConfig,
    checkpoint: Checkpoint,
    metadata: CheckpointMetadata,
    newVersions: ChannelVersions,
  ): Promise<RunnableConfig> {
    const threadId = needThread(config, 'store a checkpoint');
    const ns = nsOf(config);
    const parentId = idOf(config) ?? null;
    const copy = copyCheckpoint(checkpoint);
    // Only the channels this step changed are stored; the others are found by version in the
    // values stored before (as LangGraph's PostgreSQL saver does).
    const blobs: CheckpointRecord['blobs'] = [];
    for (const [channel, version] of Object.entries(newVersions)) {
      if (!Object.hasOwn(copy.channel_values, channel) || copy.channel_values[channel] === undefined) continue;
      blobs.push({ channel, version: String(version), value: await this.dump(copy.channel_values[channel]) });
    }
    copy.channel_values = {};
    const meta = metadata as { step?: unknown; source?: unknown };
    const rec: CheckpointRecord = {
      ns,
      checkpointId: checkpoint.id,
      parentId,
      step: typeof meta.step === 'number' ? meta.step : null,
      source: typeof meta.source === 'string' ? meta.source : null,
      checkpoint: await this.dump(copy),
      metadata: await this.dump(metadata),
      blobs,
    };
    const branch = this.forks === 'allow' || conf(config).baton_fork === true;
    await this.append(threadId, (s) => {
      if (!branch) this.checkFork(s, threadId, rec);
      return { type: 'graph.checkpoint', data: rec };
    });
    return configOf(threadId, ns, checkpoint.id);
  }

  async putWrites(config: RunnableConfig, writes: PendingWrite[], taskId: string, taskPath?: string): Promise<void> {
    const threadId = needThread(config, 'store pending writes');
    const checkpointId = idOf(config);
    if (checkpointId === undefined) {
      throw new BatonError('BAD_INPUT', 'Cannot store pending writes: the config has no configurable.checkpoint_id.', {
        hint: 'Pass the config that put() returned.',
      });
    }
    const rec: WritesRecord = { ns: nsOf(config), checkpointId, taskId, taskPath: taskPath ?? '', writes: [] };
    for (const [i, [channel, value]] of writes.entries())
      rec.writes.push({ channel, idx: WRITES_IDX_MAP[channel] || i, value: await this.dump(value) });
    // Writes commute: the manager retries them on a lost race by itself.
    await this.append(threadId, () => ({ type: 'graph.writes', data: rec }));
  }

  async deleteThread(threadId: string): Promise<void> {
    const id = threadSessionId(String(threadId));
    let s: SessionState;
    try {
      s = await this.manager.get(id);
    } catch (e) {
      if (isBatonError(e, 'NOT_FOUND')) return;
      throw e;
    }
    if (s.metadata[THREAD_KEY] !== String(threadId)) return;
    // Only an ended session may be deleted: the thread's session is abandoned first.
    if (s.status !== 'completed' && s.status !== 'abandoned')
      await this.manager.lifecycle(id, 'abandon', 'LangGraph thread deleted', { force: true });
    await this.manager.delete(id);
  }

  /** Refuses a put that would fork the thread: its parent is not the namespace's newest checkpoint. */
  private checkFork(s: SessionState | null, threadId: string, rec: CheckpointRecord): void {
    if (rec.parentId === null) return;
    const latest = s?.graph?.latest[rec.ns]?.checkpointId;
    if (latest === undefined || latest === rec.parentId) return;
    throw new BatonError(
      'CONFLICT',
      `Checkpoint ${rec.checkpointId} of thread ${threadId}${rec.ns ? ` (namespace ${rec.ns})` : ''} follows ${rec.parentId}, but the thread's newest checkpoint there is ${latest}: another worker advanced it (or this branches from an older checkpoint, which this saver refuses).`,
      {
        hint: 'Load the thread again (getTuple) and continue from its newest checkpoint; to branch from an older checkpoint on purpose, pass baton_fork: true in the run\'s configurable (or open the saver with forks: "allow").',
        details: { threadId, namespace: rec.ns, checkpointId: rec.checkpointId, parentId: rec.parentId, latest },
      },
    );
  }

  /** Appends one event to the thread's session, creating the session with it when there is none. */
  private async append(
    threadId: string,
    make: (s: SessionState | null) => {
      type: 'graph.checkpoint' | 'graph.writes';
      data: CheckpointRecord | WritesRecord;
    },
  ): Promise<void> {
    const id = threadSessionId(threadId);
    for (let attempt = 0; ; attempt++) {
      try {
        await this.manager.change(id, (s) => {
          if (s.metadata[THREAD_KEY] !== threadId) {
            throw new BatonError('EXISTS', `Session ${id} exists and is not LangGraph thread ${threadId}.`, {
              hint: 'Use another thread_id, or delete the session.',
              details: { sessionId: id, threadId },
            });
          }
          return { events: [make(s) as never], result: undefined };
        });
        return;
      } catch (e) {
        if (!isBatonError(e, 'NOT_FOUND') || attempt > 3) throw e;
      }
      const time = this.manager.time();
      const actor = { agent: this.agent, pid: this.manager.origin.pid, host: this.manager.origin.host };
      const created = {
        type: 'session.created',
        time,
        actor,
        data: {
          title: `${TITLE_PREFIX}${threadId}`.slice(0, 1000),
          idFormat: 'explicit',
          phases: [],
          budgetMax: null,
          contextSummary: null,
          metadata: { [THREAD_KEY]: threadId },
        },
      };
      try {
        await this.manager.createFrom(id, [created, { ...make(null), time, actor }] as never);
        return;
      } catch (e) {
        // Another worker created it first: append to it like any other.
        if (!isBatonError(e, 'EXISTS')) throw e;
      }
    }
  }

  /** The thread's journal, or null when no session holds it. */
  private async view(threadId: string): Promise<ThreadView | null> {
    let events: StoredEvent[];
    try {
      events = await this.manager.log(threadSessionId(threadId));
    } catch (e) {
      if (isBatonError(e, 'NOT_FOUND')) return null;
      throw e;
    }
    return ThreadView.threadOf(events) === threadId ? new ThreadView(threadId, events) : null;
  }

  /** Every thread the store holds (sessions whose journal says they are threads). */
  private async threadIds(): Promise<string[]> {
    const out: string[] = [];
    for (const row of await this.manager.list({ all: true })) {
      if (!row.title.startsWith(TITLE_PREFIX)) continue;
      try {
        const t = ThreadView.threadOf(await this.manager.log(row.id, 0));
        if (t !== null) out.push(t);
      } catch (e) {
        if (!isBatonError(e, 'NOT_FOUND')) throw e;
      }
    }
    return out;
  }

  private async tuple(view: ThreadView, rec: CheckpointRecord): Promise<CheckpointTuple> {
    const { ns } = rec;
    const checkpoint = (await this.load(rec.checkpoint)) as Checkpoint;
    checkpoint.channel_values = {};
    for (const [channel, version] of Object.entries(checkpoint.channel_versions ?? {})) {
      const blob = view.blob(ns, channel, String(version));
      if (blob) checkpoint.channel_values[channel] = await this.load(blob);
    }
    if (checkpoint.v < 4 && rec.parentId !== null) await this.migratePendingSends(view, checkpoint, ns, rec.parentId);
    const writes = view
      .writesOf(ns, rec.checkpointId)
      .sort((a, b) =>
        compareWritesSortKeys(writesSortKey(a.taskPath, a.taskId, a.idx), writesSortKey(b.taskPath, b.taskId, b.idx)),
      );
    const t: CheckpointTuple = {
      config: configOf(view.threadId, ns, rec.checkpointId),
      checkpoint,
      metadata: (await this.load(rec.metadata)) as CheckpointMetadata,
      pendingWrites: await Promise.all(
        writes.map(async (w) => [w.taskId, w.channel, await this.load(w.value)] as [string, string, unknown]),
      ),
    };
    if (rec.parentId !== null) t.parentConfig = configOf(view.threadId, ns, rec.parentId);
    return t;
  }

  /** Checkpoints older than format 4 kept the sends of their parent's tasks as a channel (as MemorySaver migrates them). */
  private async migratePendingSends(
    view: ThreadView,
    checkpoint: Checkpoint,
    ns: string,
    parentId: string,
  ): Promise<void> {
    const sends = view.writesOf(ns, parentId).filter((w) => w.channel === TASKS);
    checkpoint.channel_values[TASKS] = await Promise.all(sends.map((w) => this.load(w.value)));
    const versions = Object.values(checkpoint.channel_versions);
    checkpoint.channel_versions[TASKS] =
      versions.length > 0 ? maxChannelVersion(...versions) : this.getNextVersion(undefined);
  }

  private async dump(value: unknown): Promise<Typed> {
    return toTyped(await this.serde.dumpsTyped(value));
  }

  private load(t: Typed): Promise<unknown> {
    return this.serde.loadsTyped(t[0], bytesOf(t));
  }
}
