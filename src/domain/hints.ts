/**
 * Hints as data: the way out of a refusal named as an action and its arguments, never as a
 * surface's words. Each surface words every action its own way (the CLI as a `baton …`
 * command, the MCP server as a tool and its arguments: src/cli/hint-words.ts and
 * src/mcp/hint-words.ts), so the domain, the stores and the manager never quote a command
 * or an option. A hint that names no command stays plain text (`BatonError.hint`).
 */

/** The arguments of each hint action. Adding an action means wording it in every surface. */
export interface HintArgs {
  // Sessions
  'session.start-new': Record<string, never>;
  'session.start-one': Record<string, never>;
  'session.start-with-phases': Record<string, never>;
  'session.phases-list': Record<string, never>;
  'session.status': { session: string };
  'session.reread': Record<string, never>;
  'session.end-first': { session: string };
  'session.switch-or-end': Record<string, never>;
  'session.name-one': { sessions: string[]; more: boolean };
  'session.list-all': Record<string, never>;
  'session.list-all-see': Record<string, never>;
  'session.other-id-or-switch': Record<string, never>;
  'session.unpin': { session: string };
  'session.bmad-prefix': { prefixes: string[] };
  /** Finish or skip the unfinished phases, or complete anyway, recording them as left unfinished. */
  'session.complete-unfinished': { session: string; phases: string[] };
  /** The session's toolkit requires `steps` before `verb`: do them (then re-import), or go ahead with force, recorded. */
  'toolkit.required-first': {
    session: string;
    verb: 'phase-complete' | 'complete' | 'archive' | 'export';
    phase: string | null;
    toolkit: string;
    steps: string[];
  };
  'tokens.name-agent': Record<string, never>;
  /** Name the workspace with 1 to `max` printable characters, or leave it unset for the default. */
  'workspace.name': { max: number };
  // Phases and milestones
  'phase.start': { phase: string };
  'phase.finish-blockers': { blockers: string[] };
  /** The user's decision on a phase that used all its retries: retry anyway, skip it, fail or abandon the session, or change the plan. */
  'phase.escalate': {
    session: string;
    phase: string;
    maxRetries: number /** False: the session must be reopened first. */;
    active: boolean;
  };
  'phase.name-one': { phases: string[] };
  'milestone.add': Record<string, never>;
  /** Change the dependencies of the phases that depend on one to be removed: each phase with its dependencies without it. */
  'plan.drop-dependency': { session: string; changes: Array<{ phase: string; blockedBy: string[] }> };
  // Resume and leases
  'resume.apply': { session: string };
  'resume.plan-then-apply': { session: string };
  'resume.from-options': Record<string, never>;
  /** Record files as they are now, into `phase`: the paths that changed, vanished or reappeared. */
  'files.accept': { session: string; phase: string; modified: string[]; deleted: string[]; created: string[] };
  /**
   * Put files back as recorded, with git: take each group of `from` out of its commit (which
   * holds them as recorded), `checkout` the other changed and vanished ones (git may hold
   * them; unverified), `remove` the reappeared ones.
   */
  'files.restore-git': { checkout: string[]; remove: string[]; from?: Array<{ commit: string; paths: string[] }> };
  'run.hold-lease': Record<string, never>;
  'lease.wait-or-force': Record<string, never>;
  /** A bundle's session id exists here: import it under another id, or replace the existing session. */
  'bundle.import-as': { file: string };
  /** The file given to import is no bundle: give the one export wrote, or a toolkit's folder. */
  'bundle.not-a-bundle': Record<string, never>;
  /** The bundle holds large step results this store does not keep: import it into one that does. */
  'bundle.store-keeps-steps': Record<string, never>;
  /** Another run works on the session: wait for it (see who works on what), or force. */
  'run.wait-or-force': { session: string };
  /** An orphan of a dead `baton run` (process group `pgid`) still runs: wait for it, or have it ended first. */
  'run.end-orphans': { pids: number[] };
  /** A phase is owned by a live run: claim one of `free` instead (none: wait and look again). */
  'phase.claim-free': { session: string; free: string[] };
  'lease.fenced': Record<string, never>;
  'lease.use-run-token': Record<string, never>;
  'lease.take-new': Record<string, never>;
  // Checkpoints and restores
  'checkpoint.list': { session: string };
  'checkpoint.list-some': { checkpoints: string[] };
  'checkpoint.take-first': Record<string, never>;
  'checkpoint.take-new': Record<string, never>;
  'checkpoint.previous-valid': { checkpoint: string; name: string; revision: number | null; superseded: boolean };
  'checkpoint.inspect-log': Record<string, never>;
  'restore.record-after-git': { checkpoint: string; session: string };
  'restore.without-git': { checkpoint: string };
  'restore.commit-missing': { checkpoint: string };
  'restore.untrack-store': Record<string, never>;
  'restore.dirty-tree': Record<string, never>;
  // Store upkeep
  'store.init': Record<string, never>;
  'store.init-or-dir': Record<string, never>;
  'store.url-kinds': Record<string, never>;
  /** The store at `location` cannot be written (`reason`): reading works; a change needs it writable. */
  'store.read-only': { location: string; reason: string };
  'repair.first': { session: string };
  'repair.keeps-lines': { session: string };
  'repair.rebuilds': { session: string };
  'repair.run': { session: string };
  'repair.empty-journal': { session: string };
  'journal.events-lost': { session: string };
  'journal.restore-backup': { session: string };
  'doctor.folder': Record<string, never>;
  'doctor.compare-folders': Record<string, never>;
  'cleanup.dry-run': Record<string, never>;
  'cleanup.statuses': { statuses: string[] };
  'migrate.two-stores': Record<string, never>;
  'migrate.target-dir': Record<string, never>;
  // Foreign layouts
  'import.id-prefix': { moved: boolean };
  'mirror.set': { session: string };
  // An example value of an option (`e.g. --keep 10`); examples of an age (`what`: the option, as in the message).
  'option.example': { option: string; value: string };
  'option.age-examples': { what: string };
  'tokens.count': { what: 'input' | 'output' | 'cached' | 'cache-write' };
  /** Raise the exceeded budget (of the session, a phase or an agent) to `suggested` tokens or dollars, or change its policy. */
  'budget.raise': {
    session: string;
    scope: 'session' | 'phase' | 'agent';
    name: string | null;
    unit: 'tokens' | 'usd';
    suggested: number;
  };
}

/** The name of a hint action. */
export type HintAction = keyof HintArgs;

/** A hint as data: an action and its arguments. */
export type Hint = { [A in HintAction]: { action: A; args: HintArgs[A] } }[HintAction];

/** A hint for `action` with `args` (typed per action). */
export function hint<A extends HintAction>(
  action: A,
  ...args: HintArgs[A] extends Record<string, never> ? [] : [HintArgs[A]]
): Hint {
  return { action, args: args[0] ?? {} } as Hint;
}

/** True when `x` is a {@link Hint} (not a plain-text hint). */
export function isHint(x: unknown): x is Hint {
  return typeof x === 'object' && x !== null && typeof (x as { action?: unknown }).action === 'string';
}
