/**
 * A session's journal as a trace (`baton otel`, docs/telemetry.md): a pure function from the
 * events to span descriptions, by the OpenTelemetry GenAI conventions. It knows nothing of
 * OpenTelemetry's packages and makes no ids: each span is named by the seq of the event that
 * opened it (`key`), and the telemetry surface derives the span id from the session id and
 * that seq, so the same journal always gives the same trace.
 *
 * A span is described only once it is closed, and `closedAt` is the seq of the event that
 * closed it: a follower that has sent everything closed up to seq N sends, after a restart,
 * exactly the spans with `closedAt > N`. Span events ride on the span they belong to, so
 * each journal event reaches the collector once, inside the span that is sent when it closes.
 */
import type { StoredEvent } from '../events.js';
import * as attrs from './trace-attributes.js';
import type { SpanAttributes } from './trace-attributes.js';

export type { SpanAttributes } from './trace-attributes.js';

/** Something that happened inside a span (an error, a decision, an interruption …). */
export interface SpanEventPlan {
  name: string;
  /** ISO-8601 time of the journal event. */
  time: string;
  /** Seq of the journal event it comes from. */
  seq: number;
  attributes: SpanAttributes;
}

/** One span, ready to be given ids and sent. */
export interface SpanPlan {
  /** Seq of the event that opened the span (the source of its span id). */
  key: number;
  /** Key of the parent span; null for the session's root span. */
  parentKey: number | null;
  name: string;
  /** `client` for a model call (`chat`), `internal` otherwise. */
  kind: 'internal' | 'client';
  /** ISO-8601 times of the opening and the closing events. */
  start: string;
  end: string;
  /** Seq of the event that closed the span. */
  closedAt: number;
  status: { code: 'unset' | 'error'; message: string | null };
  attributes: SpanAttributes;
  events: SpanEventPlan[];
}

/** The trace of one session as far as its journal goes. */
export interface TracePlan {
  sessionId: string;
  /** Closed spans, in the order they closed. */
  spans: SpanPlan[];
  /** Spans still open at the end of the journal (sent once they close). */
  open: number;
  /** Seq of the last event read. */
  lastSeq: number;
}

/** A span being built: open until its closing event. */
interface Building extends Omit<SpanPlan, 'end' | 'closedAt'> {
  phaseId?: string;
  lastErrorType?: string;
  /** The root after the session ended: children still name it, nothing more is added to it. */
  ended?: boolean;
}

/** Walks the journal once, opening and closing spans. */
class Planner {
  readonly closed: SpanPlan[] = [];
  root: Building | null = null;
  /** Open phase attempts by phase id. */
  readonly phases = new Map<string, Building>();
  /** Open agent conversations by `cli agentSessionId`, runs by key, sub-agents by agent id. */
  readonly conversations = new Map<string, Building>();
  readonly runs = new Map<number, Building>();
  readonly subagents = new Map<string, Building>();
  /** Attempt number per phase; the phase of each error (for its resolution). */
  readonly attempts = new Map<string, number>();
  readonly errorPhase = new Map<string, string>();
  readonly phaseNames = new Map<string, string>();

  constructor(readonly sessionId: string) {}

  open(e: StoredEvent, parent: Building | null, name: string, kind: SpanPlan['kind'], a: SpanAttributes): Building {
    return {
      key: e.seq,
      parentKey: parent ? parent.key : null,
      name,
      kind,
      start: e.time,
      status: { code: 'unset', message: null },
      attributes: { ...attrs.common(this.sessionId), ...a },
      events: [],
    };
  }

  close(
    b: Building,
    e: StoredEvent,
    extra: SpanAttributes = {},
    error: { type: string; message: string | null } | null = null,
  ): void {
    const { phaseId: _p, lastErrorType: _l, ended: _e, ...span } = b;
    const out: SpanPlan = { ...span, attributes: { ...span.attributes, ...extra }, end: e.time, closedAt: e.seq };
    if (error) {
      out.status = { code: 'error', message: error.message };
      out.attributes['error.type'] = error.type;
    }
    this.closed.push(out);
  }

  /** An instantaneous span (a model call, a tool call): opened and closed by one event. */
  point(
    e: StoredEvent,
    parent: Building | null,
    name: string,
    kind: SpanPlan['kind'],
    a: SpanAttributes,
    error: { type: string; message: string | null } | null = null,
  ): void {
    this.close(this.open(e, parent, name, kind, a), e, {}, error);
  }

  note(target: Building | null, e: StoredEvent, name: string, a: SpanAttributes): void {
    const t = target ?? this.root;
    // After the session ended its root span is sent: a late record has no span to ride on.
    if (t && !t.ended) t.events.push({ name, time: e.time, seq: e.seq, attributes: a });
  }

  /** The span a record of `phaseId` belongs to: its open attempt, else the root. */
  onPhase(phaseId: string | null | undefined): Building | null {
    return (phaseId ? this.phases.get(phaseId) : undefined) ?? this.root;
  }

