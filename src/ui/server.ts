/**
 * `baton ui`'s web server (node:http): the page, its files, the JSON API and the live event
 * stream, each request checked first (security.ts). Read-only by construction: every route
 * is a read of `manager.dashboard`.
 */
import http from 'node:http';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { BatonError } from '../manager/index.js';
import type { SessionManager } from '../manager/index.js';
import { answer } from './api.js';
import { loadAssets } from './assets.js';
import { LiveFeed } from './live.js';
import { allowedHosts, newToken, refuse, SECURITY_HEADERS, tokenCookie } from './security.js';

/** Options of {@link startUiServer}. */
export interface UiServerOptions {
  manager: SessionManager;
  /** Address to bind (default 127.0.0.1). */
  host?: string;
  /** Port (default 0: any free port). */
  port?: number;
  /** Access token (default: a fresh random one). */
  token?: string;
  /** Folder of the built page (default: found beside the bundle). */
  assetsDir?: string;
  onWarning?: (message: string) => void;
}

/** A running dashboard. */
export interface UiServer {
  /** The URL to open, token included. */
  url: string;
  host: string;
  port: number;
  token: string;
  /** Ends open streams, stops watching the store, and closes the server. */
  close(): Promise<void>;
}

function send(
  req: IncomingMessage,
  res: ServerResponse,
  status: number,
  type: string,
  body: Buffer | string,
  extra: Record<string, string> = {},
): void {
  const buf = typeof body === 'string' ? Buffer.from(body) : body;
  res.writeHead(status, { ...SECURITY_HEADERS, 'Content-Type': type, 'Content-Length': String(buf.length), ...extra });
  res.end(req.method === 'HEAD' ? undefined : buf);
}

function sendJson(
  req: IncomingMessage,
  res: ServerResponse,
  status: number,
  body: unknown,
  extra: Record<string, string> = {},
): void {
  send(req, res, status, 'application/json; charset=utf-8', `${JSON.stringify(body)}\n`, extra);
}

/** Starts the dashboard; resolves once it listens. */
export async function startUiServer(o: UiServerOptions): Promise<UiServer> {
  const m = o.manager;
  const assets = loadAssets(o.assetsDir);
  const token = o.token ?? newToken();
  const host = o.host ?? '127.0.0.1';
  const live = new LiveFeed();
  let hosts = new Set<string>();
  let port = 0;

  const handle = async (req: IncomingMessage, res: ServerResponse): Promise<void> => {
    const url = new URL(req.url ?? '/', 'http://localhost');
    const no = refuse(req, url, { hosts, port, token });
    if (no) {
      sendJson(
        req,
        res,
        no.status,
        { error: { code: no.code, message: no.message } },
        no.status === 405 ? { Allow: 'GET, HEAD' } : {},
      );
      return;
    }
    // The first load trades the token in the address for a cookie, and drops it from the address bar.
    if (url.searchParams.has('token') && !url.pathname.startsWith('/api/')) {
      url.searchParams.delete('token');
      res.writeHead(303, {
        ...SECURITY_HEADERS,
        'Set-Cookie': tokenCookie(port, token),
        Location: `${url.pathname}${url.search}`,
      });
      res.end();
      return;
    }
    if (url.pathname === '/api/live') {
      if (req.method === 'HEAD') send(req, res, 200, 'text/event-stream; charset=utf-8', '');
      else live.open(res, SECURITY_HEADERS);
      return;
    }
    if (url.pathname === '/api' || url.pathname.startsWith('/api/')) {
      const a = await answer(m, url);
      sendJson(req, res, a.status, a.body);
      return;
    }
    // Browsers ask for an icon on their own; there is none, and saying so quietly keeps the console clean.
    if (url.pathname === '/favicon.ico') {
      res.writeHead(204, SECURITY_HEADERS);
      res.end();
      return;
    }
    const asset = assets.get(url.pathname);
    if (asset) send(req, res, 200, asset.type, asset.body);
    else sendJson(req, res, 404, { error: { code: 'NOT_FOUND', message: `Nothing at ${url.pathname}.` } });
  };

  const server = http.createServer((req, res) => {
    handle(req, res).catch((e: unknown) => {
      if (!res.headersSent) sendJson(req, res, 500, { error: { code: 'INTERNAL', message: (e as Error).message } });
      else res.destroy();
    });
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', (e: NodeJS.ErrnoException) => {
      const why =
        e.code === 'EADDRINUSE'
          ? 'is in use'
          : e.code === 'EACCES'
            ? 'needs privileges this process lacks'
            : `cannot be bound (${e.code ?? e.message})`;
      reject(
        new BatonError('BAD_INPUT', `Port ${o.port ?? 0} on ${host} ${why}.`, {
          hint: 'Pick another --port (above 1024), or leave it out for any free port; check --host names an address of this machine.',
          cause: e,
        }),
      );
    });
    server.listen(o.port ?? 0, host, () => resolve());
  });
  port = (server.address() as AddressInfo).port;
  hosts = allowedHosts(host, port);
  await live.start(m, o.onWarning ?? (() => undefined));
  const shown = host.includes(':') ? `[${host}]` : host;
  return {
    url: `http://${shown === '0.0.0.0' || shown === '[::]' ? '127.0.0.1' : shown}:${port}/?token=${token}`,
    host,
    port,
    token,
    close: async () => {
      await live.stop();
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
