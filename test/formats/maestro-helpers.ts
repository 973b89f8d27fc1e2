import fs from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { maestroAdapter } from '../../src/formats/maestro/index.js';
import { SafeDir } from '../../src/formats/safe-dir.js';
import type { FormatProblem, ForeignSession, InspectReport } from '../../src/formats/types.js';
import { tempDir } from '../support/temp.js';

export const FIXTURES = path.join(path.dirname(fileURLToPath(import.meta.url)), '..', 'fixtures', 'formats', 'maestro');
export const NOW = new Date('2026-11-22T12:00:00.000Z');

/** Inspects a folder (a fixture case name, or an absolute path). */
export async function inspect(where: string): Promise<InspectReport> {
  const dir = await SafeDir.open(path.isAbsolute(where) ? where : path.join(FIXTURES, where));
  return maestroAdapter.inspect(dir, NOW);
}

/** The only session of a report (fails loudly when there is not exactly one). */
export function only(r: InspectReport): ForeignSession {
  if (r.sessions.length !== 1)
    throw new Error(`expected one session, got ${r.sessions.map((s) => s.id).join(', ') || 'none'}`);
  return r.sessions[0]!;
}

/** code@path pairs of problems, sorted, for exact comparisons. */
export function codes(ps: FormatProblem[]): string[] {
  return ps.map((p) => `${p.code}@${p.path}`).sort();
}

/** A fresh temp dir with a copy of a fixture case. */
export async function copyCase(name: string): Promise<string> {
  const tmp = tempDir(`baton-maestro-${name}-`);
  await fs.cp(path.join(FIXTURES, name), tmp, { recursive: true });
  return tmp;
}

/** Writes files (relative path → content) into a fresh temp dir. */
export async function tree(files: Record<string, string | Buffer>): Promise<string> {
  const tmp = tempDir('baton-maestro-');
  for (const [rel, content] of Object.entries(files)) {
    await fs.mkdir(path.dirname(path.join(tmp, rel)), { recursive: true });
    await fs.writeFile(path.join(tmp, rel), content);
  }
  return tmp;
}

/** The facts of a session that must survive a round trip (no problems, paths or hashes). */
export function facts(s: ForeignSession): unknown {
  return {
    id: s.id,
    title: s.title,
    rawStatus: s.rawStatus,
    status: s.status,
    archived: s.archived,
    createdAt: s.createdAt,
    units: s.units.map((u) => ({ ...u })),
    position: s.position,
    resume: { ...s.resume, reason: s.resume.reason },
    unresolvedErrors: s.unresolvedErrors,
    tokens: s.tokens,
    artifacts: s.artifacts,
  };
}
