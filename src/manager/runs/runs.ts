/**
 * `manager.runs`: runs (workers) on a session, as manager operations (src/domain/runs/runs.ts is
 * the model; docs/runs.md the behaviour). What only I/O can tell, whether a run's process
 * still exists on this machine, is checked here and handed to the pure code as
 * `Liveness.dead`; runs of other hosts are judged by their lapsing liveness alone.
 */
import type { EventDraft } from '../../domain/decide.js';
import { impliedPhase } from '../../domain/decide.js';
import {
  assertNoOtherLiveRun,
  decideDeaths,
  decidePhaseClaim,
  runLive,
  unrecordedDeaths,
  decideRunDeath,
  decideRunEnd,
  decideRunRenew,
  decideRunStart,
  findRun,
  liveRuns,
  recordPhase,
  runsOf,
} from '../../domain/runs/runs.js';
import type { Liveness, Run, RunEndInput, RunKind, Salvage } from '../../domain/runs/runs.js';
import { effectiveStatus } from '../../domain/runs/lease.js';
import { BatonError } from '../../domain/errors.js';
import { hint } from '../../domain/hints.js';
import type { Phase, SessionState, StatusCause } from '../../domain/state.js';
import type { SessionSummary } from '../../domain/summary.js';
import { groupAlive, processAlive } from './process-check.js';
import { clearOrphans, orphansOf } from './orphans.js';
import type { Orphan, OrphanOptions } from './orphans.js';
import { holdRun } from './run-hold.js';
import type { EndOf, HeldRun, HoldOptions, HoldOutcome } from './run-hold.js';
import type { ChangeOptions, ChangeResult, ManagerCore } from '../types.js';

/** Who starts a run (the process, host and boot id are this manager's unless given). */
export interface StartRunOptions {
  kind: RunKind;
  agent?: string | null;
  /** The run lapses this long after its last renewal; null: only a process check on its host ends it. */
  ttlMs: number | null;
  cli?: string | null;
  agentSessionId?: string | null;
  command?: string[] | null;
  /** The session lease the run holds (its fencing token). */
  token?: number | null;
  /** The process that proves the run alive, when not this one (a hook names its agent CLI's). */
  pid?: number;
  /** The process group of a command: the run lives while any process of it does. */
  pgid?: number | null;
  worktree?: string | null;
  /** A chosen id (idempotent start); default `run-<n>`. */
  runId?: string;
}

/** A phase started or retried in run `run` is that run's (`runId` on the event): its records that name no phase go to it. */
export function startedIn(drafts: EventDraft[], run: string | undefined): EventDraft[] {
  if (!run) return drafts;
  return drafts.map((d) =>
    d.type === 'phase.started' || d.type === 'phase.retried'
      ? ({ ...d, data: { ...d.data, runId: run } } as EventDraft)
      : d,
  );
}

/** Finds what a dead run left (its transcript's plan, its last tool calls); the hooks provide one for conversations. */
export type Salvager = (s: SessionState, run: Run) => Promise<Salvage | null>;

/** See the file comment. */
export class Runs {
  constructor(private readonly m: ManagerCore) {}

  /**
   * True when `r` ran on this machine and is known gone: its process (or, for a command,
   * its whole process group) no longer exists, or the machine rebooted since it started.
   * False when it may still run, and for runs of other hosts (their liveness lapses instead).
   */
  gone(r: Pick<Run, 'process'> & { ended?: Run['ended'] }): boolean {
    if (r.ended) return false;
    const { host, boot, pid } = this.m.origin;
    const p = r.process;
    if (p.host !== host) return false;
    if (p.boot && boot && p.boot !== boot) return true;
    if (p.pid === pid) return false;
    // The holder first: a group check reads every process's /proc stat (milliseconds), a pid check does not.
    if (processAlive(p.pid)) return false;
    return !(p.pgid && groupAlive(p.pgid));
  }

  /**
   * True when a registry row may report an active session that its runs no longer keep
   * active: one of its open runs is gone (this host) or every one has lapsed. `list` then reads
   * the session before reporting it.
   */
  rowInDoubt(row: SessionSummary, now: string): boolean {
    const refs = row.status === 'active' ? row.runs : undefined;
    if (!refs?.length) return false;
    if (refs.some((x) => this.gone({ process: x }))) return true;
    return refs.every((x) => x.expiresAt !== null && Date.parse(x.expiresAt) <= Date.parse(now));
  }

