import { BatonError, isBatonError } from '../domain/errors.js';
import { toStoreError } from '../store/os-errors.js';

/** OS errors that mean a path the user gave cannot name a file here: BAD_INPUT, not a bug. */
const BAD_PATH: Record<string, string> = {
  ENAMETOOLONG: 'is too long for the file system',
  ENOTDIR: 'goes through something that is not a folder',
  ELOOP: 'goes round a loop of symbolic links',
};

/**
 * The BatonError an unexpected failure stands for, the one mapping of OS errors to codes
 * every surface shares: a BatonError as it is; an OS refusal to write (a full disk, EIO, a
 * read-only file system …: src/store/os-errors.ts, shared with the stores) as STORE_UNAVAILABLE; a
 * path the file system cannot take (too long, through a file) as BAD_INPUT;
 * anything else INTERNAL, `bug` being the surface's way out (e.g. "report it with the
 * command you ran") and `detail` what the message shows of the failure.
 */
export function toBatonError(e: unknown, bug: string, detail: 'message' | 'stack' = 'message'): BatonError {
  if (isBatonError(e)) return e;
  const os = toStoreError(e);
  if (os) return os;
  const err = e as NodeJS.ErrnoException | undefined;
  const bad = err && typeof err.code === 'string' ? BAD_PATH[err.code] : undefined;
  if (bad) {
    const where =
      typeof err!.path === 'string' ? ` (${err!.path.length > 120 ? `${err!.path.slice(0, 120)}…` : err!.path})` : '';
    return new BatonError('BAD_INPUT', `A path${where} ${bad}.`, {
      hint: 'Name a shorter path, through folders that exist.',
      details: { errno: err!.code },
      cause: e,
    });
  }
  const shown = (detail === 'stack' ? err?.stack : err?.message) ?? String(e);
  return new BatonError('INTERNAL', `Unexpected failure: ${shown}`, { hint: bug, cause: e });
}
