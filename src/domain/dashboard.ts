/**
 * What the dashboard (`baton ui`) shows of a session's history, folded from its events the way
 * `apply` folds its state, but keeping what the state forgets: every attempt of every phase
 * (a retried phase has one attempt per try), the token records in time order, and how many
 * events of each type and agent the journal holds. Pure and incremental: a timeline is built
 * once and fed the events appended since, so a session of 100,000 events is read once and
 * each change costs only its own events.
 */
import { costOf, priceOf } from './pricing.js';
import type { PricingTable } from './pricing.js';
import type { StoredEvent } from './events.js';

/** How an attempt of a phase ended (`running` while it has not). */
export type AttemptOutcome = 'running' | 'completed' | 'failed' | 'skipped' | 'superseded';

/** One try at a phase: from `phase.started` or `phase.retried` to its completion or failure. */
export interface Attempt {
  phaseId: string;
  /** 1 for the first try, 2 for the first retry … */
  attempt: number;
  agent: string | null;
  startedAt: string;
  /** When it completed, failed or was superseded; null while running. */
  endedAt: string | null;
  outcome: AttemptOutcome;
  /** Why it failed or was skipped, when recorded. */
  reason: string | null;
  /** Sub-steps reached during this attempt, in order. */
  substeps: { name: string; at: string }[];
  /** Errors recorded against the phase during this attempt (ids). */
  errors: string[];
}

/** Token records in journal order, kept as columns (cheap for 100,000 records). */
export interface TokenColumns {
  time: number[];
  /** Index into {@link SessionTimeline.agentNames}. */
  agent: number[];
  /** Index into {@link SessionTimeline.phaseNames}; -1: no phase. */
  phase: number[];
  /** input + output: what the budget counts. */
  used: number[];
  /** Estimated cost of the record in USD, or NaN when its model has no price. */
  usd: number[];
}

/** The dashboard's fold of a session's journal. Treat as opaque outside this module but for reading. */
export interface SessionTimeline {
  /** Seq of the last event folded in. */
  revision: number;
  attempts: Attempt[];
  /** Index in `attempts` of the open attempt of each phase. */
  open: Record<string, number>;
  tokens: TokenColumns;
  agentNames: string[];
  phaseNames: string[];
  /** Events per type and per agent (the event log's filters). */
  types: Record<string, number>;
  agents: Record<string, number>;
  /** Some token record named a model the pricing table knows. */
  priced: boolean;
}

/** An empty timeline, before any event. */
export function emptyTimeline(): SessionTimeline {
  return {
    revision: 0,
    attempts: [],
    open: {},
    tokens: { time: [], agent: [], phase: [], used: [], usd: [] },
    agentNames: [],
    phaseNames: [],
    types: {},
    agents: {},
    priced: false,
  };
}

/** The agent an event speaks for: the one named in its data, else its actor's. */
export function agentOfEvent(e: StoredEvent): string | null {
  const d = e.data as { agent?: unknown } | undefined;
  if (d && typeof d.agent === 'string' && d.agent) return d.agent;
  return e.actor?.agent ?? null;
}

function indexOf(names: string[], name: string): number {
  const i = names.indexOf(name);
  if (i >= 0) return i;
  names.push(name);
  return names.length - 1;
}

function openAttempt(t: SessionTimeline, phaseId: string, agent: string | null, at: string): void {
  closeAttempt(t, phaseId, 'superseded', at, null);
  const tries = t.attempts.filter((a) => a.phaseId === phaseId).length;
  t.attempts.push({
    phaseId,
    attempt: tries + 1,
    agent,
    startedAt: at,
    endedAt: null,
    outcome: 'running',
    reason: null,
    substeps: [],
    errors: [],
  });
  t.open[phaseId] = t.attempts.length - 1;
}

function closeAttempt(
  t: SessionTimeline,
  phaseId: string,
  outcome: AttemptOutcome,
  at: string,
  reason: string | null,
): void {
  const i = t.open[phaseId];
  if (i === undefined) return;
  const a = t.attempts[i]!;
  a.endedAt = at;
  a.outcome = outcome;
  a.reason = reason;
  delete t.open[phaseId];
}

/** Folds `events` (seq after `t.revision`, in order) into `t`, in place; returns `t`. */
export function addEvents(t: SessionTimeline, events: readonly StoredEvent[], pricing: PricingTable): SessionTimeline {
  for (const e of events) {
    if (e.seq <= t.revision) continue;
    t.revision = e.seq;
    t.types[e.type] = (t.types[e.type] ?? 0) + 1;
    const agent = agentOfEvent(e);
    if (agent) t.agents[agent] = (t.agents[agent] ?? 0) + 1;
    foldOne(t, e, agent, pricing);
  }
  return t;
}

