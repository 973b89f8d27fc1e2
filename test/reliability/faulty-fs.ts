/**
 * An injectable fs layer for the file store (FileStoreOptions.fs) that fails chosen calls the
 * way a sick disk does: the Nth call of one operation (open, write, fsync, rename) throws EIO or
 * ENOSPC, for one call or for every call until healed. Every call is counted, so a test can
 * check that its fault was really hit.
 */
import fs from 'node:fs';
import type { StoreFs } from '../../src/store/file/io.js';

/** The operations a fault can hit; `fsync` covers fsync and fdatasync. */
export type FaultOp = 'open' | 'write' | 'fsync' | 'rename';

/** What to fail. */
export interface Fault {
  op: FaultOp;
  errno: 'EIO' | 'ENOSPC';
  /** The first call (1-based, counted per operation) that fails. */
  nth: number;
  /** How many calls fail from there (default 1; Infinity: until {@link FaultyFs.heal}). */
  times?: number;
  /** A failing write first writes half its bytes, as a disk that fills up mid-write does. */
  partial?: boolean;
}

/** A {@link StoreFs} over Node's fs, failing as told. */
export class FaultyFs {
  readonly calls: Record<FaultOp, number> = { open: 0, write: 0, fsync: 0, rename: 0 };
  failures = 0;
  private fault: Fault | null = null;

  /** Fails as `fault` says from now on (null: nothing). */
  arm(fault: Fault | null): void {
    this.fault = fault;
  }

  /** The disk is healthy again: no call fails. */
  heal(): void {
    this.fault = null;
  }

  private check(op: FaultOp, before?: () => void): void {
    this.calls[op] += 1;
    const f = this.fault;
    if (!f || f.op !== op) return;
    const n = this.calls[op];
    if (n < f.nth || n >= f.nth + (f.times ?? 1)) return;
    this.failures += 1;
    if (f.partial) before?.();
    const e = new Error(`${f.errno}: injected failure of ${op} call ${n}`) as NodeJS.ErrnoException;
    e.code = f.errno;
    e.errno = f.errno === 'EIO' ? -5 : -28;
    throw e;
  }

  /** The object handed to the store. */
  readonly fs: StoreFs = {
    openSync: ((...a: Parameters<typeof fs.openSync>) => {
      this.check('open');
      return fs.openSync(...a);
    }) as typeof fs.openSync,
    writeSync: ((...a: unknown[]) => {
      this.check('write', () => {
        // Half of what was asked, where it was asked: writeSync(fd, string, position) or
        // writeSync(fd, buffer, offset, length, position).
        const [fd, data] = a as [number, string | Uint8Array];
        const string = typeof data === 'string';
        const buf = string
          ? Buffer.from(data)
          : Buffer.from(data).subarray(
              (a[2] as number | undefined) ?? 0,
              a[3] === undefined ? undefined : ((a[2] as number | undefined) ?? 0) + (a[3] as number),
            );
        const position = (string ? a[2] : a[4]) as number | null | undefined;
        fs.writeSync(fd, buf, 0, Math.floor(buf.length / 2), position ?? null);
      });
      return (fs.writeSync as (...x: unknown[]) => number)(...a);
    }) as typeof fs.writeSync,
    fsyncSync: (fd: number) => {
      this.check('fsync');
      fs.fsyncSync(fd);
    },
    fdatasyncSync: (fd: number) => {
      this.check('fsync');
      fs.fdatasyncSync(fd);
    },
    renameSync: (from: fs.PathLike, to: fs.PathLike) => {
      this.check('rename');
      fs.renameSync(from, to);
    },
  };
}
