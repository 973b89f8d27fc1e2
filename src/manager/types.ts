/**
 * The manager as its helpers see it (checkpoints, retention, leases, claims, formats, derived
 * files…): the types of a change and {@link ManagerCore}, the part of SessionManager they call.
 * Helpers import this file, never manager.ts, so manager.ts can hold them as sub-objects
 * without an import cycle.
 */
import type { BudgetSetInput } from '../domain/spend/budget-policy.js';
import type { PricingTable } from '../domain/spend/pricing.js';
import type { CacheTtl } from '../domain/spend/resume-cost.js';
import type { PhaseSpec } from '../domain/events.js';
import type { BmadIdOptions, IdFormat } from '../domain/ids.js';
import type { EventDraft } from '../domain/decide.js';
import type { Actor, NewEvent, StoredEvent } from '../domain/events.js';
import type { MeasuredFile } from '../domain/decide.js';
import type { Hint } from '../domain/hints.js';
import type { CheckpointInfo, GitCopy } from '../domain/resume/resume-plan-types.js';
import type { SettingValues } from '../domain/settings.js';
import type { SessionState, SessionStatus } from '../domain/state.js';
import type { SessionSummary } from '../domain/summary.js';
import type { RepairReport, SessionStore } from '../store/types.js';
import type { Workspace } from './workspace.js';
import type { HookProblems } from './agents/hook-log.js';

/** A draft that may carry its own time and actor (events imported from a foreign file). */
export type TimedDraft = EventDraft & { time?: string; actor?: Actor };

/** Snapshot every this many events by default: bounds the tail replayed on load. */
export const DEFAULT_SNAPSHOT_EVERY = 200;

/** What the manager needs from the outside world; every field has a real default. */
export interface ManagerOptions {
  store: SessionStore;
  now?: () => Date;
  randomBytes?: (n: number) => Uint8Array;
  /** Agent name attributed to events when a call names none. */
  agent?: string | null;
  pid?: number;
  host?: string;
  /** This machine's boot id, written with each lease (default: read from /proc/sys/kernel/random/boot_id; null where unknown). */
  bootId?: string | null;
  snapshotEvery?: number;
  /** Measures a file for the manifest (sha256, size); null when it cannot be read. */
  measure?: (path: string) => MeasuredFile;
  /** Receives repairs the store made while reading (torn tails, corrupt snapshots…). */
  onRepair?: (r: RepairReport) => void;
  /** Told about every change once it is durable (e.g. to refresh a handoff file or a mirror), with the state after it. */
  onChanged?: (id: string, events: readonly StoredEvent[], state: SessionState) => void;
  /** Where checkpoints hash recorded files and ask git; none: no git info, files unmeasured. */
  workspace?: Workspace | null;
  /** Take a checkpoint whenever a phase completes (default true; a session can opt out). */
  autoCheckpoint?: boolean;
  /** Receives problems that did not stop the call (an automatic checkpoint not taken, a derived file not written). */
  onWarning?: (message: string) => void;
  /** Which files derived from a session the manager keeps current, and when (default: all, after every change). */
  derivedFiles?: DerivedFilesOptions;
  /** Where the hook log's fallback folder is found (HOME, XDG_STATE_HOME), and BATON_CACHE_TTL (resume estimates); default none. */
  env?: Readonly<Record<string, string | undefined>>;
  /** The pricing override file (a file store's `.baton/pricing.json`, or `BATON_PRICING`); none: built-in prices only. */
  pricingFile?: string | null;
}

/** When and which derived files the manager refreshes (ManagerOptions.derivedFiles). */
export interface DerivedFilesOptions {
  /** Keep each changed session's `handoff.md` current (default true; the CLI: BATON_HANDOFF=off turns it off). */
  handoff?: boolean;
  /** Rewrite the mirrored files of changed sessions that have a mirror (default true). */
  mirrors?: boolean;
  /**
   * `change` (default): right after changes are acknowledged, once per burst (off the
   * acknowledgement path: an update costs its append); `await manager.derivedFiles.settled()`
   * (or `manager.close()`) waits for it, e.g. before closing the store. `flush`:
   * only when `manager.derivedFiles.flush()` is called, so a caller that makes several changes
   * (a CLI command, an MCP call) rewrites each file once, at its end.
   */
  refresh?: 'change' | 'flush';
  /** Folder relative paths resolve against when mirrors are written (default: process.cwd()). */
  cwd?: string;
  /**
   * Words a hint given as an action (a failed mirror rewrite's `hintAction`) in the warnings
   * this reports; the surface's wording (the CLI: `cliWords`). None: such a warning has no hint line.
   */
  hintWords?: (h: Hint) => string | null;
}

