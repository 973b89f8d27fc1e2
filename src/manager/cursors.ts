import { BatonError } from '../domain/errors.js';
import { cursorsOf } from '../store/capabilities.js';
import { readOnlyStore } from '../store/errors.js';
import type { CursorTable } from '../store/types.js';
import type { ManagerCore as SessionManager } from './types.js';

/**
 * `manager.cursors`: named positions kept in the store by its readers (`baton otel follow`
 * remembers per session how far it sent), through the store's `cursors` capability. On a
 * store without it every call is `STORE_UNAVAILABLE`, naming the way out.
 */
export class Cursors implements CursorTable {
  constructor(private readonly m: SessionManager) {}

  /** True when the store keeps cursors. */
  get available(): boolean {
    return cursorsOf(this.m.store) !== null;
  }

  private table(): CursorTable {
    const t = cursorsOf(this.m.store);
    if (!t) {
      throw new BatonError(
        'STORE_UNAVAILABLE',
        `The ${this.m.store.kind} store at ${this.m.store.location} keeps no cursors.`,
        {
          hint: 'Use a file store or a PostgreSQL store.',
        },
      );
    }
    return t;
  }

  /**
   * Refuses (`STORE_READ_ONLY`) when the store cannot be written, so a reader that must keep
   * positions (`otel follow`) stops before it sends anything rather than at its first `put`.
   */
  checkWritable(): void {
    const why = this.m.store.readOnly;
    if (why) throw readOnlyStore(this.m.store.location, why);
  }

  /** The value of cursor `name`, or null. */
  get(name: string): Promise<string | null> {
    return this.table().get(name);
  }

  /** Sets cursor `name` if it still holds `expected` (null: unset); else `CONFLICT`. */
  put(name: string, value: string, expected: string | null): Promise<void> {
    return this.table().put(name, value, expected);
  }

  /** The cursors whose names start with `prefix`. */
  list(prefix: string): Promise<Array<{ name: string; value: string }>> {
    return this.table().list(prefix);
  }
}
