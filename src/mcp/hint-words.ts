import type {
  BatonError,
  ErrorCode,
  EscalationChoice,
  Hint,
  HintAction,
  HintArgs,
  ResumePlan,
} from '../manager/index.js';

/*
 * A model calling tools can do nothing with `baton resume --apply` or `--force`, so each hint
 * action is worded here as the tool, resource or argument that does the same. An action no
 * tool can do (repairing a journal, cleanup, doctor, migrating a store) is worded as null and
 * gives way to the hint for the error's code, so no CLI wording ever reaches a tool caller.
 */

/** Tool arguments as named in a hint: the ones a CLI option of the same name stands for. */
/** The MCP argument of each token count the domain names. */
const TOKEN_ARGS: ReadonlyMap<string, string> = new Map([
  ['input', 'input'],
  ['output', 'output'],
  ['cached', 'cached'],
  ['cache-write', 'cacheWrite'],
]);

/** The repair advice: no tool repairs a journal, a person does. */
/** The tool that does each verb a toolkit's required step holds up (with `force: true` to go ahead). */
const TOOL_OF_VERB: Readonly<Record<string, string>> = {
  'phase-complete': 'phase_complete',
  complete: 'session_complete',
  archive: 'session_archive',
};

function askForRepair(session: string, lead = 'No'): string {
  return `${lead} tool repairs a damaged journal: ask a person to run the baton CLI's repair on session ${session} (it keeps the damaged lines aside and rebuilds the journal), or start a new session with \`session_start\`.`;
}

/** `file_record` calls that take the files into `phase` as they are now. */
function acceptWords(a: HintArgs['files.accept']): string {
  const calls = (['modified', 'deleted', 'created'] as const)
    .filter((action) => a[action].length)
    .map(
      (action) => `\`file_record\` with action "${action}", phase "${a.phase}" and paths ${JSON.stringify(a[action])}`,
    );
  return `Call ${calls.join(', then ')}.`;
}

/** No tool runs git: the commands, for whoever has a shell on the workspace. */
function restoreWords(a: HintArgs['files.restore-git']): string {
  const q = (ps: string[]): string => ps.map((p) => JSON.stringify(p)).join(' ');
  const parts = [
    ...(a.from ?? []).map(
      (f) => `run \`git restore --source=${f.commit} -- ${q(f.paths)}\` (a checkpoint's copy, as recorded)`,
    ),
    ...(a.checkout.length
      ? [`run \`git checkout -- ${q(a.checkout)}\` (check first that git holds what was recorded)`]
      : []),
    ...(a.remove.length ? [`delete ${q(a.remove)} again (recorded as deleted)`] : []),
  ];
  return `No tool does this: in the workspace, ${parts.join(', and ')}; or ask a person to.`;
}

