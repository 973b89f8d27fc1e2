import { BatonError } from '../../domain/errors.js';
import type { Handle } from './handle.js';
import type { StoreFs } from './io.js';
import { FileLock } from './lock.js';
import type { Layout } from './paths.js';
import { openJournal } from './read-only.js';

/**
 * Opens the journal of session `id` in folder `dir` and makes a fresh handle for it (nothing
 * known yet, lock not taken). `CORRUPT` when the folder has no journal; a journal that cannot
 * be written is opened for reading (the handle's `readOnly` says why).
 */
export function openHandle(
  layout: Layout,
  io: StoreFs,
  storeReadOnly: string | null,
  lockTimeoutMs: number | undefined,
  id: string,
  dir: string,
): Handle {
  const files = layout.files(dir);
  let opened: { fd: number; readOnly: string | null };
  try {
    opened = openJournal(io, files.journal, storeReadOnly);
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'ENOENT') {
      throw new BatonError('CORRUPT', `Session ${id} has no journal.jsonl.`, {
        hint: `Its folder ${dir} is incomplete; restore journal.jsonl from a backup or remove the folder.`,
      });
    }
    throw e;
  }
  return {
    dir,
    journal: files.journal,
    snapshotFile: files.snapshot,
    lock: new FileLock(files.lock, lockTimeoutMs),
    fd: opened.fd,
    readOnly: opened.readOnly,
    lastSeq: -1,
    end: -1,
    room: -1,
    holdAppends: 0,
    release: null,
    lingerUntil: 0,
    busy: false,
    checkedAt: 0,
  };
}
