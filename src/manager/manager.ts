import * as decide from '../domain/decide.js';
import { BatonError, isBatonError } from '../domain/errors.js';
import { hint } from '../domain/hints.js';
import type { StoredEvent } from '../domain/events.js';
import { generateId, validateId } from '../domain/ids.js';
import { fold } from '../domain/apply.js';
import { decideBudgetPolicy } from '../domain/spend/budget-policy.js';
import type { SessionState } from '../domain/state.js';
import { summarize, type SessionSummary } from '../domain/summary.js';
import type { SessionAction } from '../domain/transitions.js';
import { notFound } from '../store/errors.js';
import { claimQueueOf } from '../store/capabilities.js';
import { RowText } from '../store/row.js';
import { listJsonText } from './list-json.js';
import type { RepairReport, Tombstone } from '../store/types.js';
import { storeFilter, workspaceOf, type ListFilter } from './list-filter.js';
import { AgentHooks } from './agents/agent-hooks.js';
import { Checkpoints } from './checkpoints/checkpoints.js';
import { Claims } from './runs/claim.js';
import { Cursors } from './cursors.js';
import { DerivedFiles } from './derived-files.js';
import { Maintenance } from './upkeep/doctor.js';
import { Formats } from './toolkits/foreign-formats.js';
import { Bundles } from './bundles/bundle.js';
import { Budgets } from './spend/budgets.js';
import { Leases } from './runs/leases.js';
import { Runs } from './runs/runs.js';
import { Steps } from './steps.js';
import { startOrGet, type StartOrGetInput } from './start-or-get.js';
import { Dashboard } from './dashboard.js';
import { Recovery } from './resume/resume.js';
import { PlanChanges } from './plan-changes.js';
import * as retention from './upkeep/retention.js';
import type { CleanupOptions, CleanupResult } from './upkeep/retention.js';
import type { PricingTable } from '../domain/spend/pricing.js';
import { loadPricing } from './spend/pricing-file.js';
import { parseCacheTtl } from '../domain/spend/resume-cost.js';
import type { CacheTtl } from '../domain/spend/resume-cost.js';
import { SessionRecords } from './records.js';
import { Transcripts } from './agents/transcripts.js';
import type { ChangeOptions, ManagerOptions } from './types.js';
import { watchSessions, type WatchSessionsOptions } from './watch.js';
import { startBaseline } from './resume/new-files.js';

export { DEFAULT_SNAPSHOT_EVERY } from './types.js';
export type { ListFilter } from './list-filter.js';
export type { ChangeOptions, ChangeResult, ManagerOptions, StartInput, TimedDraft } from './types.js';
import type { StartInput } from './types.js';

/**
 * The one entry point of every surface: load → validate (domain) → conditional append →
 * result. A change that loses a race is re-validated against the fresh state and retried,
 * which is safe because validation runs again; a caller that passes `expectedRevision`
 * gets `CONFLICT` instead.
 */
export class SessionManager extends SessionRecords {
  /** Checkpoints: take, list, show, validate, restore (see checkpoints.ts). */
  readonly checkpoints: Checkpoints;
  /** The files derived from sessions (handoff.md, mirrors): see {@link ManagerOptions.derivedFiles}. */
  readonly derivedFiles: DerivedFiles;
  /** Leases: who works on a session now (`baton run`). */
  readonly leases = new Leases(this);
  /** Runs (workers) on a session: start, renew, end, deaths, phase claims (docs/runs.md). */
  readonly runs: Runs = new Runs(this);
  /** Durable steps: run once per session and key, the result recorded and reused (docs/steps.md). */
  readonly steps = new Steps(this, this.runs, this.agent);
  /** Claiming sessions that need a worker (`baton claim`). */
  readonly claims = new Claims(this);
  /** Resume plans, handoff briefings, and applying a recovery option. */
  readonly recovery = new Recovery(this);
  /** Changes to a session's plan: add, remove, or set a phase's retry limit and dependencies (see plan-changes.ts). */
  readonly plan = new PlanChanges(this);
  /** Sessions in foreign layouts: import, export, mirror. */
  readonly formats = new Formats(this);
  /** Sessions that travel: one session as one checksummed file, and back (see bundle.ts). */
  readonly bundles: Bundles = new Bundles(this);
  /** Checking and repairing the store (`baton doctor`). */
  readonly maintenance = new Maintenance(this);
  /** Transcript ingestion: token use read from agent CLI transcripts (see transcripts.ts). */
  readonly transcripts = new Transcripts(this);
  /** The dashboard's reads (`baton ui`): sessions page, session page, event log, resume plan (see dashboard.ts). */
  readonly dashboard: Dashboard = new Dashboard(this);
  /** Named positions of the store's readers (`baton otel follow`; see cursors.ts). */ readonly cursors = new Cursors(
    this,
  );
  /** What agent CLI hooks record, and the hook log's problems (see agent-hooks.ts). */
  readonly hooks: AgentHooks;
  /** Budget policies: set, read, judged; new work past a `stop` budget is refused (see budgets.ts). */
  readonly budgets: Budgets = new Budgets(this);
  /** The pricing override file, if any (see {@link pricing}). */
  readonly pricingFile: string | null;
  private pricingTable: PricingTable | null = null;
  private readonly env: Readonly<Record<string, string | undefined>>;
  private rechecked = 0; // rows the last listRows checked against their session (lapsed leases)