/** How the MCP server words each hint action (null: no tool does it; the code's hint is used). */
export const TOOL_HINT_WORDS: { readonly [A in HintAction]: (a: HintArgs[A]) => string | null } = {
  'session.start-new': () => 'Start a new session with `session_start`.',
  'session.start-one': () => 'Start one with `session_start`.',
  'session.start-with-phases': () => 'This session has no phases; phases are given to `session_start` as `phases`.',
  'session.phases-list': () => 'Pass `phases` a,b,c.',
  'session.status': () => 'See `session_status`.',
  'session.reread': () => 'Re-read the session (`session_status`) and decide again.',
  'session.end-first': () => 'Complete, pause or abandon it first (`session_complete`).',
  'session.switch-or-end': () =>
    'Pass `switch: true` to pause it and go on, or call `session_pause` / `session_complete` first.',
  'session.name-one': (a) =>
    `Pass \`session\` with one of: ${a.sessions.join(', ')}${a.more ? ', …' : ''} (or \`session_switch\`).`,
  'session.list-all': () => 'Call `session_list` with `all: true` to see the sessions.',
  'session.list-all-see': () => 'See `session_list` with `all: true` for the sessions there are.',
  'session.other-id-or-switch': () => 'Pick another `id`, or continue that session with `session_switch`.',
  'session.unpin': () => null,
  'session.bmad-prefix': () => null,
  'session.complete-unfinished': (a) =>
    `Finish or skip them first (\`phase_complete\` / \`phase_skip\`), or call \`session_complete\` with \`force: true\` to complete it anyway, recording ${a.phases.join(', ')} as left unfinished.`,
  'toolkit.required-first': (a) =>
    a.verb === 'export'
      ? `Do ${a.steps.join(' and ')} in ${a.toolkit} first; going ahead anyway is a person's decision, outside this server.`
      : `Do ${a.steps.join(' and ')} in ${a.toolkit} first, or call \`${TOOL_OF_VERB[a.verb] ?? 'phase_complete'}\` with \`force: true\` to go ahead anyway (only when a person said so); the override is recorded.`,
  'tokens.name-agent': () => 'Pass `agent`.',
  'tokens.count': (a) =>
    TOKEN_ARGS.has(a.what) ? `Pass \`${TOKEN_ARGS.get(a.what)}\` as a non-negative integer, e.g. 1200.` : null,
  'phase.start': (a) => `Start it first: \`phase_start\` with phase ${a.phase}.`,
  'phase.finish-blockers': (a) => `Finish ${a.blockers.join(', ')} first, or pass \`force: true\` to start it anyway.`,
  'phase.escalate': (a) =>
    `Its retries are used up: ask the user, who decides.${a.active ? '' : ' Reopen the session first (`session_resume`), then:'} Retry it anyway (\`phase_retry\` with phase "${a.phase}" and force: true), skip it (\`phase_skip\` with phase "${a.phase}" and the user's reason), fail the session (\`session_fail\`) or abandon it (\`session_abandon\`), or change the plan (\`plan_set\` with phase "${a.phase}" and maxRetries ${a.maxRetries + 1} allows one more retry; \`plan_add\` and \`plan_remove\` add or remove phases).`,
  'phase.name-one': (a) => `Pass \`phase\` with one of: ${a.phases.join(', ')}.`,
  'milestone.add': () => 'Add one with `milestone_add`.',
  'plan.drop-dependency': (a) =>
    `Change their dependencies first: ${a.changes.map((c) => `\`plan_set\` with phase "${c.phase}" and blockedBy ${JSON.stringify(c.blockedBy)}`).join(', ')}.`,
  'resume.apply': () => 'Call `session_resume` to reopen it.',
  'resume.plan-then-apply': () => 'See `resume_plan`, then reopen it with `session_resume`.',
  'resume.from-options': () => 'Pass `from` as "live", "fresh" or "checkpoint:<id>" (see `checkpoint_list`).',
  'files.accept': acceptWords,
  'files.restore-git': restoreWords,
  'run.hold-lease': () => 'Go on working in it.',
  'lease.wait-or-force': () =>
    'Wait for that run to end or its lease to expire, or pass `force: true` to take it over.',
  'bundle.import-as': () => null,
  'bundle.not-a-bundle': () => null,
  'bundle.store-keeps-steps': () => null,
  'run.wait-or-force': () =>
    'Wait for it to end (`session_status` shows who works on what), or pass `force: true` to go ahead anyway.',
  'run.end-orphans': () =>
    'An orphaned command of a dead run still works in this tree: wait for it to exit, or ask a person to end its process group before taking over.',
  'phase.claim-free': (a) =>
    a.free.length
      ? `Claim a free one with \`phase_claim\` (free: ${a.free.join(', ')}).`
      : 'No phase is free now; `session_status` shows who works on what.',
  'lease.fenced': () =>
    'Another run took the session over after this one lost its lease. Stop writing; re-read the session with `session_status` and start a new run if needed.',
  'lease.use-run-token': () =>
    "This server's BATON_LEASE_TOKEN is not a lease of this session: stop writing to it and tell a person.",
  'lease.take-new': () => 'Its heartbeat stopped; take a new lease (`session_resume`).',
  'checkpoint.list': () => 'Call `checkpoint_list` to see its checkpoints.',
  'checkpoint.list-some': (a) => `Its checkpoints: ${a.checkpoints.join(', ')} (\`checkpoint_list\`).`,
  'checkpoint.take-first': () => 'It has none yet; take one with `checkpoint_create`.',
  'checkpoint.take-new': () => 'There is no valid checkpoint before it; take a new one with `checkpoint_create`.',
  'checkpoint.previous-valid': (a) =>
    `The previous valid checkpoint is ${a.checkpoint} ("${a.name}", revision ${a.revision ?? '?'}${a.superseded ? ', superseded' : ''}): \`checkpoint_restore\` with checkpoint ${a.checkpoint}.`,
  'checkpoint.inspect-log': () =>
    "The journal lost events after the checkpoint was taken; inspect it with the session's event log (resource baton://sessions/<id>/events) before restoring.",
  'restore.record-after-git': (a) =>
    `Fix the cause, then call \`checkpoint_restore\` with checkpoint ${a.checkpoint} to record the restore.`,
  'restore.without-git': (a) => `Call \`checkpoint_restore\` with checkpoint ${a.checkpoint}.`,
  'restore.commit-missing': (a) =>
    `It may have been garbage-collected or belong to another clone; call \`checkpoint_restore\` with checkpoint ${a.checkpoint}.`,
  'restore.untrack-store': () => null,
  'restore.dirty-tree': () =>
    'Commit or stash them (`git stash -u`), or pass `force: true` to discard them (baton keeps a copy of them under refs/baton/; untracked files the checkpoint does not hold stay).',
  'store.init': () => null,
  'store.init-or-dir': () => null,
  'store.url-kinds': () => null,
  'store.read-only': () => null,
  'repair.first': () => null,
  'repair.keeps-lines': (a) => askForRepair(a.session),
  'repair.rebuilds': (a) => askForRepair(a.session),
  'workspace.name': (a) =>
    `The workspace name comes from the server's BATON_WORKSPACE: ask a person to set it to 1 to ${a.max} printable characters, or to unset it for the host and project folder.`,
  'repair.run': (a) => askForRepair(a.session),
  'journal.events-lost': (a) =>
    `Acknowledged events of session ${a.session} are lost; no tool repairs this: ask a person to run the baton CLI's doctor (with its fix option) or to restore the journal from a backup, or start a new session with \`session_start\`.`,
  'journal.restore-backup': (a) =>
    `The journal of session ${a.session} is empty or missing; no tool repairs this: ask a person to restore it from a backup, or start a new session with \`session_start\`.`,
  'repair.empty-journal': (a) => `Its journal is empty or damaged; ${askForRepair(a.session, 'no')}`,
  'doctor.folder': () => null,
  'doctor.compare-folders': () => null,
  'cleanup.dry-run': () => null,
  'cleanup.statuses': () => null,
  'migrate.two-stores': () => null,
  'migrate.target-dir': () => null,
  'import.id-prefix': () => null,
  'mirror.set': () => null,
  'option.example': (a) => (/^\d/.test(a.value) ? `e.g. ${a.value}` : null),
  'option.age-examples': () => null,
  'budget.raise': (a) =>
    `Ask the user whether to spend more; if they agree, call \`budget_set\` with ${a.unit === 'tokens' ? `tokens ${a.suggested}` : `usd ${a.suggested}`}${a.scope === 'phase' ? ` and phase "${a.name}"` : a.scope === 'agent' ? ` and agent "${a.name}"` : ''} (reading tools still work).`,
};

