import type { BatonError, ErrorCode } from '../domain/errors.js';

/*
 * The domain writes its hints for a person at a terminal: `baton resume --apply`, `--force`.
 * A model calling tools can do nothing with those, and rewriting only the options produced
 * garble ("See `baton resume `session` s1`"). So a hint is reworded here, pattern by pattern,
 * into tool and argument names; whatever still names the CLI afterwards is replaced by a
 * hint for its error code, so no CLI wording ever reaches a tool caller.
 */

/** A rewrite: what to find in a domain hint, and the tool wording to put in its place. */
type Rule = [RegExp, string | ((...m: string[]) => string)];

/** `baton COMMAND ARGS` (as quoted in a hint) as the tool, resource or words that do the same; null: none does. */
function commandFor(command: string, rest: string): string | null {
  const args = rest.replace(/\s*--session \S+/g, '').trim();
  switch (command) {
    case 'init':
    case 'start':
      return '`session_start`';
    case 'status':
      return '`session_status`';
    case 'list':
      return /--all\b/.test(args) ? '`session_list` with `all: true`' : '`session_list`';
    case 'switch':
      return '`session_switch`';
    case 'pause':
      return '`session_pause`';
    case 'complete':
      return '`session_complete`';
    case 'resume':
      return /--apply\b/.test(args) ? '`session_resume`' : '`resume_plan`';
    case 'handoff':
      return '`handoff`';
    case 'checkpoints':
      return '`checkpoint_list`';
    case 'checkpoint':
      return '`checkpoint_create`';
    case 'restore': {
      const id = /^([^\s-][^\s]*)/.exec(args)?.[1];
      return id && !id.startsWith('<') ? `\`checkpoint_restore\` with checkpoint ${id}` : '`checkpoint_restore`';
    }
    case 'log':
      return "the session's event log (resource baton://sessions/<id>/events)";
    case 'phase': {
      const [verb, phase] = args.split(/\s+/);
      return verb ? `\`phase_${verb}\`${phase ? ` with phase ${phase}` : ''}` : null;
    }
    case 'milestone':
      return args.startsWith('done') ? '`milestone_done`' : '`milestone_add`';
    default:
      return null;
  }
}

/** CLI options as the tool arguments that do the same (`--if-revision` → `ifRevision`). */
const OPTION_ARGS: Readonly<Record<string, string>> = {
  force: '`force: true`',
  switch: '`switch: true`',
  all: '`all: true`',
  session: '`session`',
  agent: '`agent`',
  id: '`id`',
  phase: '`phase`',
  phases: '`phases`',
  from: '`from`',
  input: '`input`',
  output: '`output`',
  cached: '`cached`',
  'if-revision': '`ifRevision`',
};

/** Rewrites, in order; later ones see the result of earlier ones. */
const RULES: readonly Rule[] = [
  // Repairing a journal is a CLI-only, person-run operation: say so instead of naming it.
  [
    /\b([Rr])un `baton repair --session ([^`]+)`(?:[:;][^.]*)?\./g,
    (_m, r, id) => `${r === 'R' ? 'No' : 'no'} tool repairs a damaged journal: ask a person to run the baton CLI's repair on session ${id} (it keeps the damaged lines aside and rebuilds the journal), or start a new session with \`session_start\`.`,
  ],
  [/Use the token `baton run` put in BATON_LEASE_TOKEN\./g, "This server's BATON_LEASE_TOKEN is not a lease of this session: stop writing to it and tell a person."],
  [/Use --from live, --from fresh or --from checkpoint:<id>/g, 'Pass `from` as "live", "fresh" or "checkpoint:<id>"'],
  [/start one with --phases/g, 'phases are given to `session_start` as `phases`'],
  [/e\.g\. --([a-z-]+) (\d+)/g, 'e.g. $2'],
  // `baton run` keeps a lease while a command runs; a tool caller has no such command.
  [/\s*\(`baton run -- [^`]*` [^)]*\)/g, ''],
  [/`baton run` or /g, ''],
  [/\s*\(?\bwithout --git\)?/g, ''],
  [/\bPass --agent NAME \(or set BATON_AGENT\)/g, 'Pass `agent`'],
  [/\b([Rr])un (`baton [^`]+`)/g, (_m, r, command) => `${r === 'R' ? 'Call' : 'call'} ${command}`],
  [/`baton ([a-z-]+)((?: [^`]*)?)`/g, (m, command, rest) => commandFor(command, rest) ?? m],
  // Options outside quoted commands only: `git rm --cached` is not the tool argument `cached`.
  [/(`[^`]*`)|--([a-z][a-z-]*)(?: NAME)?\b/g, (m, quoted, option) => quoted ?? OPTION_ARGS[option] ?? m],
];

/** Hints for a code, for a domain hint that cannot be reworded (and for NO_STORE, whose CLI advice does not apply). */
export const CODE_HINTS: Readonly<Record<ErrorCode, string>> = {
  BAD_INPUT: 'Fix the arguments as the message says and call the tool again.',
  NOT_FOUND: 'Check the name or id: `session_list`, `session_status` and `checkpoint_list` show what there is.',
  EXISTS: 'Pick another id.',
  CONFLICT: 'Re-read the session with `session_status` and decide again.',
  INVALID_TRANSITION: 'Read the session with `session_status` (or `resume_plan`) to see what may be done now.',
  RETRIES_EXHAUSTED: 'Escalate: ask a person, skip the phase with `phase_skip`, or pass `force: true` only if a person said so.',
  BLOCKED: 'Finish the blocking phases first, or pass `force: true` only if a person said so.',
  LOCKED: 'Another process holds the session: retry shortly, or, if its run is gone, `session_resume` with `force: true` takes it over.',
  FENCED: "This server's run lost its lease on the session: stop writing to it, re-read it with `session_status` and tell a person.",
  CORRUPT: "The stored data is damaged and no tool repairs it: ask a person to run the baton CLI's repair, or start a new session with `session_start`.",
  NO_ACTIVE_SESSION: 'Pass `session`, or start one with `session_start` (`session_list` shows the sessions there are).',
  ACTIVE_EXISTS: 'Pass `switch: true`, or call `session_pause` or `session_complete` first.',
  NO_STORE: 'No session has been started in this workspace yet: `session_start` creates the store along with the first session.',
  STORE_UNAVAILABLE: 'Check permissions and free disk space, then call the tool again.',
  UNSUPPORTED_VERSION: 'Upgrade baton (npm install -g baton@latest) and restart its MCP server.',
  INTERNAL: 'This is a bug in baton; report it with the tool call that caused it.',
};

/** Codes whose domain hint is replaced outright: its advice is about the CLI only. */
const REPLACED: ReadonlySet<ErrorCode> = new Set(['NO_STORE']);

/** True when `hint` still names a CLI command (`` `baton …` ``) or option (`--name`). */
export function namesCli(hint: string): boolean {
  return /`baton[\s`]/.test(hint) || /(^|[^\w-])--[a-z]/.test(hint);
}

/**
 * The hint of `e` worded for a tool caller: CLI commands become the tools that do the same,
 * CLI options their arguments. Never names the CLI: a hint that cannot be reworded gives way
 * to the hint for its code. Null when the error has no hint.
 */
export function toolHint(e: Pick<BatonError, 'code' | 'hint'>): string | null {
  if (REPLACED.has(e.code)) return CODE_HINTS[e.code];
  if (!e.hint) return null;
  const worded = RULES.reduce((h, [re, to]) => h.replace(re, to as never), e.hint);
  return namesCli(worded) ? CODE_HINTS[e.code] : worded;
}
