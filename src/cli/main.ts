import { Command, CommanderError } from 'commander';
import { BatonError, isBatonError, toBatonError } from '../manager/index.js';
import { registerCheckpoints } from './commands/checkpoint.js';
import { registerCleanup } from './commands/cleanup.js';
import { registerDoctor } from './commands/doctor.js';
import { registerMcp } from './commands/mcp.js';
import { registerOtel } from './commands/otel.js';
import { registerFormats } from './commands/formats.js';
import { registerHooks } from './commands/hooks.js';
import { registerHook } from './commands/hook.js';
import { registerRecords } from './commands/records.js';
import { registerResume } from './commands/resume.js';
import { registerRun } from './commands/run.js';
import { registerSession } from './commands/session.js';
import { registerWorkers } from './commands/workers.js';
import type { Ctx } from './context.js';
import { EXIT_CODES } from './exit.js';
import { cliHint } from './hint-words.js';
import type { CliIO } from './io.js';
import { paint } from './io.js';

declare const BATON_VERSION: string | undefined;

/** Builds the `baton` program. Commander's own errors are turned into BAD_INPUT by {@link run}. */
export function buildProgram(io: CliIO, holder: { ctx: Ctx | null }, only?: string): Command {
  const program = new Command('baton')
    .description('Durable, resumable session state for multi-step, multi-agent AI workflows.')
    .version(typeof BATON_VERSION === 'string' ? BATON_VERSION : '0.0.0-dev', '-V, --version')
    .enablePositionalOptions()
    .showSuggestionAfterError(true)
    .exitOverride()
    .configureOutput({
      writeOut: (s) => io.stdout(s),
      writeErr: () => undefined,
    });
  program.addHelpText(
    'after',
    '\nThe session acted on: --session ID, else $BATON_SESSION, else the active session.\nExit codes and every error code: docs/cli.md.',
  );
  // Building every command costs several ms on each start; a command run many times per
  // workflow only needs its own group. Help and unknown commands (suggestions) get them all.
  const group = only === undefined ? undefined : GROUPS.find((g) => g.commands.includes(only));
  for (const g of group ? [group] : GROUPS) g.register(program, io, holder);
  for (const c of program.commands) c.enablePositionalOptions();
  return program;
}

type Register = (program: Command, io: CliIO, holder: { ctx: Ctx | null }) => void;

/**
 * The command groups and the top-level commands each registers; a test checks this table
 * against what the groups really register.
 */
export const GROUPS: ReadonlyArray<{ register: Register; commands: readonly string[] }> = [
  { register: registerSession, commands: ['init', 'start', 'status', 'list', 'switch', 'pause', 'complete', 'fail', 'abandon', 'archive', 'log', 'repair'] },
  { register: registerRecords, commands: ['phase', 'substep', 'file', 'error', 'tokens', 'budget', 'pricing', 'decision', 'finding', 'note', 'milestone', 'artifact', 'context'] },
  { register: registerCheckpoints, commands: ['checkpoint', 'checkpoints', 'restore'] },
  { register: registerCleanup, commands: ['cleanup', 'pin', 'unpin'] },
  { register: registerRun, commands: ['run'] },
  { register: registerResume, commands: ['resume', 'handoff'] },
  { register: registerDoctor, commands: ['doctor'] },
  { register: registerWorkers, commands: ['claim', 'watch', 'migrate-store'] },
  { register: registerMcp, commands: ['mcp'] },
  { register: registerFormats, commands: ['inspect', 'import', 'export', 'mirror'] },
  { register: registerHooks, commands: ['hooks'] },
  { register: registerHook, commands: ['hook'] },
  { register: registerOtel, commands: ['otel'] },
];

/** Reports an error the one way the CLI does: coded line + hint on stderr, or a JSON object on stdout. */
function report(io: CliIO, e: BatonError, json: boolean): number {
  const hint = cliHint(e);
  if (json) {
    io.stdout(`${JSON.stringify({ error: { code: e.code, message: e.message, hint: hint ?? null, ...(Object.keys(e.details).length ? { details: e.details } : {}) } }, null, 2)}\n`);
  } else {
    const c = paint(io.isTTY && !io.env['NO_COLOR']);
    io.stderr(`${c.red(`error[${e.code}]`)}: ${e.message}\n`);
    if (hint) io.stderr(`${c.dim('hint')}: ${hint}\n`);
  }
  return EXIT_CODES[e.code];
}

/**
 * The system hands argv over decoded, with U+FFFD where its bytes were not UTF-8: such an
 * argument is refused (BAD_INPUT) before anything runs, never stored as U+FFFD.
 */
function assertUtf8Argv(argv: readonly string[]): void {
  const i = argv.findIndex((a) => a.includes('\uFFFD'));
  if (i < 0) return;
  throw new BatonError('BAD_INPUT', `Argument ${i + 1} (${JSON.stringify(argv[i]!.slice(0, 60))}) is not UTF-8 text: its bytes could not be read as characters.`, {
    hint: 'Pass the text in UTF-8 (check the terminal\'s or the script\'s encoding); nothing was written.',
  });
}

/**
 * Runs the CLI and returns its exit status. This is the CLI's one error boundary: every
 * BatonError becomes its documented exit code; anything else is an INTERNAL error (1).
 */
export async function run(io: CliIO): Promise<number> {
  const holder: { ctx: Ctx | null } = { ctx: null };
  // `baton mcp` owns stdout for JSON-RPC: whatever stops it from starting, even an unknown
  // option such as --json, is reported on stderr, where an MCP client shows it.
  const stdoutIsProtocol = io.argv.find((a) => !a.startsWith('-')) === 'mcp';
  const wantsJson = !stdoutIsProtocol && io.argv.includes('--json');
  try {
    assertUtf8Argv(io.argv);
    const first = io.argv[0];
    const wantsHelp = io.argv.includes('--help') || io.argv.includes('-h') || first === 'help';
    const program = buildProgram(io, holder, wantsHelp || first === undefined ? undefined : first);
    if (io.argv.length === 0) {
      io.stdout(program.helpInformation());
      return 0;
    }
    await program.parseAsync(io.argv, { from: 'user' });
    return holder.ctx?.exitCode ?? 0;
  } catch (e) {
    if (e instanceof CommanderError) {
      if (e.code === 'commander.helpDisplayed' || e.code === 'commander.version' || e.code === 'commander.help') return 0;
      const message = e.message.replace(/^error: /, '');
      return report(io, new BatonError('BAD_INPUT', message.charAt(0).toUpperCase() + message.slice(1), { hint: 'Run `baton help` or `baton <command> --help`.' }), wantsJson);
    }
    if (isBatonError(e)) return report(io, e, !stdoutIsProtocol && (holder.ctx?.json ?? wantsJson));
    return report(io, toBatonError(e, 'This is a bug in baton; please report it with the command you ran.', 'stack'), wantsJson);
  } finally {
    await holder.ctx?.close().catch(() => undefined);
  }
}