  /** What is known now: the time, the runs of this host found gone, and the orphans of dead `baton run`s here. */
  liveness(s: SessionState): Liveness {
    const dead = new Set(
      runsOf(s)
        .filter((r) => this.gone(r))
        .map((r) => r.id),
    );
    const orphans = new Map(orphansOf(s, this.m.origin).map((o) => [o.runId, o.pid]));
    return { now: this.m.time(), ...(dead.size ? { dead } : {}), ...(orphans.size ? { orphans } : {}) };
  }

  /** The status readers should report (an expired lease, all runs dead or lapsed: interrupted). */
  status(s: SessionState): { status: SessionState['status']; cause: StatusCause | null } {
    const l = this.liveness(s);
    return effectiveStatus(s, l.now, l.dead);
  }

  /** The runs live now. */
  live(s: SessionState): Run[] {
    return liveRuns(s, this.liveness(s));
  }

  /** Starts a run; the result is the run. A paused or interrupted session becomes active. */
  async start(sessionId: string, o: StartRunOptions): Promise<ChangeResult<Run>> {
    const m = this.m;
    const { pid, host, boot } = m.origin;
    let runId = o.runId ?? '';
    const r = await m.change(
      sessionId,
      (s) => {
        runId = o.runId ?? `run-${runsOf(s).length + 1}`;
        const events = decideRunStart(
          s,
          {
            runId,
            kind: o.kind,
            agent: o.agent ?? null,
            process: { pid: o.pid ?? pid, host, boot, ...(o.pgid ? { pgid: o.pgid } : {}) },
            ttlMs: o.ttlMs,
            now: m.time(),
            cli: o.cli ?? null,
            agentSessionId: o.agentSessionId ?? null,
            command: o.command ?? null,
            token: o.token ?? null,
            worktree: o.worktree ?? null,
          },
          this.liveness(s),
        );
        return { events, result: null as unknown as Run };
      },
      { agent: o.agent ?? null, ...(o.token ? { fencingToken: o.token } : {}) },
    );
    return { ...r, result: findRun(r.state, runId)! };
  }

  /** Renews a run's liveness (heartbeat); FENCED once it has ended or lapsed. */
  renew(sessionId: string, runId: string): Promise<ChangeResult<undefined>> {
    return this.m.change(
      sessionId,
      (s) => ({ events: decideRunRenew(s, runId, this.liveness(s)), result: undefined }),
      { run: runId },
    );
  }

  /** Ends a run by its own choice; the session is paused only when no other run is live. */
  end(
    sessionId: string,
    runId: string,
    e: RunEndInput,
    o: { agent?: string | null; fencingToken?: number } = {},
  ): Promise<ChangeResult<undefined>> {
    return this.m.change(
      sessionId,
      (s) => ({ events: decideRunEnd(s, runId, e, this.liveness(s)), result: undefined }),
      { ...o, run: runId },
    );
  }

  /** Records a run's death with what was salvaged (the session is interrupted when no other run is live). */
  died(
    sessionId: string,
    runId: string,
    cause: string,
    salvage: Salvage | null = null,
  ): Promise<ChangeResult<undefined>> {
    return this.m.change(sessionId, (s) => ({
      events: decideRunDeath(s, runId, cause, salvage, this.liveness(s)),
      result: undefined,
    }));
  }

  /**
   * An MCP connection holding run `runId` went away without ending it: the run ended
   * (`died`, cause `disconnected`); with work in flight and no other run live the session is
   * interrupted (without: paused), with cause `disconnected`. A no-op once the run ended.
   */
  async disconnected(sessionId: string, runId: string): Promise<ChangeResult<undefined>> {
    const agent = findRun(await this.m.get(sessionId), runId)?.agent ?? null;
    return this.m.change(
      sessionId,
      (s) => {
        // The session's cause is the disconnect itself (its detail then names the run, without a "disconnected: " prefix).
        const events = decideRunDeath(s, runId, 'disconnected', null, this.liveness(s)).map((e) =>
          e.type === 'session.interrupted' || e.type === 'session.paused'
            ? ({
                ...e,
                data: {
                  ...e.data,
                  cause: 'disconnected',
                  detail: String((e.data as { detail?: string }).detail ?? '').replace(/^disconnected: /, ''),
                },
              } as EventDraft)
            : e,
        );
        return { events, result: undefined };
      },
      { agent, run: runId },
    );
  }

