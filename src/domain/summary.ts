import type { RunProcess, SessionState, SessionStatus, StatusCause } from './state.js';

/** A run that has not ended, as a registry row names it: enough to check its process or its lapse without loading the session. */
export interface RunRef extends RunProcess {
  id: string;
  /** Its liveness's end when the row was written (renewals do not rewrite rows); null: process only. */
  expiresAt: string | null;
}

/** One row of the registry: what `baton list` shows without loading the session. */
export interface SessionSummary {
  id: string;
  title: string;
  status: SessionStatus;
  cause: StatusCause | null;
  archived: boolean;
  createdAt: string;
  updatedAt: string;
  revision: number;
  phasesTotal: number;
  phasesDone: number;
  currentPhase: string | null;
  /** Completed or skipped phases as a percentage of all phases (0 with no phases). */
  progress: number;
  /** When the current lease expires (null without one): past it, an active session reads as interrupted. */
  leaseExpiresAt?: string | null;
  /**
   * Fencing token of the current lease (null without one). Rows change when a lease is taken
   * or given up, not at each heartbeat: `list` checks a row whose expiry has passed against
   * its session before reporting it interrupted.
   */
  leaseToken?: number | null;
  /** Runs that have not ended (absent: none): `list` checks them before reporting the session active (docs/runs.md). */
  runs?: RunRef[];
  /** Pinned: never touched by `baton cleanup` (absent in rows written before pins existed: false). */
  pinned?: boolean;
  /**
   * The named workspace the session was started in, on a store shared by many workspaces
   * (PostgreSQL); absent on a file store, whose folder is its one workspace.
   */
  workspace?: string;
}

/** Derives the registry row of a session. */
export function summarize(s: SessionState): SessionSummary {
  const done = s.phases.filter((p) => p.status === 'completed' || p.status === 'skipped').length;
  const current = s.phases.find((p) => p.status === 'in_progress') ?? s.phases.find((p) => p.status === 'failed');
  return {
    id: s.id,
    title: s.title,
    status: s.status,
    cause: s.statusCause,
    archived: s.archived,
    createdAt: s.createdAt,
    updatedAt: s.updatedAt,
    revision: s.revision,
    phasesTotal: s.phases.length,
    phasesDone: done,
    currentPhase: current?.id ?? null,
    progress: s.phases.length ? Math.round((done / s.phases.length) * 100) : 0,
    leaseExpiresAt: s.lease?.expiresAt ?? null,
    leaseToken: s.lease?.token ?? null,
    pinned: s.pinned === true,
    ...(s.workspace !== undefined ? { workspace: s.workspace } : {}),
    ...openRuns(s),
  };
}

function openRuns(s: SessionState): { runs?: RunRef[] } {
  const open = (s.runs ?? []).filter((r) => !r.ended);
  return open.length ? { runs: open.map((r) => ({ id: r.id, ...r.process, expiresAt: r.expiresAt })) } : {};
}

function runIds(s: SessionSummary): string {
  return (s.runs ?? []).map((r) => r.id).join(',');
}

/**
 * True when `summarize(b)` can differ from `summarize(a)` only in `revision` and `updatedAt`:
 * every other field summarize reads is the same value (a fold copies what it changes, so an
 * unchanged part is the same object). Lets a change skip summarizing its result when its
 * events (a token record, a note) leave the row alone. test/domain/fold-copy.test.ts fails
 * when summarize starts reading a field not compared here.
 */
export function sameSummaryInputs(a: SessionState, b: SessionState): boolean {
  return (
    a.id === b.id &&
    a.title === b.title &&
    a.status === b.status &&
    a.statusCause === b.statusCause &&
    a.archived === b.archived &&
    a.createdAt === b.createdAt &&
    a.phases === b.phases &&
    a.lease === b.lease &&
    a.pinned === b.pinned &&
    a.workspace === b.workspace &&
    a.runs === b.runs
  );
}

/**
 * True when the registry row changes in a way `list` shows (status, progress, title…);
 * revision and time alone do not count, so token or note events do not touch the registry.
 */
export function summaryChanged(a: SessionSummary | null, b: SessionSummary): boolean {
  if (!a) return true;
  return (
    a.status !== b.status ||
    a.title !== b.title ||
    a.archived !== b.archived ||
    a.phasesDone !== b.phasesDone ||
    a.phasesTotal !== b.phasesTotal ||
    a.currentPhase !== b.currentPhase ||
    a.cause?.cause !== b.cause?.cause ||
    (a.leaseToken ?? null) !== (b.leaseToken ?? null) ||
    (a.pinned ?? false) !== (b.pinned ?? false) ||
    runIds(a) !== runIds(b) ||
    expiresSooner(a, b)
  );
}

/**
 * The lease now ends before the row says (a renewal with a shorter lifetime, e.g. `baton run
 * --ttl 5s` going on under a lease `baton claim` took for longer): claimers find expired
 * sessions through the rows, so the earlier end is written down. Renewals that push the end
 * later do not touch the registry.
 */
function expiresSooner(a: SessionSummary, b: SessionSummary): boolean {
  return !!a.leaseExpiresAt && !!b.leaseExpiresAt && Date.parse(b.leaseExpiresAt) < Date.parse(a.leaseExpiresAt);
}
