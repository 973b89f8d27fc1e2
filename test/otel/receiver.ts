/**
 * An OTLP/HTTP trace receiver for the tests: a node:http server that decodes what baton sends
 * (http/protobuf with the protocol's own message definitions, otlp-trace.proto, and
 * http/json) into one plain shape, and that can refuse requests or go away and come back.
 */
import fs from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import protobuf from 'protobufjs';

/** A span as received, the same whichever encoding carried it. */
export interface ReceivedSpan {
  traceId: string;
  spanId: string;
  parentSpanId: string | null;
  name: string;
  kind: number;
  /** Nanoseconds since the epoch, as decimal text. */
  start: string;
  end: string;
  attributes: Record<string, unknown>;
  events: Array<{ name: string; time: string; attributes: Record<string, unknown> }>;
  status: { code: number; message: string };
  resource: Record<string, unknown>;
  scope: string;
  /** The Content-Type of the request that carried it. */
  contentType: string;
}

const root = protobuf.parse(
  fs.readFileSync(path.join(path.dirname(fileURLToPath(import.meta.url)), 'otlp-trace.proto'), 'utf8'),
).root;
const Request = root.lookupType('otlp.ExportTraceServiceRequest');

type Obj = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

function hex(v: unknown): string {
  if (v === undefined || v === null) return '';
  if (typeof v === 'string') return v.toLowerCase(); // OTLP/JSON: hex already
  return Buffer.from(v as Uint8Array).toString('hex');
}

function value(v: Obj | undefined): unknown {
  if (!v) return null;
  if ('stringValue' in v) return v.stringValue;
  if ('boolValue' in v) return v.boolValue;
  if ('intValue' in v) return Number(v.intValue);
  if ('doubleValue' in v) return Number(v.doubleValue);
  if ('arrayValue' in v) return ((v.arrayValue?.values ?? []) as Obj[]).map(value);
  return null;
}

function attributes(list: Obj[] | undefined): Record<string, unknown> {
  return Object.fromEntries((list ?? []).map((kv) => [kv.key, value(kv.value)]));
}

const nanos = (v: unknown): string => BigInt(String(v ?? 0)).toString();

/** The spans of one decoded request (protobuf objects and OTLP/JSON share field names). */
function spansOf(req: Obj, contentType: string): ReceivedSpan[] {
  const out: ReceivedSpan[] = [];
  for (const rs of (req.resourceSpans ?? []) as Obj[]) {
    const resource = attributes(rs.resource?.attributes);
    for (const ss of (rs.scopeSpans ?? []) as Obj[]) {
      for (const s of (ss.spans ?? []) as Obj[]) {
        const parent = hex(s.parentSpanId);
        out.push({
          traceId: hex(s.traceId),
          spanId: hex(s.spanId),
          parentSpanId: parent === '' ? null : parent,
          name: s.name,
          kind: Number(s.kind ?? 0),
          start: nanos(s.startTimeUnixNano),
          end: nanos(s.endTimeUnixNano),
          attributes: attributes(s.attributes),
          events: ((s.events ?? []) as Obj[]).map((e) => ({
            name: e.name,
            time: nanos(e.timeUnixNano),
            attributes: attributes(e.attributes),
          })),
          status: { code: Number(s.status?.code ?? 0), message: s.status?.message ?? '' },
          resource,
          scope: ss.scope?.name ?? '',
          contentType,
        });
      }
    }
  }
  return out;
}

/** A running receiver. */
export class Receiver {
  readonly spans: ReceivedSpan[] = [];
  /** Requests seen (accepted or refused), with their headers. */
  readonly requests: Array<{ contentType: string; headers: http.IncomingHttpHeaders; status: number }> = [];
  /** The next this many requests are answered 503. */
  refuse = 0;
  /** Every answer waits this long (a slow collector). */
  delayMs = 0;
  private server: http.Server | null = null;
  private port = 0;

  /** Starts listening (on `port`, or a free one). */
  async start(port = 0): Promise<this> {
    const server = http.createServer((req, res) => this.handle(req, res));
    await new Promise<void>((resolve) => server.listen(port, '127.0.0.1', resolve));
    this.port = (server.address() as AddressInfo).port;
    this.server = server;
    return this;
  }

  /** The base URL (`--endpoint`). */
  get url(): string {
    return `http://127.0.0.1:${this.port}`;
  }

  /** Stops listening; connections are refused until {@link start} is called again with {@link portNumber}. */
  async stop(): Promise<void> {
    const s = this.server;
    this.server = null;
    if (!s) return;
    s.closeAllConnections();
    await new Promise<void>((resolve) => s.close(() => resolve()));
  }

  get portNumber(): number {
    return this.port;
  }

  private handle(req: http.IncomingMessage, res: http.ServerResponse): void {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const contentType = String(req.headers['content-type'] ?? '');
      const reply = (status: number, body = ''): void => {
        this.requests.push({ contentType, headers: req.headers, status });
        const send = (): void => {
          if (!res.destroyed)
            res
              .writeHead(status, {
                'content-type': contentType.includes('json') ? 'application/json' : 'application/x-protobuf',
              })
              .end(body);
        };
        if (this.delayMs > 0) setTimeout(send, this.delayMs);
        else send();
      };
      if (req.method !== 'POST' || req.url !== '/v1/traces') return reply(404);
      if (this.refuse > 0) {
        this.refuse -= 1;
        return reply(503);
      }
      const body = Buffer.concat(chunks);
      const decoded = contentType.includes('json')
        ? (JSON.parse(body.toString('utf8')) as Obj)
        : (Request.toObject(Request.decode(body), { longs: String, enums: Number }) as Obj);
      this.spans.push(...spansOf(decoded, contentType));
      reply(200, contentType.includes('json') ? '{}' : '');
    });
  }
}
