/**
 * What the dashboard (`baton ui`, src/ui) reads, aggregated here so a page gets sums and
 * pages, never a whole journal: the sessions list (sorted, filtered, searched, paged), one
 * session's view (status, timeline of attempts, token series, records), its event log (paged,
 * filtered) and its resume plan. Reads only: nothing here appends, snapshots or rewrites the
 * registry cache. A session's page is its state (snapshot plus tail), which carries the
 * history the page shows (domain/history.ts); the unfiltered event log reads its page alone.
 * A filtered page, a resume plan, or a session whose snapshot predates histories reads the
 * journal once and keeps it (a few sessions), then only the events appended since.
 */
import { costReport, costShown, formatCost, formatCostBudget } from '../domain/spend/cost.js';
import { agentOfEvent, emptyHistory, foldHistory, tokenSeries } from '../domain/history.js';
import type { Attempt, SessionHistory, TokenSeries } from '../domain/history.js';
import { BatonError } from '../domain/errors.js';
import { eventSentence } from '../domain/event-sentence.js';
import { stepOutcome, stepsView } from '../domain/durable-steps.js';
import type { StepView } from '../domain/durable-steps.js';
import type { StoredEvent } from '../domain/events.js';
import { validateId } from '../domain/ids.js';
import type { PricingTable } from '../domain/spend/pricing.js';
import { renderResumePlan } from '../domain/resume/render-resume.js';
import type { CheckpointInfo, ResumePlan } from '../domain/resume/resume-plan-types.js';
import { SESSION_STATUSES } from '../domain/state.js';
import type { SessionState, SessionStatus } from '../domain/state.js';
import type { SessionSummary } from '../domain/summary.js';
import { sessionBudget } from '../domain/toolkits/toolkit-tokens.js';
import type { BudgetView } from '../domain/toolkits/tokens.js';
import { statusView } from '../domain/view.js';
import { runSegments } from '../domain/runs/run-segments.js';
import type { RunSegment } from '../domain/runs/run-segments.js';
import type { Liveness } from '../domain/runs/runs.js';
import type { StatusView } from '../domain/view.js';
import { leaseExpired } from '../domain/runs/lease.js';
import { sessionFilesOf } from '../store/capabilities.js';
import type { SessionStore } from '../store/types.js';
import type { RowText } from '../store/row.js';
import type { PlanSources } from './resume/resume.js';

/** What the dashboard needs of the manager (SessionManager passes itself). */
export interface DashboardSource {
  readonly store: SessionStore;
  time(): string;
  get(id: string): Promise<SessionState>;
  /** Events after `since`; with `limit`, only the first `limit` of them (a page, read alone). */
  log(id: string, since?: number, limit?: number): Promise<StoredEvent[]>;
  pricing(): PricingTable;
  listRows(filter: { persist?: boolean; all?: boolean }): Promise<RowText[]>;
  readonly checkpoints: { listOf(state: SessionState): Promise<CheckpointInfo[]> };
  /** Which runs are live: a process check on this host (a read; it writes nothing). */
  readonly runs: { liveness(s: SessionState): Liveness };
  readonly recovery: {
    handoff(id: string, o?: PlanSources): Promise<{ markdown: string; plan: ResumePlan; state: SessionState }>;
  };
  /** The folder the manager works in: the workspace of every session of a file store. */
  readonly workspace?: { readonly root: string } | null;
}

/** Query of {@link Dashboard.sessions}. */
export interface SessionsQuery {
  status?: SessionStatus | null;
  /** Case-insensitive text found in the id or the title. */
  search?: string | null;
  offset?: number;
  limit?: number;
  /** List archived sessions too (default: live ones only). */
  archived?: boolean;
}

/** Who holds a session's lease now: the run or conversation working on it. */
export interface DashboardHolder {
  owner: string;
  pid: number;
  host: string;
  expiresAt: string;
}