function foldOne(t: SessionTimeline, e: StoredEvent, agent: string | null, pricing: PricingTable): void {
  switch (e.type) {
    case 'phase.started':
    case 'phase.retried':
      openAttempt(t, e.data.phaseId, agent, e.time);
      return;
    case 'phase.completed':
      closeAttempt(t, e.data.phaseId, 'completed', e.time, null);
      return;
    case 'phase.failed':
      closeAttempt(t, e.data.phaseId, 'failed', e.time, e.data.reason);
      return;
    case 'phase.skipped': {
      closeAttempt(t, e.data.phaseId, 'superseded', e.time, null);
      const tries = t.attempts.filter((a) => a.phaseId === e.data.phaseId).length;
      t.attempts.push({
        phaseId: e.data.phaseId,
        attempt: tries + 1,
        agent,
        startedAt: e.time,
        endedAt: e.time,
        outcome: 'skipped',
        reason: e.data.reason,
        substeps: [],
        errors: [],
      });
      return;
    }
    case 'substep.reached': {
      const i = t.open[e.data.phaseId];
      if (i !== undefined) t.attempts[i]!.substeps.push({ name: e.data.name, at: e.time });
      return;
    }
    case 'error.recorded': {
      const i = t.open[e.data.phaseId];
      if (i !== undefined) t.attempts[i]!.errors.push(e.data.errorId);
      return;
    }
    case 'checkpoint.restored':
      // The work goes back to the checkpoint's: attempts open now did not survive it.
      for (const phaseId of Object.keys(t.open)) closeAttempt(t, phaseId, 'superseded', e.time, 'checkpoint restored');
      return;
    case 'tokens.recorded': {
      const d = e.data;
      const price = priceOf(pricing, d.model ?? null);
      if (price) t.priced = true;
      t.tokens.time.push(Date.parse(e.time));
      t.tokens.agent.push(indexOf(t.agentNames, d.agent));
      t.tokens.phase.push(d.phaseId === null ? -1 : indexOf(t.phaseNames, d.phaseId));
      t.tokens.used.push(d.input + d.output);
      t.tokens.usd.push(price ? costOf(d, price) : Number.NaN);
      return;
    }
    default:
      return;
  }
}

/** Cumulative token use over time, sampled: what the token chart draws. */
export interface TokenSeries {
  /** Milliseconds since the epoch of each point. */
  time: number[];
  /** input + output so far. */
  total: number[];
  byAgent: Record<string, number[]>;
  byPhase: Record<string, number[]>;
  /** Estimated cost so far of the records whose model has a price; null when none has. */
  usd: number[] | null;
  /** Token records in the journal (the points before sampling). */
  records: number;
}

/** Which of `n` indices to keep so that at most `max` remain, the last always among them. */
function sampleIndices(n: number, max: number): number[] {
  if (n <= max) return Array.from({ length: n }, (_, i) => i);
  const out: number[] = [];
  const step = n / max;
  for (let k = 1; k <= max; k++) out.push(Math.min(n - 1, Math.ceil(k * step) - 1));
  return [...new Set(out)];
}

/**
 * The cumulative token series of a timeline, at most `maxPoints` points (at least 2), sampled
 * evenly over the records. Every point is exact (cumulative sums at a record), and the last
 * point is the session's total, so the chart ends where `baton tokens` does.
 */
export function tokenSeries(t: SessionTimeline, maxPoints = 400): TokenSeries {
  const c = t.tokens;
  const n = c.time.length;
  const keep = sampleIndices(n, Math.max(2, maxPoints));
  const agentRun = new Array<number>(t.agentNames.length).fill(0);
  const phaseRun = new Array<number>(t.phaseNames.length).fill(0);
  const out: TokenSeries = { time: [], total: [], byAgent: {}, byPhase: {}, usd: t.priced ? [] : null, records: n };
  for (const a of t.agentNames) out.byAgent[a] = [];
  for (const p of t.phaseNames) out.byPhase[p] = [];
  let total = 0;
  let usd = 0;
  let k = 0;
  for (let i = 0; i < n && k < keep.length; i++) {
    total += c.used[i]!;
    agentRun[c.agent[i]!]! += c.used[i]!;
    if (c.phase[i]! >= 0) phaseRun[c.phase[i]!]! += c.used[i]!;
    if (!Number.isNaN(c.usd[i]!)) usd += c.usd[i]!;
    if (i !== keep[k]) continue;
    k++;
    out.time.push(c.time[i]!);
    out.total.push(total);
    t.agentNames.forEach((a, j) => out.byAgent[a]!.push(agentRun[j]!));
    t.phaseNames.forEach((p, j) => out.byPhase[p]!.push(phaseRun[j]!));
    out.usd?.push(Math.round(usd * 1e6) / 1e6);
  }
  return out;
}
