/**
 * Where and how `baton otel` sends traces: the standard OpenTelemetry exporter environment
 * (read from the injected environment, never from `process.env` directly), `--endpoint` and
 * `--protocol` over it, and baton's own retry settings.
 */
import { parseKeyPairsIntoRecord } from '@opentelemetry/core';
import { BatonError } from '../manager/index.js';

/** The wire formats of OTLP over HTTP that baton speaks. */
export const PROTOCOLS = ['http/protobuf', 'http/json'] as const;
/** One of {@link PROTOCOLS}. */
export type Protocol = (typeof PROTOCOLS)[number];

/** Everything the sender needs. */
export interface ExportConfig {
  /** The full URL spans are posted to (`…/v1/traces`). */
  url: string;
  protocol: Protocol;
  headers: Record<string, string>;
  /** Resource attributes: `service.name` and `OTEL_RESOURCE_ATTRIBUTES`. */
  resource: Record<string, string>;
  /** Longest wait for one request (the exporter retries retryable answers within it). */
  timeoutMs: number;
  /** Attempts after the first before `export` gives up. */
  retries: number;
  /** First wait between attempts; doubled each time, at most {@link MAX_BACKOFF_MS}. */
  backoffMs: number;
}

/** Options the command line gives. */
export interface ConfigOptions {
  endpoint?: string;
  protocol?: string;
  retries?: string;
}

/** Longest wait between two attempts. */
export const MAX_BACKOFF_MS = 30_000;
/** The OTLP/HTTP default when nothing is configured. */
export const DEFAULT_ENDPOINT = 'http://localhost:4318';

type Env = Readonly<Record<string, string | undefined>>;

function set(env: Env, name: string): string | null {
  const v = env[name]?.trim();
  return v ? v : null;
}

/** Checks a URL given for the collector; `BAD_INPUT` naming where it came from. */
function checkUrl(url: string, from: string): string {
  let u: URL;
  try {
    u = new URL(url);
  } catch {
    throw new BatonError('BAD_INPUT', `${from} is not a URL: ${JSON.stringify(url.slice(0, 200))}.`, {
      hint: 'Give the collector as http://host:4318 (or https://…).',
    });
  }
  if (u.protocol !== 'http:' && u.protocol !== 'https:') {
    throw new BatonError('BAD_INPUT', `${from} must be an http:// or https:// URL; got ${u.protocol}.`, {
      hint: 'baton sends OTLP over HTTP; give the collector as http://host:4318.',
    });
  }
  return u.toString();
}

/** The traces URL: `--endpoint` (a base URL), else `…_TRACES_ENDPOINT` (full), else `…_ENDPOINT` (base), else localhost:4318. */
export function tracesUrl(env: Env, endpoint?: string): string {
  const base = (b: string): string => `${b.replace(/\/+$/, '')}/v1/traces`;
  if (endpoint !== undefined) return checkUrl(base(endpoint), '--endpoint');
  const full = set(env, 'OTEL_EXPORTER_OTLP_TRACES_ENDPOINT');
  if (full) return checkUrl(full, 'OTEL_EXPORTER_OTLP_TRACES_ENDPOINT');
  const b = set(env, 'OTEL_EXPORTER_OTLP_ENDPOINT');
  return checkUrl(base(b ?? DEFAULT_ENDPOINT), b ? 'OTEL_EXPORTER_OTLP_ENDPOINT' : 'the default endpoint');
}

function protocolOf(env: Env, option?: string): Protocol {
  const raw =
    option ??
    set(env, 'OTEL_EXPORTER_OTLP_TRACES_PROTOCOL') ??
    set(env, 'OTEL_EXPORTER_OTLP_PROTOCOL') ??
    'http/protobuf';
  if ((PROTOCOLS as readonly string[]).includes(raw)) return raw as Protocol;
  const from = option !== undefined ? '--protocol' : 'OTEL_EXPORTER_OTLP_PROTOCOL';
  throw new BatonError('BAD_INPUT', `${from} ${JSON.stringify(raw.slice(0, 40))} is not supported.`, {
    hint: `Use ${PROTOCOLS.join(' or ')}${raw === 'grpc' ? ' (baton sends OTLP over HTTP; collectors accept it on port 4318)' : ''}.`,
  });
}

function count(raw: string | null, what: string, fallback: number, max: number): number {
  if (raw === null) return fallback;
  if (!/^\d{1,9}$/.test(raw) || Number(raw) > max)
    throw new BatonError(
      'BAD_INPUT',
      `${what} must be a whole number up to ${max}; got ${JSON.stringify(raw.slice(0, 40))}.`,
      { hint: `Pass e.g. ${fallback}.` },
    );
  return Number(raw);
}

/** Reads the configuration; `BAD_INPUT` (before anything is sent) for a value that cannot be used. */
export function exportConfig(env: Env, o: ConfigOptions = {}): ExportConfig {
  const headers = {
    ...parseKeyPairsIntoRecord(set(env, 'OTEL_EXPORTER_OTLP_HEADERS') ?? undefined),
    ...parseKeyPairsIntoRecord(set(env, 'OTEL_EXPORTER_OTLP_TRACES_HEADERS') ?? undefined),
  };
  const resource: Record<string, string> = {
    'service.name': 'baton',
    ...parseKeyPairsIntoRecord(set(env, 'OTEL_RESOURCE_ATTRIBUTES') ?? undefined),
  };
  const service = set(env, 'OTEL_SERVICE_NAME');
  if (service) resource['service.name'] = service;
  return {
    url: tracesUrl(env, o.endpoint),
    protocol: protocolOf(env, o.protocol),
    headers,
    resource,
    timeoutMs: count(
      set(env, 'OTEL_EXPORTER_OTLP_TRACES_TIMEOUT') ?? set(env, 'OTEL_EXPORTER_OTLP_TIMEOUT'),
      'OTEL_EXPORTER_OTLP_TIMEOUT',
      10_000,
      600_000,
    ),
    retries: count(o.retries ?? null, '--retries', 4, 100),
    backoffMs: count(set(env, 'BATON_OTEL_BACKOFF_MS'), 'BATON_OTEL_BACKOFF_MS', 1000, MAX_BACKOFF_MS),
  };
}
