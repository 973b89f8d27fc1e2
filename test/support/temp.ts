/**
 * Temporary folders for tests, written once: each is a fresh folder under the OS temp
 * directory (its real path, so symlinked /tmp does not show in paths a test compares) and
 * is removed after the test file that made it.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll } from 'vitest';

const made: string[] = [];
afterAll(() => {
  for (const d of made.splice(0)) fs.rmSync(d, { recursive: true, force: true });
});

/** A fresh, empty temp folder named `<prefix>XXXXXX`, removed after the test file. */
export function tempDir(prefix = 'baton-test-'): string {
  const d = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), prefix)));
  made.push(d);
  return d;
}

/** Removes the temp folders made so far (for a file that wants them gone after each test). */
export function removeTempDirs(): void {
  for (const d of made.splice(0)) fs.rmSync(d, { recursive: true, force: true });
}
