/**
 * The files derived from a session (its `handoff.md`, its mirrored foreign files), kept up to
 * date by the manager itself so that every surface (library, CLI, MCP server, hooks) writes
 * the same files at the same points.
 */
import type { StoredEvent } from '../domain/events.js';
import type { Hint } from '../domain/hints.js';
import type { SessionState } from '../domain/state.js';
import { HandoffFiles } from './resume/handoff-file.js';
import { MirrorFiles } from './toolkits/mirror-files.js';
import type { DerivedFilesOptions, ManagerCore } from './types.js';

/**
 * Collects the sessions each change touched and rewrites their derived files: mirrors first,
 * then handoff files (a mirror rewrite may record its outcome in the session). A failure to
 * write a derived file never fails the change: it is returned (flush) or reported as a
 * warning (refresh after each change).
 */
export class DerivedFiles {
  private readonly handoff: HandoffFiles;
  private readonly mirror = new MirrorFiles();
  private readonly mirrors: boolean;
  private readonly refresh: 'change' | 'flush';
  private readonly cwd: string;
  private readonly hintWords: ((h: Hint) => string | null) | null;
  /** The refresh scheduled by flushSoon, until it ends. */
  private scheduled: Promise<void> | null = null;
  /** It has not started yet: what is noted now is in it. */
  private waiting = false;
  /** Something was noted while it ran: it runs once more. */
  private again = false;

  constructor(
    private readonly m: ManagerCore,
    o: DerivedFilesOptions,
    private readonly now: () => Date,
    private readonly onWarning: (message: string) => void,
  ) {
    this.handoff = new HandoffFiles(o.handoff ?? true);
    this.mirrors = o.mirrors ?? true;
    this.refresh = o.refresh ?? 'change';
    this.cwd = o.cwd ?? process.cwd();
    this.hintWords = o.hintWords ?? null;
  }

  /** Records that a session changed (called by the manager for every durable change). */
  note(id: string, events: readonly StoredEvent[], state: SessionState): void {
    this.handoff.note(id, events);
    if (this.mirrors) this.mirror.note(id, events, state);
  }

  /**
   * Called by the manager once changes are acknowledged: unless refresh is `flush`, schedules
   * one refresh for everything noted until the event loop turns (see {@link flushSoon}). The
   * files are derived data: their refresh is kept off the acknowledgement path, and a burst of
   * changes rewrites them once.
   */
  afterChange(): void {
    if (this.refresh === 'change') this.flushSoon();
  }

  /**
   * Schedules one {@link flush} for when the event loop turns, so that it runs after whoever
   * is waiting for the change was answered (a library caller, an MCP response). Calls before
   * it starts share it; a call while it runs (another change, or the record a mirror rewrite
   * makes of its outcome) gets one more flush after it, so no change is left unrefreshed.
   * Warnings go to onWarning. {@link settled} waits for all of it.
   */
  flushSoon(): void {
    // Token records, transcript reads and renewals leave both kinds of file as they are: no
    // turn of the event loop is spent finding that out after every one of them.
    if (!this.handoff.pending && !this.mirror.pending) return;
    if (this.scheduled) {
      if (!this.waiting) this.again = true;
      return;
    }
    this.waiting = true;
    this.scheduled = this.flushAfterTurn();
  }

  private async flushAfterTurn(): Promise<void> {
    await new Promise<void>((resolve) => setImmediate(resolve));
    this.waiting = false;
    try {
      do {
        this.again = false;
        for (const w of await this.flush()) this.onWarning(w);
      } while (this.again);
    } finally {
      this.scheduled = null;
    }
  }

  /** Resolves once the refreshes scheduled so far (if any) are done. */
  async settled(): Promise<void> {
    while (this.scheduled) await this.scheduled;
  }

  /**
   * Brings the files derived from the sessions changed so far up to date. Returns warnings;
   * a failure never fails the change.
   */
  async flush(): Promise<string[]> {
    const warnings: string[] = [];
    if (this.mirror.pending) {
      for (const r of await this.mirror.flush(this.m, { cwd: this.cwd, now: this.now })) {
        const hint = r.hint ?? (r.hintAction && this.hintWords ? this.hintWords(r.hintAction) : null);
        if (!r.ok)
          warnings.push(
            `mirror of ${r.id} (${r.format} in ${r.out}) not updated: ${r.error}${hint ? `\n  hint: ${hint}` : ''}`,
          );
        for (const w of r.warnings) warnings.push(`mirror of ${r.id} (${r.format} in ${r.out}): ${w}`);
      }
    }
    warnings.push(...(await this.handoff.flush(this.m)));
    return warnings;
  }
}
