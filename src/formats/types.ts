/**
 * The contract between baton and the readers/writers of the five foreign session layouts
 * (maestro, go-team, bmit, bmad, ccw; each described in docs/formats/<name>.md). An adapter reads a foreign
 * tree into {@link ForeignSession}s (leniently: damage is a {@link FormatProblem}, never a
 * throw) and writes a baton session back in the toolkit's own layout. The shared core
 * (`src/formats/import.ts`, `export.ts`, `detect.ts`) turns foreign sessions into journal
 * events and runs write plans; adapters never write files themselves.
 */
import type { SessionState, SessionStatus } from '../domain/state.js';
import type { ToolkitRules } from '../domain/toolkits/toolkit-rules.js';
import type { FormatProblem } from './problems.js';
import type { SafeDir } from './safe-dir.js';

/** The foreign layouts baton knows, by the name used on the command line. */
export const FORMAT_NAMES = ['maestro', 'go-team', 'bmit', 'bmad', 'ccw'] as const;
export type FormatName = (typeof FORMAT_NAMES)[number];

// The problem vocabulary lives in problems.ts (safe-dir.ts needs it without the adapter
// contract, which names SafeDir); re-exported here so `types.js` stays the one contract module.
export { PROBLEM_CODES } from './problems.js';
export type { FormatProblem, ProblemCode, ProblemSeverity } from './problems.js';
export type { ToolkitRules } from '../domain/toolkits/toolkit-rules.js';

/** Normalized status of a unit (phase, step, checkpoint) of a foreign session. */
export type UnitStatus = 'pending' | 'in_progress' | 'completed' | 'failed' | 'skipped' | 'blocked';

/** A file a unit touched, as the foreign file lists it. */
export interface ForeignFile {
  path: string;
  action: 'created' | 'modified' | 'deleted' | 'read';
  /**
   * The folder (relative to the inspected root, '' = the root) that the toolkit keeps `path`
   * relative to (bmit: `agent-output/{project}/`; CCW: the session folder); absent when the
   * path is relative to the project the toolkit works in. baton resolves the file there.
   */
  base?: string;
}

/** An error recorded by the foreign toolkit. */
export interface ForeignError {
  unitId: string | null;
  agent: string | null;
  time: string | null;
  /** e.g. validation, timeout, runtime; 'error' when the format has no type. */
  type: string;
  message: string;
  resolved: boolean;
  resolution: string | null;
}

/** A unit of work: Maestro phase, Go Team step, bmit step, CCW phase/checkpoint; BMAD has none. */
export interface ForeignUnit {
  /** The id as the format names it (stringified), valid as a baton phase id. */
  id: string;
  name: string;
  status: UnitStatus;
  /** The status exactly as the file holds it (null when absent). */
  rawStatus: string | null;
  /** Sub-step checkpoint reached inside the unit (bmit `sub_step`, CCW current agent…). */
  subStep: string | null;
  /** Retries used (Maestro `retry_count`), null when the format does not count them. */
  retries: number | null;
  agents: string[];
  blockedBy: string[];
  startedAt: string | null;
  completedAt: string | null;
  files: ForeignFile[];
  errors: ForeignError[];
  /** Every field of the unit that is not mapped above, verbatim (round-trip safety). */
  metadata: Record<string, unknown>;
}

/** Git state an option restores to, from what the toolkit recorded (Go Team: checkpoint `git`, recovery.json `git_state`). */
export interface OptionGit {
  /** Branch the option checks out. */
  branch: string | null;
  /** Commit the option resets to (`git reset --hard`), null when it does not reset. */
  resetTo: string | null;
  /** Uncommitted changes recorded when the session stopped: true/false, or null when unknown. */
  uncommittedChanges: boolean | null;
}

/** One way to recover an interrupted session, as the toolkit's rules define it. */
export interface RecoveryOption {
  /** 'rebuild': rebuild a damaged checkpoint from the git commit it recorded (Go Team `*cp-rebuild:N`). */
  kind: 'checkpoint' | 'live' | 'fresh' | 'rebuild';
  /** Checkpoint id / file the option restores from, when it has one. */
  target: string | null;
  description: string;
  /** What choosing it loses, in words. */
  loses: string;
  recommended: boolean;
  /** The git state the option goes to, when the toolkit recorded one; absent when none. */
  git?: OptionGit | null;
  /** What to check before choosing it (uncommitted changes that a reset would discard…). */
  warnings?: string[];
}

