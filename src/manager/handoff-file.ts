import fs from 'node:fs';
import path from 'node:path';
import type { StoredEvent } from '../domain/events.js';
import { costReport, costShown } from '../domain/cost.js';
import type { CostReport } from '../domain/cost.js';
import { isBatonError } from '../domain/errors.js';
import { renderHandoff } from '../domain/handoff.js';
import type { ResumePlan } from '../domain/resume.js';
import type { SessionState } from '../domain/state.js';
import { tempName } from '../store/file/fsutil.js';
import type { SessionManager } from './manager.js';
import { resumePlan } from './resume.js';

/**
 * The handoff briefing of a session (Markdown, built from its resume plan), with the plan and
 * state it was built from: what `baton handoff` prints and the MCP `handoff` tool returns.
 */
export async function sessionHandoff(m: SessionManager, id: string): Promise<{ markdown: string; plan: ResumePlan; state: SessionState }> {
  const { plan, state } = await resumePlan(m, id);
  return { markdown: renderHandoff({ state, plan, now: m.time(), cost: handoffCost(m, state) }), plan, state };
}

/** The cost shown in a handoff; a pricing file that cannot be used is named instead of failing the briefing. */
function handoffCost(m: SessionManager, state: SessionState): CostReport | { problem: string } | null {
  if (!costShown(state)) return null;
  try {
    return costReport(state, m.pricing());
  } catch (e) {
    if (!isBatonError(e)) throw e;
    return { problem: e.message };
  }
}

/** Name of the handoff file kept in each session's folder. */
export const HANDOFF_FILE = 'handoff.md';
/** Session metadata key that turns the kept handoff file off for one session (`false`). */
export const HANDOFF_FILE_KEY = 'handoffFile';

/*
 * Token counts and heartbeats change often and say little to the next agent; rewriting the
 * briefing (which hashes every recorded file) after each of them would slow the hot path.
 */
const QUIET: ReadonlySet<string> = new Set(['tokens.recorded', 'transcript.read', 'lease.renewed']);

/**
 * Keeps `handoff.md` in each changed session's folder up to date, so a person can open one
 * file to see where a session stands. Changes are collected as they happen and the files are
 * rewritten once, by {@link flush}, at the end of a command. The file is derived data: it is
 * replaced atomically but not fsynced, and a failure to write it never fails the command.
 */
export class HandoffFiles {
  private readonly dirty = new Set<string>();

  constructor(private readonly enabled: boolean) {}

  /** Records that a session changed (see ManagerOptions.onChanged). */
  note(id: string, events: readonly StoredEvent[]): void {
    if (this.enabled && events.some((e) => !QUIET.has(e.type))) this.dirty.add(id);
  }

  /** Marks a session's handoff for rewriting at the next {@link flush}, whatever changed (a hook's fresh handoff). */
  touch(id: string): void {
    if (this.enabled) this.dirty.add(id);
  }

  /** Rewrites the handoff file of every session that changed; returns problems as messages. */
  async flush(m: SessionManager): Promise<string[]> {
    const problems: string[] = [];
    for (const id of [...this.dirty]) {
      this.dirty.delete(id);
      try {
        const folder = m.store.sessionFolder?.(id) ?? null;
        if (!folder) continue;
        const { plan, state } = await resumePlan(m, id);
        if (state.metadata[HANDOFF_FILE_KEY] === false) continue;
        const file = path.join(folder, HANDOFF_FILE);
        const tmp = tempName(file);
        fs.writeFileSync(tmp, renderHandoff({ state, plan, now: m.time(), cost: handoffCost(m, state) }), { mode: 0o600 });
        fs.renameSync(tmp, file);
      } catch (e) {
        problems.push(`handoff.md of ${id} not updated: ${(e as Error).message}`);
      }
    }
    return problems;
  }
}
