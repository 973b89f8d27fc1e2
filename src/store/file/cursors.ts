import fs from 'node:fs';
import path from 'node:path';
import { DIR_MODE, atomicWrite } from '../atomic-write.js';
import { checkCursorName, checkCursorValue, cursorMoved } from '../cursors.js';
import type { CursorTable } from '../types.js';
import { readIfExists } from './fsutil.js';
import { FileLock } from './lock.js';

/**
 * The file store's cursors: one file per cursor in `.baton/cursors/`, replaced atomically
 * and fsynced (a crash leaves the old value or the new one). A write compares and replaces
 * under `cursors/.lock` (the folder is `Layout.cursors`), so two processes moving the same cursor cannot both win.
 */
export class FileCursorTable implements CursorTable {
  constructor(
    private readonly dir: string,
    private readonly lockTimeoutMs?: number,
    /** Throws when the store cannot be written (`STORE_READ_ONLY`); reading cursors needs no write. */
    private readonly writable: () => void = () => undefined,
  ) {}

  async get(name: string): Promise<string | null> {
    return readIfExists(path.join(this.dir, checkCursorName(name)))?.toString('utf8') ?? null;
  }

  async put(name: string, value: string, expected: string | null): Promise<void> {
    const file = path.join(this.dir, checkCursorName(name));
    checkCursorValue(value);
    this.writable();
    fs.mkdirSync(this.dir, { recursive: true, mode: DIR_MODE });
    const lock = new FileLock(path.join(this.dir, '.lock'), this.lockTimeoutMs);
    await lock.acquireAsync();
    try {
      const actual = readIfExists(file)?.toString('utf8') ?? null;
      if (actual !== expected) throw cursorMoved(name, expected, actual);
      atomicWrite(file, value);
    } finally {
      lock.release();
    }
  }

  async list(prefix: string): Promise<Array<{ name: string; value: string }>> {
    let names: string[];
    try {
      names = fs.readdirSync(this.dir);
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code === 'ENOENT') return [];
      throw e;
    }
    // Temp files of a write in progress and the lock start with '.' or carry '.tmp-': not cursors.
    const out: Array<{ name: string; value: string }> = [];
    for (const n of names.sort()) {
      if (!n.startsWith(prefix) || n.startsWith('.') || n.includes('.tmp-')) continue;
      const v = readIfExists(path.join(this.dir, n));
      if (v) out.push({ name: n, value: v.toString('utf8') });
    }
    return out;
  }
}
