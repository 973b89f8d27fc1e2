/**
 * One TCP connection to the collector before `baton otel export` sends anything. The official
 * exporters treat a refused connection as retryable and retry it inside each request for up to
 * the request timeout, so a collector that is simply not running cost baton's whole retry
 * policy (about a minute with the defaults) before it said so. A refused connection or an
 * unknown host is an answer, not a hiccup: it is reported at once. Anything else (a timeout, a
 * reset, a connection that opens) is left to the exporter and the retry policy.
 */
import net from 'node:net';

/** Error codes that say the collector is certainly not there right now. */
const DEFINITE = new Set(['ECONNREFUSED', 'ENOTFOUND']);

/** Longest wait for the probe's connection; past it the exporter's own timeout takes over. */
const PROBE_MS = 5000;

/** The code of a connect error; with several addresses tried (IPv6 and IPv4), that of the first. */
function codeOf(e: unknown): string | undefined {
  const err = e as { code?: unknown; errors?: Array<{ code?: unknown }> };
  if (typeof err.code === 'string') return err.code;
  const inner = err.errors?.find((x) => typeof x.code === 'string')?.code;
  return typeof inner === 'string' ? inner : undefined;
}

/**
 * Connects once to the host and port of `url` (an http or https URL) and closes the
 * connection. Returns the error code when the connection was refused or the host is unknown,
 * else null (connected, timed out, or failed in a way a retry may cure).
 */
export function definiteRefusal(url: string, timeoutMs: number): Promise<string | null> {
  const u = new URL(url);
  const port = Number(u.port || (u.protocol === 'https:' ? 443 : 80));
  const host = u.hostname.replace(/^\[(.*)\]$/, '$1');
  return new Promise((resolve) => {
    const socket = net.connect({ host, port });
    const done = (r: string | null): void => {
      socket.destroy();
      resolve(r);
    };
    socket.setTimeout(Math.min(timeoutMs, PROBE_MS), () => done(null));
    socket.once('connect', () => done(null));
    socket.once('error', (e) => {
      const code = codeOf(e);
      done(code !== undefined && DEFINITE.has(code) ? code : null);
    });
  });
}
