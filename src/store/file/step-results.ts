import path from 'node:path';
import { BatonError } from '../../domain/errors.js';
import { atomicWrite } from '../atomic-write.js';
import { notFound } from '../errors.js';
import type { StoreStepResults } from '../types.js';
import { readIfExists } from './fsutil.js';

type Table = StoreStepResults['stepResults'];

/**
 * The file store's large step results (capability `step results`): `step-<sha256>.json`
 * files in the session's folder, beside its journal, so they move with it to the archive
 * and go with it when it is deleted. Written atomically and fsynced (temp file, fsync,
 * rename, directory fsync) before the `step.completed` event that names them is appended.
 */
export class FileStepResults implements Table {
  constructor(
    /** The session's folder, or null for an unknown session. */
    private readonly folder: (id: string) => string | null,
    private readonly writable: () => void,
  ) {}

  async put(id: string, sha256: string, text: string): Promise<void> {
    this.writable();
    atomicWrite(this.file(id, sha256), text, { sync: true });
  }

  async get(id: string, sha256: string): Promise<string | null> {
    return readIfExists(this.file(id, sha256))?.toString('utf8') ?? null;
  }

  private file(id: string, sha256: string): string {
    if (!/^[0-9a-f]{64}$/.test(sha256))
      throw new BatonError('BAD_INPUT', `${JSON.stringify(sha256)} is not a sha256 of a step result.`, {
        hint: 'Give the 64 hex digits recorded in step.completed.',
      });
    const dir = this.folder(id);
    if (!dir) throw notFound(id);
    return path.join(dir, `step-${sha256}.json`);
  }
}
