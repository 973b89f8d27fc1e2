import { settingsOf } from '../../domain/settings.js';
import type { StoredEvent } from '../../domain/events.js';
import { renderHandoff } from '../../domain/resume/handoff.js';
import { handoffCost } from '../spend/handoff-cost.js';
import { sessionFilesOf } from '../../store/capabilities.js';
import type { ManagerCore as SessionManager } from '../types.js';
import { Recovery } from './resume.js';

/** Name of the handoff file kept in each session's folder. */
export const HANDOFF_FILE = 'handoff.md';

/*
 * Token counts and heartbeats change often and say little to the next agent; rewriting the
 * briefing (which hashes every recorded file) after each of them would slow the hot path.
 */
const QUIET: ReadonlySet<string> = new Set(['tokens.recorded', 'transcript.read', 'lease.renewed', 'run.renewed']);

/**
 * Keeps `handoff.md` in each changed session's folder up to date, so a person can open one
 * file to see where a session stands. Changes are collected as they happen and the files are
 * rewritten once, by {@link flush}, at the end of a command. The file is derived data: it is
 * replaced atomically but not fsynced, and a failure to write it never fails the command.
 */
export class HandoffFiles {
  private readonly dirty = new Set<string>();

  constructor(private readonly enabled: boolean) {}

  /** True when a flush has work to do. */
  get pending(): boolean {
    return this.dirty.size > 0;
  }

  /** Records that a session changed (see ManagerOptions.onChanged). */
  note(id: string, events: readonly StoredEvent[]): void {
    if (this.enabled && events.some((e) => !QUIET.has(e.type))) this.dirty.add(id);
  }

  /** Rewrites the handoff file of every session that changed; returns problems as messages. */
  async flush(m: SessionManager): Promise<string[]> {
    const problems: string[] = [];
    const files = sessionFilesOf(m.store);
    for (const id of [...this.dirty]) {
      this.dirty.delete(id);
      try {
        // Stores that keep no files beside a session (memory, PostgreSQL) have no handoff file.
        if (!files || files.sessionFolder(id) === null) continue;
        const { plan, state } = await new Recovery(m).plan(id);
        if (!settingsOf(state).handoffFile) continue;
        await files.writeSessionFile(
          id,
          HANDOFF_FILE,
          renderHandoff({ state, plan, now: m.time(), cost: handoffCost(m, state) }),
        );
      } catch (e) {
        problems.push(`handoff.md of ${id} not updated: ${(e as Error).message}`);
      }
    }
    return problems;
  }
}