  /** The span an agent's work goes under: its sub-agent, its conversation, its run, else its phase. */
  forAgent(agent: string | null, phaseId: string | null): Building | null {
    if (agent) {
      for (const s of this.subagents.values()) if (s.attributes['gen_ai.agent.name'] === agent) return s;
      for (const c of this.conversations.values()) if (c.attributes['gen_ai.agent.name'] === agent) return c;
      for (const r of this.runs.values()) if (r.attributes['gen_ai.agent.name'] === agent) return r;
    }
    return this.onPhase(phaseId);
  }

  endPhase(
    phaseId: string,
    e: StoredEvent,
    outcome: string,
    error: { type: string; message: string | null } | null = null,
  ): void {
    const b = this.phases.get(phaseId);
    if (!b) return;
    this.phases.delete(phaseId);
    this.close(b, e, { 'baton.phase.outcome': outcome }, error);
  }

  /** Closes every open span but the root (a restore, the end of the session). */
  endAll(e: StoredEvent, outcome: string): void {
    for (const id of [...this.phases.keys()]) this.endPhase(id, e, outcome);
    for (const m of [this.subagents, this.conversations, this.runs] as Map<unknown, Building>[]) {
      for (const b of m.values()) this.close(b, e, { 'baton.outcome': outcome });
      m.clear();
    }
  }

  openCount(): number {
    return (
      (this.root && !this.root.ended ? 1 : 0) +
      this.phases.size +
      this.conversations.size +
      this.runs.size +
      this.subagents.size
    );
  }
}

/**
 * The trace of session `sessionId` from its journal (every event, seq order). Pure: the same
 * events give the same plan. Events it does not know are skipped.
 */
export function planTrace(sessionId: string, events: readonly StoredEvent[]): TracePlan {
  const p = new Planner(sessionId);
  for (const e of events) {
    if (!p.root) {
      const r = attrs.rootSpan(e, sessionId);
      p.root = p.open(e, null, r.name, 'internal', r.attributes);
      if (e.type === 'session.created') {
        for (const ph of e.data.phases) p.phaseNames.set(ph.id, ph.name);
        continue;
      }
    }
    step(p, e);
  }
  return { sessionId, spans: p.closed, open: p.openCount(), lastSeq: events.at(-1)?.seq ?? 0 };
}

/** One event's part of the trace. */
function step(p: Planner, e: StoredEvent): void {
  if (phaseStep(p, e) || agentStep(p, e)) return;
  const root = p.root!;
  switch (e.type) {
    case 'error.recorded': {
      p.errorPhase.set(e.data.errorId, e.data.phaseId);
      const attempt = p.phases.get(e.data.phaseId);
      if (attempt) attempt.lastErrorType = e.data.type;
      p.note(attempt ?? root, e, 'exception', attrs.errorEvent(e.data));
      if (e.data.type === 'tool')
        p.point(e, p.forAgent(e.data.agent, e.data.phaseId), ...attrs.failedToolSpan(e.data.message, e.data.agent), {
          type: 'tool',
          message: e.data.message,
        });
      return;
    }
    case 'error.resolved':
      return p.note(p.onPhase(p.errorPhase.get(e.data.errorId)), e, 'baton.error.resolved', {
        'baton.error.id': e.data.errorId,
        'baton.error.resolution': e.data.resolution,
      });
    case 'tokens.recorded':
      return p.point(e, p.forAgent(e.data.agent, e.data.phaseId), ...attrs.chatSpan(e.data));
    case 'decision.recorded':
      return p.note(p.onPhase(e.data.phaseId), e, 'baton.decision', attrs.decisionEvent(e.data));
    case 'milestone.added':
      return p.note(root, e, 'baton.milestone.added', {
        'baton.milestone.id': e.data.milestoneId,
        'baton.milestone.title': e.data.title,
      });
    case 'milestone.done':
      return p.note(root, e, 'baton.milestone.done', { 'baton.milestone.id': e.data.milestoneId });
    case 'checkpoint.created':
      return p.note(root, e, 'baton.checkpoint.created', {
        'baton.checkpoint.id': e.data.checkpointId,
        'baton.checkpoint.name': e.data.name,
      });
    case 'checkpoint.restored':
      p.endAll(e, 'restored');
      return p.note(root, e, 'baton.checkpoint.restored', {
        'baton.checkpoint.id': e.data.checkpointId,
        'baton.checkpoint.name': e.data.name,
      });
    case 'session.paused':
    case 'session.interrupted':
      return p.note(root, e, `baton.${e.type}`, {
        'baton.cause': e.data.cause,
        ...(e.data.detail ? { 'baton.detail': e.data.detail } : {}),
      });
    case 'session.resumed':
      return p.note(root, e, 'baton.session.resumed', { 'baton.resumed.from': e.data.from });
    case 'session.completed':
    case 'session.failed':
    case 'session.abandoned': {
      if (root.ended) return;
      const status = e.type.slice('session.'.length);
      p.endAll(e, status);
      p.close(
        root,
        e,
        { 'baton.session.status': status },
        e.type === 'session.failed' ? { type: 'session_failed', message: e.data.detail ?? null } : null,
      );
      root.ended = true;
      return;
    }
    default:
      return;
  }
}

