/** Shared helpers of the go-team adapter tests. */
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { goTeamAdapter } from '../../src/formats/go-team/index.js';
import { SafeDir } from '../../src/formats/safe-dir.js';
import type { ForeignSession, InspectReport } from '../../src/formats/types.js';
import { removeTempDirs, tempDir as sharedTempDir } from '../support/temp.js';
import { snapshotFiles } from '../support/tree.js';

export const FIXTURES = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../fixtures/formats/go-team');
/** The fixtures' clock: every timestamp in them is on 2025-12-28 between 21:00 and 22:00. */
export const NOW = new Date('2025-12-28T22:00:00Z');

export async function inspectAt(dir: string, now = NOW): Promise<InspectReport> {
  return goTeamAdapter.inspect(await SafeDir.open(dir), now);
}

export async function inspectCase(name: string, now = NOW): Promise<InspectReport> {
  return inspectAt(path.join(FIXTURES, name), now);
}

export function session(r: InspectReport, id: string): ForeignSession {
  const s = r.sessions.find((x) => x.id === id);
  if (!s) throw new Error(`session ${id} not in report (has ${r.sessions.map((x) => x.id).join(', ')})`);
  return s;
}

export function codes(problems: Array<{ code: string }>): string[] {
  return problems.map((p) => p.code).sort();
}

export function unitStatuses(s: ForeignSession): string {
  return s.units.map((u) => `${u.id}:${u.status}`).join(' ');
}

/** A fresh temp folder, removed by the caller's afterEach via {@link cleanTemps}. */
export function tempDir(prefix = 'baton-goteam-'): string {
  return sharedTempDir(prefix);
}
export const cleanTemps = removeTempDirs;

/** Copies a fixture case into a temp folder and returns the copy's path. */
export function copyCase(name: string): string {
  const d = tempDir();
  fs.cpSync(path.join(FIXTURES, name), d, { recursive: true });
  return d;
}

/** Every file under `dir` with its bytes and mtime, for read-only proofs. */
export const snapshot = snapshotFiles;

/** Rewrites every .json file under `dir` through `f`. */
export function rewriteJson(dir: string, f: (text: string, rel: string) => string): void {
  const walk = (d: string) => {
    for (const e of fs.readdirSync(d, { withFileTypes: true })) {
      const p = path.join(d, e.name);
      if (e.isDirectory()) walk(p);
      else if (e.name.endsWith('.json')) fs.writeFileSync(p, f(fs.readFileSync(p, 'utf8'), path.relative(dir, p)));
    }
  };
  walk(dir);
}

/** The facts of a session that must survive CRLF/BOM re-encoding and export round trips. */
export function facts(s: ForeignSession) {
  return {
    id: s.id,
    title: s.title,
    status: s.status,
    active: s.active,
    createdAt: s.createdAt,
    units: s.units.map((u) => ({
      id: u.id,
      status: u.status,
      subStep: u.subStep,
      files: u.files,
      completedAt: u.completedAt,
    })),
    position: s.position,
    resume: {
      unitId: s.resume.unitId,
      action: s.resume.action,
      subStep: s.resume.subStep,
      recommended: s.resume.recommended,
      options: s.resume.options.map((o) => ({
        kind: o.kind,
        target: o.target,
        loses: o.loses,
        recommended: o.recommended,
      })),
    },
    tokens: s.tokens,
    checkpoints: s.checkpoints,
    findings: s.findings,
    notes: s.notes,
    contextSummary: s.contextSummary,
  };
}
