import fs from 'node:fs';
import path from 'node:path';
import { BatonError } from '../../domain/errors.js';
import { atomicWrite } from '../atomic-write.js';
import { readIfExists } from './fsutil.js';

/**
 * Files derived from a session (handoff.md, a mirror's record) kept in its folder, beside the
 * journal: replaced atomically, not fsynced (they are rebuilt from the journal when lost).
 */
export class DerivedFiles {
  constructor(private readonly dir: string) {}

  read(name: string): string | null {
    return readIfExists(this.file(name))?.toString('utf8') ?? null;
  }

  write(name: string, text: string): void {
    atomicWrite(this.file(name), text, { sync: false });
  }

  remove(name: string): void {
    fs.rmSync(this.file(name), { force: true });
  }

  private file(name: string): string {
    // Only a plain name: a derived file never lands outside its session's folder, nor on a
    // file the store itself keeps.
    if (!/^[A-Za-z0-9][A-Za-z0-9._-]*$/.test(name) || /^(journal\.jsonl|snapshot\.json|lock|checkpoints$)/.test(name)) {
      throw new BatonError('BAD_INPUT', `${JSON.stringify(name)} is not a name for a file kept beside a session.`, {
        hint: 'Use a plain file name such as handoff.md.',
      });
    }
    return path.join(this.dir, name);
  }
}
