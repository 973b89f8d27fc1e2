/*
 * Who may talk to `baton mcp --http`: the checks made on every HTTP request before the MCP
 * SDK sees it, and on the bind address before the server listens. Pure functions of the
 * request's headers and the server's settings, so each rule is tested on its own.
 */
import { createHash, timingSafeEqual } from 'node:crypto';
import { BatonError } from '../manager/index.js';

/** Loopback names and addresses: the only ones `baton mcp --http` binds without `--allow-remote`. */
export function isLoopback(host: string): boolean {
  const h = host.replace(/^\[(.*)\]$/, '$1').toLowerCase();
  return h === 'localhost' || h === '::1' || /^127(?:\.\d{1,3}){3}$/.test(h);
}

/**
 * Refuses a non-loopback bind unless `allowRemote`: a server reachable from other machines
 * is then protected by its token alone, which a person should decide.
 */
export function checkBind(host: string, allowRemote: boolean): void {
  if (isLoopback(host) || allowRemote) return;
  throw new BatonError(
    'BAD_INPUT',
    `--host ${host} would serve MCP beyond this machine; baton binds only loopback addresses (127.0.0.1, ::1, localhost) unless told otherwise.`,
    {
      hint: 'Pass --allow-remote to serve other machines (set BATON_MCP_TOKEN to a long secret and share it only with the clients), or leave --host out to bind 127.0.0.1.',
      details: { host },
    },
  );
}

/** The shortest token a server reachable from other machines accepts (a generated one is 43 characters). */
export const REMOTE_TOKEN_MIN = 32;

/**
 * Refuses a short token of one's own on a non-loopback bind: the token alone then guards the
 * server from the network, and a short one can be guessed. A generated token is long enough.
 */
export function checkRemoteToken(host: string, given: string): void {
  if (isLoopback(host) || given === '' || given.length >= REMOTE_TOKEN_MIN) return;
  throw new BatonError(
    'BAD_INPUT',
    `The bearer token (BATON_MCP_TOKEN) is ${given.length} characters; a server on --host ${host}, reachable from other machines, needs one of at least ${REMOTE_TOKEN_MIN}.`,
    {
      hint: 'Set BATON_MCP_TOKEN to a long random secret (e.g. `openssl rand -base64 32`), or unset it: baton then generates one and prints it.',
      details: { host, length: given.length, minimum: REMOTE_TOKEN_MIN },
    },
  );
}

/** The settings the request checks need. */
export interface GuardSettings {
  /** The bearer token every request must carry. */
  token: string;
  /** The server listens on loopback only: the Host header must name a loopback host. */
  loopbackOnly: boolean;
  /** Origins allowed besides loopback ones (exact `scheme://host[:port]`). */
  allowedOrigins: readonly string[];
}

/** A refused request: the HTTP status, a message, and extra response headers. */
export interface Refusal {
  status: 401 | 403;
  message: string;
  headers?: Record<string, string>;
}

/**
 * Why a request may not reach the MCP server, or null when it may. In order: a Host that is
 * not loopback on a loopback-only server (a DNS-rebinding page), a browser `Origin` that is
 * neither loopback nor allowed (403), then a missing or wrong bearer token (401).
 */
export function refuseRequest(
  headers: { host?: string | undefined; origin?: string | undefined; authorization?: string | undefined },
  s: GuardSettings,
): Refusal | null {
  if (s.loopbackOnly && !isLoopback(hostName(headers.host ?? ''))) {
    return {
      status: 403,
      message: `Host ${JSON.stringify(headers.host ?? '')} is not this machine's loopback name: this server listens on loopback only. Connect to 127.0.0.1 or localhost.`,
    };
  }
  const origin = headers.origin;
  if (origin !== undefined && !originAllowed(origin, s.allowedOrigins)) {
    return {
      status: 403,
      message: `Origin ${JSON.stringify(origin)} may not use this server (allowed: loopback origins${s.allowedOrigins.length ? `, ${s.allowedOrigins.join(', ')}` : ''}). To let pages of that origin call it, start it with --allow-origin ORIGIN.`,
    };
  }
  const m = /^Bearer\s+(\S+)\s*$/i.exec(headers.authorization ?? '');
  if (!m || !sameSecret(m[1]!, s.token)) {
    return {
      status: 401,
      message: m
        ? 'The bearer token is wrong: send the token baton printed when it started (or the value of its BATON_MCP_TOKEN).'
        : 'A bearer token is required: send "Authorization: Bearer <token>" (the token baton printed, or BATON_MCP_TOKEN).',
      headers: { 'WWW-Authenticate': `Bearer realm="baton"${m ? ', error="invalid_token"' : ''}` },
    };
  }
  return null;
}

/** The host part of a Host header (`127.0.0.1:7337`, `[::1]:80`, `localhost`). */
function hostName(header: string): string {
  const v6 = /^\[([^\]]*)\]/.exec(header);
  if (v6) return v6[1]!;
  return header.replace(/:\d*$/, '');
}

function originAllowed(origin: string, allowed: readonly string[]): boolean {
  if (allowed.includes(origin)) return true;
  try {
    const u = new URL(origin);
    return (u.protocol === 'http:' || u.protocol === 'https:') && isLoopback(u.hostname);
  } catch {
    return false;
  }
}

/** Compares two secrets in constant time (digests first, so their lengths leak nothing). */
function sameSecret(given: string, expected: string): boolean {
  const a = createHash('sha256').update(given).digest();
  const b = createHash('sha256').update(expected).digest();
  return timingSafeEqual(a, b);
}
