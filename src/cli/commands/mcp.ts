import type { Command } from 'commander';
import type { Ctx } from '../context.js';
import type { CliIO } from '../io.js';
import { bind, common } from '../program.js';
import { parseDuration } from './run.js';

/** Registers `baton mcp`: the MCP server on stdio. */
export function registerMcp(program: Command, io: CliIO, holder: { ctx: Ctx | null }): void {
  common(
    program
      .command('mcp')
      .description('serve the Model Context Protocol on stdin/stdout: agents use baton through tools (see docs/mcp.md)')
      .option(
        '--ttl <duration>',
        "how long the connection's run on a session outlives its last renewal (default 60s, or $BATON_LEASE_TTL); renewed every half of it",
      ),
    // stdout carries JSON-RPC only, so there is no JSON output to ask for (errors: see run()).
    { json: false },
  ).action(
    bind(io, holder, async (ctx, _args, o) => {
      const ttl = (o['ttl'] as string | undefined) ?? io.env['BATON_LEASE_TTL'];
      // Loaded here only: the MCP SDK and zod cost start-up time no other command should pay.
      const { serveStdio } = await import('../../mcp/stdio.js');
      await serveStdio(
        {
          manager: (create) => ctx.manager(create),
          agentFallback: ctx.agent,
          session: ctx.opts.session ?? (io.env['BATON_SESSION'] || null),
          fencingToken: ctx.fencingToken ?? null,
          clock: io.now,
          onWarning: (message) => ctx.warn(message),
          ...(ttl ? { runTtlMs: parseDuration(ttl, 'ttl') } : {}),
        },
        (line) => io.stderr(`${line}\n`),
      );
    }),
  );
}
