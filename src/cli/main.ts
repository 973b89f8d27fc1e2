/*
 * How `baton` runs a command line: the program built from the command table
 * (command-table.ts), and the one error boundary.
 */
import { type Command, CommanderError } from 'commander';
import { BatonError, isBatonError, toBatonError } from '../manager/index.js';
import { commandWords, takeGlobalFlags } from './argv.js';
import type { GlobalFlags } from './argv.js';
import { ownFailureStatus } from './commands/run.js';
import { ScopedProgram } from './command-scope.js';
import { COMMAND_NAMES, COMMANDS, commandRow, HELP_GROUPS, scopeOfPath } from './command-table.js';
import type { Register } from './command-table.js';
import type { Ctx } from './context.js';
import { EXIT_CODES } from './exit.js';
import { decorateHelp } from './help-text.js';
import { cliHint } from './hint-words.js';
import type { CliIO } from './io.js';
import { globalOptions } from './program.js';
import { suggestCommands } from './suggest.js';
import { fitText, terminalPaint } from './terminal.js';

declare const BATON_VERSION: string | undefined;

/**
 * Builds the `baton` program from the command table: each row's registrar once, the commands in
 * the table's order; with `decorate`, help's groups and examples too (they cost start-up time a
 * plain run does not need). Commander's own errors are turned into BAD_INPUT by {@link run}.
 */
export function buildProgram(io: CliIO, holder: { ctx: Ctx | null }, o: { decorate?: boolean } = {}): Command {
  // Help is text for people on stdout: symbols and width as for any other human output.
  const out = terminalPaint(io);
  const program = new ScopedProgram('baton', scopeOfPath)
    .description('Durable, resumable session state for multi-step, multi-agent AI workflows.')
    .usage('[global options] <command> [options]')
    .version(typeof BATON_VERSION === 'string' ? BATON_VERSION : '0.0.0-dev', '-V, --version')
    .enablePositionalOptions()
    .showSuggestionAfterError(true)
    .exitOverride()
    .configureOutput({
      writeOut: (s) => io.stdout(fitText(s, out)),
      // Only help asked for implicitly (`baton phase` without a subcommand) lands here: errors
      // are reported by run() as BAD_INPUT, so commander's own wording of them is dropped.
      writeErr: (s) => io.stderr(fitText(s, terminalPaint(io, { stream: 'stderr' }))),
      outputError: () => undefined,
      getOutHelpWidth: () => out.width ?? 80,
    })
    // Commander stops wrapping descriptions narrower than 40 columns; a 60-column terminal needs it.
    .configureHelp({ minWidthToWrap: 20 });
  globalOptions(program);
  const registered = new Set<Register>();
  for (const row of COMMANDS) {
    if (registered.has(row.register)) continue;
    registered.add(row.register);
    row.register(program, io, holder);
  }
  // A registrar defines several rows (a file of related commands): the table's order is help's.
  const order = (c: Command): number => COMMAND_NAMES.indexOf(c.name());
  (program.commands as Command[]).sort((a, b) => order(a) - order(b));
  for (const c of program.commands) c.enablePositionalOptions();
  if (o.decorate) {
    decorateHelp(program, (name) => {
      const row = commandRow(name);
      return row && HELP_GROUPS[row.group];
    });
    program.addHelpText(
      'after',
      'The session acted on: --session ID, else $BATON_SESSION, else the active session.\nGlobal options may come before or after the command. Exit codes and every error code: docs/cli.md.',
    );
  }
  return program;
}

/** Reports an error the one way the CLI does: coded line + hint on stderr, or a JSON object on stdout. */
function report(io: CliIO, e: BatonError, json: boolean): number {
  const hint = cliHint(e);
  if (json) {
    io.stdout(
      `${JSON.stringify({ error: { code: e.code, message: e.message, hint: hint ?? null, ...(Object.keys(e.details).length ? { details: e.details } : {}) } }, null, 2)}\n`,
    );
  } else {
    const c = terminalPaint(io, { stream: 'stderr' });
    io.stderr(fitText(`${c.red(`error[${e.code}]`)}: ${e.message}\n`, c));
    if (hint) io.stderr(fitText(`${c.dim('hint')}: ${hint}\n`, c));
  }
  // `baton run` exits with its child's status, so its own failures take 125 (see run.ts).
  return ownFailureStatus(io.argv, COMMAND_NAMES, EXIT_CODES[e.code]);
}

/**
 * The system hands argv over decoded, with U+FFFD where its bytes were not UTF-8: such an
 * argument is refused (BAD_INPUT) before anything runs, never stored as U+FFFD.
 */
