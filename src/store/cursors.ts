/**
 * What every backend's cursor table (capability `cursors`, `StoreCursors` in types.ts) shares: the checks of names and
 * values, the refusal of a stale write, and the in-memory table of the memory store.
 */
import { BatonError } from '../domain/errors.js';
import type { CursorTable } from './types.js';

/** Longest cursor name: a prefix and a session id. */
export const MAX_CURSOR_NAME = 200;
/** Largest cursor value, in UTF-16 code units (a position is a few bytes of JSON). */
export const MAX_CURSOR_VALUE = 64 * 1024;

const NAME = /^[A-Za-z0-9][A-Za-z0-9._-]*$/;

/** Returns `name` when it is a valid cursor name (a plain file name: no separators, no `..`); else `BAD_INPUT`. */
export function checkCursorName(name: unknown): string {
  if (typeof name !== 'string' || name.length > MAX_CURSOR_NAME || !NAME.test(name) || name.includes('..')) {
    throw new BatonError('BAD_INPUT', `Invalid cursor name ${JSON.stringify(String(name).slice(0, 80))}.`, {
      hint: `Use letters, digits, '.', '_' and '-' (no '..'), at most ${MAX_CURSOR_NAME} characters.`,
    });
  }
  return name;
}

/** Checks a cursor value before anything is written; `BAD_INPUT` when it is not text or too long. */
export function checkCursorValue(value: unknown): string {
  if (typeof value !== 'string' || value.length > MAX_CURSOR_VALUE) {
    throw new BatonError('BAD_INPUT', `A cursor value must be text of at most ${MAX_CURSOR_VALUE} characters.`, {
      hint: 'Keep positions small.',
    });
  }
  return value;
}

/** The refusal of a write whose expected value is stale: another reader moved the cursor. */
export function cursorMoved(name: string, expected: string | null, actual: string | null): BatonError {
  return new BatonError(
    'CONFLICT',
    `Cursor ${name} moved: it holds ${actual === null ? 'nothing' : JSON.stringify(actual.slice(0, 200))}, not ${expected === null ? 'nothing' : JSON.stringify(expected.slice(0, 200))}.`,
    {
      hint: 'Another reader with the same cursor advanced it; read it again and continue from there.',
      details: { cursor: name },
    },
  );
}

/** Cursors held in memory, for the memory store (the reference the others match). */
export class MemoryCursorTable implements CursorTable {
  private readonly values = new Map<string, string>();

  async get(name: string): Promise<string | null> {
    return this.values.get(checkCursorName(name)) ?? null;
  }

  async put(name: string, value: string, expected: string | null): Promise<void> {
    checkCursorName(name);
    checkCursorValue(value);
    const actual = this.values.get(name) ?? null;
    if (actual !== expected) throw cursorMoved(name, expected, actual);
    this.values.set(name, value);
  }

  async list(prefix: string): Promise<Array<{ name: string; value: string }>> {
    return [...this.values.entries()]
      .filter(([k]) => k.startsWith(prefix))
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
      .map(([name, value]) => ({ name, value }));
  }
}