/** Money as every surface shows it (`formatCost`, `formatCostBudget` of domain/spend/cost.ts). */
export interface MoneyText {
  /** The estimated cost, as `baton status` prints it; null when it prints none (no priced model, no cost budget). */
  total: string | null;
  /** The cost budget's use (`$0.50/$2.00 (25%)`); null without a cost budget. */
  budget: string | null;
  /** The cost budget in US dollars (null: none). */
  budgetUsd: number | null;
  byAgent: Record<string, string>;
  byPhase: Record<string, string>;
}

/** A row of the sessions page: the registry row plus agents, token use against the budget, cost, workspace and holder. */
export interface DashboardRow extends SessionSummary {
  agents: string[];
  tokens: BudgetView;
  /** The estimated cost as `baton status` prints it (null when it prints none). */
  cost: string | null;
  /** The session's workspace: its named one on a shared store, the store's folder on a file store; null when unknown. */
  workspaceName: string | null;
  /** The holder of a lease that has not expired, else null. */
  holder: DashboardHolder | null;
}

/** A page of the sessions list. */
export interface SessionsPage {
  /** Sessions matching the query (all pages). */
  total: number;
  offset: number;
  limit: number;
  /** Live sessions by status, before the status filter and the search (the filter's counts). */
  counts: Record<SessionStatus, number>;
  /** Archived sessions in the store (listed only with `archived`). */
  archived: number;
  rows: DashboardRow[];
}

/** The session page's data. */
export interface SessionPage {
  /** The `status --json` view, with the estimated cost. */
  view: StatusView;
  /** Every attempt of every phase, in start order. */
  attempts: Attempt[];
  tokens: TokenSeries & { budget: BudgetView };
  checkpoints: CheckpointInfo[];
  /** The cost and cost budget, formatted as the CLI formats them. */
  money: MoneyText;
  /** Events by type and by agent: the event log's filters. */
  facets: { types: Record<string, number>; agents: Record<string, number> };
  /** The dashboard's clock when the page was built (ISO): a running attempt ends here. */
  now: string;
  /** The session's runs (workers) as segments: who worked when, and where one died (docs/runs.md). */
  runs: RunSegment[];
  /** The durable steps (`manager.steps`), each with the sentence the handoff and `baton status` give it; never a result value. */
  steps: Array<StepView & { outcome: string }>;
}

/** Query of {@link Dashboard.events}. */
export interface EventsQuery {
  /** An event type (`phase.failed`) or a family (`phase.`). */
  type?: string | null;
  agent?: string | null;
  offset?: number;
  limit?: number;
  /** `desc` (default): newest first. */
  order?: 'asc' | 'desc';
}

/** A page of a session's event log. */
export interface EventsPage {
  total: number;
  offset: number;
  limit: number;
  revision: number;
  /** The events, each with `text`: the event as a sentence for people (domain/event-sentence.ts). */
  events: Array<StoredEvent & { text: string }>;
}

/** A session's resume plan, as JSON, as `baton resume` prints it, and as the handoff document. */
export interface ResumeView {
  plan: ResumePlan;
  text: string;
  handoff: string;
}

/** Most rows or events one page of the dashboard API holds. */
export const MAX_PAGE = 500;
/** Journals kept in memory (a dashboard looks at a few sessions at a time). */
const KEEP_JOURNALS = 4;

interface Journal {
  /** When the session was created: a different one is another session under the same id. */
  createdAt: string;
  /** Seq of the last event read. */
  revision: number;
  /** The history folded from the events read (used when the state carries none). */
  history: SessionHistory;
  events: StoredEvent[];
  /** Positions in `events` of each type and of each agent's events: a filtered page reads only those. */
  byType: Map<string, number[]>;
  byAgent: Map<string, number[]>;
}

function indexAt(index: Map<string, number[]>, key: string, at: number): void {
  const list = index.get(key);
  if (list) list.push(at);
  else index.set(key, [at]);
}

