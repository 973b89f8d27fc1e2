import { hint } from '../domain/hints.js';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { BatonError } from '../domain/errors.js';
import { initFileStore, newStoreDir, openStore, prepareStore } from '../store/open.js';
import type { StoredEvent } from '../domain/events.js';
import type { SessionState } from '../domain/state.js';
import type { RepairReport, SessionStore } from '../store/types.js';

export type { RepairReport };
import type { DerivedFilesOptions } from './types.js';
import { SessionManager } from './manager.js';
import { fileMeasurer } from './measure.js';
import { PRICING_FILE_NAME } from './spend/pricing-file.js';
import { Workspace } from './workspace.js';
import { workspaceName } from './workspace-name.js';

/** Where a surface's manager should find its store, and what it needs from outside. */
export interface OpenManagerOptions {
  /**
   * A store opened already (a `SessionStore` of your own, held to `baton-sessions/testing`'s
   * suite) instead of one named by `url` / `dir`; `create`, `shared`, `lockTimeoutMs`,
   * `workspace` and `readOnly` then concern that store's own opening and are ignored here.
   */
  store?: SessionStore;
  /** Store URL (`BATON_STORE`), e.g. `memory:` or `file:/path`. */
  url?: string | null;
  /** Explicit `.baton` directory (`--dir` / `BATON_DIR`). */
  dir?: string | null;
  /** The folder the sessions are worked in (recorded paths are relative to its workspace); default `process.cwd()`. */
  cwd?: string;
  /** Create the file store when none is found (`start`): at the git work tree's root, else in `cwd`. */
  create?: boolean;
  /** A store created now is shared: committed with the project, not ignored in git (`start --shared`). */
  shared?: boolean;
  now?: () => Date;
  agent?: string | null;
  onRepair?: (r: RepairReport) => void;
  /** Problems that did not stop a call (an automatic checkpoint not taken). */
  onWarning?: (message: string) => void;
  /** Told about every durable change (see ManagerOptions.onChanged). */
  onChanged?: (id: string, events: readonly StoredEvent[], state: SessionState) => void;
  /** How long to wait for a busy session lock before LOCKED (default: the store's). */
  lockTimeoutMs?: number;
  /** HOME / XDG_STATE_HOME for the hook log's fallback folder (see ManagerOptions.env). */
  env?: Readonly<Record<string, string | undefined>>;
  /** Pricing override file (`BATON_PRICING`); else a file store's `pricing.json`. */
  pricingFile?: string | null;
  /** Which derived files (handoff.md, mirrors) the manager keeps current, and when (see ManagerOptions.derivedFiles). */
  derivedFiles?: DerivedFilesOptions;
  /**
   * The workspace on a shared store (`--workspace`, else `BATON_WORKSPACE`); null or absent:
   * this host and project folder (see workspace-name.ts). A file store ignores it.
   */
  workspace?: string | null;
  /** Host name for the default workspace name (default: os.hostname()). */
  host?: string;
  /** Open the store read-only: it writes nothing, not even caches (the dashboard; see OpenStoreOptions.readOnly). */
  readOnly?: boolean;
}

/**
 * Opens the store and builds the manager a surface uses: file records are hashed relative
 * to the workspace (the folder holding `.baton`).
 */
