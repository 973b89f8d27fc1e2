import type { Command } from 'commander';
import type { Ctx } from '../context.js';
import type { CliIO } from '../io.js';
import { bind, common } from '../program.js';

/** Registers `baton mcp`: the MCP server on stdio. */
export function registerMcp(program: Command, io: CliIO, holder: { ctx: Ctx | null }): void {
  common(
    program
      .command('mcp')
      .description('serve the Model Context Protocol on stdin/stdout: agents use baton through tools (see docs/mcp.md)'),
    // stdout carries JSON-RPC only, so there is no JSON output to ask for (errors: see run()).
    { json: false },
  ).action(
    bind(io, holder, async (ctx) => {
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
        },
        (line) => io.stderr(`${line}\n`),
      );
    }),
  );
}