  constructor(o: ManagerOptions) {
    super(o);
    this.hooks = new AgentHooks(this, o.env ?? {});
    this.budgetGuard = (s, drafts, agent) => this.budgets.guard(s, drafts, agent);
    this.pricingFile = o.pricingFile ?? null;
    this.env = o.env ?? {};
    this.checkpoints = new Checkpoints(this, {
      now: this.now,
      workspace: o.workspace ?? null,
      auto: o.autoCheckpoint ?? true,
      onWarning: this.onWarning,
    });
    this.derivedFiles = new DerivedFiles(this, o.derivedFiles ?? {}, this.ownClock, this.onWarning);
  }

  protected override changed(id: string, events: readonly StoredEvent[], state: SessionState): void {
    super.changed(id, events, state);
    this.derivedFiles.note(id, events, state);
    if (state.status === 'interrupted' && events.some((e) => e.type === 'session.interrupted')) this.needWorker.add(id);
  }

  /** Sessions interrupted by the changes of this burst: claimers waiting on the store's claim queue are told after it. */
  private readonly needWorker = new Set<string>();
  /** Announcements under way: close() waits for them, so a command that exits at once still wakes the claimers. */
  private announcing: Promise<void> = Promise.resolve();

  /** Waits for the derived files being refreshed (see DerivedFilesOptions.refresh) and the snapshots being written, then closes the store. */
  close = (): Promise<void> =>
    this.derivedFiles
      .settled()
      .then(() => this.snapshotsWritten())
      .then(() => this.announcing)
      .then(() => this.store.close());

  /** Derived files are refreshed after the callers were answered, once per burst (see DerivedFiles). */
  protected override afterCommit(): void {
    this.derivedFiles.afterChange();
    const queue = this.needWorker.size ? claimQueueOf(this.store) : null;
    if (queue) {
      const ids = [...this.needWorker];
      // Off the acknowledgement path; a lost announcement costs a waiting claimer one poll.
      const sent = queue
        .announce(ids)
        .catch((e: unknown) => this.onWarning(`claimers not told of ${ids.join(', ')}: ${String(e)}`));
      this.announcing = Promise.all([this.announcing, sent]).then(() => undefined);
    }
    this.needWorker.clear();
  }

  // ---- sessions -------------------------------------------------------------------------

  /**
   * Creates a session and makes it the active one. Refuses with `ACTIVE_EXISTS` while another
   * session is active, unless `switch` is set, which pauses that one first.
   */
  async start(input: StartInput): Promise<SessionState> {
    const title = decide.text(input.title, 'title', { max: 1000 });
    const phases = decide.validatePhases(input.phases ?? []);
    const budget = input.budget === undefined || input.budget === null ? null : decide.positive(input.budget, 'budget');
    const idFormat = input.idFormat ?? 'date';
    const id =
      input.id !== undefined
        ? validateId(input.id)
        : generateId(idFormat, title, { now: this.now(), randomBytes: this.rand }, input.bmad);
    const created = decide.draft('session.created', {
      title,
      idFormat: input.id !== undefined ? 'explicit' : idFormat,
      phases,
      budgetMax: budget,
      contextSummary: input.contextSummary ?? null,
      metadata: { ...startBaseline(this.workspace), ...input.metadata },
      ...workspaceOf(this.store),
    });
    // A plan's budgets go in with the session, checked before anything (a switch's pause) is done.
    const made = input.budgets?.length ? fold(null, this.numbered([created], input.agent, this.time(), 0), id)! : null;
    const budgets = made ? input.budgets!.flatMap((b) => decideBudgetPolicy(made, b)) : [];
    return this.store.withWorkspaceLock(async () => {
      await this.pauseActiveFor(id, input.switch === true, input.agent);
      const events = this.numbered([created, ...budgets], input.agent, this.time(), 0);
      const state = fold(null, events, id)!;
      await this.store.create(id, events, summarize(state));
      this.changed(id, events, state);
      this.afterCommit();
      await this.store.setActive(id);
      return state;
    });
  }