  /**
   * Writes down the deaths readers already see (runs of this host whose process is gone,
   * lapsed runs), each with what `salvage` recovers; returns the runs recorded dead. A no-op
   * (no write) when there are none, so readers may call it freely on a writable store.
   */
  async sweep(sessionId: string, salvage: Salvager | null = null): Promise<Run[]> {
    const s = await this.m.get(sessionId);
    const gone = unrecordedDeaths(s, this.liveness(s));
    if (!gone.length) return [];
    const found = new Map<string, Salvage | null>();
    for (const r of gone) found.set(r.id, salvage ? await salvage(s, r).catch(() => null) : null);
    const r = await this.m.change(sessionId, (cur) => ({
      events: decideDeaths(cur, this.liveness(cur), found),
      result: undefined,
    }));
    return gone.filter((g) => findRun(r.state, g.id)?.ended?.how === 'died');
  }

  /**
   * Run `runId` takes a phase: `phase` names it, or null takes the first one free (pending
   * with its blockers done, or in progress under a dead run). LOCKED while a live run owns
   * it, naming the owner and the phases that are free.
   */
  async claimPhase(
    sessionId: string,
    runId: string,
    phase: string | null,
    o: ChangeOptions = {},
  ): Promise<ChangeResult<string>> {
    return this.m.change(
      sessionId,
      (s) => {
        const r = decidePhaseClaim(s, runId, phase, o.agent ?? null, this.liveness(s));
        return { events: r.events, result: r.phaseId };
      },
      { ...o, agent: o.agent ?? null, run: runId },
    );
  }

  /**
   * A phase claimed outside any run (`baton phase claim` at a terminal or in an agent's shell
   * tool, no BATON_RUN): the claim is made for a run of the calling process's parent (`pid`:
   * the shell or agent that ran the command), started with the claim in one append unless that
   * process already has an open run here. It lives while that process does (a process check
   * on this host; no TTL). Resolves with the phase and the run.
   */
  async claimForProcess(
    sessionId: string,
    phase: string | null,
    o: { pid: number; agent?: string | null; command?: string[] },
  ): Promise<ChangeResult<{ phase: string; runId: string; started: boolean }>> {
    const m = this.m;
    const { host, boot } = m.origin;
    return m.change(
      sessionId,
      (s) => {
        const l = this.liveness(s);
        const mine = runsOf(s).find(
          (r) => !r.ended && r.process.host === host && r.process.pid === o.pid && r.token === null && runLive(r, l),
        );
        const runId = mine?.id ?? `run-${runsOf(s).length + 1}`;
        const claim = decidePhaseClaim(s, runId, phase, o.agent ?? null, l);
        const start = mine
          ? []
          : decideRunStart(
              s,
              {
                runId,
                kind: 'command',
                agent: o.agent ?? null,
                process: { pid: o.pid, host, boot },
                ttlMs: null,
                now: m.time(),
                command: o.command ?? null,
              },
              l,
            );
        // The deaths the claim would write are written by the start already.
        const events = mine
          ? claim.events
          : [...start, ...claim.events.filter((e) => e.type === 'phase.started' || e.type === 'phase.claimed')];
        return { events, result: { phase: claim.phaseId, runId, started: !mine } };
      },
      { agent: o.agent ?? null },
    );
  }

  /** The phase a record naming none goes to, for run `runId` (or agent `agent` outside a run). */
  recordPhase(s: SessionState, runId: string | null, agent: string | null): Phase | null {
    return recordPhase(s, runId, agent, this.liveness(s));
  }

