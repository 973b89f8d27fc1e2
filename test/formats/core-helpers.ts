/**
 * Test-only helpers of the formats core: builders of hand-made ForeignSessions, and a tiny
 * "toy" adapter (one JSON file per session under `toy/`, archived ones under `toy/archive/`)
 * that exercises detection, import, export and mirror independently of the real adapters.
 */
import fs from 'node:fs';
import path from 'node:path';
import type { SessionState } from '../../src/domain/state.js';
import { FILES_READ_KEY, foreignTime, provenanceOf, UNATTRIBUTED } from '../../src/formats/import.js';
import type { SafeDir } from '../../src/formats/safe-dir.js';
import type {
  ExportInput,
  ForeignSession,
  ForeignUnit,
  FormatAdapter,
  FormatName,
  InspectReport,
  WritePlan,
} from '../../src/formats/types.js';
import { hashSources, parseDocument, problem } from '../../src/formats/util.js';
import { SessionManager } from '../../src/manager/manager.js';
import { MemoryStore } from '../../src/store/memory.js';
import { tickingClock } from '../support/clock.js';
import { tempDir } from '../support/temp.js';

export { snapshotTree } from '../support/tree.js';

/** A unit with defaults. */
export function unit(id: string, o: Partial<ForeignUnit> = {}): ForeignUnit {
  return {
    id,
    name: `Unit ${id}`,
    status: 'pending',
    rawStatus: null,
    subStep: null,
    retries: null,
    agents: [],
    blockedBy: [],
    startedAt: null,
    completedAt: null,
    files: [],
    errors: [],
    metadata: {},
    ...o,
  };
}

/** A foreign session with defaults (format 'maestro', active, no units). */
export function foreign(o: Partial<ForeignSession> = {}): ForeignSession {
  return {
    format: 'maestro',
    id: 'sess-1',
    title: 'A session',
    rawStatus: 'in_progress',
    status: 'active',
    active: true,
    archived: false,
    path: 'state/active-session.md',
    sources: ['state/active-session.md'],
    createdAt: '2026-01-10T09:00:00.000Z',
    updatedAt: '2026-01-10T12:00:00.000Z',
    units: [],
    position: { unitId: null, subStep: null },
    resume: {
      unitId: null,
      action: 'none',
      subStep: null,
      retryLimit: null,
      retriesUsed: null,
      lastCompleted: null,
      reason: '',
      options: [],
      recommended: null,
      warnings: [],
    },
    unresolvedErrors: [],
    tokens: null,
    decisions: [],
    findings: [],
    notes: [],
    milestones: [],
    artifacts: [],
    contextSummary: null,
    checkpoints: [],
    problems: [],
    documents: { 'state/active-session.md': { raw: true } },
    sourceHash: 'hash-1',
    ...o,
  };
}

/** A fresh temporary folder, removed by the caller (or left to the OS). */
/**
 * For round-trip views: a time of `state` as it is, or '(made up)' when baton made it up at
 * import (provenance.untimed), since such a time is not the foreign file's to keep.
 */
export function timeOrMadeUp(state: SessionState): (key: string, time: string | null) => string | null {
  const untimed = new Set(provenanceOf(state)?.untimed ?? []);
  return (key, time) => (untimed.has(key) ? '(made up)' : time);
}

/**
 * A manager over a fresh memory store whose clock ticks one second per reading from `start`,
 * for import → export → import round trips.
 */
export function clockedManager(start = '2026-06-01T10:00:00Z'): SessionManager {
  return new SessionManager({
    store: new MemoryStore(),
    now: tickingClock(Date.parse(start) + 1000),
    agent: 'tester',
    pid: 1,
    host: 'h',
  });
}

/** A fresh temp folder (removed after the test file). */
export function tmpDir(prefix = 'baton-fmt-'): string {
  return tempDir(prefix);
}

/** Writes a file (creating folders). */
export function put(root: string, rel: string, content: string | Buffer): string {
  const p = path.join(root, rel);
  fs.mkdirSync(path.dirname(p), { recursive: true });
  fs.writeFileSync(p, content);
  return p;
}

/** The toy document of one session (what `toy/<id>.json` holds). */
export interface ToyDoc {
  id: string;
  title: string;
  status: string;
  created?: string;
  updated?: string;
  units?: Array<{
    id: string;
    name?: string;
    status: string;
    retries?: number;
    subStep?: string | null;
    started?: string | null;
    completed?: string | null;
    files?: Array<{ path: string; action: string }>;
    errors?: Array<{
      type: string;
      message: string;
      resolved?: boolean;
      resolution?: string | null;
      time?: string | null;
    }>;
    [k: string]: unknown;
  }>;
  tokens?: {
    input: number;
    output: number;
    cached: number;
    byAgent?: Record<string, { input: number; output: number; cached: number }>;
  };
  notes?: string[];
  decisions?: Array<{ title: string; choice: string }>;
  [k: string]: unknown;
}