function assertUtf8Argv(argv: readonly string[]): void {
  const i = argv.findIndex((a) => a.includes('\uFFFD'));
  if (i < 0) return;
  throw new BatonError(
    'BAD_INPUT',
    `Argument ${i + 1} (${JSON.stringify(argv[i]!.slice(0, 60))}) is not UTF-8 text: its bytes could not be read as characters.`,
    {
      hint: "Pass the text in UTF-8 (check the terminal's or the script's encoding); nothing was written.",
    },
  );
}

/**
 * Commander's error as BAD_INPUT, with a way out: a mistyped command gets a suggestion that is
 * never a surprising change (suggest.ts), every error the `--help` of the command it is about.
 */
function commanderError(e: CommanderError, program: Command, argv: readonly string[]): BatonError {
  // The deepest command the words name: the one whose help the user needs.
  let at = program;
  const words = commandWords(argv);
  for (const w of words) {
    const next = at.commands.find((c) => c.name() === w || c.aliases().includes(w));
    if (!next) break;
    at = next;
  }
  const path = [] as string[];
  for (let c: Command | null = at; c?.parent; c = c.parent) path.unshift(c.name());
  const help = `\`baton ${path.length ? `${path.join(' ')} ` : ''}--help\``;
  let message = e.message.replace(/^error: /, '');
  let hint = `Run ${help} to see ${path.length ? 'its usage and options' : 'the commands'}.`;
  const did = /\n\(Did you mean (.+)\?\)$/.exec(message);
  message = message.replace(/\n\(Did you mean .+\?\)$/, '');
  if (e.code === 'commander.unknownCommand') {
    const word = /'(.*)'/.exec(message)?.[1] ?? '';
    const names = at.commands.filter((c) => c.name() !== 'help').map((c) => c.name());
    const best = suggestCommands(word, names, (n) => scopeOfPath([...path, n].join(' ')).changes);
    if (best.length)
      hint = `Did you mean ${best.map((b) => `\`baton ${[...path, b].join(' ')}\``).join(' or ')}? ${hint}`;
  } else if (did) {
    hint = `Did you mean ${did[1]}? ${hint}`;
  }
  return new BatonError('BAD_INPUT', message.charAt(0).toUpperCase() + message.slice(1), { hint });
}

/**
 * Runs the CLI and returns its exit status. This is the CLI's one error boundary: every
 * BatonError becomes its documented exit code; anything else is an INTERNAL error (1).
 */
export async function run(cliIO: CliIO): Promise<number> {
  const { argv, flags } = takeGlobalFlags(cliIO.argv);
  const io: CliIO = { ...cliIO, argv };
  const holder: { ctx: Ctx | null; flags: GlobalFlags } = { ctx: null, flags };
  const first = commandWords(io.argv)[0];
  // `baton mcp` owns stdout for JSON-RPC: whatever stops it from starting, even an unknown
  // option such as --json, is reported on stderr, where an MCP client shows it.
  const stdoutIsProtocol = first === 'mcp';
  const wantsJson = !stdoutIsProtocol && io.argv.includes('--json');
  let program: Command | null = null;
  try {
    assertUtf8Argv(io.argv);
    const wantsHelp = io.argv.includes('--help') || io.argv.includes('-h') || first === 'help';
    // Help, completion, a group alone (`baton phase`) and an unknown word show help's groups and examples.
    const decorate =
      wantsHelp ||
      first === undefined ||
      first === 'completion' ||
      !commandRow(first) ||
      (commandRow(first)?.subs !== undefined && commandWords(io.argv).length === 1);
    program = buildProgram(io, holder, { decorate });
    if (io.argv.length === 0) {
      io.stdout(program.helpInformation());
      return 0;
    }
    await program.parseAsync(io.argv, { from: 'user' });
    return holder.ctx?.exitCode ?? 0;
  } catch (e) {
    if (e instanceof CommanderError) {
      // `baton phase` alone: its help went to stderr, and the status says a subcommand was missing.
      if (e.code === 'commander.help') return e.exitCode === 0 ? 0 : EXIT_CODES.BAD_INPUT;
      if (e.code === 'commander.helpDisplayed' || e.code === 'commander.version') return 0;
      return report(io, commanderError(e, program ?? buildProgram(io, holder), io.argv), wantsJson);
    }
    if (isBatonError(e)) return report(io, e, !stdoutIsProtocol && (holder.ctx?.json ?? wantsJson));
    return report(
      io,
      toBatonError(e, 'This is a bug in baton; please report it with the command you ran.', 'stack'),
      wantsJson,
    );
  } finally {
    await holder.ctx?.close().catch(() => undefined);
  }
}
