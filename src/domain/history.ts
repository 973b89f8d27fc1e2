/**
 * The bounded history the dashboard's session page shows, folded with the state (apply.ts) so
 * that a snapshot carries it and the page reads no journal: events by type and by agent, every
 * attempt of every phase (a retried phase has one attempt per try), and the cumulative token
 * use as a trail of at most {@link TRAIL_POINTS} points, whatever the journal's length. Pure;
 * folded in place by the fold that owns the state (own.ts copies what an event changes).
 */
import { costOf, priceOf } from './spend/pricing.js';
import type { PricingTable } from './spend/pricing.js';
import type { StoredEvent } from './events.js';

import type { AttemptOutcome, SessionHistory, TokenTrail, TrailPoint } from './history-types.js';

export type { Attempt, AttemptOutcome, SessionHistory, TokenTrail, TrailPoint } from './history-types.js';

/** Most points a token trail keeps (its `last` may add one). */
export const TRAIL_POINTS = 512;

/** An empty history, before any event. */
export function emptyHistory(): SessionHistory {
  return {
    types: {},
    agents: {},
    attempts: [],
    open: {},
    tokens: { stride: 1, agents: [], phases: [], models: [], points: [], last: null },
  };
}

/** The agent an event speaks for: the one named in its data, else its actor's. */
export function agentOfEvent(e: StoredEvent): string | null {
  const d = e.data as { agent?: unknown } | undefined;
  if (d && typeof d.agent === 'string' && d.agent) return d.agent;
  return e.actor?.agent ?? null;
}

/** The event types whose fold changes `attempts` (own.ts copies them first). */
export const ATTEMPT_EVENTS: ReadonlySet<string> = new Set([
  'phase.started',
  'phase.retried',
  'phase.completed',
  'phase.failed',
  'phase.skipped',
  'substep.reached',
  'error.recorded',
  'checkpoint.restored',
]);

/** Folds one event into `h`, in place. */
export function foldHistory(h: SessionHistory, e: StoredEvent): void {
  h.types[e.type] = (h.types[e.type] ?? 0) + 1;
  const agent = agentOfEvent(e);
  if (agent) h.agents[agent] = (h.agents[agent] ?? 0) + 1;
  if (e.type === 'tokens.recorded') addRecord(h.tokens, e as StoredEvent & { type: 'tokens.recorded' });
  else if (ATTEMPT_EVENTS.has(e.type)) foldAttempt(h, e, agent);
}

function tries(h: SessionHistory, phaseId: string): number {
  let n = 0;
  for (const a of h.attempts) if (a.phaseId === phaseId) n++;
  return n;
}

function openAttempt(h: SessionHistory, phaseId: string, agent: string | null, at: string): void {
  closeAttempt(h, phaseId, 'superseded', at, null);
  const attempt = tries(h, phaseId) + 1;
  h.attempts.push({
    phaseId,
    attempt,
    agent,
    startedAt: at,
    endedAt: null,
    outcome: 'running',
    reason: null,
    substeps: [],
    errors: [],
  });
  h.open[phaseId] = h.attempts.length - 1;
}

function closeAttempt(
  h: SessionHistory,
  phaseId: string,
  outcome: AttemptOutcome,
  at: string,
  reason: string | null,
): void {
  const i = h.open[phaseId];
  if (i === undefined) return;
  const a = h.attempts[i]!;
  a.endedAt = at;
  a.outcome = outcome;
  a.reason = reason;
  delete h.open[phaseId];
}

