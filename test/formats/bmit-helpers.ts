/** Shared helpers of the bmit/bmad adapter tests: fixture paths, temp copies, running a write plan. */
import fs from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { SafeDir } from '../../src/formats/safe-dir.js';
import type { FormatAdapter, FormatProblem, ForeignSession, InspectReport } from '../../src/formats/types.js';
import { removeTempDirs, tempDir as sharedTempDir } from '../support/temp.js';
import { snapshotFiles } from '../support/tree.js';

export const FIXTURES = fileURLToPath(new URL('../fixtures/formats/', import.meta.url));
export const NOW = new Date('2026-06-01T12:00:00Z');

/** A fresh temp folder (removed by the caller's afterEach via {@link cleanTemps}). */
export async function tempDir(tag: string): Promise<string> {
  return sharedTempDir(`baton-${tag}-`);
}
export async function cleanTemps(): Promise<void> {
  removeTempDirs();
}

/** Copies a fixture case into a temp folder and returns the copy's path. */
export async function copyCase(format: string, name: string): Promise<string> {
  const d = await tempDir(`${format}-${name.replace(/\//g, '_')}`);
  await fs.cp(path.join(FIXTURES, format, name), d, { recursive: true });
  return d;
}

export async function inspectAt(adapter: FormatAdapter, dir: string, now = NOW): Promise<InspectReport> {
  return adapter.inspect(await SafeDir.open(dir), now);
}

/** The only session of a report (fails the test when there is not exactly one). */
export function only(r: InspectReport): ForeignSession {
  if (r.sessions.length !== 1)
    throw new Error(`expected one session, got ${r.sessions.map((s) => s.id).join(', ') || 'none'}`);
  return r.sessions[0]!;
}

/** Problems of a session with a code. */
export function codes(ps: FormatProblem[], code: string): FormatProblem[] {
  return ps.filter((p) => p.code === code);
}

/** Every file under `dir` with its bytes and mtime, to prove a read changed nothing. */
export async function snapshot(dir: string): Promise<Map<string, { bytes: string; mtimeMs: number }>> {
  return snapshotFiles(dir);
}
