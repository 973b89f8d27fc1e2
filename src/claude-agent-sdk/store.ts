/**
 * `BatonSessionStore`: the Claude Agent SDK's `SessionStore` on baton's stores. A conversation
 * is a baton session (keys.ts names it); each batch of transcript lines the SDK mirrors is one
 * `transcript.mirrored` event with the tokens its responses report, appended through the
 * manager's conditional append (see docs/claude-agent-sdk.md).
 */
import { BatonError, isBatonError, openManager } from '../manager/index.js';
import type { SessionManager, TranscriptEntry } from '../manager/index.js';
import {
  TITLE_PREFIX,
  checkKey,
  conversationMetadata,
  conversationSessionId,
  heldConversation,
  holds,
} from './keys.js';
import type { SessionKey } from './keys.js';

/** One transcript line as the SDK passes it (its `SessionStoreEntry`): JSON with a string `type`. */
export type SessionStoreEntry = TranscriptEntry;

/** How to open the store: the options of `openStore`, plus the session store's own. */
export interface BatonSessionStoreOptions {
  /** `file:/path`, a directory, `postgres://…` or `memory:` (see docs/storage.md). */
  url?: string | null;
  /** An explicit `.baton` directory. */
  dir?: string | null;
  /** Where a file store is looked for (like git finds `.git`) or created; default `process.cwd()`. */
  cwd?: string;
  /** Create a file store when none is found (default true). */
  create?: boolean;
  /** The named workspace on a shared (PostgreSQL) store. */
  workspace?: string | null;
  /** How long to wait for a busy session lock before `LOCKED`. */
  lockTimeoutMs?: number;
  /** Where `BATON_STORE` / `BATON_DIR` are read when neither `url` nor `dir` is given (default `process.env`). */
  env?: Readonly<Record<string, string | undefined>>;
  /** Who spent the main transcript's tokens (default `claude`); a sub-agent's go to `<agent>/subagent#<id8>`. */
  agent?: string;
  /**
   * Keep every conversation under this project name instead of the SDK's `projectKey` (which
   * is the working folder): a conversation started in one folder then resumes from any other
   * (another machine's checkout) through the same store. Without it, each folder is its own
   * project, as in the SDK.
   */
  project?: string;
}

/**
 * The Claude Agent SDK's `SessionStore` (`query({ options: { sessionStore } })`) on any baton
 * store: the file store, PostgreSQL (many hosts), memory. Implements `append`, `load`,
 * `listSessions`, `delete` and `listSubkeys`; every method rejects with a `BatonError`.
 * Call {@link BatonSessionStore.close} when done.
 */
export class BatonSessionStore {
  /** The manager the store writes through (its store is `manager.store`). */
  readonly manager: SessionManager;
  private readonly agent: string;
  private readonly project: string | null;
  /** The last append of each session still under way in this process. */
  private readonly queues = new Map<string, Promise<void>>();

  constructor(o: BatonSessionStoreOptions = {}) {
    const env = o.env ?? process.env;
    const url = o.url ?? (o.dir ? null : env['BATON_STORE'] || null);
    const dir = o.dir ?? (url ? null : env['BATON_DIR'] || null);
    this.agent = o.agent ?? 'claude';
    if (o.project !== undefined && (typeof o.project !== 'string' || o.project === '' || o.project.length > 1024)) {
      throw new BatonError(
        'BAD_INPUT',
        `The project option must be non-empty text; got ${JSON.stringify(o.project)}.`,
        {
          hint: 'Name the project every host shares (e.g. the repository name), or leave the option out.',
        },
      );
    }
    this.project = o.project ?? null;
    this.manager = openManager({
      url,
      dir,
      cwd: o.cwd ?? process.cwd(),
      create: o.create !== false,
      agent: this.agent,
      env: {},
      ...(o.workspace ? { workspace: o.workspace } : {}),
      ...(o.lockTimeoutMs ? { lockTimeoutMs: o.lockTimeoutMs } : {}),
      // The handoff document would be rewritten at every batch of a turn.
      derivedFiles: { handoff: false },
    });
  }

  /** Same as `new BatonSessionStore({ url, ...options })`. */
  static open(url: string, o: Omit<BatonSessionStoreOptions, 'url'> = {}): BatonSessionStore {
    return new BatonSessionStore({ ...o, url });
  }

  /** The baton session id that holds conversation `sessionId` of `projectKey` (as mapped by `project`). */
  sessionIdOf(key: { projectKey: string; sessionId: string }): string {
    const k = this.keyOf(key);
    return conversationSessionId(k.projectKey, k.sessionId);
  }

  /** Waits for pending work and closes the store. */
  close(): Promise<void> {
    return this.manager.close();
  }

