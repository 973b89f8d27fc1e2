import { BatonError } from '../../domain/errors.js';

/** Schema used when the URL names none. */
export const DEFAULT_SCHEMA = 'baton';
/** Connections a store keeps at most, unless `?pool=N` says otherwise. */
export const DEFAULT_POOL_MAX = 4;
/** How long a connection attempt may take, unless `?connect_timeout=S` (seconds) says otherwise. */
export const DEFAULT_CONNECT_TIMEOUT_MS = 5_000;

/** A schema name baton accepts: a plain lower-case SQL identifier that leaves room for the notify channel prefix. */
const SCHEMA_PATTERN = /^[a-z_][a-z0-9_]{0,56}$/;

/** What a `postgres://` store URL says, split into what baton uses and what goes to the driver. */
export interface PgTarget {
  /** The URL handed to the driver: the given one without baton's own query parameters. */
  connectionString: string;
  /** The schema holding every table of this store (validated, unquoted). */
  schema: string;
  /** Most connections the pool opens. */
  poolMax: number;
  connectTimeoutMs: number;
  /** The URL without its password, with its schema, for messages. */
  location: string;
}

/** True for the URLs the PostgreSQL store opens (`postgres://`, `postgresql://`). */
export function isPostgresUrl(url: string): boolean {
  return /^postgres(ql)?:\/\//i.test(url);
}

/**
 * Reads a store URL: `postgres://user:pass@host:port/db?schema=NAME&pool=N&connect_timeout=S`.
 * `schema`, `pool` and `connect_timeout` are baton's and removed before the driver sees the URL;
 * every other parameter (sslmode, application_name…) is passed on. `BAD_INPUT` for a bad value.
 */
export function parsePgUrl(url: string): PgTarget {
  let u: URL;
  try {
    u = new URL(url);
  } catch {
    throw new BatonError('BAD_INPUT', 'The PostgreSQL store URL cannot be parsed.', {
      hint: 'Write it as postgres://USER:PASSWORD@HOST:PORT/DATABASE?schema=NAME (percent-encode special characters in the password).',
    });
  }
  const schema = u.searchParams.get('schema') ?? DEFAULT_SCHEMA;
  if (!SCHEMA_PATTERN.test(schema)) {
    throw new BatonError(
      'BAD_INPUT',
      `The schema name ${JSON.stringify(schema.slice(0, 80))} in the store URL is not valid.`,
      {
        hint: 'Use ?schema= with lower-case letters, digits and _ (starting with a letter or _), at most 57 characters.',
      },
    );
  }
  // At least 2: the workspace lock holds one connection while its section uses another.
  const poolMax = intParam(u, 'pool', DEFAULT_POOL_MAX, 2, 100);
  const connectTimeoutMs = intParam(u, 'connect_timeout', DEFAULT_CONNECT_TIMEOUT_MS / 1000, 1, 600) * 1000;
  for (const k of ['schema', 'pool', 'connect_timeout']) u.searchParams.delete(k);
  const connectionString = u.toString();
  if (u.password) u.password = '***';
  u.searchParams.set('schema', schema);
  return { connectionString, schema, poolMax, connectTimeoutMs, location: u.toString() };
}

function intParam(u: URL, name: string, fallback: number, min: number, max: number): number {
  const raw = u.searchParams.get(name);
  if (raw === null) return fallback;
  if (!/^\d+$/.test(raw) || Number(raw) < min || Number(raw) > max) {
    throw new BatonError(
      'BAD_INPUT',
      `The store URL parameter ${name}=${JSON.stringify(raw.slice(0, 40))} is not a whole number from ${min} to ${max}.`,
      {
        hint: `Fix or remove ?${name}= (default ${fallback}).`,
      },
    );
  }
  return Number(raw);
}

/** Quotes an identifier that {@link parsePgUrl} validated (or that baton itself made). */
export function ident(name: string): string {
  return `"${name.replace(/"/g, '""')}"`;
}

/** The LISTEN/NOTIFY channel of a schema: every committed create and append is announced on it. */
export function channelOf(schema: string): string {
  return `baton_${schema}`;
}

/** The channel of a schema's claim queue: claimers waiting for a session are woken on it (claim-queue.ts). */
export function claimChannelOf(schema: string): string {
  return `claim_${schema}`;
}