const STATUS: Record<string, ForeignSession['status']> = {
  active: 'active',
  paused: 'paused',
  done: 'completed',
  failed: 'failed',
  interrupted: 'interrupted',
};
const UNIT_KNOWN = ['id', 'name', 'status', 'retries', 'subStep', 'started', 'completed', 'files', 'errors'];

function toForeign(doc: ToyDoc, rel: string, archived: boolean, hash: string, name: FormatName): ForeignSession {
  const units: ForeignUnit[] = (doc.units ?? []).map((u) => {
    const metadata: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(u)) if (!UNIT_KNOWN.includes(k)) metadata[k] = v;
    return unit(String(u.id), {
      name: u.name ?? String(u.id),
      status: u.status as ForeignUnit['status'],
      rawStatus: u.status,
      retries: u.retries ?? 0,
      subStep: u.subStep ?? null,
      startedAt: u.started ?? null,
      completedAt: u.completed ?? null,
      files: (u.files ?? []).map((f) => ({ path: f.path, action: f.action as 'created' })),
      errors: (u.errors ?? []).map((e) => ({
        unitId: String(u.id),
        agent: null,
        time: e.time ?? null,
        type: e.type,
        message: e.message,
        resolved: e.resolved === true,
        resolution: e.resolution ?? null,
      })),
      metadata,
    });
  });
  const t = doc.tokens;
  const sumAgents = t?.byAgent
    ? Object.values(t.byAgent).reduce(
        (a, b) => ({ input: a.input + b.input, output: a.output + b.output, cached: a.cached + b.cached }),
        { input: 0, output: 0, cached: 0 },
      )
    : null;
  return foreign({
    format: name,
    id: doc.id,
    title: doc.title,
    rawStatus: doc.status,
    status: STATUS[doc.status] ?? 'active',
    active: doc.status === 'active',
    archived,
    path: rel,
    sources: [rel],
    createdAt: doc.created ?? null,
    updatedAt: doc.updated ?? null,
    units,
    position: {
      unitId: units.find((u) => u.status === 'in_progress')?.id ?? null,
      subStep: units.find((u) => u.status === 'in_progress')?.subStep ?? null,
    },
    unresolvedErrors: units.flatMap((u) => u.errors.filter((e) => !e.resolved)),
    tokens: t
      ? {
          input: t.input,
          output: t.output,
          cached: t.cached,
          byAgent: t.byAgent ?? null,
          byUnit: null,
          agrees: sumAgents
            ? sumAgents.input === t.input && sumAgents.output === t.output && sumAgents.cached === t.cached
            : null,
          max: null,
        }
      : null,
    notes: (doc.notes ?? []).map((n) => ({ text: n, time: null, agent: null })),
    decisions: (doc.decisions ?? []).map((d) => ({
      id: null,
      title: d.title,
      choice: d.choice,
      rationale: null,
      alternatives: [],
      agent: null,
      unitId: null,
      time: null,
    })),
    documents: { [rel]: doc },
    sourceHash: hash,
  });
}

function fromState(input: ExportInput): ToyDoc {
  const s: SessionState = input.state;
  const orig = (input.original ? Object.values(input.original)[0] : null) as ToyDoc | null;
  const statusOut: Record<string, string> = {
    active: 'active',
    paused: 'paused',
    completed: 'done',
    failed: 'failed',
    interrupted: 'interrupted',
    abandoned: 'failed',
  };
  const byAgent: Record<string, { input: number; output: number; cached: number }> = {};
  for (const [a, v] of Object.entries(s.tokens.byAgent)) if (a !== UNATTRIBUTED) byAgent[a] = { ...v };
  return {
    ...(orig ?? {}),
    id: input.foreignId,
    title: s.title,
    status: statusOut[s.status]!,
    created: s.createdAt,
    updated: input.now.toISOString(),
    units: s.phases.map((p) => {
      const { [FILES_READ_KEY]: read, ...meta } = p.metadata as Record<string, unknown>;
      return {
        ...meta,
        id: p.id,
        name: p.name,
        status: p.status,
        retries: p.retryCount,
        subStep: p.subStep,
        started: foreignTime(input, `phase:${p.id}:startedAt`, p.startedAt),
        completed: foreignTime(input, `phase:${p.id}:completedAt`, p.completedAt ?? p.failedAt),
        files: [
          ...p.files.map((f) => ({ path: f.path, action: f.action })),
          ...((read as string[] | undefined) ?? []).map((r) => ({ path: r, action: 'read' })),
        ],
        errors: p.errors.map((e) => ({
          type: e.type,
          message: e.message,
          resolved: e.resolved,
          resolution: e.resolution,
          time: foreignTime(input, `error:${e.id}`, e.time),
        })),
      };
    }),
    tokens: { input: s.tokens.input, output: s.tokens.output, cached: s.tokens.cached, byAgent },
    notes: s.notes.map((n) => n.text),
    decisions: s.decisions.map((d) => ({ title: d.title, choice: d.choice })),
  };
}

