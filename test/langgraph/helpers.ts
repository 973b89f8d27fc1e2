/**
 * Stores for the LangGraph saver tests: a fresh file store (a temporary folder) or a fresh
 * PostgreSQL schema per saver, removed again when the saver is destroyed.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { BatonSaver } from '../../src/langgraph/index.js';
import type { BatonSaverOptions } from '../../src/langgraph/index.js';
import { PG_URL, dropSchema, freshSchema, urlWith } from '../store/pg-helpers.js';

export { PG_URL };

/** Where a store lives and how to remove it. */
export interface StorePlace {
  url: string;
  remove(): Promise<void>;
}

/** A new, empty file store folder. */
export function fileStorePlace(): StorePlace {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'baton-lg-'));
  return { url: dir, remove: async () => fs.rmSync(dir, { recursive: true, force: true }) };
}

/** A new schema on the test PostgreSQL server. */
export function pgStorePlace(): StorePlace {
  const schema = freshSchema('lg');
  return { url: urlWith({ schema }), remove: () => dropSchema(schema) };
}

const places = new WeakMap<BatonSaver, StorePlace>();

/** A saver on a fresh store of the kind `place` makes. */
export function saverOn(place: () => StorePlace, o: Omit<BatonSaverOptions, 'url'> = {}): BatonSaver {
  const p = place();
  const saver = new BatonSaver({ ...o, url: p.url, env: {} });
  places.set(saver, p);
  return saver;
}

/** Closes a saver made by {@link saverOn} and removes its store. */
export async function destroySaver(saver: BatonSaver): Promise<void> {
  await saver.close();
  await places.get(saver)?.remove();
}
