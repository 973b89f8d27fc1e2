/** Shared helpers of the bmit/bmad adapter tests: fixture paths, temp copies, running a write plan. */
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { SafeDir } from '../../src/formats/safe-dir.js';
import type { FormatAdapter, FormatProblem, ForeignSession, InspectReport } from '../../src/formats/types.js';

export const FIXTURES = fileURLToPath(new URL('../fixtures/formats/', import.meta.url));
export const NOW = new Date('2026-06-01T12:00:00Z');

/** A fresh temp folder (removed by the caller's afterEach via {@link cleanTemps}). */
const temps: string[] = [];
export async function tempDir(tag: string): Promise<string> {
  const d = await fs.mkdtemp(path.join(os.tmpdir(), `baton-${tag}-`));
  temps.push(d);
  return d;
}
export async function cleanTemps(): Promise<void> {
  while (temps.length > 0) await fs.rm(temps.pop()!, { recursive: true, force: true });
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
  if (r.sessions.length !== 1) throw new Error(`expected one session, got ${r.sessions.map((s) => s.id).join(', ') || 'none'}`);
  return r.sessions[0]!;
}

/** Problems of a session with a code. */
export function codes(ps: FormatProblem[], code: string): FormatProblem[] {
  return ps.filter((p) => p.code === code);
}

/** Every file under `dir` with its bytes and mtime, to prove a read changed nothing. */
export async function snapshot(dir: string): Promise<Map<string, { bytes: string; mtimeMs: number }>> {
  const out = new Map<string, { bytes: string; mtimeMs: number }>();
  async function walk(d: string): Promise<void> {
    for (const e of await fs.readdir(d, { withFileTypes: true })) {
      const p = path.join(d, e.name);
      if (e.isDirectory()) await walk(p);
      else if (e.isFile()) {
        const st = await fs.stat(p);
        out.set(path.relative(dir, p), { bytes: (await fs.readFile(p)).toString('base64'), mtimeMs: st.mtimeMs });
      }
    }
  }
  await walk(dir);
  return out;
}

