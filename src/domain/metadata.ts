/**
 * Caller metadata on a session (`manager.setMetadata`): any JSON value under a key of the
 * caller's, written as one `metadata.set` event, shown by `status --json` under `metadata`.
 * The keys baton itself keeps there (settings, recorded files outside phases, the start's
 * baseline, a find-or-create key) are refused: they have their own verbs.
 */
import { draft } from './decide.js';
import type { EventDraft } from './decide.js';
import { jsonProblem } from './durable-steps.js';
import { BatonError } from './errors.js';
import { NEW_AT_START_KEY } from './resume/resume-files.js';
import { SETTING_KEYS } from './settings.js';

/** Keys of session metadata baton writes itself. */
export const RESERVED_METADATA_KEYS: readonly string[] = [
  ...Object.values(SETTING_KEYS),
  'looseFiles',
  NEW_AT_START_KEY,
  'sessionKey',
];

/** Largest metadata value accepted, in bytes of JSON. */
export const MAX_METADATA_BYTES = 64 * 1024;

/** The `metadata.set` of caller key `key` to `value` (null: set to null); `BAD_INPUT` for a reserved key, a value that is not JSON or is too large. */
export function decideMetadata(key: unknown, value: unknown): EventDraft[] {
  if (typeof key !== 'string' || key.length === 0 || key.length > 200 || /[\u0000-\u001f]/.test(key)) {
    throw new BatonError(
      'BAD_INPUT',
      `A metadata key must be text of 1 to 200 characters without control characters; got ${JSON.stringify(key)}.`,
      { hint: 'Name the value, e.g. "ticket" or "owner".' },
    );
  }
  if (RESERVED_METADATA_KEYS.includes(key)) {
    throw new BatonError('BAD_INPUT', `Metadata key ${JSON.stringify(key)} is kept by baton itself.`, {
      hint: 'Use another key; settings are changed with setSettings.',
      details: { key, reserved: RESERVED_METADATA_KEYS },
    });
  }
  const problem = value === undefined ? 'value (undefined)' : jsonProblem(value, 'value');
  if (problem)
    throw new BatonError('BAD_INPUT', `Metadata ${JSON.stringify(key)} must be JSON: ${problem} is not.`, {
      hint: 'Give plain data: objects, arrays, text, finite numbers, booleans or null.',
      details: { key, at: problem },
    });
  const size = Buffer.byteLength(JSON.stringify(value));
  if (size > MAX_METADATA_BYTES) {
    throw new BatonError(
      'BAD_INPUT',
      `Metadata ${JSON.stringify(key)} is ${size} bytes of JSON; at most ${MAX_METADATA_BYTES} are accepted.`,
      {
        hint: 'Keep large data elsewhere (a durable step result, an artifact) and record where it is.',
        details: { key, size },
      },
    );
  }
  return [draft('metadata.set', { key, value: JSON.parse(JSON.stringify(value)) as unknown })];
}