  /**
   * Runs `fn` as one run of session `sessionId` (kind `library`, or `command` for `baton
   * run`): takes the session lease (with `o.phase`: that phase's lease only, so holds on
   * other phases go on at once) and starts the run, renews both every heartbeat, and records
   * the end when `fn` settles (`finished`; after a throw the session is interrupted when no
   * other run is live), retried while the store is unreachable and never written twice.
   * Every write made with `h.options` (or `{ fencingToken: h.token, run: h.runId }`) is fenced:
   * once another run took over it is FENCED, and `h.signal` fires when the lease is lost.
   * Resolves with fn's value; rejects with fn's error, or FENCED when the lease was lost.
   * LOCKED before anything runs while another live run holds the lease (unless `force`) or an
   * orphan of a dead `baton run` still runs (unless `endOrphans`).
   */
  async hold<T>(sessionId: string, fn: (h: HeldRun) => Promise<T>, o: HoldOptions = {}): Promise<T> {
    const r = await holdRun(this.m, this, sessionId, fn, o);
    if (r.error !== undefined) throw r.error;
    if (r.lost !== null)
      throw new BatonError('FENCED', `Run ${r.runId} of session ${sessionId} lost its lease: ${r.lost}`, {
        hint: hint('lease.fenced'),
        details: { sessionId, runId: r.runId },
      });
    return r.value as T;
  }

  /** {@link hold}, resolving with what became of the run instead of throwing (how `baton run` reports it); `endOf` says how its end is recorded. */
  holdOutcome<T>(
    sessionId: string,
    fn: (h: HeldRun) => Promise<T>,
    o: HoldOptions = {},
    endOf?: EndOf<T>,
  ): Promise<HoldOutcome<T>> {
    return holdRun(this.m, this, sessionId, fn, o, endOf);
  }

  /** Orphans of the session on this host: commands of dead `baton run`s still running in their process group. */
  orphans(s: SessionState): Orphan[] {
    return orphansOf(s, this.m.origin);
  }

  /**
   * The sessions of `rows` held by an orphan here (`list`): id → the orphan's pid. Only rows
   * naming an open run of this host whose holder process is gone are read, so a list of
   * healthy sessions costs no load.
   */
  async orphansOfRows(rows: readonly SessionSummary[]): Promise<Map<string, number>> {
    const out = new Map<string, number>();
    for (const row of rows) {
      const here = row.runs?.some((x) => x.host === this.m.origin.host && !processAlive(x.pid));
      if (row.archived || !here) continue;
      const s = await this.m.get(row.id).catch(() => null);
      const o = s ? orphansOf(s, this.m.origin)[0] : undefined;
      if (o) out.set(row.id, o.pid);
    }
    return out;
  }

  /** Before a takeover: LOCKED naming each orphan's pid and command, unless `o.endOrphans` (then they are ended and gone). */
  clearOrphans(s: SessionState, o: OrphanOptions = {}): Promise<Orphan[]> {
    return clearOrphans(s, this.m.origin, o);
  }

  /** In run `runId`, the phase a file record naming none goes to ({@link recordPhase}); null outside a run (the caller decides). */
  phaseOfRun(s: SessionState, runId: string | undefined, agent: string | null): string | null {
    return runId ? (recordPhase(s, runId, agent, this.liveness(s))?.id ?? null) : null;
  }

  /**
   * The phase a record naming none defaults to (`tokens add`, `error add`): in run `runId`,
   * its phase (see {@link recordPhase}); outside a run, the only phase in progress, or the
   * agent's; BAD_INPUT naming the phases to choose from when several are in progress. Null
   * when none is.
   */
  defaultPhase(s: SessionState, runId: string | undefined, agent: string | null): string | null {
    return runId ? this.phaseOfRun(s, runId, agent) : impliedPhase(s, agent);
  }

  /**
   * Before a change that pauses the workspace's active session (`switch` to `target`, `start
   * --switch`): LOCKED, naming the holders, while a live run other than `runId` works on it,
   * unless `force`. Nothing to check when no session is active or it is `target` itself.
   */
  async assertActiveFree(target: string | null, runId: string | null, what: string, force = false): Promise<void> {
    if (force) return;
    const id = await this.m.store.getActive();
    if (!id || id === target) return;
    const s = await this.m.get(id).catch(() => null);
    if (s && s.status === 'active') this.assertNoOtherLiveRun(s, runId, what, force);
  }

  /** LOCKED when a live run other than `runId` works on the session (switch, pause, start --switch), unless `force`. */
  assertNoOtherLiveRun(s: SessionState, runId: string | null, what: string, force = false): void {
    assertNoOtherLiveRun(s, runId, what, this.liveness(s), force);
  }
}