  /** Find-or-create by a key the caller chooses (race-safe: one session per key; see start-or-get.ts). */
  startOrGet(input: StartOrGetInput): Promise<{ state: SessionState; created: boolean }> {
    return startOrGet(this, input);
  }

  /** Pauses the active session (if any, and not `except`), or refuses when `allow` is false. */
  private async pauseActiveFor(except: string, allow: boolean, agent?: string | null): Promise<void> {
    const current = await this.activeSession();
    if (!current || current.id === except || current.status !== 'active') return;
    if (!allow) {
      throw new BatonError('ACTIVE_EXISTS', `Session ${current.id} ("${current.title}") is active.`, {
        hint: hint('session.switch-or-end'),
        details: { active: current.id },
      });
    }
    await this.simple(current.id, (s) => decide.decideSession(s, 'pause', `switched to ${except}`, 'switched'), {
      agent,
    });
  }

  /** The session the active pointer names, or null (a dangling pointer is reported and ignored). */
  async activeSession(): Promise<SessionState | null> {
    const id = await this.store.getActive();
    if (!id) return null;
    try {
      return await this.get(id);
    } catch (e) {
      if (isBatonError(e, 'NOT_FOUND') || isBatonError(e, 'BAD_INPUT')) {
        this.onRepair({
          sessionId: null,
          kind: 'active_dangling',
          message: `The active pointer names ${JSON.stringify(id)}, which does not exist; ignored.`,
          savedTo: null,
        });
        return null;
      }
      throw e;
    }
  }

  /**
   * Which session a command acts on: `explicit` (from --session or BATON_SESSION), else the
   * active pointer; with neither, `NO_ACTIVE_SESSION` naming the candidates.
   */
  async resolve(explicit?: string | null): Promise<string> {
    // An explicit empty id is a mistake to report, not a request for the active session.
    if (explicit !== undefined && explicit !== null) return this.expandId(validateId(explicit));
    const active = await this.store.getActive();
    if (active) {
      try {
        validateId(active);
        if (await this.store.exists(active)) return active;
      } catch {
        // fall through to the error below
      }
    }
    const { summaries } = await this.store.list();
    const open = summaries
      .filter((s) => !s.archived && ['active', 'paused', 'interrupted', 'failed'].includes(s.status))
      .map((s) => s.id);
    throw new BatonError(
      'NO_ACTIVE_SESSION',
      active ? `The active pointer names ${JSON.stringify(active)}, which does not exist.` : 'No active session.',
      {
        hint: open.length
          ? hint('session.name-one', { sessions: open.slice(0, 10), more: open.length > 10 })
          : hint('session.start-one'),
        details: { candidates: open },
      },
    );
  }

  /**
   * The session id `ref` names: the id itself when such a session exists (archived ones
   * included), else the one id that starts with it (`2026-11-24-fix` for
   * `2026-11-24-fix-login`). Several such ids: `BAD_INPUT` listing them. None: `ref`
   * unchanged, so the caller's read reports `NOT_FOUND` as for any unknown id. Every
   * surface passes the ids it is given through here ({@link resolve}), so prefixes work
   * wherever an id does; the library does the same by calling `resolve(ref)`.
   */
  async expandId(ref: string): Promise<string> {
    validateId(ref);
    if (await this.store.exists(ref)) return ref;
    const matches = (await this.listRows({ all: true }))
      .map((r) => r.id)
      .filter((id) => id.startsWith(ref))
      .sort();
    if (matches.length === 1) return matches[0]!;
    if (matches.length > 1) {
      throw new BatonError(
        'BAD_INPUT',
        `Session ${JSON.stringify(ref)} is ambiguous: it matches ${matches.join(', ')}.`,
        {
          hint: 'Give more of the id, or the whole id.',
          details: { sessionId: ref, matches },
        },
      );
    }
    return ref;
  }

