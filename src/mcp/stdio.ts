import { createMcpServer, serverDisconnected, serverSettled } from './server.js';
import type { ServerOptions } from './server.js';
import { LineTransport } from './transport.js';
import type { MessageOutput } from './transport.js';

/**
 * Serves the baton MCP server over stdin/stdout until stdin ends or the client goes away.
 * stdout then carries JSON-RPC only: for as long as the server runs, whatever else writes to
 * process.stdout (console.log, console.dir, a library's process.stdout.write) goes to stderr.
 */
export async function serveStdio(options: ServerOptions, log: (line: string) => void): Promise<void> {
  const diverted = divertWrites(process.stdout, process.stderr);
  const server = createMcpServer(options);
  const transport = new LineTransport(process.stdin, diverted.output);
  const closed = new Promise<void>((resolve) => {
    transport.onclose = () => resolve();
    process.stdin.once('end', () => resolve());
    process.stdin.once('close', () => resolve());
  });
  const stop = (): void => void server.close().catch(() => undefined);
  process.once('SIGINT', stop);
  process.once('SIGTERM', stop);
  try {
    server.server.onerror = (e) => log(`mcp: ${e.message}`);
    await server.connect(transport);
    await closed;
  } finally {
    process.off('SIGINT', stop);
    process.off('SIGTERM', stop);
    await server.close().catch(() => undefined);
    // The connection's runs end with it (a client gone without pausing leaves the session interrupted).
    await serverDisconnected(server).catch((e: unknown) =>
      log(`mcp: the connection's runs were not ended: ${(e as Error).message}`),
    );
    // The derived files of the last calls are written before the store closes.
    await serverSettled(server);
    diverted.restore();
  }
}

/** A stream whose `write` can be replaced (process.stdout and the like). */
interface WritableLike {
  write: (...args: never[]) => boolean;
  once(event: 'drain', listener: () => void): unknown;
}

/**
 * Sends every later `out.write` (and so console.log, console.dir, console.table …, which
 * write through it) to `to` instead, and returns the only way left to write to `out`: the
 * output the JSON-RPC transport uses. `restore` puts `out.write` back.
 */
export function divertWrites(
  out: WritableLike,
  to: { write: (...args: never[]) => boolean },
): { output: MessageOutput; restore: () => void } {
  const own = Object.hasOwn(out, 'write');
  const original = out.write;
  out.write = ((...args: never[]) => to.write(...args)) as WritableLike['write'];
  return {
    output: {
      write: (text: string) => (original as (t: string) => boolean).call(out, text),
      once: (event, listener) => out.once(event, listener),
    },
    restore: () => {
      if (own) out.write = original;
      else delete (out as Partial<WritableLike>).write;
    },
  };
}
