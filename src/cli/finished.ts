/**
 * The session `status` and `archive` act on when none is named and none is active: the one of
 * this workspace that just finished. `complete`, `fail` and `abandon` clear the workspace's
 * active pointer, so right after them "no active session" would be true but unhelpful.
 */
import { isBatonError } from '../manager/index.js';
import type { Ctx } from './context.js';

const FINISHED = new Set(['completed', 'failed', 'abandoned']);

/** The session acted on, and whether it was taken as the one just finished (none active). */
export interface Chosen {
  id: string;
  /** Not the active session: the workspace's most recently changed one, which has finished. */
  finished: boolean;
}

/**
 * `--session` / `BATON_SESSION` / the active session as usual; with none of them, the
 * workspace's most recently changed session that is not archived, if it has finished
 * (completed, failed or abandoned). Otherwise the usual NO_ACTIVE_SESSION error.
 */
export async function sessionOrJustFinished(ctx: Ctx, explicit?: string): Promise<Chosen> {
  try {
    return { id: await ctx.sessionId(explicit), finished: false };
  } catch (e) {
    if (!isBatonError(e, 'NO_ACTIVE_SESSION')) throw e;
    const m = ctx.manager();
    const workspace = m.store.workspace;
    const rows = await m.list(workspace !== undefined ? { workspace } : {});
    const last = rows.sort((a, b) => b.updatedAt.localeCompare(a.updatedAt))[0];
    if (last && FINISHED.has(last.status)) return { id: last.id, finished: true };
    throw e;
  }
}

/** The line that says no session is active and which one was shown or acted on instead. */
export function finishedNote(id: string, status: string): string {
  return `No session is active: ${id} ${status === 'abandoned' ? 'was abandoned' : `has ${status}`}. Start one with \`baton start TITLE\`, or go back to a paused one (\`baton list\`, \`baton switch ID\`).`;
}
