/**
 * `baton otel export`: sessions as traces, once. Each session is planned from its whole
 * journal (the manager's `planTrace`) and its closed spans are sent; spans still open (a
 * phase in progress, a session not ended) are counted and left for a later export or for
 * `baton otel follow`, so a span is never sent with an end it does not have yet.
 */
import { planTrace } from '../manager/index.js';
import type { SessionManager, SpanPlan } from '../manager/index.js';
import type { Sender } from './sender.js';
import { resourceOf, toReadableSpan, traceIdOf } from './spans.js';

/** What was sent of one session. */
export interface SessionExport {
  id: string;
  traceId: string;
  /** Spans sent. */
  spans: number;
  /** Spans still open at the end of the journal (not sent). */
  open: number;
  /** Seq of the last journal event read. */
  revision: number;
}

/** The result of `baton otel export --json`. */
export interface ExportReport {
  endpoint: string;
  protocol: string;
  sessions: SessionExport[];
  /** Spans sent in all. */
  spans: number;
}

/** Plans one session and keeps the spans `keep` accepts. */
export async function planSession(
  m: SessionManager,
  id: string,
  keep: (s: SpanPlan) => boolean = () => true,
): Promise<{ spans: SpanPlan[]; open: number; revision: number }> {
  const plan = planTrace(id, await m.log(id));
  return { spans: plan.spans.filter(keep), open: plan.open, revision: plan.lastSeq };
}

/**
 * Sends the closed spans of `ids`, one session at a time (a store of many sessions is never
 * held in memory at once). With `since`, only spans that ended at or after it.
 */
export async function exportSessions(
  m: SessionManager,
  ids: readonly string[],
  sender: Sender,
  o: { since?: Date | null; onRetry?: (message: string) => void } = {},
): Promise<ExportReport> {
  const resource = resourceOf(sender.config.resource);
  const since = o.since ? o.since.getTime() : null;
  const out: SessionExport[] = [];
  for (const id of ids) {
    const p = await planSession(m, id, (s) => since === null || Date.parse(s.end) >= since);
    await sender.send(
      p.spans.map((s) => toReadableSpan(id, s, resource)),
      o.onRetry,
    );
    out.push({ id, traceId: traceIdOf(id), spans: p.spans.length, open: p.open, revision: p.revision });
  }
  return {
    endpoint: sender.config.url,
    protocol: sender.config.protocol,
    sessions: out,
    spans: out.reduce((n, s) => n + s.spans, 0),
  };
}
