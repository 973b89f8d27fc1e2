import type { SessionSummary } from '../../domain/summary.js';
import { RowText } from '../row.js';

/** What one refresh statement gets, in step per session: the revision reached, the newest row noted (or null) and that row's revision. */
export interface RefreshBatch {
  ids: string[];
  revisions: number[];
  rows: (string | null)[];
  rowRevisions: (number | null)[];
}

interface Pending {
  revision: number;
  /** The newest row an append carried, already at its revision; null when none did. */
  row: SessionSummary | null;
}

/**
 * The work after an append is acknowledged (issue 18: nothing but the journal on the
 * acknowledgement path): the session's registry row and the notification to watchers.
 * Appends note what they committed; one statement at a time brings every noted session up to
 * date, so appends made while it runs are coalesced into the next one (per session, the
 * highest revision and the row that came with it).
 *
 * A batch in which no append carried a row only notifies (no UPDATE of the sessions table):
 * token records and notes cost the registry nothing (their events are not marked, see
 * migrations-marks.ts). Such batches are spaced further apart than batches that carry a row
 * (issue 30): every batch is a commit of its own, and at the 20 ms of row batches a worker
 * whose appends take 15 ms (a server whose fsync is slow) committed a notification for every
 * append or two, which cost the appends of all workers their share of the server's flushes
 * (docs/scale.md). Rows keep the short spacing: other handles read a lagging row as missing
 * and derive it, and claimers wait for status changes.
 *
 * Nothing here is needed for durability: the journal is already committed. A row refresh
 * lost to a crash (or a failed statement) leaves a marked event past the row's revision;
 * `list` hands such a session back as missing, so its row is derived again from the journal,
 * and a watcher's poll finds the events of any lost notification (see watch.ts).
 */
export class Refresher {
  private pending = new Map<string, Pending>();
  /** Some pending entry carries a row (the batch is due at the shorter spacing). */
  private rowPending = false;
  private running: Promise<void> | null = null;
  /** Ends the pause between two batches early (flush, or a row noted during a pause at the notification spacing). */
  private hurry: (() => void) | null = null;
  private urgent = false;
  /** When the last batch started (ms since the epoch). */
  private lastStart = 0;

  /**
   * `run` executes one batch (one statement); its failure is swallowed (the repair path
   * covers it). Batches that carry a row start at least `spacingMs` apart, batches that only
   * notify at least `notifySpacingMs` apart (default: the same): the first append after a
   * quiet spell is refreshed at once (a watcher hears of it as fast as before), a steady
   * stream shares one statement per spacing instead of adding a second commit to every append.
   */
  constructor(
    private readonly run: (batch: RefreshBatch) => Promise<void>,
    private readonly spacingMs = REFRESH_SPACING_MS,
    private readonly notifySpacingMs = spacingMs,
  ) {}

  /** Records that session `id` is at `revision` (with its row, when the append carried one) and starts a refresh if none runs. */
  note(id: string, revision: number, summary: SessionSummary | null): void {
    const prev = this.pending.get(id);
    // A copy: the caller may go on with its own object. A later append without a row keeps
    // the row an earlier one carried (as if each had been refreshed on its own).
    const row = summary ? { ...summary, revision } : null;
    if (!prev) this.pending.set(id, { revision, row });
    else {
      if (revision > prev.revision) prev.revision = revision;
      if (row && (!prev.row || row.revision > prev.row.revision)) prev.row = row;
    }
    if (row && !this.rowPending) {
      this.rowPending = true;
      // A pause taken at the longer spacing of notifications is measured again at the row's.
      this.hurry?.();
    }
    this.running ??= this.drain();
  }

  /** Resolves once every refresh noted before the call has run (read-your-writes for this handle). */
  async flush(): Promise<void> {
    this.urgent = true;
    this.hurry?.();
    try {
      while (this.running) await this.running;
    } finally {
      this.urgent = false;
    }
  }

  private async drain(): Promise<void> {
    // Let the acknowledged caller go on first: its next append overlaps this refresh.
    await Promise.resolve();
    try {
      while (this.pending.size) {
        for (;;) {
          const wait = this.lastStart + (this.rowPending ? this.spacingMs : this.notifySpacingMs) - Date.now();
          if (wait <= 0 || this.urgent) break;
          await this.pause(wait);
        }
        this.lastStart = Date.now();
        const taken = this.pending;
        this.pending = new Map();
        this.rowPending = false;
        const batch: RefreshBatch = { ids: [], revisions: [], rows: [], rowRevisions: [] };
        for (const [id, p] of taken) {
          batch.ids.push(id);
          batch.revisions.push(p.revision);
          batch.rows.push(p.row ? RowText.of(p.row).json : null);
          batch.rowRevisions.push(p.row ? p.row.revision : null);
        }
        await this.run(batch).catch(() => undefined);
      }
    } finally {
      this.running = null;
    }
  }

  /**
   * Waits `ms` (less if flushed meanwhile). The timer keeps the process alive: a
   * library user's script that ends without close() still gets its rows and notifications
   * out, at most this much later.
   */
  private pause(ms: number): Promise<void> {
    return new Promise<void>((resolve) => {
      const t = setTimeout(done, ms);
      const self = this;
      function done(): void {
        clearTimeout(t);
        self.hurry = null;
        resolve();
      }
      this.hurry = done;
    });
  }
}

/**
 * Shortest time between two refresh statements of one handle: at a thousand or more appends a
 * second, one statement per 20 ms carries a few dozen of them (at 5 ms, the statements of a
 * stream of token records cost a tenth of its throughput); a watcher hears of a change in a
 * steady stream at most this much later than of the first after a quiet spell.
 */
export const REFRESH_SPACING_MS = 20;

/**
 * Shortest time between two batches of one handle that only notify (appends that left every
 * registry row alone: token records, notes): a watcher hears of a change in a steady stream of
 * them at most this much later than of the first after a quiet spell; one commit per 100 ms
 * is a fifth of what the 20 ms of row batches cost a worker whose appends take 15 ms (issue 30).
 */
export const NOTIFY_SPACING_MS = 100;