/** Options of {@link toyAdapter}. */
export interface ToyOptions {
  name?: string;
  /** Fixed detection score (default: 1 when `toy/` exists, else 0). */
  score?: number | (() => number);
  /** Extra writes the export plan adds (to test plan checks). */
  extraWrites?: WritePlan['writes'];
}

/** The test-only adapter. */
export function toyAdapter(o: ToyOptions = {}): FormatAdapter {
  const name = (o.name ?? 'toy') as FormatName;
  return {
    name,
    description: 'test-only layout: toy/<id>.json',
    async detect(dir: SafeDir): Promise<number> {
      if (o.score !== undefined) return typeof o.score === 'function' ? o.score() : o.score;
      return (await dir.exists('toy')) ? 1 : 0;
    },
    async inspect(dir: SafeDir): Promise<InspectReport> {
      const report: InspectReport = { format: name, root: dir.root, sessions: [], problems: [] };
      for (const [folder, archived] of [
        ['toy', false],
        ['toy/archive', true],
      ] as const) {
        for (const e of await dir.list(folder)) {
          if (e.kind !== 'file' || !e.name.endsWith('.json')) {
            if (e.kind === 'link') {
              const c = await dir.check(e.path);
              if (!c.ok) report.problems.push(c.problem);
            }
            if (e.kind !== 'link') continue;
          }
          const r = await dir.read(e.path);
          if (r.kind !== 'ok') {
            if (r.kind === 'unsafe' || r.kind === 'error') report.problems.push(r.problem);
            continue;
          }
          const p = parseDocument(r);
          if (!p.ok) {
            report.problems.push(p.problem);
            continue;
          }
          report.sessions.push(toForeign(p.value as unknown as ToyDoc, r.path, archived, hashSources([r]), name));
        }
      }
      const active = report.sessions.filter((s) => s.active);
      if (active.length > 1)
        report.problems.push(problem('TWO_ACTIVE', 'warning', `${active.length} sessions are active.`));
      return report;
    },
    async exportPlan(input: ExportInput): Promise<WritePlan> {
      const doc = fromState(input);
      const live = `toy/${input.foreignId}.json`;
      const archived = `toy/archive/${input.foreignId}.json`;
      const target = input.state.archived ? archived : live;
      return {
        writes: [
          { path: target, content: `${JSON.stringify(doc, null, 2)}\n`, backup: true },
          ...(o.extraWrites ?? []),
        ],
        removes: input.state.archived ? [live] : [],
      };
    },
  };
}

/** A toy document with defaults. */
export function toyDoc(o: Partial<ToyDoc> = {}): ToyDoc {
  return {
    id: 'T-1',
    title: 'Toy session',
    status: 'active',
    created: '2026-01-10T09:00:00.000Z',
    updated: '2026-01-10T10:00:00.000Z',
    units: [
      {
        id: 'plan',
        status: 'completed',
        started: '2026-01-10T09:05:00.000Z',
        completed: '2026-01-10T09:30:00.000Z',
        files: [{ path: 'docs/plan.md', action: 'created' }],
        owner: 'ann',
      },
      {
        id: 'build',
        status: 'in_progress',
        retries: 1,
        subStep: 'compile',
        started: '2026-01-10T09:31:00.000Z',
        errors: [{ type: 'runtime', message: 'boom', resolved: false }],
      },
      { id: 'test', status: 'pending' },
    ],
    tokens: { input: 1000, output: 200, cached: 50, byAgent: { coder: { input: 800, output: 150, cached: 50 } } },
    notes: ['first note'],
    decisions: [{ title: 'db', choice: 'sqlite' }],
    extra: { keep: 'me' },
    ...o,
  };
}
