import fs from 'node:fs';
import type { NewEvent } from '../../domain/events.js';
import { DIR_MODE, FILE_MODE, fsyncDir } from '../atomic-write.js';
import { exists } from '../errors.js';
import { journalLines } from './append.js';
import type { StoreFs } from './io.js';
import type { Layout } from './paths.js';

/**
 * Makes the folder of a new session with its first events: written and fsynced under a
 * temporary name, then renamed into place in one step, so a half-made session is never seen
 * and a failure (a full disk) leaves nothing behind. `EXISTS` when the id was taken meanwhile.
 */
export function makeSessionFolder(layout: Layout, io: StoreFs, id: string, events: NewEvent[]): void {
  const dir = layout.sessionDir(id);
  const tmp = `${dir}.creating-${process.pid}-${Date.now().toString(36)}`;
  fs.mkdirSync(tmp, { mode: DIR_MODE });
  const body = journalLines(events, 1, false);
  try {
    const fd = io.openSync(layout.files(tmp).journal, 'wx', FILE_MODE);
    try {
      if (io.writeSync(fd, body) !== Buffer.byteLength(body))
        throw Object.assign(new Error('short write to the journal (is the disk full?)'), { code: 'ENOSPC' });
      io.fsyncSync(fd);
    } finally {
      fs.closeSync(fd);
    }
    fsyncDir(tmp);
    io.renameSync(tmp, dir);
  } catch (e) {
    fs.rmSync(tmp, { recursive: true, force: true });
    if (['ENOTEMPTY', 'EEXIST'].includes((e as NodeJS.ErrnoException).code ?? '')) throw exists(id);
    throw e;
  }
  fsyncDir(layout.sessions);
}
