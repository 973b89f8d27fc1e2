import type { Command } from 'commander';
import { BatonError } from '../../manager/index.js';
import type { Ctx } from '../context.js';
import type { CliIO } from '../io.js';
import { bind, common } from '../program.js';
import { parseDuration } from './run.js';

/** The `--http` settings of `baton mcp`, or null without `--http`. */
function httpSettings(
  o: Record<string, unknown>,
  env: Record<string, string | undefined>,
): { host?: string; port?: number; allowRemote: boolean; token: string | null; allowedOrigins: string[] } | null {
  if (!o['http']) return null;
  const port = o['port'] as string | undefined;
  if (port !== undefined && !/^\d{1,5}$/.test(port)) {
    throw new BatonError('BAD_INPUT', `--port ${port} is not a port number.`, {
      hint: 'Pass a number from 0 to 65535 (0 picks a free port).',
    });
  }
  const n = port === undefined ? undefined : Number(port);
  if (n !== undefined && n > 65535)
    throw new BatonError('BAD_INPUT', `--port ${port} is over 65535.`, { hint: 'Pass a number from 0 to 65535.' });
  return {
    ...(o['host'] !== undefined ? { host: o['host'] as string } : {}),
    ...(n !== undefined ? { port: n } : {}),
    allowRemote: o['allowRemote'] === true,
    token: env['BATON_MCP_TOKEN'] || null,
    allowedOrigins: (o['allowOrigin'] as string[] | undefined) ?? [],
  };
}

/** Registers `baton mcp`: the MCP server on stdio, or over Streamable HTTP with `--http`. */
export function registerMcp(program: Command, io: CliIO, holder: { ctx: Ctx | null }): void {
  common(
    program
      .command('mcp')
      .description(
        'serve the Model Context Protocol on stdin/stdout, or over HTTP with --http: agents use baton through tools (see docs/mcp.md)',
      )
      .option(
        '--http',
        'serve over Streamable HTTP at http://HOST:PORT/mcp instead of stdio (bearer token: $BATON_MCP_TOKEN, else one is generated and printed on stderr)',
      )
      .option('--port <n>', 'with --http: the port (default 7337; 0 picks a free one)')
      .option(
        '--host <address>',
        'with --http: the address to bind (default 127.0.0.1; a non-loopback one needs --allow-remote)',
      )
      .option(
        '--allow-remote',
        'with --http: allow binding a non-loopback address (then the token alone guards the server)',
      )
      .option(
        '--allow-origin <origin...>',
        'with --http: browser origins allowed besides loopback ones (e.g. https://app.example.com)',
      )
      .option(
        '--ttl <duration>',
        "how long the connection's run on a session outlives its last renewal (default 60s, or $BATON_LEASE_TTL); renewed every half of it",
      ),
    // stdout carries JSON-RPC only, so there is no JSON output to ask for (errors: see run()).
    { json: false },
  ).action(
    bind(io, holder, async (ctx, _args, o) => {
      const ttl = (o['ttl'] as string | undefined) ?? io.env['BATON_LEASE_TTL'];
      const options = {
        manager: (create: boolean) => ctx.manager(create),
        agentFallback: ctx.agent,
        session: ctx.opts.session ?? (io.env['BATON_SESSION'] || null),
        fencingToken: ctx.fencingToken ?? null,
        clock: io.now,
        onWarning: (message: string) => ctx.warn(message),
        ...(ttl ? { runTtlMs: parseDuration(ttl, 'ttl') } : {}),
      };
      const log = (line: string): void => io.stderr(`${line}\n`);
      const http = httpSettings(o, io.env);
      // Loaded here only: the MCP SDK and zod cost start-up time no other command should pay.
      if (http) return (await import('../../mcp/http.js')).serveHttp(options, http, log);
      if (o['port'] !== undefined || o['host'] !== undefined || o['allowRemote'] || o['allowOrigin'])
        throw new BatonError('BAD_INPUT', '--port, --host, --allow-remote and --allow-origin apply only with --http.', {
          hint: 'Add --http to serve MCP over HTTP, or drop them to serve on stdin/stdout.',
        });
      await (await import('../../mcp/stdio.js')).serveStdio(options, log);
    }),
  );
}