function foldAttempt(h: SessionHistory, e: StoredEvent, agent: string | null): void {
  switch (e.type) {
    case 'phase.started':
    case 'phase.retried':
      openAttempt(h, e.data.phaseId, agent, e.time);
      return;
    case 'phase.completed':
      closeAttempt(h, e.data.phaseId, 'completed', e.time, null);
      return;
    case 'phase.failed':
      closeAttempt(h, e.data.phaseId, 'failed', e.time, e.data.reason);
      return;
    case 'phase.skipped': {
      closeAttempt(h, e.data.phaseId, 'superseded', e.time, null);
      const attempt = tries(h, e.data.phaseId) + 1;
      h.attempts.push({
        phaseId: e.data.phaseId,
        attempt,
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
      const i = h.open[e.data.phaseId];
      if (i !== undefined) h.attempts[i]!.substeps.push({ name: e.data.name, at: e.time });
      return;
    }
    case 'error.recorded': {
      const i = h.open[e.data.phaseId];
      if (i !== undefined) h.attempts[i]!.errors.push(e.data.errorId);
      return;
    }
    case 'checkpoint.restored':
      // The work goes back to the checkpoint's: attempts open now did not survive it.
      for (const phaseId of Object.keys(h.open)) closeAttempt(h, phaseId, 'superseded', e.time, 'checkpoint restored');
      return;
    default:
      return;
  }
}

/**
 * Index of `name` in the trail's list `key`. A new name replaces the list with a longer one
 * rather than pushing onto it: a fold shares the trail's arrays with the state it started
 * from (own.ts copies only the trail object and its running point), so they are never changed in place.
 */
function slot(t: TokenTrail, key: 'agents' | 'phases' | 'models', name: string): number {
  const names = t[key];
  const i = names.indexOf(name);
  if (i >= 0) return i;
  t[key] = [...names, name];
  return names.length;
}

function copyPoint(p: TrailPoint): TrailPoint {
  return { ...p, agents: p.agents.slice(), phases: p.phases.slice(), models: p.models.map((m) => m.slice()) };
}

function addRecord(t: TokenTrail, e: StoredEvent & { type: 'tokens.recorded' }): void {
  const d = e.data;
  const used = d.input + d.output;
  const at = Date.parse(e.time);
  const p: TrailPoint = t.last ?? { n: 0, at, used: 0, agents: [], phases: [], models: [] };
  p.n += 1;
  p.at = Number.isNaN(at) ? p.at : at;
  p.used += used;
  const a = slot(t, 'agents', d.agent);
  p.agents[a] = (p.agents[a] ?? 0) + used;
  if (d.phaseId !== null) {
    const ph = slot(t, 'phases', d.phaseId);
    p.phases[ph] = (p.phases[ph] ?? 0) + used;
  }
  if (typeof d.model === 'string' && d.model !== '') {
    const m = slot(t, 'models', d.model);
    const c = (p.models[m] ??= [0, 0, 0, 0]);
    c[0]! += d.input;
    c[1]! += d.output;
    c[2]! += d.cached;
    c[3]! += d.cacheWrite ?? 0;
  }
  t.last = p;
  if (p.n % t.stride !== 0) return;
  // A new array, as in slot(): most records keep no point, and those copy no array.
  t.points = [...t.points, copyPoint(p)];
  if (t.points.length < TRAIL_POINTS) return;
  // Full: keep every other point (the later of each pair), so the rest stay evenly spaced.
  t.stride *= 2;
  t.points = t.points.filter((q) => q.n % t.stride === 0);
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
 * The cumulative token series of a trail, at most `maxPoints` points (at least 2, and no more
 * than the trail keeps: {@link TRAIL_POINTS} and the latest), evenly spaced over the records.
 * Every point is exact (cumulative sums at a record), and the last is the session's total, so
 * the chart ends where `baton tokens` does. The cost is priced now, by `pricing`.
 */
export function tokenSeries(t: TokenTrail, pricing: PricingTable, maxPoints = 400): TokenSeries {
  const all = t.last && t.points.at(-1)?.n !== t.last.n ? [...t.points, t.last] : t.points;
  const keep = sampleIndices(all.length, Math.max(2, maxPoints)).map((i) => all[i]!);
  const prices = t.models.map((m) => priceOf(pricing, m));
  const priced = prices.some((p) => p !== null);
  const out: TokenSeries = {
    time: keep.map((p) => p.at),
    total: keep.map((p) => p.used),
    byAgent: Object.fromEntries(t.agents.map((a, i) => [a, keep.map((p) => p.agents[i] ?? 0)])),
    byPhase: Object.fromEntries(t.phases.map((ph, i) => [ph, keep.map((p) => p.phases[i] ?? 0)])),
    usd: null,
    records: t.last?.n ?? 0,
  };
  if (priced) {
    out.usd = keep.map((p) => {
      let usd = 0;
      prices.forEach((price, i) => {
        const c = p.models[i];
        if (price && c) usd += costOf({ input: c[0]!, output: c[1]!, cached: c[2]!, cacheWrite: c[3]! }, price);
      });
      return Math.round(usd * 1e6) / 1e6;
    });
  }
  return out;
}
