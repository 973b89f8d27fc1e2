import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { FileStore } from '../../src/store/file/store.js';

/** A fresh, initialised `.baton` directory in its own temp folder. */
export function tempStoreDir(prefix = 'baton-store-'): { root: string; base: string; remove: () => void } {
  const base = fs.mkdtempSync(path.join(os.tmpdir(), prefix));
  const root = path.join(base, '.baton');
  FileStore.init(root);
  return { root, base, remove: () => fs.rmSync(base, { recursive: true, force: true }) };
}

const REPO = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');

/** What a fixture process printed and how it ended. */
export interface FixtureRun {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** Runs a TypeScript fixture (path relative to the repository) in its own node process, with tsx. Never rejects on a non-zero exit. */
export function runFixture(script: string, args: string[]): Promise<FixtureRun> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['--import', 'tsx', path.join(REPO, script), ...args], {
      cwd: REPO,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (c: string) => (stdout += c));
    child.stderr.setEncoding('utf8').on('data', (c: string) => (stderr += c));
    child.on('error', reject);
    child.on('exit', (code) => resolve({ code, stdout, stderr }));
  });
}