/** Hints for a code, for a domain hint that cannot be reworded (and for NO_STORE, whose CLI advice does not apply). */
export const CODE_HINTS: Readonly<Record<ErrorCode, string>> = {
  BAD_INPUT: 'Fix the arguments as the message says and call the tool again.',
  NOT_FOUND: 'Check the name or id: `session_list`, `session_status` and `checkpoint_list` show what there is.',
  EXISTS: 'Pick another id.',
  CONFLICT: 'Re-read the session with `session_status` and decide again.',
  INVALID_TRANSITION: 'Read the session with `session_status` (or `resume_plan`) to see what may be done now.',
  RETRIES_EXHAUSTED:
    'Ask the user, who decides: retry anyway (`phase_retry` with force: true), skip it (`phase_skip`), fail or abandon the session (`session_fail` / `session_abandon`), or change the plan (`plan_set`, `plan_add`, `plan_remove`).',
  BLOCKED: 'Finish the blocking phases first, or pass `force: true` only if a person said so.',
  LOCKED:
    'Another process holds the session: retry shortly, or, if its run is gone, `session_resume` with `force: true` takes it over.',
  FENCED:
    "This server's run lost its lease on the session: stop writing to it, re-read it with `session_status` and tell a person.",
  CORRUPT:
    "The stored data is damaged and no tool repairs it: ask a person to run the baton CLI's repair, or start a new session with `session_start`.",
  NO_ACTIVE_SESSION: 'Pass `session`, or start one with `session_start` (`session_list` shows the sessions there are).',
  ACTIVE_EXISTS: 'Pass `switch: true`, or call `session_pause` or `session_complete` first.',
  NO_STORE:
    'No session has been started in this workspace yet: `session_start` creates the store along with the first session.',
  BUDGET_EXCEEDED:
    'A budget with policy stop is exceeded: reading tools still work; ask the user whether to raise it (`budget_set`).',
  STORE_UNAVAILABLE: 'Check permissions and free disk space, then call the tool again.',
  STORE_READ_ONLY:
    'The store can be read but not written (a read-only mount, or files of another user): reading tools still work; tell a person, who can make it writable.',
  UNSUPPORTED_VERSION: 'Upgrade baton (npm install -g baton-sessions@latest) and restart its MCP server.',
  EXPORT_FAILED: 'The telemetry collector did not take the spans; check that it is running, then try again.',
  INTERNAL: 'This is a bug in baton; report it with the tool call that caused it.',
};