/** Positions of the events a filter keeps, in journal order (`null`: all of them). */
function positions(j: Journal, type: string | null, agent: string | null): number[] | null {
  if (type === null && agent === null) return null;
  const family = type?.endsWith('.');
  const ofType =
    type === null
      ? null
      : family
        ? [...j.byType]
            .filter(([t]) => t.startsWith(type))
            .flatMap(([, l]) => l)
            .sort((a, b) => a - b)
        : (j.byType.get(type) ?? []);
  const ofAgent = agent === null ? null : (j.byAgent.get(agent) ?? []);
  if (ofType === null) return ofAgent;
  if (ofAgent === null) return ofType;
  // Walk the shorter list, test membership in the other by the event itself.
  if (ofAgent.length <= ofType.length)
    return ofAgent.filter((i) => (family ? j.events[i]!.type.startsWith(type!) : j.events[i]!.type === type));
  return ofType.filter((i) => agentOfEvent(j.events[i]!) === agent);
}

function pageBounds(o: { offset?: number; limit?: number }, fallback: number): { offset: number; limit: number } {
  const offset = o.offset ?? 0;
  const limit = o.limit ?? fallback;
  if (!Number.isSafeInteger(offset) || offset < 0)
    throw new BatonError('BAD_INPUT', `offset must be a whole number ≥ 0; got ${offset}.`, {
      hint: 'Pass offset=0 for the first page.',
    });
  if (!Number.isSafeInteger(limit) || limit < 1 || limit > MAX_PAGE)
    throw new BatonError('BAD_INPUT', `limit must be between 1 and ${MAX_PAGE}; got ${limit}.`, {
      hint: `Ask for at most ${MAX_PAGE} rows per page.`,
    });
  return { offset, limit };
}

/** Interrupted first (they need someone), then active, then the rest; newest change first within each. */
function rank(status: string): number {
  return status === 'interrupted' ? 0 : status === 'active' ? 1 : 2;
}

function agentsOf(s: SessionState): string[] {
  const all = new Set<string>();
  for (const p of s.phases) for (const a of p.agents) all.add(a);
  for (const a of Object.keys(s.tokens.byAgent)) all.add(a);
  return [...all];
}

/** `manager.dashboard`: the reads of `baton ui`. Each method changes nothing. */
export class Dashboard {
  private readonly journals = new Map<string, Promise<Journal>>();

  constructor(private readonly m: DashboardSource) {}

  /** Live sessions, interrupted and active first, filtered, searched and paged. */
  async sessions(q: SessionsQuery = {}): Promise<SessionsPage> {
    const { offset, limit } = pageBounds(q, 50);
    if (q.status && !(SESSION_STATUSES as readonly string[]).includes(q.status)) {
      throw new BatonError('BAD_INPUT', `Unknown status ${JSON.stringify(q.status)}.`, {
        hint: `Use one of ${SESSION_STATUSES.join(', ')}.`,
      });
    }
    const every = (await this.m.listRows({ persist: false, all: true })).map((r) => r.summary);
    const counts = Object.fromEntries(SESSION_STATUSES.map((s) => [s, 0])) as Record<SessionStatus, number>;
    for (const r of every) if (!r.archived) counts[r.status] = (counts[r.status] ?? 0) + 1;
    const archived = every.filter((r) => r.archived).length;
    const rows = q.archived ? every : every.filter((r) => !r.archived);
    const needle = q.search?.trim().toLowerCase() ?? '';
    const matching = rows
      .filter((r) => (q.status ? r.status === q.status : true))
      .filter((r) => (needle ? r.id.toLowerCase().includes(needle) || r.title.toLowerCase().includes(needle) : true))
      .sort(
        (a, b) =>
          rank(a.status) - rank(b.status) ||
          (a.updatedAt < b.updatedAt ? 1 : a.updatedAt > b.updatedAt ? -1 : a.id.localeCompare(b.id)),
      );
    const page = matching.slice(offset, offset + limit);
    const out: DashboardRow[] = [];
    for (const r of page) out.push({ ...r, ...(await this.rowExtras(r)) });
    return { total: matching.length, offset, limit, counts, archived, rows: out };
  }

