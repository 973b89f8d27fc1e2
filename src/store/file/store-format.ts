import fs from 'node:fs';
import { BatonError } from '../../domain/errors.js';
import { hint } from '../../domain/hints.js';
import { DIR_MODE, atomicWrite } from '../atomic-write.js';
import { readIfExists } from './fsutil.js';
import { isPlainDir } from './paths.js';
import { FILE_FORMAT_VERSION } from './snapshot.js';
import type { Layout } from './paths.js';

/*
 * The marker that makes a folder a baton store (store.json, with the format version): made by
 * `init`, checked whenever a store is opened.
 */

/** Creates an empty store in `layout` (idempotent). */
export function initStore(layout: Layout): void {
  if (fs.existsSync(layout.root) && !isPlainDir(layout.root)) {
    throw new BatonError('BAD_INPUT', `${layout.root} is not a folder, so no store can be made there.`, {
      hint: hint('store.init-or-dir'),
    });
  }
  for (const d of [layout.root, layout.sessions, layout.archive]) fs.mkdirSync(d, { recursive: true, mode: DIR_MODE });
  if (!fs.existsSync(layout.meta))
    atomicWrite(layout.meta, `${JSON.stringify({ format: 'baton.store', version: FILE_FORMAT_VERSION })}\n`);
}

/**
 * Refuses a folder that is not a store (`NO_STORE`) or a store written by a newer baton
 * (`UNSUPPORTED_VERSION`).
 */
export function checkStoreFormat(layout: Layout): void {
  // Only `init` and `start` make a store: any other command that names a folder (--dir) that
  // is not one is refused before a byte is written there.
  if (!isPlainDir(layout.root)) {
    throw new BatonError('NO_STORE', `No baton store at ${layout.root}.`, { hint: hint('store.init') });
  }
  const raw = readIfExists(layout.meta);
  if (raw === null) {
    // A store whose marker was lost still has its sessions folder (doctor rewrites the marker).
    if (!isPlainDir(layout.sessions)) {
      throw new BatonError(
        'NO_STORE',
        `${layout.root} is a folder but not a baton store (no store.json, no sessions/).`,
        { hint: hint('store.init') },
      );
    }
    return;
  }
  let version: unknown;
  try {
    version = (JSON.parse(raw.toString('utf8')) as { version?: unknown }).version;
  } catch {
    return; // a damaged marker file says nothing about the data; the data checks itself
  }
  if (typeof version === 'number' && version > FILE_FORMAT_VERSION) {
    throw new BatonError(
      'UNSUPPORTED_VERSION',
      `The store at ${layout.root} has format ${version}; this baton reads up to ${FILE_FORMAT_VERSION}.`,
      {
        hint: 'Upgrade baton (npm install -g baton-sessions@latest).',
      },
    );
  }
}
