/**
 * What a reader reports instead of throwing: the severities, the stable problem codes shared by
 * every adapter, and the problem record. Kept apart from the adapter contract (types.ts) so the
 * safe folder access (safe-dir.ts) can report problems without importing the contract that
 * names it.
 */
import type { Hint } from '../domain/hints.js';

export type ProblemSeverity = 'error' | 'warning' | 'info';

/** How a reader reports one problem of what it reads (it fills in the session id and file). */
export type ProblemReport = (
  code: string,
  sev: ProblemSeverity,
  msg: string,
  hint: string | null,
  details?: Record<string, unknown>,
) => void;

/**
 * Stable problem codes shared by every adapter, so tools and tests can rely on them. An
 * adapter may add a format-specific code (kebab-free UPPER_SNAKE) when none of these fits.
 */
export const PROBLEM_CODES = {
  UNSAFE_PATH: 'a path with "..", an absolute path or a link leading outside the inspected folder; not followed',
  CORRUPT_FILE: 'a file that cannot be parsed (details.backup names a usable backup, if any)',
  EMPTY_FILE: 'a zero-byte file where a document was expected',
  UNREADABLE: 'a file or folder baton may not read (permission denied); its content is unknown, not damaged',
  MISSING_FILE: 'a file the layout or a registry/manifest names is not there',
  TRUNCATED_LINE: 'a JSONL line that does not parse (typically a torn last line); skipped',
  MISSING_FIELD: 'a required field is absent; a default was assumed (details.field, details.assumed)',
  BAD_VALUE: "a field has a value outside the format's enum or type; kept verbatim",
  LEGACY_FIELD: 'a field name of an older version of the format (details.field, details.current)',
  NEEDS_MIGRATION: 'a schema version older than the current one (details.from, details.to)',
  TWO_ACTIVE: 'more than one session claims to be the active one',
  DANGLING_ACTIVE: 'the active pointer names a session that does not exist',
  ARCHIVE_COPIED: 'a session is both live and archived (copied instead of moved)',
  STALE_ACTIVE: "a session says active but its heartbeat/updated time is older than the toolkit's limit",
  CORRUPT_CHECKPOINT: 'a checkpoint whose checksum or shape is wrong (details.fallback names the valid one to use)',
  TOKENS_DISAGREE: 'token totals differ from the sum of the per-agent breakdown',
  REGISTRY_MISMATCH: 'the registry and the session file disagree (status, step…); the session file wins',
  ORPHAN_SESSION: 'a session folder/file that the registry does not list',
  STALE_COMPANION: 'a human companion (handoff.md, log) disagrees with the machine file, which wins',
  STALE_STATE:
    'a live state file saved before what the toolkit wrote after it (a rollback, a newer manifest/registry): the newer files win',
  PREREQUISITE: 'a unit started or completed while an earlier one it needs is not done',
  CHECKSUM_UNVERIFIED:
    'a checksum that is no sha256 digest (a placeholder): usable, but unverified (a digest matching no canonical form is CORRUPT_CHECKPOINT)',
  INVALIDATED_CHECKPOINT:
    'a checkpoint a recorded rollback invalidated (details.rollback names it); the valid checkpoint of its step is named',
  ARCHIVE_BLOCKED: 'the toolkit does not allow archiving the session yet (details.reasons)',
  ORPHANED_AGENT: 'an agent marked running in a context that is closed or gone: reported, never restarted silently',
  AHEAD_OF_POSITION:
    'the recorded position points past the real one (a later unit was invoked while an earlier one is in progress)',
  PROGRESS_MAY_BE_LOST:
    "a damaged file's readable part is newer than its backup: restoring the backup loses the progress in between",
  OUTPUT_WITHOUT_STATE: "a unit's output file exists but the state file does not record it",
  STATUS_NORMALISED:
    "a status outside the toolkit's set, read as the documented equivalent (details.raw, details.read)",
  EMPTY_BACKUP: 'a backup file that is empty: nothing to restore from it',
  UNKNOWN_FORMAT: 'nothing in the folder matches the requested or any known format',
  NOT_REPRESENTED:
    'export only: something the session holds that the layout has no place for; left out or written as the message says',
} as const;
export type ProblemCode = keyof typeof PROBLEM_CODES | (string & {});

/** Something wrong or noteworthy found while reading. Never thrown. */
export interface FormatProblem {
  code: ProblemCode;
  severity: ProblemSeverity;
  /** Foreign session id the problem belongs to, or null for the whole tree. */
  sessionId: string | null;
  /** File concerned, relative to the inspected root, '/'-separated; null when none. */
  path: string | null;
  /** What is wrong, naming the object. */
  message: string;
  /** The way out (what baton or the user should do) as plain text; null when there is none or it is {@link hintAction}. */
  hint: string | null;
  /** The way out as an action (a baton error's `hintAction`), which each surface words; absent when `hint` says it. */
  hintAction?: Hint;
  details?: Record<string, unknown>;
}
