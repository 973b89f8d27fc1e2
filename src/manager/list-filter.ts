import type { SessionStatus } from '../domain/state.js';
import type { RowFilter } from '../store/types.js';

/** Which registry rows {@link SessionManager.listRows} returns. */
export interface ListFilter {
  status?: SessionStatus;
  /** Include archived sessions. */
  all?: boolean;
  /** Derive every row again from its session. */
  rebuild?: boolean;
  /** Only sessions started in this named workspace (sessions of a file store have none). */
  workspace?: string;
  /** Only what a claimer may take now (the store reads just those rows when it can; status is judged here). */
  claimable?: boolean;
  /** Load the session of a row whose lease lapsed, to report it as it is now (default true). */
  recheck?: boolean;
  /** Store the rows derived for sessions the cache lacks (default true). */
  persist?: boolean;
}

/**
 * What the store may leave out for `f` (an indexed registry reads only those rows). A row
 * recorded active whose lease lapsed reads as interrupted, so `interrupted` is not passed on.
 */
export function storeFilter(f: ListFilter, now: string): RowFilter {
  return {
    ...(f.claimable ? { claimableAt: now } : {}),
    ...(f.all ? {} : { archived: false }),
    ...(f.workspace !== undefined ? { workspace: f.workspace } : {}),
    ...(f.status !== undefined && f.status !== 'interrupted' ? { status: f.status } : {}),
  };
}

/** The workspace a new session records: the store handle's, on a store shared by many. */
export function workspaceOf(store: { workspace?: string }): { workspace?: string } {
  return store.workspace !== undefined ? { workspace: store.workspace } : {};
}
