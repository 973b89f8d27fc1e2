/**
 * Span descriptions (the manager's `planTrace`) as the SDK's finished spans, with ids derived
 * from the journal: the trace id from the session id, a span id from the session id and the
 * seq of the event that opened the span. Exporting twice, or from another machine, gives the
 * same ids; the start and end times are the journal's, to the millisecond.
 */
import { createHash } from 'node:crypto';
import { SpanKind, SpanStatusCode, TraceFlags } from '@opentelemetry/api';
import type { HrTime, SpanContext } from '@opentelemetry/api';
import { resourceFromAttributes } from '@opentelemetry/resources';
import type { Resource } from '@opentelemetry/resources';
import type { ReadableSpan } from '@opentelemetry/sdk-trace';
import type { SpanPlan } from '../manager/index.js';

declare const BATON_VERSION: string | undefined;

function digest(text: string, bytes: number): string {
  const hex = createHash('sha256')
    .update(text)
    .digest('hex')
    .slice(0, bytes * 2);
  // An all-zero id is invalid in OpenTelemetry; a hash gives one with probability 2^-64.
  return /^0+$/.test(hex) ? `${hex.slice(0, -1)}1` : hex;
}

/** The trace id of a session: 16 bytes of SHA-256 of its id, as 32 hex digits. */
export function traceIdOf(sessionId: string): string {
  return digest(`baton/trace/${sessionId}`, 16);
}

/** The span id of the span a session's event `seq` opened: 8 bytes of SHA-256, as 16 hex digits. */
export function spanIdOf(sessionId: string, seq: number): string {
  return digest(`baton/span/${sessionId}/${seq}`, 8);
}

/** An ISO-8601 journal time as `[seconds, nanoseconds]`. */
export function hrTimeOf(iso: string): HrTime {
  const ms = Date.parse(iso);
  // A journal line baton did not write may carry no valid time: the epoch, never NaN on the wire.
  if (Number.isNaN(ms)) return [0, 0];
  const s = Math.floor(ms / 1000);
  return [s, (ms - s * 1000) * 1_000_000];
}

function minus(a: HrTime, b: HrTime): HrTime {
  let s = a[0] - b[0];
  let n = a[1] - b[1];
  if (n < 0) {
    s -= 1;
    n += 1_000_000_000;
  }
  return s < 0 ? [0, 0] : [s, n];
}

/** The resource every span of a run carries (service name, `OTEL_RESOURCE_ATTRIBUTES`). */
export function resourceOf(attributes: Record<string, string>): Resource {
  return resourceFromAttributes(attributes);
}

const SCOPE = { name: 'baton', version: typeof BATON_VERSION === 'string' ? BATON_VERSION : '0.0.0-dev' };

/** One planned span of session `sessionId` as a finished SDK span. */
export function toReadableSpan(sessionId: string, p: SpanPlan, resource: Resource): ReadableSpan {
  const traceId = traceIdOf(sessionId);
  const context: SpanContext = { traceId, spanId: spanIdOf(sessionId, p.key), traceFlags: TraceFlags.SAMPLED };
  const start = hrTimeOf(p.start);
  const end = hrTimeOf(p.end);
  return {
    name: p.name,
    kind: p.kind === 'client' ? SpanKind.CLIENT : SpanKind.INTERNAL,
    spanContext: () => context,
    ...(p.parentKey === null
      ? {}
      : {
          parentSpanContext: {
            traceId,
            spanId: spanIdOf(sessionId, p.parentKey),
            traceFlags: TraceFlags.SAMPLED,
            isRemote: false,
          },
        }),
    startTime: start,
    endTime: end,
    duration: minus(end, start),
    status:
      p.status.code === 'error'
        ? { code: SpanStatusCode.ERROR, ...(p.status.message ? { message: p.status.message } : {}) }
        : { code: SpanStatusCode.UNSET },
    attributes: p.attributes,
    links: [],
    events: p.events.map((e) => ({ name: e.name, time: hrTimeOf(e.time), attributes: e.attributes })),
    ended: true,
    resource,
    instrumentationScope: SCOPE,
    droppedAttributesCount: 0,
    droppedEventsCount: 0,
    droppedLinksCount: 0,
  };
}