/** Where to resume under that toolkit's own rules. */
export interface ResumeAdvice {
  /** The unit to work on next; null when nothing is left (or resuming is refused). */
  unitId: string | null;
  action:
    | 'start'
    | 'continue'
    | 'restart'
    | 'retry'
    | 'escalate'
    | 'skip-to-substep'
    | 'review'
    | 'archive'
    | 'none'
    | 'refuse';
  /** Sub-step to skip to (bmit), or null. */
  subStep: string | null;
  /** Retry limit the toolkit applies to the unit (Maestro: 2), null when none applies. */
  retryLimit: number | null;
  retriesUsed: number | null;
  lastCompleted: string | null;
  /** The rule applied, in words (quoting the toolkit's rule). */
  reason: string;
  /** Recovery choices (Go Team: checkpoint / live / fresh); empty when the format has none. */
  options: RecoveryOption[];
  recommended: RecoveryOption['kind'] | null;
  /** Prerequisite warnings (a unit invoked while an earlier one is not done) and the like. */
  warnings: string[];
  /** Who chose `recommended`: the toolkit's own file ('toolkit'), its documented default ('default'); absent when nothing is recommended. */
  recommendedBy?: 'toolkit' | 'default' | null;
  /** Where baton's advice departs from the toolkit's recommendation, why; null when it follows it. */
  departure?: string | null;
  /** Choices the toolkit offers a person at this point (escalation: retry / skip / abort / adjust; a prerequisite warning: proceed / hand off). */
  choices?: string[];
  /** The next sub-step checkpoint after the resume point (bmit), null when none. */
  nextSubStep?: string | null;
}

export interface TokenCountsLike {
  input: number;
  output: number;
  cached: number;
}

/** Token usage as the foreign files hold it. */
export interface ForeignTokens extends TokenCountsLike {
  /** Per-agent breakdown; null when the format keeps none. */
  byAgent: Record<string, TokenCountsLike> | null;
  /** Per-unit breakdown; null when the format keeps none. */
  byUnit: Record<string, TokenCountsLike> | null;
  /** True when totals equal the per-agent sums; null when there is no breakdown. */
  agrees: boolean | null;
  /** Budget (BMAD `tokens.max`), null when none. */
  max: number | null;
  /** Dollar budget (Go Team `metrics.cost.budget`, which it only warns about); absent or null when none. */
  maxUsd?: number | null;
}

/** A checkpoint the toolkit keeps (Go Team cp-*.json). */
export interface ForeignCheckpoint {
  id: string;
  unitId: string | null;
  createdAt: string | null;
  /** Usable: readable, consistent with its manifest, not invalidated (an unverified checksum still counts). */
  valid: boolean;
  problem: string | null;
  /** The rollback that invalidated it (its id, or `rollback at <time>`), null when none did. */
  invalidatedBy?: string | null;
  /** True for the valid checkpoint of its step (the newest usable one of that step). */
  current?: boolean;
  /** ok (matches a canonical form), missing, mismatch (a digest matching none: damaged, not usable), unverified (no digest to check), null when unread. */
  checksum?: 'ok' | 'missing' | 'mismatch' | 'unverified' | null;
  /** Git state it records. */
  git?: { branch: string | null; commit: string | null } | null;
  /** Step name it records. */
  name?: string | null;
}

/** A file of a unit that may be half-written because the unit was in flight or failed when the session stopped. */
export interface HalfWrittenFiles {
  unitId: string;
  status: UnitStatus;
  files: string[];
}

