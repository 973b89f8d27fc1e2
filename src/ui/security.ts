/**
 * The dashboard's guard, applied to every request before anything else: the `Host` header
 * must name this server (a DNS-rebinding page names its own domain), an `Origin` or a
 * cross-site fetch must be this server's (another site in the user's browser cannot read or
 * drive it), only GET and HEAD exist (the dashboard is read-only), and the access token must
 * come with the request (cookie, `Authorization: Bearer`, or `?token=`). Also the headers
 * every response carries: a strict Content Security Policy and no caching.
 */
import { randomBytes, timingSafeEqual } from 'node:crypto';
import type { IncomingMessage } from 'node:http';
import os from 'node:os';

/** A refusal: HTTP status and the reason, for the response body. */
export interface Refusal {
  status: 401 | 403 | 405;
  code: 'UNAUTHORIZED' | 'FORBIDDEN' | 'METHOD_NOT_ALLOWED';
  message: string;
}

/** A fresh access token: 32 random bytes, URL-safe. */
export function newToken(): string {
  return randomBytes(32).toString('base64url');
}

/** Loopback names a browser on this machine may use for a server bound to loopback. */
const LOOPBACK = ['127.0.0.1', 'localhost', '[::1]'];

/** True for an address that listens on every interface. */
export function isWildcard(host: string): boolean {
  return host === '0.0.0.0' || host === '::' || host === '[::]';
}

/** True for a loopback address (the default; anything else deserves a warning). */
export function isLoopback(host: string): boolean {
  return host === 'localhost' || host === '::1' || host === '[::1]' || /^127\./.test(host);
}

function bracket(host: string): string {
  return host.includes(':') && !host.startsWith('[') ? `[${host}]` : host;
}

/**
 * The `host:port` values a request may name: loopback names, the bound address, and for a
 * wildcard bind this machine's name and interface addresses.
 */
export function allowedHosts(bound: string, port: number): Set<string> {
  const names = new Set<string>(LOOPBACK);
  names.add(bracket(bound));
  if (isWildcard(bound)) {
    names.add(os.hostname().toLowerCase());
    for (const list of Object.values(os.networkInterfaces())) for (const a of list ?? []) names.add(bracket(a.address));
  }
  return new Set([...names].map((n) => `${n.toLowerCase()}:${port}`));
}

/** The cookie that carries the token after the first load; named per port, as cookies ignore ports. */
export function cookieName(port: number): string {
  return `baton_ui_${port}`;
}

/** The `Set-Cookie` value for the token: not readable by scripts, never sent by another site. */
export function tokenCookie(port: number, token: string): string {
  return `${cookieName(port)}=${token}; HttpOnly; SameSite=Strict; Path=/`;
}

function tokenOf(req: IncomingMessage, url: URL, port: number): string | null {
  const auth = req.headers.authorization;
  if (auth?.startsWith('Bearer ')) return auth.slice(7).trim();
  const q = url.searchParams.get('token');
  if (q) return q;
  for (const part of (req.headers.cookie ?? '').split(';')) {
    const [k, ...v] = part.trim().split('=');
    if (k === cookieName(port)) return v.join('=');
  }
  return null;
}

function sameToken(a: string, b: string): boolean {
  const x = Buffer.from(a);
  const y = Buffer.from(b);
  return x.length === y.length && timingSafeEqual(x, y);
}

/** Checks one request; null when it may proceed. Order: Host, Origin, method, token. */
export function refuse(
  req: IncomingMessage,
  url: URL,
  o: { hosts: ReadonlySet<string>; port: number; token: string },
): Refusal | null {
  const host = (req.headers.host ?? '').toLowerCase();
  if (!o.hosts.has(host)) {
    return {
      status: 403,
      code: 'FORBIDDEN',
      message: `Host ${JSON.stringify(req.headers.host ?? '')} is not this dashboard; open the URL baton ui printed.`,
    };
  }
  const origin = req.headers.origin;
  if (origin !== undefined && !(origin.startsWith('http://') && o.hosts.has(origin.slice(7).toLowerCase()))) {
    return {
      status: 403,
      code: 'FORBIDDEN',
      message: `Requests from ${origin} are refused: only the dashboard's own pages may call it.`,
    };
  }
  if (req.headers['sec-fetch-site'] === 'cross-site') {
    return { status: 403, code: 'FORBIDDEN', message: 'Cross-site requests are refused.' };
  }
  if (req.method !== 'GET' && req.method !== 'HEAD') {
    return {
      status: 405,
      code: 'METHOD_NOT_ALLOWED',
      message: `The dashboard is read-only: ${req.method} is not allowed, only GET and HEAD.`,
    };
  }
  const given = tokenOf(req, url, o.port);
  if (given === null || !sameToken(given, o.token)) {
    return {
      status: 401,
      code: 'UNAUTHORIZED',
      message:
        given === null
          ? 'The access token is missing: open the URL baton ui printed (it carries ?token=…), or send Authorization: Bearer <token>.'
          : 'The access token is wrong: use the one in the URL baton ui printed.',
    };
  }
  return null;
}

/** Headers of every response: strict CSP (scripts and styles from this server only, no inline code), no framing, no caching, no referrer. */
export const SECURITY_HEADERS: Readonly<Record<string, string>> = {
  'Content-Security-Policy':
    "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; connect-src 'self'; font-src 'self'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'",
  'X-Content-Type-Options': 'nosniff',
  'X-Frame-Options': 'DENY',
  'Referrer-Policy': 'no-referrer',
  'Cross-Origin-Opener-Policy': 'same-origin',
  'Cross-Origin-Resource-Policy': 'same-origin',
  'Cache-Control': 'no-store',
};
