/**
 * Progress of a long operation (doctor, cleanup, import, migrate-store), reported as data: the
 * manager counts, each surface words and draws it (the CLI as a progress line on stderr).
 */

/** How far an operation is: `done` of `total` items, and the item it is at (a session id). */
export interface Progress {
  done: number;
  total: number;
  /** The item just started or finished; null when the report is only a count. */
  item: string | null;
}

/** Told as an operation goes: once before the first item (done 0) and after every item. */
export type OnProgress = (p: Progress) => void;
