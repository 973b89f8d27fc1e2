import fs from 'node:fs';
import path from 'node:path';
import { readTail } from './journal.js';
import type { Layout } from './paths.js';

/** A change seen by {@link watchJournals}. */
export interface JournalChange {
  sessionId: string;
  revision: number;
}

/** Options of {@link watchJournals}. */
export interface WatchOptions {
  /** Wait this long after a file-system event before looking, so a burst is looked at once. */
  debounceMs?: number;
  /**
   * Look this often even without file-system events: `fs.watch` is not reliable on every
   * file system (network mounts, some containers) and may miss events under load.
   */
  pollMs?: number;
  /** Use `fs.watch` (default true); false: the poll alone. */
  fsEvents?: boolean;
}

/** Default debounce of the file watcher. */
export const WATCH_DEBOUNCE_MS = 25;
/** Default fallback poll interval of the file watcher. */
export const WATCH_POLL_MS = 1000;

interface Seen {
  size: number;
  mtimeMs: number;
  revision: number;
}

/**
 * Watches the live sessions of a file store (`sessions/<id>/journal.jsonl`) and reports each
 * journal whose last good seq changed since it was last looked at, and each new session. A
 * torn or half-written last line is not counted (the revision is that of the last complete
 * line), so a change is reported only once it is readable. Archived sessions are not
 * watched: they cannot change. Reads only; never takes a lock or repairs anything.
 */
export async function watchJournals(
  layout: Layout,
  onChange: (c: JournalChange) => void,
  o: WatchOptions = {},
): Promise<() => Promise<void>> {
  const debounceMs = o.debounceMs ?? WATCH_DEBOUNCE_MS;
  const pollMs = o.pollMs ?? WATCH_POLL_MS;
  const seen = new Map<string, Seen>();
  let stopped = false;
  let timer: NodeJS.Timeout | null = null;
  let again = false;
  let running = false;

  const look = (report: boolean): void => {
    let names: string[];
    try {
      names = fs.readdirSync(layout.sessions);
    } catch {
      return; // the folder is being recreated or is gone; the next look tries again
    }
    const present = new Set<string>();
    for (const name of names) {
      // Half-made sessions (`<id>.creating-…`) appear under their final name in one rename.
      if (name.includes('.creating-')) continue;
      present.add(name);
      const journal = path.join(layout.sessions, name, 'journal.jsonl');
      let st: fs.Stats;
      try {
        st = fs.lstatSync(journal);
      } catch {
        continue;
      }
      if (!st.isFile()) continue;
      const prev = seen.get(name);
      if (prev && prev.size === st.size && prev.mtimeMs === st.mtimeMs) continue;
      const revision = lastSeq(journal);
      if (revision === null) continue;
      seen.set(name, { size: st.size, mtimeMs: st.mtimeMs, revision });
      if (report && revision > 0 && (!prev || prev.revision !== revision)) {
        try {
          onChange({ sessionId: name, revision });
        } catch {
          // a listener's failure must not stop the watcher
        }
      }
    }
    for (const name of [...seen.keys()]) if (!present.has(name)) seen.delete(name);
  };

  const run = (): void => {
    timer = null;
    if (stopped) return;
    if (running) {
      again = true;
      return;
    }
    running = true;
    try {
      look(true);
    } finally {
      running = false;
    }
    if (again) {
      again = false;
      schedule();
    }
  };
  const schedule = (): void => {
    if (!stopped && timer === null) timer = setTimeout(run, debounceMs);
  };

  look(false);
  let watcher: fs.FSWatcher | null = null;
  if (o.fsEvents !== false)
    try {
      watcher = fs.watch(layout.sessions, { recursive: true, persistent: true }, schedule);
      watcher.on('error', () => {
        // Watching failed (folder replaced, too many watches): the poll below keeps going.
        watcher?.close();
        watcher = null;
      });
    } catch {
      watcher = null; // recursive watching unsupported here: polling only
    }
  const poll = setInterval(schedule, pollMs);

  return async () => {
    stopped = true;
    clearInterval(poll);
    if (timer) clearTimeout(timer);
    watcher?.close();
  };
}

/** Seq of a journal's last complete, valid line; null when it cannot be read now. */
function lastSeq(journal: string): number | null {
  let fd: number;
  try {
    fd = fs.openSync(journal, fs.constants.O_RDONLY | fs.constants.O_NOFOLLOW);
  } catch {
    return null;
  }
  try {
    return readTail(fd).lastSeq;
  } catch {
    return null;
  } finally {
    fs.closeSync(fd);
  }
}
