import { createRequire } from 'node:module';
import type { Command } from 'commander';
import { BatonError } from '../../manager/index.js';
import type { Ctx } from '../context.js';
import type { CliIO } from '../io.js';
import { bind, common } from '../program.js';
import { untilInterrupted } from '../interrupt.js';

function parsePort(raw: string | undefined): number {
  if (raw === undefined) return 0;
  if (!/^\d{1,5}$/.test(raw) || Number(raw) > 65535) {
    throw new BatonError('BAD_INPUT', `--port must be a port number (0–65535); got ${JSON.stringify(raw)}.`, {
      hint: 'Pass e.g. --port 8377, or leave it out for any free port.',
    });
  }
  return Number(raw);
}

/** Opens `url` in the system's browser; a failure is only a warning (the URL is printed anyway). */
function openBrowser(url: string, ctx: Ctx): void {
  // Required on use: child_process stays off every other command's start-up.
  const { spawn } = createRequire(import.meta.url)('node:child_process') as typeof import('node:child_process');
  const [cmd, args] =
    process.platform === 'darwin'
      ? ['open', [url]]
      : process.platform === 'win32'
        ? ['cmd', ['/c', 'start', '', url]]
        : ['xdg-open', [url]];
  const child = spawn(cmd, args as string[], { stdio: 'ignore', detached: true });
  child.on('error', (e) => ctx.warn(`could not open a browser (${e.message}); open the URL above yourself`));
  child.unref();
}

/** Registers `baton ui`: the read-only web dashboard, until Ctrl+C. */
export function registerUi(program: Command, io: CliIO, holder: { ctx: Ctx | null }): void {
  common(
    program
      .command('ui')
      .description(
        'serve a read-only web dashboard of the store on 127.0.0.1 (URL with its access token on stdout) until Ctrl+C; see docs/ui.md',
      )
      .option('--port <n>', 'port to listen on (default: any free port)')
      .option(
        '--host <address>',
        'address to bind (default 127.0.0.1; anything else is reachable from the network: the token still guards it)',
      )
      .option('--open', 'open the dashboard in the system browser'),
  ).action(
    bind(io, holder, async (ctx, _args, o) => {
      const port = parsePort(o['port'] as string | undefined);
      const host = (o['host'] as string | undefined) ?? '127.0.0.1';
      // Read-only: looking at a store changes nothing in it, not even its caches (docs/ui.md).
      const m = ctx.manager(false, false, true);
      // Loaded here only: the server and node:http cost start-up time no other command should pay.
      const { startUiServer, isLoopback } = await import('../../ui/index.js');
      if (!isLoopback(host)) {
        ctx.warn(
          `baton ui binds ${host}: anyone who can reach this address and has the URL's token can read every session of this store. Use the default 127.0.0.1 unless you mean it.`,
        );
      }
      const { ended, stop: stopWaiting } = untilInterrupted();
      let server: Awaited<ReturnType<typeof startUiServer>> | null = null;
      // Whatever happens, the server closes: a listening socket would keep the process alive.
      try {
        server = await startUiServer({ manager: m, host, port, onWarning: (w) => ctx.warn(w) });
        ctx.emit(
          {
            url: server.url,
            host: server.host,
            port: server.port,
            store: { kind: m.store.kind, location: m.store.location },
          },
          server.url,
        );
        ctx.said(`baton: dashboard of the ${m.store.kind} store ${m.store.location}; read-only; Ctrl+C to stop`);
        if (o['open'] === true) openBrowser(server.url, ctx);
        await ended;
      } finally {
        stopWaiting();
        await server?.close();
      }
      ctx.said('baton: dashboard stopped');
    }),
  );
}
