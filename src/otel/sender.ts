/**
 * Sends finished spans over OTLP/HTTP with the official exporters (protobuf or JSON), in
 * batches, retrying a failed batch with doubling back-off. A collector that stays down ends in
 * `EXPORT_FAILED`, naming the endpoint; one that refuses the first connection (nothing listens
 * there) ends in it at once, when the sender is opened to fail fast; nothing in the store is
 * touched by sending.
 */
import { ExportResultCode } from '@opentelemetry/core';
import { OTLPTraceExporter as JsonExporter } from '@opentelemetry/exporter-trace-otlp-http';
import { OTLPTraceExporter as ProtobufExporter } from '@opentelemetry/exporter-trace-otlp-proto';
import type { ExportResult } from '@opentelemetry/core';
import type { ReadableSpan, SpanExporter } from '@opentelemetry/sdk-trace';
import { BatonError } from '../manager/index.js';
import { MAX_BACKOFF_MS } from './config.js';
import type { ExportConfig } from './config.js';
import { definiteRefusal } from './reach.js';

/** Spans per request: well under collectors' default request size limits. */
export const BATCH = 256;

/** What waits between attempts (tests pass a recorder). */
export type Sleep = (ms: number) => Promise<void>;

const realSleep: Sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * Makes the exporter of the configured protocol. Both packages are imported statically: this
 * module is reached only through the lazily loaded `src/otel` (the CLI runs from a V8 code
 * cache, where a dynamic `import()` of a package is not available).
 */
function makeExporter(c: ExportConfig): SpanExporter {
  const options = { url: c.url, headers: c.headers, timeoutMillis: c.timeoutMs };
  return c.protocol === 'http/json' ? new JsonExporter(options) : new ProtobufExporter(options);
}

function once(exporter: SpanExporter, spans: ReadableSpan[]): Promise<ExportResult> {
  return new Promise((resolve) => exporter.export(spans, resolve));
}

/** Why an attempt failed, in a few words (the exporter's error, or its HTTP status). */
function reason(r: ExportResult): string {
  const e = r.error as (Error & { code?: number | string; data?: string }) | undefined;
  if (!e) return 'the exporter gave no reason';
  const cause = (e as { cause?: { code?: string } }).cause?.code;
  const code = typeof e.code === 'number' ? `HTTP ${e.code}` : (e.code ?? cause);
  const msg = e.message || (typeof e.data === 'string' ? e.data.slice(0, 200) : '');
  return [code, msg].filter(Boolean).join(': ') || e.name;
}

/** How a sender is opened. */
export interface SenderOptions {
  /** What waits between attempts (tests pass a recorder). */
  sleep?: Sleep;
  /**
   * Before the first batch, connect once to the collector and end in `EXPORT_FAILED` at once
   * when the connection is refused or the host is unknown (`baton otel export`). Off for a
   * sender meant to outlast an outage (`baton otel follow`).
   */
  failFast?: boolean;
}

/** An OTLP sender for one run of `baton otel`. */
export class Sender {
  /** Spans the collector accepted so far. */
  sent = 0;
  /** Whether the first-connection check is still to be made. */
  private probe: boolean;

  private constructor(
    readonly config: ExportConfig,
    private readonly exporter: SpanExporter,
    private readonly sleep: Sleep,
    failFast: boolean,
  ) {
    this.probe = failFast;
  }

  /** Opens a sender with the exporter of the configured protocol. */
  static async open(config: ExportConfig, o: SenderOptions = {}): Promise<Sender> {
    return new Sender(config, makeExporter(config), o.sleep ?? realSleep, o.failFast === true);
  }

  /** The first-connection check of a fail-fast sender (once, and only when there is something to send). */
  private async checkReachable(n: number): Promise<void> {
    if (!this.probe || n === 0) return;
    this.probe = false;
    const code = await definiteRefusal(this.config.url, this.config.timeoutMs);
    if (code === null) return;
    const host = new URL(this.config.url).host;
    const why =
      code === 'ENOTFOUND'
        ? `${code}: no host named ${new URL(this.config.url).hostname}`
        : `${code}: nothing listens at ${host}`;
    throw this.failed(
      n,
      1,
      why,
      `No collector answers at ${host}: start it (OTLP over HTTP, port 4318 by default), or point --endpoint / OTEL_EXPORTER_OTLP_ENDPOINT at the one you run, then export again: it sends the same span ids.`,
    );
  }

  /**
   * Sends `spans`, batch by batch; a batch is tried `1 + retries` times, waiting
   * `backoffMs`, then twice that … (at most 30 s) in between. `onRetry` hears of each failed
   * attempt. Throws `EXPORT_FAILED` when a batch is refused every time; the batches before
   * it were delivered. A fail-fast sender throws it before its first attempt when the
   * collector refuses the connection (one attempt, no retries).
   */
  async send(spans: ReadableSpan[], onRetry?: (message: string) => void, retries = this.config.retries): Promise<void> {
    await this.checkReachable(Math.min(spans.length, BATCH));
    for (let i = 0; i < spans.length; i += BATCH) {
      const batch = spans.slice(i, i + BATCH);
      let wait = this.config.backoffMs;
      for (let attempt = 1; ; attempt++) {
        const r = await once(this.exporter, batch);
        if (r.code === ExportResultCode.SUCCESS) break;
        const why = reason(r);
        if (attempt > retries) throw this.failed(batch.length, attempt, why);
        onRetry?.(
          `The collector at ${this.config.url} did not take ${batch.length} spans (${why}); attempt ${attempt + 1} of ${retries + 1} in ${wait} ms.`,
        );
        await this.sleep(wait);
        wait = Math.min(wait * 2, MAX_BACKOFF_MS);
      }
      this.sent += batch.length;
    }
  }

  private failed(n: number, attempts: number, why: string, hint?: string): BatonError {
    return new BatonError(
      'EXPORT_FAILED',
      `Could not send ${n} spans to ${this.config.url} (${this.config.protocol}) after ${attempts} attempt${attempts === 1 ? '' : 's'}: ${why}.`,
      {
        hint:
          hint ??
          'Check that the collector is running and reachable there (--endpoint, OTEL_EXPORTER_OTLP_ENDPOINT, OTEL_EXPORTER_OTLP_HEADERS), then run the export again: it sends the same span ids.',
        details: {
          endpoint: this.config.url,
          protocol: this.config.protocol,
          attempts,
          reason: why,
          delivered: this.sent,
        },
      },
    );
  }

  /** Releases the exporter. */
  async close(): Promise<void> {
    await this.exporter.shutdown().catch(() => undefined);
  }
}
