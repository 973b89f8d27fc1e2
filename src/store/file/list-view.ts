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
const NEWLINE = 0x0a;
const CLOSING_BRACKET = 0x5d;

/** The list views of one store. */
export class ListView {
  constructor(
    private readonly layout: Layout,
    /** The store cannot be written (read-only.ts): views are read, never kept. */
    private readonly readOnly = false,
  ) {}

  /** The stamp of the registry and folders now; take it before reading what the view is made of. */
  stamp(): string {
    return [this.layout.index, this.layout.indexLog, this.layout.sessions, this.layout.archive]
      .map(statStamp)
      .join('|');
  }

  /**
   * The text kept for `key`, as its UTF-8 bytes, if it was computed from the registry as it is
   * now and `now` is before any lease in it ends. Bytes, not a string: over 10,000 sessions the
   * view is 3 MB, which `list --json` prints as read; decoding and encoding it again would cost
   * more than everything else the command does.
   */
  read(key: string, now: string): Uint8Array | null {
    let buf: Buffer;
    try {
      buf = fs.readFileSync(this.file(key));
    } catch {
      return null;
    }
    const nl = buf.indexOf(NEWLINE);
    if (nl === -1 || buf.toString('utf8', 0, MAGIC.length) !== MAGIC) return null;
    let head: { stamp?: unknown; until?: unknown };
    try {
      head = JSON.parse(buf.toString('utf8', MAGIC.length, nl)) as typeof head;
    } catch {
      return null;
    }
    if (typeof head.stamp !== 'string' || head.stamp !== this.stamp()) return null;
    if (typeof head.until === 'string' && now >= head.until) return null;
    // A view cut short (a crash of the machine while it was written) is not used.
    return buf.length > nl + 1 && buf[buf.length - 1] === CLOSING_BRACKET ? buf.subarray(nl + 1) : null;
  }

  /**
   * Keeps `text` as the view of `key`, computed from the registry as stamped by `stamp`
   * (taken before it was read): nothing is kept if anything changed since. `until`: the
   * earliest lease end among its rows (past it, rows must be checked again), or null.
   */
  save(key: string, stamp: string, text: string, until: string | null): void {
    if (this.readOnly || stamp !== this.stamp()) return;
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
