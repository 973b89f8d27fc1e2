/** Shared helpers of the CCW adapter tests. */
import fs from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { phaseFromSpec } from '../../src/domain/apply.js';
import type { SessionState } from '../../src/domain/state.js';
import { ccwAdapter } from '../../src/formats/ccw/index.js';
import { SafeDir } from '../../src/formats/safe-dir.js';
import type { ForeignSession, FormatProblem, InspectReport, WritePlan } from '../../src/formats/types.js';
import { tempDir as sharedTempDir } from '../support/temp.js';

export const FIXTURES = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../fixtures/formats/ccw');
export const NOW = new Date('2026-11-22T16:00:00.000Z');

/** Inspects a folder (absolute, or a fixture case name). */
export async function inspect(dirOrCase: string): Promise<InspectReport> {
  const dir = path.isAbsolute(dirOrCase) ? dirOrCase : path.join(FIXTURES, dirOrCase);
  return ccwAdapter.inspect(await SafeDir.open(dir), NOW);
}

/** The session `id` of a report (fails the test when absent). */
export function session(r: InspectReport, id: string): ForeignSession {
  const s = r.sessions.find((x) => x.id === id);
  if (!s) throw new Error(`no session ${id} in ${r.sessions.map((x) => x.id).join(', ')}`);
  return s;
}

/** Problems with that code. */
export function withCode(ps: FormatProblem[], code: string): FormatProblem[] {
  return ps.filter((p) => p.code === code);
}

/** A fresh temp folder. */
export async function tempDir(tag = 'ccw'): Promise<string> {
  return sharedTempDir(`baton-${tag}-`);
}

/** Copies a fixture case into a temp folder and returns the copy's path. */
export async function copyFixture(name: string): Promise<string> {
  const dst = path.join(await tempDir(), name);
  await fs.cp(path.join(FIXTURES, name), dst, { recursive: true });
  return dst;
}

/** Runs a write plan the way the core does: atomic writes through SafeDir, then removes. */
export async function applyPlan(out: SafeDir, plan: WritePlan): Promise<void> {
  for (const w of plan.writes) await out.writeAtomic(w.path, w.content, { backup: w.backup });
  for (const r of plan.removes) await out.remove(r);
}

/** Every file under `dir` (relative paths), sorted. */
export async function tree(dir: string): Promise<string[]> {
  const out: string[] = [];
  const walk = async (rel: string) => {
    for (const e of await fs.readdir(path.join(dir, rel), { withFileTypes: true })) {
      const r = rel ? `${rel}/${e.name}` : e.name;
      if (e.isDirectory()) await walk(r);
      else out.push(r);
    }
  };
  await walk('');
  return out.sort();
}

/**
 * A baton state with the content a CCW session maps to (the import mapping of the formats
 * brief: one phase per unit with its metadata, sub-step, files, times and statuses), used to
 * drive exportPlan before the core's import is available.
 */
export function stateFrom(s: ForeignSession): SessionState {
  const created = s.createdAt ?? '2025-01-01T00:00:00.000Z';
  return {
    id: s.id,
    title: s.title,
    status: s.status,
    statusCause: null,
    archived: s.archived,
    createdAt: created,
    updatedAt: s.updatedAt ?? created,
    revision: 1,
    idFormat: 'foreign',
    phases: s.units.map((u) => ({
      ...phaseFromSpec({
        id: u.id,
        name: u.name,
        agents: u.agents,
        blockedBy: u.blockedBy,
        metadata: structuredClone(u.metadata),
      }),
      status: u.status === 'blocked' ? 'pending' : u.status,
      subStep: u.subStep,
      startedAt: u.startedAt,
      completedAt: u.completedAt,
      files: u.files
        .filter((f) => f.action !== 'read')
        .map((f) => ({
          path: f.path,
          action: f.action as 'created',
          sha256: null,
          size: null,
          recordedAt: created,
          agent: null,
        })),
    })),
    decisions: [],
    findings: [],
    notes: [],
    milestones: [],
    artifacts: [],
    contextSummary: s.contextSummary,
    tokens: { input: 0, output: 0, cached: 0, byAgent: {}, byPhase: {}, budgetMax: null },
    metadata: {},
    repairs: [],
    counters: {},
  };
}

/**
 * The facts a user relies on, for comparing two readings of the same session (everything
 * but paths, sources, hashes and save times).
 */
export function facts(s: ForeignSession): Record<string, unknown> {
  const doc = Object.entries(s.documents).find(
    ([k]) => k.endsWith('workflow-session.json') || /\/\.backups\/session-[^/]*\.json$/.test(k),
  )?.[1] as Record<string, unknown> | undefined;
  const unknownTop = doc
    ? Object.fromEntries(
        Object.entries(doc).filter(
          ([k]) =>
            ![
              'session_id',
              'project',
              'description',
              'status',
              'current_phase',
              'created_at',
              'updated_at',
              'checkpoints',
              'phases',
            ].includes(k),
        ),
      )
    : null;
  return {
    id: s.id,
    title: s.title,
    rawStatus: s.rawStatus,
    status: s.status,
    active: s.active,
    archived: s.archived,
    createdAt: s.createdAt,
    units: s.units,
    position: s.position,
    resume: {
      unitId: s.resume.unitId,
      action: s.resume.action,
      subStep: s.resume.subStep,
      lastCompleted: s.resume.lastCompleted,
    },
    unresolvedErrors: s.unresolvedErrors,
    unknownTop,
  };
}
