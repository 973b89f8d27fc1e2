import fs from 'node:fs';
import path from 'node:path';
import { atomicWrite } from '../atomic-write.js';
import type { Layout } from './paths.js';

/*
 * What `list --json` printed last, kept as a file (`list-all.view`, `list-live.view`) with the
 * stamp of everything it was computed from: index.json and index.log (inode, size, mtime) and
 * the sessions/ and archive/ folders (mtime, link count). While none of them changed and no
 * lease in it has run out, the next `list --json` prints the file as it is instead of reading,
 * checking, sorting and re-joining every row of the registry. Any write to the registry (a
 * row appended to the log, a rewrite, a folder created, archived or removed) changes the stamp.
 * The file is derived data: written atomically, not fsynced; a damaged one is ignored.
 */

const MAGIC = 'baton.list-view/1 ';

/** The list views of one store. */
export class ListView {
  constructor(private readonly layout: Layout) {}

  /** The stamp of the registry and folders now; take it before reading what the view is made of. */
  stamp(): string {
    return [this.layout.index, this.layout.indexLog, this.layout.sessions, this.layout.archive].map(statStamp).join('|');
  }

  /** The text kept for `key`, if it was computed from the registry as it is now and `now` is before any lease in it ends. */
  read(key: string, now: string): string | null {
    let text: string;
    try {
      text = fs.readFileSync(this.file(key), 'utf8');
    } catch {
      return null;
    }
    const nl = text.indexOf('\n');
    if (nl === -1 || !text.startsWith(MAGIC)) return null;
    let head: { stamp?: unknown; until?: unknown };
    try {
      head = JSON.parse(text.slice(MAGIC.length, nl)) as typeof head;
    } catch {
      return null;
    }
    if (typeof head.stamp !== 'string' || head.stamp !== this.stamp()) return null;
    if (typeof head.until === 'string' && now >= head.until) return null;
    const body = text.slice(nl + 1);
    // A view cut short (a crash of the machine while it was written) is not used.
    return body.endsWith(']') ? body : null;
  }

  /**
   * Keeps `text` as the view of `key`, computed from the registry as stamped by `stamp`
   * (taken before it was read): nothing is kept if anything changed since. `until`: the
   * earliest lease end among its rows (past it, rows must be checked again), or null.
   */
  save(key: string, stamp: string, text: string, until: string | null): void {
    if (stamp !== this.stamp()) return;
    try {
      atomicWrite(this.file(key), `${MAGIC}${JSON.stringify({ stamp, until })}\n${text}`, { sync: false });
    } catch {
      // derived data: the next list computes it again
    }
  }

  private file(key: string): string {
    return path.join(this.layout.root, `list-${key}.view`);
  }
}

function statStamp(file: string): string {
  try {
    const s = fs.statSync(file, { bigint: true });
    return `${s.ino}:${s.size}:${s.mtimeNs}:${s.nlink}`;
  } catch {
    return '-';
  }
}