  /** Makes `ref` (an id or a unique prefix of one) the active session, pausing the one that was active. */
  async switchTo(ref: string, agent?: string | null): Promise<SessionState> {
    const id = await this.expandId(validateId(ref));
    return this.store.withWorkspaceLock(async () => {
      const target = await this.get(id);
      // Validate before pausing anything: the table says which statuses may become active.
      if (target.status !== 'active') decide.decideSession(target, 'resume');
      await this.pauseActiveFor(id, true, agent);
      let state = target;
      if (target.status !== 'active')
        state = (await this.simple(id, (s) => decide.decideSession(s, 'resume'), { agent })).state;
      await this.store.setActive(id);
      return state;
    });
  }

  /** Makes a paused, interrupted or failed session active again (and the workspace's active one). */
  async resume(id: string, agent?: string | null): Promise<SessionState> {
    const s = await this.get(id);
    if (s.status === 'active') {
      throw new BatonError('INVALID_TRANSITION', `Session ${id} is already active.`, { hint: 'Go on working in it.' });
    }
    return this.switchTo(id, agent);
  }

  /**
   * Applies a lifecycle verb; a session that ends stops being the workspace's active one.
   * `complete` refuses (`BLOCKED`) while a phase is neither completed nor skipped, unless
   * `force`, which records the phases left unfinished.
   */
  async lifecycle(
    id: string,
    action: Exclude<SessionAction, 'resume'>,
    detail: string | null = null,
    o: ChangeOptions & { force?: boolean } = {},
  ): Promise<SessionState> {
    const r = await this.simple(
      id,
      (s) => decide.decideSession(s, action, detail, 'user', { force: o.force === true }),
      o,
    );
    if (['completed', 'failed', 'abandoned'].includes(r.state.status)) await this.clearActiveIf(id);
    return r.state;
  }

  private async clearActiveIf(id: string): Promise<void> {
    await this.store.withWorkspaceLock(async () => {
      if ((await this.store.getActive()) === id) await this.store.setActive(null);
    });
  }

  /** Archives a session that is not running: records it, then moves it to the archive. */
  async archive(id: string, o: ChangeOptions & { force?: boolean } = {}): Promise<SessionState> {
    const current = await this.get(id);
    if (current.archived && !(await this.store.isArchived(id))) {
      // Recorded as archived, but the move did not happen (a crash in between): finish it.
      await this.store.archive(id);
      await this.clearActiveIf(id);
      return current;
    }
    const r = await this.simple(id, (s) => decide.decideArchive(s, { force: o.force === true }), o);
    await this.store.archive(id);
    await this.clearActiveIf(id);
    return r.state;
  }

  /** Pins a session: `cleanup` never archives or deletes it. */
  async pin(id: string, reason: string | null = null, o: ChangeOptions = {}): Promise<SessionState> {
    return (await retention.pin(this, id, true, reason, o)).state;
  }

  /** Unpins a session. */
  async unpin(id: string, reason: string | null = null, o: ChangeOptions = {}): Promise<SessionState> {
    return (await retention.pin(this, id, false, reason, o)).state;
  }

  /** Deletes a session that is not running and not pinned, leaving a tombstone (see retention.ts). */
  delete(id: string, o: ChangeOptions = {}): Promise<Tombstone> {
    return retention.deleteSession(this, validateId(id), o);
  }

  /** Archives or deletes old finished sessions (see retention.ts). */
  cleanup(o: CleanupOptions = {}): Promise<CleanupResult> {
    return retention.cleanup(this, o);
  }

  /** The deleted sessions (their tombstones), newest deletion first: `list --deleted`. */
  listDeleted(): Promise<Tombstone[]> {
    return retention.listDeleted(this);
  }

