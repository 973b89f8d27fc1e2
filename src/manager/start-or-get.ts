/**
 * Find-or-create of a session by a key the caller chooses (`manager.startOrGet`): the key
 * names the session's id, so two processes asking for the same key at once both end up
 * with the one session the store's create let in (the other's create gets `EXISTS` and
 * reads it instead). The key is kept in the session's metadata as `sessionKey`.
 */
import { nodeCrypto } from './lazy.js';
import { BatonError, isBatonError } from '../domain/errors.js';
import { MAX_ID_LENGTH } from '../domain/ids.js';
import type { SessionState } from '../domain/state.js';
import type { StartInput } from './types.js';

/** Input of `startOrGet`: what `start` takes (its id aside), and the key. */
export type StartOrGetInput = Omit<StartInput, 'id' | 'idFormat' | 'bmad'> & { key: string };

/** The metadata key a session found by key records its key under. */
export const SESSION_KEY = 'sessionKey';

/**
 * The session id of `key`: the key itself when it is a valid id of at most 100 characters,
 * else a readable slug of it and 16 hex digits of its sha256 (so `Nightly build #42` and
 * `nightly-build-42` name different sessions).
 */
export function sessionIdForKey(key: string): string {
  if (typeof key !== 'string' || key.length === 0 || key.length > 1000) {
    throw new BatonError(
      'BAD_INPUT',
      `A session key must be text of 1 to 1000 characters; got ${JSON.stringify(key)}.`,
      { hint: 'Choose a key that names the work, e.g. "nightly-2026-11-27".' },
    );
  }
  if (/^[A-Za-z0-9][A-Za-z0-9._-]*$/.test(key) && key.length <= 100) return key;
  const slug =
    key
      .toLowerCase()
      .replace(/[^a-z0-9]+/g, '-')
      .replace(/^-+|-+$/g, '')
      .slice(0, 60) || 'key';
  const id = `${slug}-${nodeCrypto().createHash('sha256').update(key).digest('hex').slice(0, 16)}`;
  return id.length <= MAX_ID_LENGTH ? id : id.slice(-MAX_ID_LENGTH);
}

/** What `startOrGet` needs of the manager. */
interface Starter {
  start(input: StartInput): Promise<SessionState>;
  get(id: string): Promise<SessionState>;
}

/**
 * The session of `input.key`: the existing one (`created: false`), or one started now from
 * `input` (`created: true`, as `start` does: it becomes the active one, `switch` pausing the
 * one active before). `EXISTS` when the id is taken by a session recorded with another key.
 */
export async function startOrGet(
  m: Starter,
  input: StartOrGetInput,
): Promise<{ state: SessionState; created: boolean }> {
  const id = sessionIdForKey(input.key);
  const found = await existing(m, id, input.key);
  if (found) return { state: found, created: false };
  try {
    const state = await m.start({ ...input, id, metadata: { ...input.metadata, [SESSION_KEY]: input.key } });
    return { state, created: true };
  } catch (e) {
    // Another process created it first: theirs is the session of this key.
    if (!isBatonError(e, 'EXISTS')) throw e;
    const state = await existing(m, id, input.key);
    if (!state) throw e;
    return { state, created: false };
  }
}

async function existing(m: Starter, id: string, key: string): Promise<SessionState | null> {
  let s: SessionState;
  try {
    s = await m.get(id);
  } catch (e) {
    if (isBatonError(e, 'NOT_FOUND')) return null;
    throw e;
  }
  const recorded = s.metadata[SESSION_KEY];
  if (recorded !== undefined && recorded !== key) {
    throw new BatonError(
      'EXISTS',
      `Session ${id} belongs to key ${JSON.stringify(recorded)}, not ${JSON.stringify(key)}.`,
      {
        hint: 'Choose another key.',
        details: { sessionId: id, key, recordedKey: recorded },
      },
    );
  }
  return s;
}