/** Phase attempts, their sub-steps and skips; true when the event was one of them. */
function phaseStep(p: Planner, e: StoredEvent): boolean {
  switch (e.type) {
    case 'phase.started':
    case 'phase.retried': {
      const id = e.data.phaseId;
      p.endPhase(id, e, 'superseded');
      // Attempts counted from the journal (a retry's own number counts retries, not attempts).
      const attempt = (p.attempts.get(id) ?? 0) + 1;
      p.attempts.set(id, attempt);
      const b = p.open(
        e,
        p.root,
        `phase ${p.phaseNames.get(id) ?? id}`,
        'internal',
        attrs.phaseSpan(id, p.phaseNames.get(id) ?? id, attempt, e.data.agent),
      );
      b.phaseId = id;
      p.phases.set(id, b);
      return true;
    }
    case 'phase.completed':
      p.endPhase(e.data.phaseId, e, 'completed');
      return true;
    case 'phase.failed': {
      const b = p.phases.get(e.data.phaseId);
      p.endPhase(e.data.phaseId, e, 'failed', { type: b?.lastErrorType ?? 'phase_failed', message: e.data.reason });
      return true;
    }
    case 'phase.skipped':
      if (p.phases.has(e.data.phaseId)) p.endPhase(e.data.phaseId, e, 'skipped');
      else
        p.note(p.root, e, 'baton.phase.skipped', {
          'baton.phase.id': e.data.phaseId,
          ...(e.data.reason ? { 'baton.reason': e.data.reason } : {}),
        });
      return true;
    case 'substep.reached':
      p.note(p.onPhase(e.data.phaseId), e, 'baton.substep', {
        'baton.phase.id': e.data.phaseId,
        'baton.substep.name': e.data.name,
      });
      return true;
    default:
      return false;
  }
}

/** Agent conversations, runs, sub-agents and the tool calls hooks record; true when the event was one of them. */
function agentStep(p: Planner, e: StoredEvent): boolean {
  switch (e.type) {
    case 'agent.bound': {
      const k = `${e.data.cli} ${e.data.agentSessionId}`;
      if (!p.conversations.has(k))
        p.conversations.set(
          k,
          p.open(e, p.root, `invoke_agent ${e.data.cli}`, 'internal', attrs.conversationSpan(e.data)),
        );
      return true;
    }
    case 'agent.ended': {
      const k = `${e.data.cli} ${e.data.agentSessionId}`;
      const b = p.conversations.get(k);
      if (b) {
        p.conversations.delete(k);
        p.close(b, e, e.data.reason ? { 'baton.end.reason': e.data.reason } : {});
      }
      return true;
    }
    case 'run.started': {
      const agent = e.data.agent ?? e.data.command[0] ?? 'run';
      p.runs.set(e.seq, p.open(e, p.root, `invoke_agent ${agent}`, 'internal', attrs.runSpan(agent, e.data.command)));
      return true;
    }
    case 'run.ended': {
      // Runs do not nest: the one open is the one that ended.
      const [key, b] = [...p.runs.entries()].at(-1) ?? [];
      if (key === undefined || !b) return true;
      p.runs.delete(key);
      const failed = e.data.signal !== null || (e.data.exitCode !== null && e.data.exitCode !== 0);
      p.close(
        b,
        e,
        attrs.runEnd(e.data),
        failed
          ? { type: e.data.cause, message: e.data.signal ? `signal ${e.data.signal}` : `exit code ${e.data.exitCode}` }
          : null,
      );
      return true;
    }
    case 'subagent.started':
      if (!p.subagents.has(e.data.agentId))
        p.subagents.set(
          e.data.agentId,
          p.open(
            e,
            p.onPhase(e.data.phaseId),
            `invoke_agent ${e.data.agentType ?? e.data.agent}`,
            'internal',
            attrs.subagentSpan(e.data),
          ),
        );
      return true;
    case 'subagent.stopped': {
      const b = p.subagents.get(e.data.agentId);
      if (b) {
        p.subagents.delete(e.data.agentId);
        p.close(b, e);
      }
      return true;
    }
    case 'file.recorded':
      if (typeof e.data.tool === 'string')
        p.point(e, p.forAgent(e.data.agent, e.data.phaseId), ...attrs.fileToolSpan(e.data));
      return true;
    case 'steps.planned':
      if (typeof e.data.tool === 'string')
        p.point(
          e,
          p.forAgent(e.data.agent, e.data.phaseId),
          ...attrs.planToolSpan(e.data.tool, e.data.agent, e.data.steps.length),
        );
      return true;
    default:
      return false;
  }
}
