import { BatonError, isBatonError } from '../domain/errors.js';

/*
 * The one mapping of OS errors to BatonErrors: every store and every surface (through
 * src/manager/os-errors.ts) words a full disk, a read-only file system or a failing device
 * the same way. All of them are STORE_UNAVAILABLE (but a read-only file system:
 * STORE_READ_ONLY, which waiting does not cure): the call was not acknowledged, nothing
 * acknowledged was touched, and it may be made again once the cause is gone. A code of its
 * own per cause (STORE_FULL …) would tell a script nothing `details.reason` does not, and
 * would give every caller that already waits on STORE_UNAVAILABLE a new code to learn.
 */

/** Why the store could not be used, as `details.reason` of a STORE_UNAVAILABLE error. */
export type OsFailure = 'disk_full' | 'quota' | 'io_error' | 'read_only' | 'permission' | 'too_many_files';

interface Cause {
  reason: OsFailure;
  /** What happened, in a few words, after "… failed: ". */
  what: string;
  hint: string;
}

const AGAIN = 'then make the change again (nothing acknowledged was lost; the failed change was not recorded)';

/** errno → cause. An errno not here is not an OS refusal of the store (see toStoreError). */
const CAUSES: Readonly<Record<string, Cause>> = {
  ENOSPC: { reason: 'disk_full', what: 'the disk is full', hint: `Free disk space where the store is, ${AGAIN}.` },
  EDQUOT: {
    reason: 'quota',
    what: 'the disk quota is used up',
    hint: `Free space within your disk quota or have it raised, ${AGAIN}.`,
  },
  EIO: {
    reason: 'io_error',
    what: 'the device reported an I/O error',
    hint: `Check the disk and the kernel log (dmesg) and fix the device, ${AGAIN}.`,
  },
  EROFS: {
    reason: 'read_only',
    what: 'the file system is read-only',
    hint: `Remount the file system read-write or use a store on a writable one, ${AGAIN}.`,
  },
  EACCES: {
    reason: 'permission',
    what: 'permission denied',
    hint: `Check that the user running baton owns the store's folder and files (baton makes folders 0700 and files 0600), ${AGAIN}.`,
  },
  EPERM: {
    reason: 'permission',
    what: 'operation not permitted',
    hint: `Check the owner, mode and attributes (immutable, append-only) of the store's files, ${AGAIN}.`,
  },
  EMFILE: {
    reason: 'too_many_files',
    what: 'this process has too many open files',
    hint: `Raise the open-file limit (ulimit -n) or close what holds files open, ${AGAIN}.`,
  },
  ENFILE: {
    reason: 'too_many_files',
    what: 'the system has too many open files',
    hint: `Close programs that hold many files open, ${AGAIN}.`,
  },
};

/** True when `code` is an errno {@link toStoreError} maps. */
export function isStoreOsError(code: unknown): boolean {
  return typeof code === 'string' && Object.hasOwn(CAUSES, code);
}

/**
 * The STORE_UNAVAILABLE error an OS error stands for, or null when `e` is not one of the OS
 * errors above (a BatonError, a bug, a path the user gave): `details` carry `errno`,
 * `reason` (an {@link OsFailure}), `retryable: true` and `context` (the session, the file).
 * `action` says what failed, e.g. "Appending to session s1".
 */
export function toStoreError(
  e: unknown,
  action = 'Using the store',
  context: Record<string, unknown> = {},
): BatonError | null {
  if (isBatonError(e)) return null;
  const err = e as NodeJS.ErrnoException | undefined;
  if (!err || !isStoreOsError(err.code)) return null;
  const cause = CAUSES[err.code!]!;
  const file = typeof err.path === 'string' ? { path: err.path } : {};
  const where = typeof err.path === 'string' ? `, ${err.path}` : '';
  if (err.code === 'EROFS') {
    // Caught before a write by a store that knows it is read-only (STORE_READ_ONLY); this is what slipped past it.
    return new BatonError('STORE_READ_ONLY', `${action} failed: ${cause.what} (${err.code}${where}).`, {
      hint: 'Reading works as usual; to change anything, make the store writable (a read-write mount), or copy it and use the copy.',
      details: { ...context, ...file, errno: err.code, reason: cause.reason, retryable: false },
      cause: e,
    });
  }
  return new BatonError('STORE_UNAVAILABLE', `${action} failed: ${cause.what} (${err.code}${where}).`, {
    hint: cause.hint,
    details: { ...context, ...file, errno: err.code, reason: cause.reason, retryable: true },
    cause: e,
  });
}

/**
 * `store` with every method's OS errors mapped by {@link toStoreError} (thrown at once or
 * rejected later), so that a library caller gets a BatonError where the file system said no.
 * Methods run on the store itself (not the proxy): its own calls stay plain.
 */
export function withStoreErrors<S extends object>(store: S, action: (method: string, args: unknown[]) => string): S {
  return new Proxy(store, {
    get(target, key, receiver) {
      const value: unknown = Reflect.get(target, key, receiver);
      if (typeof value !== 'function' || typeof key !== 'string' || key === 'constructor') return value;
      return (...args: unknown[]): unknown => {
        let out: unknown;
        try {
          out = Reflect.apply(value as (...a: unknown[]) => unknown, target, args);
        } catch (e) {
          throw toStoreError(e, action(key, args)) ?? e;
        }
        if (out instanceof Promise)
          return out.catch((e: unknown) => Promise.reject(toStoreError(e, action(key, args)) ?? e));
        return out;
      };
    },
  });
}
