/**
 * The files derived from a session (its `handoff.md`, its mirrored foreign files), kept up to
 * date by the manager itself so that every surface (library, CLI, MCP server, hooks) writes
 * the same files at the same points.
 */
import type { StoredEvent } from '../domain/events.js';
import type { Hint } from '../domain/hints.js';
import type { SessionState } from '../domain/state.js';
import { HandoffFiles } from './handoff-file.js';
import { MirrorFiles } from './mirror-files.js';
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
  private flushing = false;
  /** The refresh scheduled after the last acknowledged changes, until it starts. */
  private scheduled: Promise<void> | null = null;

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
   * one refresh for everything noted until the event loop turns. The files are derived data:
   * their refresh is kept off the acknowledgement path, and a burst of changes rewrites them
   * once. {@link settled} waits for it.
   */
  afterChange(): void {
    // A mirror rewrite records its outcome through a change of its own: the flush under
    // way picks that session up, so it must not start another.
    if (this.refresh !== 'change' || this.flushing || this.scheduled) return;
    this.scheduled = new Promise<void>((resolve) => setImmediate(resolve)).then(async () => {
      this.scheduled = null;
      for (const w of await this.flush()) this.onWarning(w);
    });
  }

  /** Resolves once the refresh scheduled by the changes made so far (if any) is done. */
  async settled(): Promise<void> {
    while (this.scheduled) await this.scheduled;
  }

  /**
   * Brings the files derived from the sessions changed so far up to date. Returns warnings;
   * a failure never fails the change.
   */
  async flush(): Promise<string[]> {
    this.flushing = true;
    try {
      const warnings: string[] = [];
      if (this.mirror.pending) {
        for (const r of await this.mirror.flush(this.m, { cwd: this.cwd, now: this.now })) {
          const hint = r.hint ?? (r.hintAction && this.hintWords ? this.hintWords(r.hintAction) : null);
          if (!r.ok) warnings.push(`mirror of ${r.id} (${r.format} in ${r.out}) not updated: ${r.error}${hint ? `\n  hint: ${hint}` : ''}`);
          for (const w of r.warnings) warnings.push(`mirror of ${r.id} (${r.format} in ${r.out}): ${w}`);
        }
      }
      warnings.push(...(await this.handoff.flush(this.m)));
      return warnings;
    } finally {
      this.flushing = false;
    }
  }
}
