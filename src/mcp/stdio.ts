import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import { createMcpServer } from './server.js';
import type { ServerOptions } from './server.js';

/**
 * Serves the baton MCP server over stdin/stdout until stdin ends or the client goes away.
 * stdout then carries JSON-RPC only: anything a library prints with console.log/info/debug
 * is sent to stderr for as long as the server runs.
 */
export async function serveStdio(options: ServerOptions, log: (line: string) => void): Promise<void> {
  const restore = quietStdout(log);
  const server = createMcpServer(options);
  const transport = new StdioServerTransport();
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
    restore();
  }
}

function quietStdout(log: (line: string) => void): () => void {
  const saved = { log: console.log, info: console.info, debug: console.debug };
  const toErr = (...a: unknown[]): void => log(a.map(String).join(' '));
  console.log = toErr;
  console.info = toErr;
  console.debug = toErr;
  return () => Object.assign(console, saved);
}