  /**
   * Mirrors a batch of lines, in call order, with the tokens they report (each response once).
   * The first batch creates the session. `append(key, [])` writes nothing.
   */
  append(key: SessionKey, entries: SessionStoreEntry[]): Promise<void> {
    let k: ReturnType<BatonSessionStore['keyOf']>;
    try {
      k = this.keyOf(key);
    } catch (e) {
      return Promise.reject(e);
    }
    const id = conversationSessionId(k.projectKey, k.sessionId);
    const write = (): Promise<void> =>
      this.manager.transcripts
        .mirror(id, {
          subpath: k.subpath ?? null,
          entries,
          agent: this.agent,
          create: { title: `${TITLE_PREFIX}${k.sessionId}`, metadata: conversationMetadata(k.projectKey, k.sessionId) },
          owns: (m) => holds(m, k.projectKey, k.sessionId),
        })
        .then(() => undefined);
    // In call order, one after the other: the first batch creates the session, and a batch
    // that lost that race must not land before one called after it.
    const done = (this.queues.get(id) ?? Promise.resolve()).then(write, write);
    const tail = done.catch(() => undefined);
    this.queues.set(id, tail);
    void tail.then(() => {
      if (this.queues.get(id) === tail) this.queues.delete(id);
    });
    return done;
  }

  /** Every line appended to the key, in order (a line whose `uuid` came twice, once); null when none. */
  async load(key: SessionKey): Promise<SessionStoreEntry[] | null> {
    const k = this.keyOf(key);
    return this.manager.transcripts.mirrored(conversationSessionId(k.projectKey, k.sessionId), k.subpath ?? null, (m) =>
      holds(m, k.projectKey, k.sessionId),
    );
  }

  /** The conversations of a project with their last change (epoch milliseconds). */
  async listSessions(projectKey: string): Promise<Array<{ sessionId: string; mtime: number }>> {
    const project = this.keyOf({ projectKey, sessionId: '-' }).projectKey;
    const out: Array<{ sessionId: string; mtime: number }> = [];
    for (const row of await this.manager.list({ all: true })) {
      if (!row.title.startsWith(TITLE_PREFIX)) continue;
      try {
        const s = await this.manager.get(row.id);
        const sessionId = heldConversation(s.metadata);
        if (sessionId === null || !holds(s.metadata, project) || !s.mirror?.transcripts['']) continue;
        out.push({ sessionId, mtime: Math.floor(Date.parse(s.updatedAt)) });
      } catch (e) {
        if (!isBatonError(e, 'NOT_FOUND')) throw e;
      }
    }
    return out;
  }

  /**
   * Deletes a conversation: the main key deletes its session with every sub-transcript (a
   * tombstone is kept, as for `baton delete`; a pinned session is refused); a sub-transcript's
   * key deletes that one only. Nothing happens for a key never written.
   */
  async delete(key: SessionKey): Promise<void> {
    const k = this.keyOf(key);
    const id = conversationSessionId(k.projectKey, k.sessionId);
    if (k.subpath !== undefined) {
      await this.manager.transcripts.clearMirrored(id, k.subpath, (m) => holds(m, k.projectKey, k.sessionId));
      return;
    }
    let s: Awaited<ReturnType<SessionManager['get']>>;
    try {
      s = await this.manager.get(id);
    } catch (e) {
      if (isBatonError(e, 'NOT_FOUND')) return;
      throw e;
    }
    if (!holds(s.metadata, k.projectKey, k.sessionId)) return;
    // Only an ended session may be deleted: the conversation's session is abandoned first.
    if (s.status !== 'completed' && s.status !== 'abandoned')
      await this.manager.lifecycle(id, 'abandon', 'Claude Agent SDK conversation deleted', { force: true });
    await this.manager.delete(id);
  }

  /** The sub-transcripts of a conversation that hold lines (`subagents/agent-<id>` …), the main one not included. */
  async listSubkeys(key: { projectKey: string; sessionId: string }): Promise<string[]> {
    const k = this.keyOf(key);
    try {
      const s = await this.manager.get(conversationSessionId(k.projectKey, k.sessionId));
      if (!holds(s.metadata, k.projectKey, k.sessionId)) return [];
      return Object.entries(s.mirror?.transcripts ?? {})
        .filter(([name, n]) => name !== '' && n > 0)
        .map(([name]) => name);
    } catch (e) {
      if (isBatonError(e, 'NOT_FOUND')) return [];
      throw e;
    }
  }

  /** The key checked, with its project replaced by {@link BatonSessionStoreOptions.project} when set. */
  private keyOf(key: unknown): { projectKey: string; sessionId: string; subpath?: string } {
    const k = checkKey(key);
    if (k.subpath !== undefined && (typeof k.subpath !== 'string' || k.subpath === '')) {
      throw new BatonError('BAD_INPUT', 'The session key has an empty or non-text subpath.', {
        hint: 'Leave subpath out for the main transcript.',
      });
    }
    return this.project === null ? k : { ...k, projectKey: this.project };
  }
}