  /**
   * Agents and tokens of a listed session, read from its state each time: registry rows do
   * not change on token records (their revision neither), so nothing cheaper tells when
   * these change.
   */
  private async rowExtras(r: SessionSummary): Promise<Omit<DashboardRow, keyof SessionSummary>> {
    const workspaceName = r.workspace ?? (sessionFilesOf(this.m.store) ? (this.m.workspace?.root ?? null) : null);
    let s: SessionState;
    try {
      s = await this.m.get(r.id);
    } catch (e) {
      if (e instanceof BatonError)
        return {
          agents: [],
          tokens: { max: null, used: 0, percent: null, level: 'none' },
          cost: null,
          workspaceName,
          holder: null,
        };
      throw e;
    }
    const lease = s.lease ?? null;
    const holder =
      lease && !leaseExpired(lease, this.m.time())
        ? { owner: lease.owner, pid: lease.pid, host: lease.host, expiresAt: lease.expiresAt }
        : null;
    return { agents: agentsOf(s), tokens: sessionBudget(s), cost: this.money(s).total, workspaceName, holder };
  }

  /** The session's cost as the CLI prints it; an unusable pricing file shows as no cost. */
  private money(s: SessionState): MoneyText {
    const none: MoneyText = { total: null, budget: null, budgetUsd: null, byAgent: {}, byPhase: {} };
    let r: ReturnType<typeof costReport>;
    try {
      r = costReport(s, this.m.pricing());
    } catch (e) {
      if (e instanceof BatonError) return none;
      throw e;
    }
    const each = (g: Record<string, Parameters<typeof formatCost>[0]>): Record<string, string> =>
      Object.fromEntries(Object.entries(g).map(([k, c]) => [k, formatCost(c)]));
    return {
      total: costShown(s) ? formatCost(r.total) : null,
      budget: r.budget.maxUsd !== null ? formatCostBudget(r.budget) : null,
      budgetUsd: r.budget.maxUsd,
      byAgent: each(r.byAgent),
      byPhase: each(r.byPhase),
    };
  }

  /** The session page: status view with cost, attempts, token series, checkpoints, event counts. */
  async session(id: string, o: { maxPoints?: number } = {}): Promise<SessionPage> {
    const state = await this.m.get(validateId(id));
    const pricing = this.m.pricing();
    // The state carries the history; one folded by an older baton (its snapshot) does not.
    const h = state.history ?? (await this.journal(id, state)).history;
    const live = this.m.runs.liveness(state);
    const now = live.now;
    // A run whose process is gone here reads as dead at once, as `baton status` says.
    const view = statusView(state, now, pricing, live.dead);
    return {
      view,
      runs: runSegments(state, live),
      attempts: h.attempts,
      tokens: { ...tokenSeries(h.tokens, pricing, o.maxPoints), budget: sessionBudget(state) },
      checkpoints: await this.m.checkpoints.listOf(state),
      money: this.money(state),
      facets: { types: h.types, agents: h.agents },
      now,
      steps: stepsView(state).map((d) => ({ ...d, outcome: stepOutcome(d) })),
    };
  }

  /**
   * A page of a session's events, filtered by type (or family, `phase.`) and agent. Unfiltered,
   * it reads that page alone; a filter (or a state without history) reads the kept journal.
   */
  async events(id: string, q: EventsQuery = {}): Promise<EventsPage> {
    const { offset, limit } = pageBounds(q, 100);
    const state = await this.m.get(validateId(id));
    const type = q.type || null;
    const agent = q.agent || null;
    // Seqs run 1 … revision unless a repair bridged lost ones (the history then counts fewer events).
    const counted = state.history ? Object.values(state.history.types).reduce((a, b) => a + b, 0) : -1;
    if (type === null && agent === null && counted === state.revision)
      return this.plainPage(id, state.revision, offset, limit, q.order);
    const j = await this.journal(id, state);
    const kept = positions(j, type, agent) ?? [];
    const total = kept.length;
    const [from, to] =
      q.order === 'asc'
        ? [offset, Math.min(total, offset + limit)]
        : [Math.max(0, total - offset - limit), Math.max(0, total - offset)];
    const events: Array<StoredEvent & { text: string }> = [];
    for (let k = from; k < to; k++) {
      const e = j.events[kept[k]!]!;
      events.push({ ...e, text: eventSentence(e) });
    }
    if (q.order !== 'asc') events.reverse();
    return { total, offset, limit, revision: j.revision, events };
  }

