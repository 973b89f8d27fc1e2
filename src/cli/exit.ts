import type { ErrorCode } from '../manager/index.js';

/**
 * Exit status of the `baton` command for each error code. Stable and documented in
 * docs/cli.md; scripts may branch on them. 1 is reserved for unexpected failures.
 */
export const EXIT_CODES: Readonly<Record<ErrorCode, number>> = {
  INTERNAL: 1,
  BAD_INPUT: 2,
  NOT_FOUND: 3,
  CONFLICT: 4,
  INVALID_TRANSITION: 5,
  RETRIES_EXHAUSTED: 6,
  BLOCKED: 7,
  LOCKED: 8,
  FENCED: 9,
  CORRUPT: 10,
  NO_ACTIVE_SESSION: 11,
  ACTIVE_EXISTS: 12,
  EXISTS: 13,
  NO_STORE: 14,
  STORE_UNAVAILABLE: 15,
  UNSUPPORTED_VERSION: 16,
  EXPORT_FAILED: 17,
  STORE_READ_ONLY: 18,
  BUDGET_EXCEEDED: 19,
};
