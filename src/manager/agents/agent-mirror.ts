/**
 * The hooks' side of live sync (docs/hooks.md, "Live sync"): which files a file tool wrote
 * are the session's mirror, and their import (mirror-live.ts, loaded only for a mirrored
 * session, so a hook of an unmirrored one never loads the layouts' code).
 */
import path from 'node:path';
import { isBatonError } from '../../domain/errors.js';
import type { SessionState } from '../../domain/state.js';
import type { AgentContext, HookManager } from './agent-context.js';
import type { ConversationRuns } from './agent-runs.js';
import { mirrorOf } from '../toolkits/mirror.js';

/** Of the paths a file tool wrote, the files of session `id`'s mirror, absolute; none when it has no mirror. */
export async function mirrorFilesOf(m: HookManager, id: string, a: AgentContext, written: string[]): Promise<string[]> {
  let s: SessionState;
  try {
    // A read before the change primes the manager's cache: the session is still loaded once.
    s = await m.get(id);
  } catch (e) {
    if (!isBatonError(e)) throw e;
    return [];
  }
  if (!mirrorOf(s)) return [];
  const cwd = a.cwd ?? m.workspace?.root ?? process.cwd();
  const { mirrorFilesWritten } = await import('../toolkits/mirror-live.js');
  return mirrorFilesWritten(
    m,
    s,
    written.map((p) => path.resolve(cwd, p)),
  );
}

/**
 * A file tool wrote `paths`, files of the session's mirror: the toolkit's file is imported at
 * once, what the model must hear of it is pushed on `notices`, a failed rewrite on `warnings`.
 */
export async function mirrorWritten(
  m: HookManager,
  conversations: ConversationRuns,
  s: SessionState,
  a: AgentContext,
  paths: string[],
  out: { notices: string[]; warnings: string[] },
): Promise<SessionState> {
  const cwd = a.cwd ?? m.workspace?.root ?? process.cwd();
  const { syncMirrorWrite } = await import('../toolkits/mirror-live.js');
  const runId = conversations.runIdOf(a);
  const r = await syncMirrorWrite(
    m,
    s.id,
    { paths, agent: a.agent, runId, change: conversations.options(a, runId) },
    { cwd },
  );
  if (r?.notice) out.notices.push(r.notice);
  if (r?.error) out.warnings.push(`mirror of ${s.id} not rewritten: ${r.error}`);
  return r ? m.get(s.id) : s;
}