  /**
   * Registry rows, newest first, derived for sessions the cache lacks (and stored in the
   * cache, unless `persist: false`). Archived ones only with `all`. Rows stay JSON text until a field is needed (see {@link RowText}).
   */
  async listRows(filter: ListFilter = {}): Promise<RowText[]> {
    const opts = { rebuild: filter.rebuild === true, filter: storeFilter(filter, this.time()) };
    const r = this.store.listRows
      ? await this.store.listRows(opts)
      : await this.store
          .list(opts)
          .then((l) => ({ rows: l.summaries.map((s) => RowText.of(s)), missing: l.missing, repairs: l.repairs }));
    r.repairs.forEach(this.onRepair);
    const derived: SessionSummary[] = [];
    for (const id of r.missing) {
      try {
        derived.push(summarize(await this.get(id)));
      } catch (e) {
        if (!isBatonError(e)) throw e;
        this.onRepair({
          sessionId: id,
          kind: 'index_rebuilt',
          message: `Session ${id} could not be read for the registry: ${e.message}`,
          savedTo: null,
        });
      }
    }
    // A reader that must write nothing (the dashboard) derives the rows again next time.
    if (derived.length && filter.persist !== false) await this.store.putSummaries(derived);
    const now = this.time();
    const rows = [...r.rows, ...derived.map((s) => RowText.of(s))];
    const doubt = (row: RowText): boolean =>
      leaseLapsed(row, now) || (row.status === 'active' && this.runs.rowInDoubt(row.summary, now));
    if (filter.recheck !== false)
      for (let i = 0; i < rows.length; i++)
        if (doubt(rows[i]!)) [rows[i], this.rechecked] = [await this.recheck(rows[i]!, now), this.rechecked + 1];
    return rows
      .filter((row) => (filter.all ? true : !row.archived))
      .filter((row) => (filter.status ? row.status === filter.status : true))
      .filter((row) => (filter.workspace !== undefined ? row.summary.workspace === filter.workspace : true))
      .map((row) => ({ row, createdAt: row.createdAt, id: row.id }))
      .sort((a, b) => (a.createdAt < b.createdAt ? 1 : a.createdAt > b.createdAt ? -1 : a.id.localeCompare(b.id)))
      .map((x) => x.row);
  }

  /** Registry rows as a JSON array, one per line, as stored (see {@link listRows}); through the store's list view if any (list-json.ts). */
  async listJson(filter: ListFilter = {}): Promise<string> {
    return listJsonText(this.store, filter, this.time(), async () => {
      this.rechecked = 0;
      const rows = await this.listRows(filter);
      return { rows, rechecked: this.rechecked };
    });
  }

  /** Registry rows as objects (see {@link listRows}). */
  async list(filter: ListFilter = {}): Promise<SessionSummary[]> {
    return (await this.listRows(filter)).map((row) => row.summary);
  }

  /** Events after `since`; with `limit`, the first `limit` of them, read alone (a page). */
  async log(id: string, since = 0, limit?: number): Promise<StoredEvent[]> {
    validateId(id);
    return this.store.readEvents(id, since, limit);
  }

  /** Streams the store's changes until the returned function is called (see watch.ts `watchSessions`). */
  watch(o: WatchSessionsOptions): Promise<() => Promise<void>> {
    return watchSessions(this, o);
  }

  /** Rebuilds a damaged journal (see {@link SessionStore.repair}). */
  async repair(id: string): Promise<RepairReport[]> {
    validateId(id);
    // A store without the maintenance capability has nothing to rebuild: it only checks the id.
    if (!this.store.repair) {
      if (!(await this.store.exists(id))) throw notFound(id);
      return [];
    }
    return this.store.repair(id);
  }

  /**
   * The pricing table in effect: built-in prices with the pricing file's rows over them, read
   * once per manager. A malformed file is a `BAD_INPUT` naming it.
   */
  pricing(): PricingTable {
    this.pricingTable ??= loadPricing(this.pricingFile);
    return this.pricingTable;
  }

  /** The prompt-cache time to live resume estimates assume: `BATON_CACHE_TTL` of the manager's env (resume-cost.ts); malformed: `BAD_INPUT` naming it. */
  cacheTtl(): CacheTtl {
    return parseCacheTtl(this.env['BATON_CACHE_TTL']);
  }

  /**
   * A row whose recorded lease expiry has passed ({@link leaseLapsed}), checked against its
   * session (rows are not rewritten at each heartbeat): still renewed, it is shown with the
   * current expiry; lapsed, as interrupted (lease-expired).
   */
  private async recheck(row: RowText, _now: string): Promise<RowText> {
    const expires = row.leaseExpiresAt!;
    let s: SessionState;
    try {
      s = await this.get(row.id);
    } catch (e) {
      if (!isBatonError(e)) throw e;
      return RowText.of({
        ...row.summary,
        status: 'interrupted',
        cause: { cause: 'lease-expired', at: expires, detail: null },
      });
    }
    const eff = this.runs.status(s);
    return RowText.of({ ...summarize(s), status: eff.status, cause: eff.cause });
  }
}

/** An active row whose recorded lease expiry has passed by `now`. */
function leaseLapsed(row: RowText, now: string): boolean {
  if (row.status !== 'active') return false;
  const expires = row.leaseExpiresAt;
  return expires !== null && Date.parse(expires) <= Date.parse(now);
}
