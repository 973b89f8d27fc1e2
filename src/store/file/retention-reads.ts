/** What retention reads back: a journal's end, tombstones, ids and folder listings. */
import fs from 'node:fs';
import { BatonError } from '../../domain/errors.js';
import { hint } from '../../domain/hints.js';
import { validateId } from '../../domain/ids.js';
import type { Tombstone } from '../types.js';
import { readTail } from './journal.js';

/** The last seq of a journal (CORRUPT when its end cannot be read). */
export function journalEnd(id: string, journal: string): number {
  let fd: number;
  try {
    fd = fs.openSync(journal, fs.constants.O_RDONLY | fs.constants.O_NOFOLLOW);
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'ENOENT') {
      throw new BatonError('CORRUPT', `Session ${id} has no journal.jsonl.`, {
        hint: hint('doctor.folder'),
        details: { sessionId: id },
      });
    }
    throw e;
  }
  try {
    const tail = readTail(fd);
    if (tail.corrupt) {
      throw new BatonError('CORRUPT', `The end of session ${id}'s journal is damaged.`, {
        hint: hint('repair.first', { session: id }),
        details: { sessionId: id },
      });
    }
    return tail.lastSeq;
  } finally {
    fs.closeSync(fd);
  }
}

/** A tombstone line as read, or null when it is not one. */
export function asTombstone(v: unknown): Tombstone | null {
  const t = v as Partial<Tombstone> | null;
  if (!t || typeof t !== 'object') return null;
  if (
    typeof t.id !== 'string' ||
    typeof t.deletedAt !== 'string' ||
    typeof t.title !== 'string' ||
    typeof t.status !== 'string'
  )
    return null;
  return { id: t.id, deletedAt: t.deletedAt, title: t.title, status: t.status, archived: t.archived === true };
}

/** True when `id` is a valid session id (folders with other names are not sessions). */
export function isValidId(id: string): boolean {
  try {
    validateId(id);
    return true;
  } catch {
    return false;
  }
}

/** A folder's entry names, sorted; none when it cannot be read. */
export function readDir(dir: string): string[] {
  try {
    return fs.readdirSync(dir).sort();
  } catch {
    return [];
  }
}