/** Codes whose hint is replaced outright: its advice is about the CLI only. */
const REPLACED: ReadonlySet<ErrorCode> = new Set(['NO_STORE']);

/** True when `hint` names a CLI command (`` `baton …` ``) or option (`--name`): plain text from a layer that quotes the CLI. */
export function namesCli(hint: string): boolean {
  return /`baton[\s`]/.test(hint) || /(^|[^\w-])--[a-z]/.test(hint);
}

/** A hint action worded for a tool caller; null when no tool does it. */
export function toolWords(h: Hint): string | null {
  return (TOOL_HINT_WORDS[h.action] as (a: Hint['args']) => string | null)(h.args);
}

/**
 * The hint of `e` for a tool caller as given, before any fallback: the action's tool wording,
 * or the plain text when it names no CLI command or option. Null when it cannot be given to a
 * tool caller; undefined when the error has no hint.
 */
export function toolWording(e: Pick<BatonError, 'hint' | 'hintAction'>): string | null | undefined {
  if (e.hintAction) return toolWords(e.hintAction);
  if (!e.hint) return undefined;
  return namesCli(e.hint) ? null : e.hint;
}

/**
 * The hint of `e` worded for a tool caller: the tool, resource or argument that does what it
 * says. Never names the CLI: a hint no tool can follow gives way to the hint for its code.
 * Null when the error has no hint.
 */
export function toolHint(e: Pick<BatonError, 'code' | 'hint' | 'hintAction'>): string | null {
  if (REPLACED.has(e.code)) return CODE_HINTS[e.code];
  const worded = toolWording(e);
  if (worded === undefined) return null;
  return worded ?? CODE_HINTS[e.code];
}

/** The tools that make each escalation choice (the MCP `resume_plan` lists them as its `choices`). */
export const TOOL_ESCALATION_NAMES: { readonly [C in EscalationChoice]: readonly string[] } = {
  retry: ['phase_retry'],
  skip: ['phase_skip'],
  fail: ['session_fail'],
  abandon: ['session_abandon'],
  'change-plan': ['plan_set', 'plan_add', 'plan_remove'],
};

/**
 * A resume plan as tools return it: each escalation's `choices` are the tools that make them,
 * and its `hint` is worded with them. Anything else is as planned.
 */
export function toolResumePlan(plan: ResumePlan): Record<string, unknown> {
  const failed = plan.failed.map((f) =>
    f.escalation
      ? {
          ...f,
          escalation: {
            ...f.escalation,
            choices: f.escalation.choices.flatMap((c) => TOOL_ESCALATION_NAMES[c as EscalationChoice] ?? [c]),
            hint: toolWords(f.escalation.hint),
          },
        }
      : f,
  );
  return { ...plan, failed };
}
