import { BatonError, isBatonError } from '../domain/errors.js';

/**
 * OS errors that mean the store cannot be written (permissions, a read-only or full disk or
 * quota, no file handles left, an I/O error of the device): the write was reported as failed
 * and may be tried again once the cause is gone.
 */
const UNAVAILABLE = new Set(['EACCES', 'EROFS', 'ENOSPC', 'EDQUOT', 'EMFILE', 'EIO']);

/** OS errors that mean a path the user gave cannot name a file here: BAD_INPUT, not a bug. */
const BAD_PATH: Record<string, string> = {
  ENAMETOOLONG: 'is too long for the file system',
  ENOTDIR: 'goes through something that is not a folder',
  ELOOP: 'goes round a loop of symbolic links',
};

/**
 * The BatonError an unexpected failure stands for, the one mapping of OS errors to codes
 * every surface shares: a BatonError as it is; an OS refusal to write as STORE_UNAVAILABLE; a
 * path the file system cannot take (too long, through a file) as BAD_INPUT;
 * anything else INTERNAL, `bug` being the surface's way out (e.g. "report it with the
 * command you ran") and `detail` what the message shows of the failure.
 */
export function toBatonError(e: unknown, bug: string, detail: 'message' | 'stack' = 'message'): BatonError {
  if (isBatonError(e)) return e;
  const err = e as NodeJS.ErrnoException | undefined;
  if (err?.code === 'EROFS') {
    // Caught before a write by the store itself (STORE_READ_ONLY); this is what slipped past it.
    const where = typeof err.path === 'string' ? err.path : 'the store';
    return new BatonError('STORE_READ_ONLY', `${where} is on a read-only file system: ${err.message}.`, { hint: 'Reading works as usual; to change anything, make the store writable (a read-write mount), or copy it and use the copy.', details: { errno: err.code, retryable: false }, cause: e });
  }
  if (err && typeof err.code === 'string' && UNAVAILABLE.has(err.code)) {
    return new BatonError('STORE_UNAVAILABLE', `The store cannot be written: ${err.message}.`, { hint: 'Check permissions and free disk space.', details: { errno: err.code, retryable: true }, cause: e });
  }
  const bad = err && typeof err.code === 'string' ? BAD_PATH[err.code] : undefined;
  if (bad) {
    const where = typeof err!.path === 'string' ? ` (${err!.path.length > 120 ? `${err!.path.slice(0, 120)}…` : err!.path})` : '';
    return new BatonError('BAD_INPUT', `A path${where} ${bad}.`, { hint: 'Name a shorter path, through folders that exist.', details: { errno: err!.code }, cause: e });
  }
  const shown = (detail === 'stack' ? err?.stack : err?.message) ?? String(e);
  return new BatonError('INTERNAL', `Unexpected failure: ${shown}`, { hint: bug, cause: e });
}
