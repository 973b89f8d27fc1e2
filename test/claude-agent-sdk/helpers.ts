/**
 * Stores for the Claude Agent SDK session store tests: a fresh file store (a temporary
 * folder, the "shared folder") or a fresh PostgreSQL schema, removed again afterwards, and
 * the fixture transcripts (transcripts.ts).
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { BatonSessionStore } from '../../src/claude-agent-sdk/index.js';
import type { BatonSessionStoreOptions } from '../../src/claude-agent-sdk/index.js';
import { PG_URL, dropSchema, freshSchema, urlWith } from '../store/pg-helpers.js';

export { PG_URL };

/** Where a store lives and how to remove it. */
export interface StorePlace {
  url: string;
  remove(): Promise<void>;
}

/** A new, empty file store folder. */
export function fileStorePlace(): StorePlace {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'baton-sdk-'));
  return { url: dir, remove: async () => fs.rmSync(dir, { recursive: true, force: true }) };
}

/** A new schema on the test PostgreSQL server. */
export function pgStorePlace(): StorePlace {
  const schema = freshSchema('sdk');
  return { url: urlWith({ schema }), remove: () => dropSchema(schema) };
}

/** The store kinds every test runs on; PostgreSQL only where a server is given. */
export const KINDS: Array<[string, () => StorePlace]> = [
  ['the file store', fileStorePlace],
  ...(PG_URL ? ([['PostgreSQL', pgStorePlace]] as Array<[string, () => StorePlace]>) : []),
];

/** A session store on `url`, working in a folder of its own (a "host"). */
export function storeAt(url: string, o: Omit<BatonSessionStoreOptions, 'url'> = {}): BatonSessionStore {
  return new BatonSessionStore({ env: {}, cwd: fs.mkdtempSync(path.join(os.tmpdir(), 'baton-sdk-host-')), ...o, url });
}

export { batches, fixture } from './transcripts.js';