  /** An unfiltered page of the events up to `revision`: the seqs it covers, read alone. */
  private async plainPage(
    id: string,
    revision: number,
    offset: number,
    limit: number,
    order: EventsQuery['order'],
  ): Promise<EventsPage> {
    const [after, upTo] =
      order === 'asc'
        ? [Math.min(revision, offset), Math.min(revision, offset + limit)]
        : [Math.max(0, revision - offset - limit), Math.max(0, revision - offset)];
    const read = upTo > after ? await this.m.log(id, after, upTo - after) : [];
    const events = read.filter((e) => e.seq > after && e.seq <= upTo).map((e) => ({ ...e, text: eventSentence(e) }));
    if (order !== 'asc') events.reverse();
    return { total: revision, offset, limit, revision, events };
  }

  /** The resume plan (JSON and text) and the handoff document: reads and hashes files, writes nothing. */
  async resume(id: string): Promise<ResumeView> {
    // The plan counts the events a restore would undo: from the kept journal, not a new read.
    const { markdown, plan } = await this.m.recovery.handoff(validateId(id), {
      events: async (state) => (await this.journal(id, state)).events,
    });
    return { plan, text: renderResumePlan(plan), handoff: markdown };
  }

  /**
   * Calls `onChange` after each change to any session of the store, by any process (the
   * store's change feed, at least once per change). Resolves once it listens; the returned
   * function stops it. `STORE_UNAVAILABLE` for a store without a change feed.
   */
  async watch(onChange: (c: { sessionId: string; revision: number }) => void): Promise<() => Promise<void>> {
    const store = this.m.store;
    if (!store.watch) {
      throw new BatonError(
        'STORE_UNAVAILABLE',
        `The ${store.kind} store at ${store.location} has no change feed to watch.`,
        { hint: 'Use a file store or a PostgreSQL store.' },
      );
    }
    return store.watch(onChange);
  }

  /**
   * The kept journal of `state`'s session, brought up to at least its revision (read once,
   * then only what is new; it may hold a few events more, appended since `state` was read).
   */
  private journal(id: string, state: SessionState): Promise<Journal> {
    const prev = this.journals.get(id);
    const next = (async (): Promise<Journal> => {
      let j = prev ? await prev.catch(() => null) : null;
      // Another creation time: the session was deleted and made again under the same id.
      if (!j || j.createdAt !== state.createdAt)
        j = {
          createdAt: state.createdAt,
          revision: 0,
          history: emptyHistory(),
          events: [],
          byType: new Map(),
          byAgent: new Map(),
        };
      if (j.revision < state.revision) {
        for (const e of await this.m.log(id, j.revision)) {
          if (e.seq <= j.revision) continue;
          j.revision = e.seq;
          const at = j.events.push(e) - 1;
          indexAt(j.byType, e.type, at);
          const agent = agentOfEvent(e);
          if (agent !== null) indexAt(j.byAgent, agent, at);
          foldHistory(j.history, e);
        }
      }
      return j;
    })();
    this.journals.delete(id);
    this.journals.set(id, next);
    // A failed read is not kept: the next request tries again.
    next.catch(() => this.journals.get(id) === next && this.journals.delete(id));
    if (this.journals.size > KEEP_JOURNALS) this.journals.delete(this.journals.keys().next().value as string);
    return next;
  }
}
