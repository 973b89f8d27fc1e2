import type {
  CursorTable,
  SessionStore,
  StoreClaimQueue,
  StoreCursors,
  StoreSessionFiles,
  StoreStepResults,
} from './types.js';

/*
 * Optional capabilities are detected by the presence of their members (`store.watch`,
 * `store.serverTime`, `store.repair`, `store.directory`…), so a store written outside this
 * package (one that passes baton-sessions/testing) is treated like ours: no code outside
 * store/open.ts names a backend's class, and nothing branches on `kind`. A capability made
 * of several members is present only when all of them are; this is its one check.
 */

/** The store's files beside each session ({@link StoreSessionFiles}), or null when it keeps none. */
export function sessionFilesOf(store: SessionStore): StoreSessionFiles | null {
  const s = store as Partial<StoreSessionFiles>;
  if (
    typeof s.sessionFolder !== 'function' ||
    typeof s.readSessionFile !== 'function' ||
    typeof s.writeSessionFile !== 'function' ||
    typeof s.removeSessionFile !== 'function'
  ) {
    return null;
  }
  return store as SessionStore & StoreSessionFiles;
}

/** The store's cursor table (capability {@link StoreCursors}), or null when it keeps none. */
export function cursorsOf(store: SessionStore): CursorTable | null {
  const c = store.cursors;
  if (!c || typeof c.get !== 'function' || typeof c.put !== 'function' || typeof c.list !== 'function') return null;
  return c;
}

/** The store's table of large step results (capability {@link StoreStepResults}), or null when it keeps none. */
export function stepResultsOf(store: SessionStore): StoreStepResults['stepResults'] | null {
  const t = store.stepResults;
  if (!t || typeof t.put !== 'function' || typeof t.get !== 'function') return null;
  return t;
}

/** The store's claim queue (capability {@link StoreClaimQueue}), or null when it has none. */
export function claimQueueOf(store: SessionStore): StoreClaimQueue['claimQueue'] | null {
  const q = store.claimQueue;
  if (!q || typeof q.next !== 'function' || typeof q.announce !== 'function' || typeof q.listen !== 'function')
    return null;
  return q;
}
