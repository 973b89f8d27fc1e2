import { randomBytes, randomUUID } from 'node:crypto';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { isInitializeRequest } from '@modelcontextprotocol/sdk/types.js';
import { refuseArguments } from './arguments-guard.js';
import { checkBind, checkRemoteToken, isLoopback, refuseRequest } from './http-guard.js';
import type { GuardSettings } from './http-guard.js';
import { createMcpServer, serverDisconnected, serverSettled } from './server.js';
import type { ServerOptions } from './server.js';

/** Where and how `baton mcp --http` listens. */
export interface HttpSettings {
  /** Address to bind (default 127.0.0.1). */
  host?: string;
  /** Port (default {@link DEFAULT_PORT}; 0 picks a free one). */
  port?: number;
  /** Allow a non-loopback `host` (otherwise refused with BAD_INPUT). */
  allowRemote?: boolean;
  /** The bearer token clients must send; null or empty: one is generated (and printed). */
  token?: string | null;
  /** Browser origins allowed besides loopback ones. */
  allowedOrigins?: readonly string[];
  /** An MCP session with no request for this long is closed (its runs end as disconnected). Default 30 min. */
  idleMs?: number;
}

/** A running HTTP MCP server. */
export interface HttpMcp {
  /** The endpoint, `http://HOST:PORT/mcp`. */
  url: string;
  /** The bearer token clients must send. */
  token: string;
  /** Whether the token was generated (true) or given (BATON_MCP_TOKEN). */
  generated: boolean;
  /** Open MCP sessions (one per client that initialized and has not ended). */
  sessions(): number;
  /** Stops listening, ends every session (its runs end as disconnected) and writes pending derived files. */
  close(): Promise<void>;
}

/** The port `baton mcp --http` uses when given none. */
export const DEFAULT_PORT = 7337;
/** The MCP endpoint's path. */
export const MCP_PATH = '/mcp';
/** Largest request body read (a JSON-RPC message), as the stdio server's line limit. */
const MAX_BODY_BYTES = 10 * 1024 * 1024;
const DEFAULT_IDLE_MS = 30 * 60_000;

interface Session {
  transport: StreamableHTTPServerTransport;
  server: McpServer;
  lastSeen: number;
}

/**
 * Serves the baton MCP tools over MCP's Streamable HTTP transport at `/mcp`: one SDK server
 * and transport per MCP session (`Mcp-Session-Id`), every request checked first by
 * {@link refuseRequest} (Host, Origin, bearer token). Resolves once listening.
 */
export async function startHttpServer(options: ServerOptions, settings: HttpSettings = {}): Promise<HttpMcp> {
  const host = settings.host ?? '127.0.0.1';
  checkBind(host, settings.allowRemote === true);
  const given = settings.token ?? '';
  checkRemoteToken(host, given);
  const token = given || randomBytes(32).toString('base64url');
  const guard: GuardSettings = {
    token,
    loopbackOnly: isLoopback(host),
    allowedOrigins: settings.allowedOrigins ?? [],
  };
  const sessions = new Map<string, Session>();
  const ending = new Set<Promise<void>>();

  const end = (id: string): void => {
    const s = sessions.get(id);
    if (!s) return;
    sessions.delete(id);
    const p = (async () => {
      await s.server.close().catch(() => undefined);
      await serverDisconnected(s.server).catch((e: unknown) =>
        options.onWarning?.(`mcp: the runs of session ${id} were not ended: ${(e as Error).message}`),
      );
      await serverSettled(s.server);
    })();
    ending.add(p);
    void p.finally(() => ending.delete(p));
  };

  const open = async (req: http.IncomingMessage, res: http.ServerResponse, body: unknown): Promise<void> => {
    const server = createMcpServer(options);
    const transport = new StreamableHTTPServerTransport({
      sessionIdGenerator: () => randomUUID(),
      onsessioninitialized: (id) => {
        sessions.set(id, { transport, server, lastSeen: Date.now() });
      },
    });
    transport.onclose = () => {
      if (transport.sessionId) end(transport.sessionId);
    };
    await server.connect(transport);
    await transport.handleRequest(req, res, body);
    // An initialize the SDK refused opened no session: nothing else holds this server.
    if (!transport.sessionId || !sessions.has(transport.sessionId)) await server.close();
  };

  const handle = async (req: http.IncomingMessage, res: http.ServerResponse): Promise<void> => {
    const path = new URL(req.url ?? '/', 'http://x').pathname;
    if (path !== MCP_PATH) return reply(res, 404, `Not found: the MCP endpoint is ${MCP_PATH}.`);
    const refusal = refuseRequest(
      { host: req.headers.host, origin: req.headers.origin, authorization: req.headers.authorization },
      guard,
    );
    if (refusal) return reply(res, refusal.status, refusal.message, refusal.headers);
    const id = req.headers['mcp-session-id'];
    let body: unknown;
    if (req.method === 'POST') {
      const read = await readJson(req);
      if (!read.ok) return rpcError(res, read.status, read.code, read.message);
      body = read.value;
      if (refusedArguments(res, body)) return;
    }
    if (typeof id === 'string') {
      const s = sessions.get(id);
      if (!s) return rpcError(res, 404, -32001, 'Session not found: it ended or never existed; initialize again.');
      s.lastSeen = Date.now();
      await s.transport.handleRequest(req, res, body);
      s.lastSeen = Date.now();
      return;
    }
    if (req.method === 'POST' && isInitializeRequest(body)) return open(req, res, body);
    return rpcError(res, 400, -32000, 'Bad Request: no Mcp-Session-Id header; send initialize first.');
  };

  const httpServer = http.createServer((req, res) => {
    handle(req, res).catch((e: unknown) => {
      options.onWarning?.(`mcp: ${(e as Error)?.stack ?? String(e)}`);
      if (!res.headersSent) rpcError(res, 500, -32603, 'Internal server error.');
      else res.end();
    });
  });
  await new Promise<void>((resolve, reject) => {
    httpServer.once('error', reject);
    httpServer.listen(settings.port ?? DEFAULT_PORT, host, () => {
      httpServer.off('error', reject);
      resolve();
    });
  });
  const idleMs = settings.idleMs ?? DEFAULT_IDLE_MS;
  const sweep = setInterval(
    () => {
      const now = Date.now();
      for (const s of sessions.values()) if (now - s.lastSeen > idleMs) void s.transport.close();
    },
    Math.min(60_000, Math.max(10, Math.floor(idleMs / 2))),
  );
  sweep.unref();
  const address = httpServer.address() as AddressInfo;
  const shown = address.family === 'IPv6' ? `[${address.address}]` : address.address;
  let closing: Promise<void> | null = null;
  return {
    url: `http://${shown}:${address.port}${MCP_PATH}`,
    token,
    generated: !given,
    sessions: () => sessions.size,
    close: () => {
      closing ??= (async () => {
        clearInterval(sweep);
        const stopped = new Promise<void>((resolve) => httpServer.close(() => resolve()));
        for (const s of [...sessions.values()]) await s.transport.close().catch(() => undefined);
        for (const id of [...sessions.keys()]) end(id);
        httpServer.closeAllConnections();
        await Promise.all([...ending]);
        await stopped;
      })();
      return closing;
    },
  };
}

