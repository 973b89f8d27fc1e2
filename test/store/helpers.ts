import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { FileStore } from '../../src/store/file/store.js';

/** A fresh, initialised `.baton` directory in its own temp folder. */
export function tempStoreDir(prefix = 'baton-store-'): { root: string; base: string; remove: () => void } {
  const base = fs.mkdtempSync(path.join(os.tmpdir(), prefix));
  const root = path.join(base, '.baton');
  FileStore.init(root);
  return { root, base, remove: () => fs.rmSync(base, { recursive: true, force: true }) };
}
