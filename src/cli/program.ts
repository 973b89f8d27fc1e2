import { type Command, Option } from 'commander';
import { BatonError } from '../manager/index.js';
import { scopeAt } from './command-scope.js';
import type { GlobalFlags } from './argv.js';
import type { GlobalOption } from './command-scope.js';
import type { CommonOptions } from './context.js';
import { Ctx } from './context.js';
import type { CliIO } from './io.js';

/** A command body: gets the context and the command's positional arguments and options. */
export type Action = (ctx: Ctx, args: string[], opts: Record<string, unknown>) => Promise<void>;

/** Attaches a body to a command (a bound `bind`), so per-command registrars need not carry io and holder. */
export type On = (cmd: Command, action: Action) => Command;

/** The heading the options every command shares are listed under in `--help`. */
export const GLOBAL_GROUP = 'Global options:';

/** The global options, as `baton [global options] <command>` and each command's help show them. */
const GLOBAL_HELP: ReadonlyArray<[GlobalOption, string, string]> = [
  ['session', '--session <id>', 'session to act on (default: $BATON_SESSION, else the active session)'],
  ['json', '--json', 'print machine-readable JSON on stdout'],
  ['dir', '--dir <path>', 'the .baton store directory (default: $BATON_DIR, else the nearest .baton upwards)'],
  [
    'store',
    '--store <url>',
    'store URL, e.g. postgres://user@host/db?schema=NAME (default: $BATON_STORE, else the file store)',
  ],
  ['agent', '--agent <name>', 'agent to attribute the change to (default: $BATON_AGENT)'],
  [
    'workspace',
    '--workspace <name>',
    'workspace on a shared store, with its own active session (default: $BATON_WORKSPACE, else this host and project folder)',
  ],
];

/** The command's path below `baton`, e.g. `phase start`. */
export function commandPath(cmd: Command): string {
  const names: string[] = [];
  for (let c: Command | null = cmd; c?.parent; c = c.parent) names.unshift(c.name());
  return names.join(' ');
}

/**
 * Adds --quiet and --verbose under the global heading, for help and completion: the CLI reads
 * them itself from argv (argv.ts takeGlobalFlags), so a plain run never builds them.
 */
export function quietVerbose(cmd: Command): Command {
  if (!cmd.options.some((o) => o.long === '--quiet'))
    cmd.addOption(
      new Option('-q, --quiet', 'print only data and errors: no confirmations, progress or notices').helpGroup(
        GLOBAL_GROUP,
      ),
    );
  if (!cmd.options.some((o) => o.long === '--verbose'))
    cmd.addOption(
      new Option('--verbose', 'say more on stderr: the store used, how long it took').helpGroup(GLOBAL_GROUP),
    );
  return cmd;
}

/**
 * Adds the global options this command is offered (the command table's `lacks`, through the
 * program's root: command-scope.ts); `json: false` leaves out --json, for a command whose
 * stdout is not its own to print on (`baton mcp`).
 */
export function common(cmd: Command, o: { json?: boolean } = {}): Command {
  const { lacks } = scopeAt(cmd, commandPath(cmd));
  for (const [name, flags, description] of GLOBAL_HELP) {
    if (name === 'json' && o.json === false) continue;
    if (!lacks.includes(name)) cmd.addOption(new Option(flags, description).helpGroup(GLOBAL_GROUP));
  }
  return cmd;
}

/** Declares the global options on the program itself, so they may come before the command. */
export function globalOptions(program: Command): Command {
  for (const [, flags, description] of GLOBAL_HELP)
    program.addOption(new Option(flags, description).helpGroup(GLOBAL_GROUP));
  return program;
}

/** Adds --if-revision to a command that changes a session. */
export function strict(cmd: Command): Command {
  return cmd.addOption(
    new Option('--if-revision <n>', 'apply only if the session is still at revision N (else CONFLICT)'),
  );
}

/**
 * The options of the command, with those given before it (`baton --session X status`) taken
 * as if given after it; one the command is not offered is refused, as it would be after it.
 */
export function mergedOptions(cmd: Command): Record<string, unknown> {
  const own = cmd.opts();
  const before: Record<string, unknown> = {};
  for (let c = cmd.parent; c; c = c.parent) Object.assign(before, c.opts(), before);
  const path = commandPath(cmd);
  for (const key of Object.keys(before)) {
    if (before[key] === undefined) continue;
    if (!cmd.options.some((o) => o.attributeName() === key)) {
      const flag = `--${key.replace(/[A-Z]/g, (m) => `-${m.toLowerCase()}`)}`;
      throw new BatonError('BAD_INPUT', `\`baton ${path}\` does not take ${flag}.`, {
        hint: `Run \`baton ${path} --help\` for its options.`,
      });
    }
  }
  return { ...before, ...Object.fromEntries(Object.entries(own).filter(([, v]) => v !== undefined)) };
}

/**
 * Wires a command body into commander: builds the context from the leaf's options (and the
 * global ones given before it) and hands it over; errors propagate to the one error boundary
 * in main.
 */
export function bind(
  io: CliIO,
  holder: { ctx: Ctx | null; flags?: GlobalFlags },
  action: Action,
): (...a: unknown[]) => Promise<void> {
  return async (...a: unknown[]) => {
    const cmd = a[a.length - 1] as Command;
    const opts = { ...mergedOptions(cmd), ...holder.flags };
    const positional = a
      .slice(0, -2)
      .flatMap((x) => (Array.isArray(x) ? x.map(String) : x === undefined ? [] : [String(x)]));
    const ctx = new Ctx(io, opts as CommonOptions, { printsData: scopeAt(cmd, commandPath(cmd)).printsData });
    holder.ctx = ctx;
    await action(ctx, positional, opts);
  };
}