/**
 * `baton mcp --http`: serves until SIGINT or SIGTERM, then ends every session. The URL (and
 * the token, when generated) go to `log` (stderr): stdout stays free.
 */
export async function serveHttp(
  options: ServerOptions,
  settings: HttpSettings,
  log: (line: string) => void,
): Promise<void> {
  const served = await startHttpServer(options, settings);
  log(`baton mcp: serving MCP (Streamable HTTP) at ${served.url}`);
  log(
    served.generated
      ? `baton mcp: bearer token (send "Authorization: Bearer <token>"; set BATON_MCP_TOKEN to choose it): ${served.token}`
      : 'baton mcp: bearer token: the value of BATON_MCP_TOKEN',
  );
  await new Promise<void>((resolve) => {
    process.once('SIGINT', resolve);
    process.once('SIGTERM', resolve);
  });
  await served.close();
}

type Read = { ok: true; value: unknown } | { ok: false; status: 400 | 413; code: number; message: string };

/** The request body as JSON, at most {@link MAX_BODY_BYTES}. */
async function readJson(req: http.IncomingMessage): Promise<Read> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req as AsyncIterable<Buffer>) {
    size += chunk.length;
    if (size > MAX_BODY_BYTES) {
      req.resume();
      return {
        ok: false,
        status: 413,
        code: -32600,
        message: `Message too large: at most ${MAX_BODY_BYTES} bytes (10 MiB) per request. Send less per call (e.g. store long text in a file and record it with artifact_add).`,
      };
    }
    chunks.push(chunk);
  }
  try {
    return { ok: true, value: JSON.parse(Buffer.concat(chunks).toString('utf8')) };
  } catch (e) {
    return {
      ok: false,
      status: 400,
      code: -32700,
      message: `Parse error: the body is not JSON (${(e as Error).message}).`,
    };
  }
}

function reply(res: http.ServerResponse, status: number, message: string, headers: Record<string, string> = {}): void {
  res.writeHead(status, { 'Content-Type': 'application/json', ...headers });
  res.end(JSON.stringify({ error: message }));
}

/** Answers a tools/call whose arguments are not a plain object (arguments-guard.ts); true when it did. */
function refusedArguments(res: http.ServerResponse, body: unknown): boolean {
  const refusal = refuseArguments(body);
  if (!refusal) return false;
  res.writeHead(200, { 'Content-Type': 'application/json' });
  res.end(JSON.stringify(refusal));
  return true;
}

function rpcError(res: http.ServerResponse, status: number, code: number, message: string): void {
  res.writeHead(status, { 'Content-Type': 'application/json' });
  res.end(JSON.stringify({ jsonrpc: '2.0', error: { code, message }, id: null }));
}
