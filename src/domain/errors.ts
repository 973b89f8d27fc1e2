/**
 * The one error type of baton. Every refusal carries a stable string `code` that callers
 * may branch on, a message naming the object, and a `hint` naming the way out.
 */
export const ERROR_CODES = [
  'BAD_INPUT',
  'NOT_FOUND',
  'EXISTS',
  'CONFLICT',
  'INVALID_TRANSITION',
  'RETRIES_EXHAUSTED',
  'BLOCKED',
  'LOCKED',
  'FENCED',
  'CORRUPT',
  'NO_ACTIVE_SESSION',
  'ACTIVE_EXISTS',
  'NO_STORE',
  'STORE_UNAVAILABLE',
  'UNSUPPORTED_VERSION',
  'INTERNAL',
] as const;

/** A stable, documented error code. */
export type ErrorCode = (typeof ERROR_CODES)[number];

/** Options for {@link BatonError}. */
export interface BatonErrorOptions {
  hint?: string;
  details?: Record<string, unknown>;
  cause?: unknown;
}

/**
 * Typed error with a stable `code`. Library code throws only this (or lets an unexpected
 * bug surface as-is); surfaces map the code to an exit code or an MCP `isError` result.
 */
export class BatonError extends Error {
  readonly code: ErrorCode;
  readonly hint: string | undefined;
  readonly details: Record<string, unknown>;

  constructor(code: ErrorCode, message: string, options: BatonErrorOptions = {}) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.name = 'BatonError';
    this.code = code;
    this.hint = options.hint;
    this.details = options.details ?? {};
  }

  /** Plain-data form, as printed by `--json` surfaces. */
  toJSON(): { code: ErrorCode; message: string; hint?: string; details?: Record<string, unknown> } {
    return {
      code: this.code,
      message: this.message,
      ...(this.hint ? { hint: this.hint } : {}),
      ...(Object.keys(this.details).length ? { details: this.details } : {}),
    };
  }
}

/** True when `e` is a {@link BatonError}, optionally with the given code. */
export function isBatonError(e: unknown, code?: ErrorCode): e is BatonError {
  return e instanceof BatonError && (code === undefined || e.code === code);
}
