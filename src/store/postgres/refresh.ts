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
 * Nothing here is needed for durability: the journal is already committed. A refresh lost to
 * a crash (or a failed statement) leaves a session whose highest event is past its
 * `refreshed_revision`; `list` hands such a session back as missing, so its row is derived
 * again from the journal, and a watcher's poll finds the events (see watch.ts).
 */
export class Refresher {
  private pending = new Map<string, Pending>();
  private running: Promise<void> | null = null;

  /** `run` executes one batch (one statement); its failure is swallowed (the repair path covers it). */
  constructor(private readonly run: (batch: RefreshBatch) => Promise<void>) {}

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
    this.running ??= this.drain();
  }

  /** Resolves once every refresh noted before the call has run (read-your-writes for this handle). */
  async flush(): Promise<void> {
    while (this.running) await this.running;
  }

  private async drain(): Promise<void> {
    // Let the acknowledged caller go on first: its next append overlaps this refresh.
    await Promise.resolve();
    try {
      while (this.pending.size) {
        const taken = this.pending;
        this.pending = new Map();
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
}
