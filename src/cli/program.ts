import { Command, Option } from 'commander';
import type { CommonOptions } from './context.js';
import { Ctx } from './context.js';
import type { CliIO } from './io.js';

/** A command body: gets the context and the command's positional arguments and options. */
export type Action = (ctx: Ctx, args: string[], opts: Record<string, unknown>) => Promise<void>;

/** Attaches a body to a command (a bound `bind`), so per-command registrars need not carry io and holder. */
export type On = (cmd: Command, action: Action) => Command;

/**
 * Adds the options every command takes; `json: false` leaves out --json, for a command whose
 * stdout is not its own to print on (`baton mcp`).
 */
export function common(cmd: Command, o: { json?: boolean } = {}): Command {
  cmd.option('--session <id>', 'session to act on (default: $BATON_SESSION, else the active session)');
  if (o.json !== false) cmd.option('--json', 'print machine-readable JSON on stdout');
  return cmd
    .option('--dir <path>', 'the .baton store directory (default: $BATON_DIR, else the nearest .baton upwards)')
    .option('--store <url>', 'store URL, e.g. postgres://user@host/db?schema=NAME (default: $BATON_STORE, else the file store)')
    .option('--agent <name>', 'agent to attribute the change to (default: $BATON_AGENT)')
    .option('--workspace <name>', 'workspace on a shared store: its own active session (default: $BATON_WORKSPACE, else this host and project folder)');
}

/** Adds --if-revision to a command that changes a session. */
export function strict(cmd: Command): Command {
  return cmd.addOption(new Option('--if-revision <n>', 'apply only if the session is still at revision N (else CONFLICT)'));
}

/**
 * Wires a command body into commander: builds the context from the leaf's options and
 * hands it over; errors propagate to the one error boundary in main.
 */
export function bind(io: CliIO, holder: { ctx: Ctx | null }, action: Action): (...a: unknown[]) => Promise<void> {
  return async (...a: unknown[]) => {
    const cmd = a[a.length - 1] as Command;
    const opts = cmd.opts();
    const positional = a.slice(0, -2).flatMap((x) => (Array.isArray(x) ? x.map(String) : x === undefined ? [] : [String(x)]));
    const ctx = new Ctx(io, opts as CommonOptions);
    holder.ctx = ctx;
    await action(ctx, positional, opts);
  };
}