/** Per-call options of a change. */
export interface ChangeOptions {
  agent?: string | null;
  /** Strict compare-and-set: fail with CONFLICT unless the session is at this revision. */
  expectedRevision?: number;
  /** Fencing token of the lease this writer holds (`BATON_LEASE_TOKEN`); an outdated one is FENCED. */
  fencingToken?: number;
  /** The run this change is made in (`BATON_RUN`): written in each event's actor, and records that name no phase go to its phase. */
  run?: string;
}

/** Result of a change. */
export interface ChangeResult<R = undefined> {
  state: SessionState;
  events: StoredEvent[];
  result: R;
}

/** What SessionManager offers its helpers; see SessionManager for each member's contract. */
export interface ManagerCore {
  readonly store: SessionStore;
  readonly workspace: Workspace | null;
  readonly origin: { pid: number; host: string; boot: string | null };
  readonly checkpoints: {
    list(sessionId: string): Promise<CheckpointInfo[]>;
    listOf(state: SessionState): Promise<CheckpointInfo[]>;
    restore(
      sessionId: string,
      checkpointId: string,
      o?: { git?: boolean; force?: boolean; agent?: string | null },
    ): Promise<unknown>;
    gitCopies(sessionId: string): Promise<GitCopy[]>;
  };
  time(): string;
  syncClock(read: () => Promise<Date>): Promise<number>;
  get(id: string): Promise<SessionState>;
  log(id: string, since?: number): Promise<StoredEvent[]>;
  change<R>(
    id: string,
    fn: (s: SessionState) => { events: TimedDraft[]; result: R },
    o?: ChangeOptions,
  ): Promise<ChangeResult<R>>;
  setSettings(
    id: string,
    values: Partial<SettingValues> | ((s: SessionState) => Partial<SettingValues>),
    o?: ChangeOptions,
  ): Promise<ChangeResult<undefined>>;
  createFrom(id: string, events: NewEvent[]): Promise<SessionState>;
  archive(id: string, o?: ChangeOptions & { force?: boolean }): Promise<SessionState>;
  resume(id: string, agent?: string | null): Promise<SessionState>;
  list(filter?: {
    status?: SessionStatus;
    all?: boolean;
    rebuild?: boolean;
    workspace?: string;
    claimable?: boolean;
    recheck?: boolean;
    persist?: boolean;
  }): Promise<SessionSummary[]>;
  /** The pricing table in effect (built-in prices and the pricing file). */
  pricing(): PricingTable;
  /** The prompt-cache time to live resume estimates assume (`BATON_CACHE_TTL`). */
  cacheTtl(): CacheTtl;
  /** The hook log of agent CLI hooks (see agent-hooks.ts). */
  readonly hooks: { readonly dir: string; problems(): HookProblems };
  /** Runs (runs.ts): readers judge liveness with it (runs of this host whose process is gone). */
  readonly runs?: { liveness(s: SessionState): { now: string; dead?: ReadonlySet<string> } };
}

/** Input of {@link SessionManager.start}. */
export interface StartInput {
  title: string;
  id?: string;
  idFormat?: IdFormat;
  bmad?: BmadIdOptions;
  phases?: PhaseSpec[];
  /** Token budget; numeric strings from the CLI are accepted and checked. */
  budget?: number | string | null;
  /**
   * More budgets, set with the session (a plan file's, see `readPlanFile`): each one a
   * `budget.set` in the session's first commit, checked as `budgets.set` checks it.
   */
  budgets?: readonly BudgetSetInput[];
  contextSummary?: string | null;
  metadata?: Record<string, unknown>;
  /** Pause the active session instead of refusing with ACTIVE_EXISTS. */
  switch?: boolean;
  agent?: string | null;
}