export function openManager(options: OpenManagerOptions = {}): SessionManager {
  const given = options.cwd;
  // Plain JavaScript callers get no type check: name a bad folder instead of a TypeError.
  if (given !== undefined && (typeof given !== 'string' || !given))
    throw new BatonError('BAD_INPUT', '`cwd` must be the path of the folder the sessions are worked in.', {
      hint: 'Pass a folder, e.g. openManager({ cwd: process.cwd() }), or leave cwd out for the current one.',
      details: { cwd: given as unknown as string },
    });
  const o = { ...options, cwd: given ?? process.cwd() };
  // The caller has read the environment already (the CLI: its own injected env): `{}` keeps
  // openStore from reading process.env behind its back.
  const workspaceOf = (): string => workspaceName(o.workspace, o.host ?? os.hostname(), o.cwd);
  const store =
    o.store ??
    openStore({
      url: o.url ?? null,
      dir: o.dir ?? null,
      cwd: o.cwd,
      create: o.create === true,
      shared: o.shared === true,
      env: {},
      workspace: workspaceOf,
      ...(o.now ? { now: o.now } : {}),
      ...(o.lockTimeoutMs ? { lockTimeoutMs: o.lockTimeoutMs } : {}),
      ...(o.readOnly ? { readOnly: true } : {}),
    });
  // A store kept in a directory (the `.baton` folder) belongs to the workspace around it.
  const dir = store.directory ?? null;
  const workspace = new Workspace(dir !== null ? path.dirname(dir) : o.cwd, dir);
  return new SessionManager({
    store,
    ...(o.now ? { now: o.now } : {}),
    agent: o.agent ?? null,
    measure: fileMeasurer(o.cwd, workspace),
    workspace,
    pricingFile: pricingFileFor(store, o.pricingFile ?? null),
    ...(o.onRepair ? { onRepair: o.onRepair } : {}),
    ...(o.onWarning ? { onWarning: o.onWarning } : {}),
    ...(o.onChanged ? { onChanged: o.onChanged } : {}),
    ...(o.env ? { env: o.env } : {}),
    derivedFiles: { cwd: o.cwd, ...o.derivedFiles },
  });
}

/**
 * Where prices are overridden: the file named by `BATON_PRICING` when set, else a file
 * store's `.baton/pricing.json`. A store without a folder (PostgreSQL) has only the former:
 * prices are a reporting setting of the machine showing costs, not session data.
 */
export function pricingFileFor(store: SessionStore, explicit: string | null): string | null {
  if (explicit) return explicit;
  const dir = store.directory ?? null;
  return dir !== null ? path.join(dir, PRICING_FILE_NAME) : null;
}

/**
 * Creates an empty file store (idempotent): at `dir` if given, else `.baton` at the root of
 * the git work tree holding `cwd`, else in `cwd`. A new store ignores itself in git (its own
 * `.gitignore`) unless `shared`; `shared` on an existing one makes it committable. Returns its
 * path, whether it already existed, and whether its sharing changed.
 */
export function initStore(
  cwd: string,
  dir?: string | null,
  o: { shared?: boolean } = {},
): { root: string; existed: boolean; sharedChanged: boolean; shared: boolean } {
  const root = dir ? path.resolve(cwd, dir) : newStoreDir(cwd);
  return { root, ...initFileStore(root, o) };
}

/**
 * Opens the store a URL names, for commands that work on two stores at once
 * (`migrate-store`): a `.baton` directory path, `file:/path`, `memory:`, or a server URL the
 * build supports. With `create`, a missing file store is created there. A shared store is
 * opened in `workspace` (default: this host and project folder), like {@link openManager}.
 */
export function openStoreAt(
  url: string,
  o: { cwd: string; create: boolean; now?: () => Date; workspace?: string | null },
): SessionStore {
  const isPath = !/^[a-z][a-z0-9+.-]*:/i.test(url) || url.startsWith('file:');
  if (o.create && isPath) {
    // Never scatter a store's folders into a directory that holds something else.
    const dir = path.resolve(o.cwd, url.replace(/^file:(\/\/)?/, ''));
    let entries: string[] = [];
    try {
      entries = fs.readdirSync(dir);
    } catch {
      // missing: created below
    }
    if (entries.length && !entries.includes('store.json') && !entries.includes('sessions')) {
      throw new BatonError('BAD_INPUT', `${dir} is not empty and is not a baton store.`, {
        hint: hint('migrate.target-dir'),
      });
    }
  }
  // A shared store's pointer (migrate-store copies it) belongs to this worker's workspace.
  const workspace = (): string => workspaceName(o.workspace, os.hostname(), o.cwd);
  return openStore({ url, cwd: o.cwd, create: o.create, workspace, ...(o.now ? { now: o.now } : {}) });
}

/**
 * Prepares the store a URL names (`baton init --store URL`): for PostgreSQL, connects and
 * creates or migrates its schema. `existed` is false when this call created the schema.
 */
export async function initStoreUrl(url: string, cwd: string): Promise<{ root: string; existed: boolean }> {
  return prepareStore(url, cwd);
}
