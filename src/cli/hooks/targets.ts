import path from 'node:path';

/** The agent CLIs baton installs hooks into. */
export const HOOK_CLIS = ['claude', 'codex', 'gemini'] as const;
/** One of {@link HOOK_CLIS}. */
export type HookCli = (typeof HOOK_CLIS)[number];

/** Where a CLI's config lives: in the project (committed with it) or the user's config home. */
export const HOOK_SCOPES = ['project', 'user'] as const;
/** One of {@link HOOK_SCOPES}. */
export type HookScope = (typeof HOOK_SCOPES)[number];

/** What baton needs to know of one CLI's hook configuration. */
export interface HookTarget {
  cli: HookCli;
  /** Human name of the CLI. */
  title: string;
  /** The events baton installs, in the order written (the contract in docs/hooks.md). */
  events: readonly string[];
  /** Events whose entries take a tool-name matcher; baton's matches every tool ("*"). */
  toolEvents: readonly string[];
  /** The timeout written on each entry, in the unit the CLI reads (seconds, or ms for Gemini). */
  timeout: number;
  /** Events whose timeout the CLI caps lower: written at the cap, so the CLI has nothing to warn about. */
  timeoutCaps?: Readonly<Record<string, number>>;
  /** True when the CLI reads the file as JSON with comments. */
  comments: boolean;
  /** The environment variable that moves the CLI's user config home, and its default under $HOME. */
  homeVar: string;
  homeDefault: string;
  /** The config file, relative to the project root or to the config home. */
  projectFile: string;
  userFile: string;
}

/**
 * The three CLIs. Claude Code and Codex read strict JSON (a comment makes them drop the whole
 * file); Gemini CLI strips comments from its settings before parsing them.
 */
export const HOOK_TARGETS: Readonly<Record<HookCli, HookTarget>> = {
  claude: {
    cli: 'claude',
    title: 'Claude Code',
    events: [
      'SessionStart',
      'UserPromptSubmit',
      'PreToolUse',
      'PostToolUse',
      'PostToolUseFailure',
      'Stop',
      'SubagentStart',
      'SubagentStop',
      'PreCompact',
      'SessionEnd',
    ],
    toolEvents: ['PreToolUse', 'PostToolUse', 'PostToolUseFailure'],
    timeout: 30,
    comments: false,
    homeVar: 'CLAUDE_CONFIG_DIR',
    homeDefault: '.claude',
    projectFile: path.join('.claude', 'settings.json'),
    userFile: 'settings.json',
  },
  codex: {
    cli: 'codex',
    title: 'Codex CLI',
    events: [
      'SessionStart',
      'UserPromptSubmit',
      'PreToolUse',
      'PostToolUse',
      'Stop',
      'SubagentStart',
      'SubagentStop',
      'PreCompact',
      'SessionEnd',
    ],
    toolEvents: ['PreToolUse', 'PostToolUse'],
    timeout: 30,
    // Codex waits at most 3 s for SessionEnd and says so on stderr for a longer timeout.
    timeoutCaps: { SessionEnd: 3 },
    comments: false,
    homeVar: 'CODEX_HOME',
    homeDefault: '.codex',
    projectFile: path.join('.codex', 'hooks.json'),
    userFile: 'hooks.json',
  },
  gemini: {
    cli: 'gemini',
    title: 'Gemini CLI',
    events: ['SessionStart', 'SessionEnd', 'BeforeTool', 'AfterTool', 'AfterAgent', 'PreCompress'],
    toolEvents: ['BeforeTool', 'AfterTool'],
    timeout: 30_000,
    comments: true,
    // GEMINI_CLI_HOME stands in for the home folder: settings are under <it>/.gemini/.
    homeVar: 'GEMINI_CLI_HOME',
    homeDefault: '',
    projectFile: path.join('.gemini', 'settings.json'),
    userFile: path.join('.gemini', 'settings.json'),
  },
};

/** Where to look: the project root and the environment the CLI would see. */
export interface Place {
  cwd: string;
  env: Readonly<Record<string, string | undefined>>;
  home: string;
}

/** The CLI's user config home (honouring CLAUDE_CONFIG_DIR, CODEX_HOME, GEMINI_CLI_HOME). */
export function configHome(t: HookTarget, p: Place): string {
  const set = p.env[t.homeVar];
  return set ? path.resolve(p.cwd, set) : path.join(p.home, t.homeDefault);
}

/** The absolute path of the CLI's hook config file in a scope. */
export function configFile(t: HookTarget, scope: HookScope, p: Place): string {
  return scope === 'project' ? path.join(p.cwd, t.projectFile) : path.join(configHome(t, p), t.userFile);
}

/** True when `s` names a CLI baton installs hooks into. */
export function isHookCli(s: string): s is HookCli {
  return (HOOK_CLIS as readonly string[]).includes(s);
}
