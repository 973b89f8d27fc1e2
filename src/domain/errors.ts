/**
 * The one error type of baton. Every refusal carries a stable string `code` that callers
 * may branch on, a message naming the object, and a hint naming the way out: plain text
 * (`hint`) or, when the way out is a command, an action as data (`hintAction`, see hints.ts)
 * that each surface words its own way.
 */
import type { Hint } from './hints.js';
import { isHint } from './hints.js';

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
  'BUDGET_EXCEEDED',
  'CORRUPT',
  'NO_ACTIVE_SESSION',
  'ACTIVE_EXISTS',
  'NO_STORE',
  'STORE_UNAVAILABLE',
  'STORE_READ_ONLY',
  'UNSUPPORTED_VERSION',
  'EXPORT_FAILED',
  'INTERNAL',
] as const;

/** A stable, documented error code. */
export type ErrorCode = (typeof ERROR_CODES)[number];

/** Options for {@link BatonError}. */
export interface BatonErrorOptions {
  /** Plain text that names no command, or a {@link Hint} (an action and its arguments). */
  hint?: string | Hint;
  details?: Record<string, unknown>;
  cause?: unknown;
}

/**
 * Typed error with a stable `code`. Library code throws only this (or lets an unexpected
 * bug surface as-is); surfaces map the code to an exit code or an MCP `isError` result.
 */
export class BatonError extends Error {
  readonly code: ErrorCode;
  /** The way out as plain text (it names no command); undefined when there is none or it is {@link hintAction}. */
  readonly hint: string | undefined;
  /** The way out as an action and its arguments, for each surface to word (CLI: a command; MCP: a tool). */
  readonly hintAction: Hint | undefined;
  readonly details: Record<string, unknown>;

  constructor(code: ErrorCode, message: string, options: BatonErrorOptions = {}) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.name = 'BatonError';
    this.code = code;
    this.hint = isHint(options.hint) ? undefined : options.hint;
    this.hintAction = isHint(options.hint) ? options.hint : undefined;
    this.details = options.details ?? {};
  }

  /** The hint as given: plain text or an action (for re-throwing with the same way out). */
  get way(): string | Hint | undefined {
    return this.hintAction ?? this.hint;
  }

  /** Plain-data form (surfaces word the hint themselves). */
  toJSON(): { code: ErrorCode; message: string; hint?: string; hintAction?: Hint; details?: Record<string, unknown> } {
    return {
      code: this.code,
      message: this.message,
      ...(this.hint ? { hint: this.hint } : {}),
      ...(this.hintAction ? { hintAction: this.hintAction } : {}),
      ...(Object.keys(this.details).length ? { details: this.details } : {}),
    };
  }
}

/** True when `e` is a {@link BatonError}, optionally with the given code. */
export function isBatonError(e: unknown, code?: ErrorCode): e is BatonError {
  return e instanceof BatonError && (code === undefined || e.code === code);
}
