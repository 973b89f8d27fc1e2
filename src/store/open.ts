import path from 'node:path';
import { BatonError } from '../domain/errors.js';
import { hint } from '../domain/hints.js';
import { FileStore } from './file/store.js';
import { STORE_DIR_NAME, findStoreDir, findWorkTreeRoot, isPrivateStore, setStoreSharing } from './file/paths.js';
import { MemoryStore } from './memory.js';
import { PostgresStore } from './postgres/store.js';
import { isPostgresUrl } from './postgres/url.js';
import type { SessionStore } from './types.js';

// The library exports the backends by name; everything else reaches them through openStore.
export { FileStore, MemoryStore, PostgresStore, STORE_DIR_NAME };
export type { PostgresStoreOptions } from './postgres/store.js';

/** Where and how to open a store. */
export interface OpenStoreOptions {
  /** `memory:`, `file:/path`, a plain directory path, or `postgres://…` (see docs/storage.md). */
  url?: string | null;
  /** Explicit `.baton` directory (--dir / BATON_DIR). */
  dir?: string | null;
  cwd?: string;
  /**
   * Create the file store when none is found: `.baton` at the root of the git work tree
   * holding `cwd`, else in `cwd`.
   */
  create?: boolean;
  /** A store created now is shared (committed with the project) instead of ignoring itself in git. */
  shared?: boolean;
  now?: () => Date;
  lockTimeoutMs?: number;
  /**
   * The named workspace a shared store's handle works in (its active pointer and lock); a
   * function is called only when the store is a shared one, so a file store never pays for
   * finding the default name. Ignored by a file store (its folder is its workspace).
   */
  workspace?: string | (() => string);
  /**
   * Where `BATON_STORE` and `BATON_DIR` are read when neither `url` nor `dir` is given
   * (default `process.env`): a child of `baton run` opens the store its parent used.
   * Pass `{}` to ignore the environment.
   */
  env?: Readonly<Record<string, string | undefined>>;
  /**
   * Write nothing, not even caches (the dashboard): a file store opens read-only (see
   * store/file/read-only.ts); a store that cannot be written is opened so without it. Other
   * stores are unchanged: the manager's reads of them write nothing.
   */
  readOnly?: boolean;
}

/**
 * Opens the store a surface should use. Without a URL this is the file store found by
 * walking up from `cwd` (like git finds `.git`); `NO_STORE` when there is none and `create`
 * is not set. A `postgres://` (or `postgresql://`) URL opens the PostgreSQL store, which
 * connects lazily on its first call. Without `url` and `dir`, `BATON_STORE` and then
 * `BATON_DIR` of `env` (default `process.env`: this is the library's entry point) name the
 * store, as they do for the CLI.
 */
export function openStore(o: OpenStoreOptions = {}): SessionStore {
  const cwd = o.cwd ?? process.cwd();
  const env = o.env ?? process.env;
  // As on the command line: an explicit url or dir wins, then BATON_STORE, then BATON_DIR
  // (an empty variable counts as unset).
  const named = o.url || o.dir ? null : { url: env['BATON_STORE'] || null, dir: env['BATON_DIR'] || null };
  const url = named ? named.url : o.url || null;
  const dir = named ? named.dir : o.dir || null;
  if (url === 'memory:') return new MemoryStore();
  // Connects on first use: opening costs nothing, and `pg` is loaded only now.
  if (url && isPostgresUrl(url)) {
    const workspace = typeof o.workspace === 'function' ? o.workspace() : o.workspace;
    return new PostgresStore({
      url,
      ...(o.lockTimeoutMs ? { lockTimeoutMs: o.lockTimeoutMs } : {}),
      ...(workspace !== undefined ? { workspace } : {}),
    });
  }
  if (url && /^[a-z][a-z0-9+.-]*:\/\//i.test(url) && !url.startsWith('file://')) {
    throw new BatonError('BAD_INPUT', `Store URL scheme of ${url.split('://')[0]}:// is not supported by this build.`, {
      hint: hint('store.url-kinds'),
    });
  }
  const explicit = url ? url.replace(/^file:(\/\/)?/, '') : dir;
  let root = findStoreDir(cwd, explicit);
  if (!root) {
    if (!o.create) {
      throw new BatonError('NO_STORE', `No ${STORE_DIR_NAME} directory in ${cwd} or any parent.`, {
        hint: hint('store.init-or-dir'),
      });
    }
    root = newStoreDir(cwd);
  }
  if (o.create) {
    const existed = FileStore.exists(root);
    FileStore.init(root);
    if (!existed) setStoreSharing(root, o.shared === true);
  }
  return new FileStore({
    root,
    ...(o.now ? { now: o.now } : {}),
    ...(o.lockTimeoutMs ? { lockTimeoutMs: o.lockTimeoutMs } : {}),
    ...(o.readOnly ? { readOnly: true } : {}),
  });
}

/** Where a new store goes when none is named: the git work tree's root, else `cwd`. */
export function newStoreDir(cwd: string): string {
  return path.join(findWorkTreeRoot(cwd) ?? path.resolve(cwd), STORE_DIR_NAME);
}

/**
 * Creates an empty file store at `root` (idempotent); `existed` tells whether one (or at
 * least its folder) was there already. A new store ignores itself in git (its own
 * `.gitignore`) unless `shared`; `shared` on an existing store removes that file, making it
 * committable (`sharedChanged`). `shared`: whether the store is now free to commit (it keeps
 * no private `.gitignore`).
 */
export function initFileStore(
  root: string,
  o: { shared?: boolean } = {},
): { existed: boolean; sharedChanged: boolean; shared: boolean } {
  const existed = FileStore.exists(root);
  FileStore.init(root);
  const sharedChanged = existed && o.shared !== true ? false : setStoreSharing(root, o.shared === true) && existed;
  return { existed, sharedChanged, shared: !isPrivateStore(root) };
}

/**
 * Opens the store a URL names and prepares it: for PostgreSQL, connects and creates or
 * migrates its schema (`existed` is false when this call created it); any other store is
 * read once. The store is closed again.
 */
export async function prepareStore(url: string, cwd: string): Promise<{ root: string; existed: boolean }> {
  const store = openStore({ url, cwd, create: true });
  try {
    if (store instanceof PostgresStore) return { root: store.location, existed: !(await store.prepare()).includes(1) };
    await store.list();
    return { root: store.location, existed: true };
  } finally {
    await store.close();
  }
}

/**
 * Where the store a surface would open lives, without opening it: the URL when one is
 * named (PostgreSQL, `memory:`), else the `.baton` folder (`dir`, else found by walking up
 * from `cwd`), else null. For reporting on a store that cannot be opened (a hook's log).
 */
export function locateStore(o: { url: string | null; dir: string | null; cwd: string }): string | null {
  if (o.url && (isPostgresUrl(o.url) || o.url === 'memory:')) return o.url;
  const explicit = o.url ? o.url.replace(/^file:(\/\/)?/, '') : o.dir;
  try {
    return findStoreDir(o.cwd, explicit) ?? null;
  } catch {
    return null;
  }
}
