import path from 'node:path';
import { FileStore } from '../store/file/store.js';
import { STORE_DIR_NAME } from '../store/file/paths.js';
import { openStore } from '../store/open.js';
import type { StoredEvent } from '../domain/events.js';
import type { RepairReport } from '../store/types.js';

export type { RepairReport };
import { SessionManager } from './manager.js';
import { fileMeasurer } from './measure.js';
import { Workspace } from './workspace.js';

/** Where a surface's manager should find its store, and what it needs from outside. */
export interface OpenManagerOptions {
  /** Store URL (`BATON_STORE`), e.g. `memory:` or `file:/path`. */
  url?: string | null;
  /** Explicit `.baton` directory (`--dir` / `BATON_DIR`). */
  dir?: string | null;
  cwd: string;
  /** Create the file store when none is found (`start`). */
  create?: boolean;
  now?: () => Date;
  agent?: string | null;
  onRepair?: (r: RepairReport) => void;
  /** Problems that did not stop a call (an automatic checkpoint not taken). */
  onWarning?: (message: string) => void;
  /** Told about every durable change (see ManagerOptions.onChanged). */
  onChanged?: (id: string, events: readonly StoredEvent[]) => void;
}

/**
 * Opens the store and builds the manager a surface uses: file records are hashed relative
 * to the workspace (the folder holding `.baton`).
 */
export function openManager(o: OpenManagerOptions): SessionManager {
  const store = openStore({ url: o.url ?? null, dir: o.dir ?? null, cwd: o.cwd, create: o.create === true, ...(o.now ? { now: o.now } : {}) });
  const workspace = new Workspace(store.kind === 'file' ? path.dirname(store.location) : o.cwd, store.kind === 'file' ? store.location : null);
  return new SessionManager({
    store,
    ...(o.now ? { now: o.now } : {}),
    agent: o.agent ?? null,
    measure: fileMeasurer(o.cwd, workspace),
    workspace,
    ...(o.onRepair ? { onRepair: o.onRepair } : {}),
    ...(o.onWarning ? { onWarning: o.onWarning } : {}),
    ...(o.onChanged ? { onChanged: o.onChanged } : {}),
  });
}

/**
 * Creates an empty file store (idempotent): at `dir` if given, else `.baton` in `cwd`.
 * Returns its path and whether it already existed.
 */
export function initStore(cwd: string, dir?: string | null): { root: string; existed: boolean } {
  const root = dir ? path.resolve(cwd, dir) : path.join(cwd, STORE_DIR_NAME);
  const existed = FileStore.exists(root);
  FileStore.init(root);
  return { root, existed };
}