/** A foreign session, read and normalized, with everything needed to import it. */
export interface ForeignSession {
  format: FormatName;
  /** The toolkit's own id of the session. */
  id: string;
  title: string;
  /** The session status exactly as stored (null when the format has none, e.g. bmit). */
  rawStatus: string | null;
  /** baton's reading of it. */
  status: SessionStatus;
  /** The toolkit treats it as the current/active session. */
  active: boolean;
  archived: boolean;
  /** Main file of the session, relative to the inspected root. */
  path: string;
  /** Every file read for this session (relative), e.g. registry, checkpoints. */
  sources: string[];
  createdAt: string | null;
  updatedAt: string | null;
  units: ForeignUnit[];
  /** Current position: unit in flight (or next), its sub-step and, where the toolkit tracks tasks (CCW `.task/`), the task in progress. */
  position: { unitId: string | null; subStep: string | null; task?: string | null };
  resume: ResumeAdvice;
  /** Unresolved errors, across units. */
  unresolvedErrors: ForeignError[];
  tokens: ForeignTokens | null;
  decisions: Array<{
    id: string | null;
    title: string;
    choice: string;
    rationale: string | null;
    alternatives: string[];
    agent: string | null;
    unitId: string | null;
    time: string | null;
  }>;
  findings: Array<{ text: string; severity: string | null; unitId: string | null; time: string | null }>;
  notes: Array<{ text: string; time: string | null; agent: string | null }>;
  milestones: Array<{ title: string; targetDate: string | null; doneAt: string | null }>;
  artifacts: Array<{
    path: string;
    kind: string | null;
    description: string | null;
    unitId: string | null;
    agent: string | null;
    time: string | null;
  }>;
  contextSummary: string | null;
  /** Checkpoints the toolkit keeps (Go Team cp-*.json), valid or not. */
  checkpoints: ForeignCheckpoint[];
  problems: FormatProblem[];
  /**
   * The parsed source documents, keyed by relative path, verbatim (unknown fields included):
   * the basis of a lossless export. Markdown bodies are kept as strings.
   */
  documents: Record<string, unknown>;
  /** sha256 (hex) over the source bytes, in `sources` order: re-import is a no-op when unchanged. */
  sourceHash: string;
  /**
   * The toolkit's resume rules as they apply to this session (recorded at import, so baton's own
   * resume plan follows them); absent when the adapter states none.
   */
  rules?: ToolkitRules;
  /** Layout variant facts (Maestro: frontmatter yaml/json, mode standard/express); absent when the format has none. */
  variant?: Record<string, string>;
  /** The position the file records beside the derived one (Maestro `current_phase`, bmit/CCW `current_step`/`current_phase`). */
  recordedPosition?: { field: string; value: unknown; agrees: boolean } | null;
  /** Files of units in flight or failed that may be half-written. */
  halfWritten?: HalfWrittenFiles[];
  /** Whether the toolkit allows archiving now, and why not. */
  archive?: { allowed: boolean; reasons: string[] } | null;
  /** The id's parts where the toolkit defines them (BMAD `{PREFIX}{YYYYMM}-{CLIENT}-{PROJECT}`). */
  idParts?: Record<string, string> | null;
  /** Fields the reader had to default (name → value assumed). */
  defaulted?: Record<string, unknown>;
  /** What "no active session" means for the toolkit's next command, when no session is active (CCW, BMAD). */
  noActive?: string | null;
}

/** Result of reading a tree. */
export interface InspectReport {
  format: FormatName;
  /** Absolute path inspected. */
  root: string;
  sessions: ForeignSession[];
  /** Problems of the tree as a whole (two active sessions, dangling pointer, unsafe paths…). */
  problems: FormatProblem[];
}

/** Files an adapter wants written by the core (atomically, inside the output folder). */
export interface WritePlan {
  writes: Array<{
    /** Relative to the output folder, '/'-separated. */
    path: string;
    content: string;
    /** Keep the previous content as `<path>.bak` first (bmit's rule). */
    backup: boolean;
  }>;
  /** Relative paths to remove after the writes (e.g. an active file moved to the archive). */
  removes: string[];
  /**
   * What the adapter had to change to write the session safely (e.g. an imported id that
   * would name a path outside the folder, replaced by one derived from the baton id), for the
   * export to report. Absent: nothing to report.
   */
  problems?: FormatProblem[];
}

/** What export hands an adapter. */
export interface ExportInput {
  state: SessionState;
  /**
   * The foreign documents the session was imported from (ForeignSession.documents), when it
   * was imported from this format; adapters merge onto them so unknown fields survive.
   */
  original: Record<string, unknown> | null;
  /** The foreign id to write under (the imported one, else derived from the baton id). */
  foreignId: string;
  now: Date;
  /**
   * Times baton made up at import because the foreign file had none (every event has a
   * time): `phase:<id>:startedAt`, `phase:<id>:completedAt`, `error:<id>`, `decision:<id>`,
   * `finding:<id>`, `note:<id>`, `artifact:<id>`. An exporter writes no time for these (see
   * `foreignTime` in import.ts). Absent or empty: every time is real.
   */
  untimed?: string[];
  /**
   * True when the session was imported from this format and baton changed none of its work
   * since (phases, records, tokens, lifecycle): the exporter writes the fields it would only
   * recompute (the position field, `updated`, legacy fields) back as they were.
   */
  unchangedSinceImport?: boolean;
}

/** One foreign layout. */
export interface FormatAdapter {
  readonly name: FormatName;
  /** One line for `--help` and reports. */
  readonly description: string;
  /** How sure the adapter is that `dir` holds its layout: 0 (no) … 1 (certain). Never throws. */
  detect(dir: SafeDir): Promise<number>;
  /** Reads every session under `dir` without modifying anything. Never throws on bad data. */
  inspect(dir: SafeDir, now: Date): Promise<InspectReport>;
  /**
   * Plans the files that put `input.state` in this layout under `out` (which may already
   * hold other sessions and a registry: read them through `out` and merge).
   */
  exportPlan(input: ExportInput, out: SafeDir): Promise<WritePlan>;
}
