/**
 * The lifecycle hooks of a conversation (`manager.hooks.stop|compact|sessionEnd|sessionStart`):
 * the end of a turn, a compaction, the conversation's end and its start. Each is built on the
 * record-one-append machinery of agent-hooks.ts, handed in as {@link HookParts}.
 */
import { briefing } from '../../domain/resume/agent-briefing.js';
import { findBinding } from '../../domain/agents/agent-sessions.js';
import { decideFiles, decideSession, draft } from '../../domain/decide.js';
import type { EventDraft, MeasuredFile } from '../../domain/decide.js';
import { decideLateEnd } from '../../domain/runs/run-late-end.js';
import { decideRunEnd, findRun, runLive } from '../../domain/runs/runs.js';
import type { FileAction, Phase, SessionState } from '../../domain/state.js';
import type { AgentContext, HookManager } from './agent-context.js';
import type { ConversationRuns } from './agent-runs.js';
import { sweepWorkTree } from './agent-sweep.js';
import { Recovery } from '../resume/resume.js';

/** What the lifecycle hooks use of `manager.hooks` (AgentHooks hands its own parts in). */
export interface HookParts {
  readonly m: HookManager;
  readonly conversations: ConversationRuns;
  /** Binds the conversation, no other record (see `AgentHooks.bind`). */
  bind(id: string, a: AgentContext): Promise<SessionState>;
  /** Reads new token use from a transcript; a problem becomes a warning. */
  ingest(id: string, a: AgentContext, file: string | null, agent: string): Promise<void>;
  /** The binding then `more`, in one append (`ending`: the CLI may be gone, no run is started). */
  record(
    id: string,
    a: AgentContext,
    more: (s: SessionState, runId: string | null) => EventDraft[],
    ending?: boolean,
  ): Promise<SessionState>;
  /** The conversation's run, prepared once per hook. */
  runOf(id: string, a: AgentContext, ending?: boolean): Promise<string | null>;
  /** The phase a record of this conversation that names none goes to. */
  phaseOf(s: SessionState, a: AgentContext, runId: string | null): Phase | null;
}

/** Events that record no work: a compaction checkpoint is not taken again for them alone. */
const BOOKKEEPING: ReadonlySet<string> = new Set([
  'checkpoint.created',
  'tokens.recorded',
  'transcript.read',
  'agent.bound',
  'lease.renewed',
]);

/** The end of a turn: tokens read, and files changed by shell commands swept from the work tree. */
export async function hookStop(
  h: HookParts,
  sid: string,
  a: AgentContext,
): Promise<{ state: SessionState; swept: string[] }> {
  // Tokens do not change the manifest or the binding: the state read before them serves the sweep.
  const s0 = await h.bind(sid, a);
  const id = s0.id;
  await h.ingest(id, a, a.transcriptPath, a.agent);
  const binding = findBinding(s0, a.cli, a.agentSessionId)!;
  const found = sweepWorkTree(h.m, s0, binding);
  if (!found.length) return { state: s0, swept: [] };
  const state = await h.record(id, a, (s, runId) => {
    const phase = h.phaseOf(s, a, runId)?.id ?? null;
    const groups: Array<[FileAction, MeasuredFile[]]> = [
      ['created', []],
      ['modified', []],
      ['deleted', []],
    ];
    for (const f of found) groups.find(([k]) => k === f.action)![1].push(f);
    return groups.flatMap(([action, files]) => (files.length ? decideFiles(s, action, files, phase, a.agent) : []));
  });
  return { state, swept: found.map((f) => f.path) };
}

/** Before a compaction: tokens so far, then a checkpoint (unless nothing changed since the last one this made). */
export async function hookCompact(
  h: HookParts,
  sid: string,
  a: AgentContext,
  trigger: string | null,
): Promise<{ state: SessionState; checkpointId: string | null }> {
  const id = (await h.bind(sid, a)).id;
  await h.ingest(id, a, a.transcriptPath, a.agent);
  const s = await h.m.get(id);
  const last = s.checkpoints?.at(-1);
  if (last?.name.startsWith('before compaction')) {
    // Gemini CLI sends PreCompress at every turn: a new checkpoint only when work was recorded since.
    const since = await h.m.log(id, last.revision);
    if (since.every((e) => BOOKKEEPING.has(e.type))) return { state: s, checkpointId: null };
  }
  const r = await h.m.checkpoints.create(
    s.id,
    { name: `before compaction (${a.cli}${trigger ? `, ${trigger}` : ''})` },
    { agent: a.agent },
  );
  return { state: r.state, checkpointId: r.checkpoint.id };
}

/** The conversation ended: tokens read, its run ended (the session paused when no other run lives), its lease released. */
export async function hookSessionEnd(
  h: HookParts,
  sid: string,
  a: AgentContext,
  reason: string | null,
): Promise<SessionState> {
  // The CLI may be gone already (Gemini CLI does not wait for SessionEnd): no run is started or swept now.
  await h.runOf(sid, a, true);
  const id = (await h.bind(sid, a)).id;
  await h.ingest(id, a, a.transcriptPath, a.agent);
  const runId = h.conversations.runIdOf(a);
  return h.record(
    id,
    a,
    (s) => {
      const out: EventDraft[] = [draft('agent.ended', { cli: a.cli, agentSessionId: a.agentSessionId, reason })];
      const lease = s.lease ?? null;
      if (lease && lease.owner === `${a.cli}:${a.agentSessionId}`)
        out.push(draft('lease.released', { token: lease.token }));
      const l = h.m.runs.liveness(s);
      const run = runId ? findRun(s, runId) : undefined;
      // This conversation's run ends; the session is paused only when no other run is live.
      // The CLI's reason leads the session's detail, as before runs.
      if (run && !run.ended)
        out.push(
          ...decideRunEnd(s, run.id, { how: 'finished', cause: 'agent-session-end', detail: reason }, l).map((e) =>
            e.type === 'session.paused' && reason
              ? ({ ...e, data: { ...e.data, detail: `${reason}; ${e.data.detail ?? ''}` } } as EventDraft)
              : e,
          ),
        );
      // Recorded dead already (the keeper's grace ran out before this hook came): a clean end after all.
      else if (run?.ended?.how === 'died')
        out.push(...decideLateEnd(s, run.id, { cause: 'agent-session-end', detail: reason }, l));
      else if (s.status === 'active' && !(s.runs ?? []).some((r) => r.id !== runId && runLive(r, l)))
        out.push(...decideSession(s, 'pause', reason, 'agent-session-end'));
      return out;
    },
    true,
  );
}

/** A conversation starts: the session reopened when paused or interrupted, and the resume briefing (at most `maxChars`). */
export async function hookSessionStart(
  h: HookParts,
  id: string,
  a: AgentContext,
  source: string,
  maxChars: number,
): Promise<{ state: SessionState; briefing: string }> {
  let s = await h.bind(id, a);
  if (s.status === 'paused' || s.status === 'interrupted') s = await h.m.resume(s.id, a.agent);
  const { plan, state } = await new Recovery(h.m).plan(s.id);
  const self = h.conversations.runIdOf(a);
  const live = h.m.runs.live(state).filter((r) => r.id !== self);
  const dead = (state.runs ?? []).filter((r) => r.id !== self && r.ended?.how === 'died').slice(-3);
  return {
    state,
    briefing: briefing({
      plan,
      state,
      source,
      cli: a.cli,
      agentSessionId: a.agentSessionId,
      maxChars,
      runs: { live, dead },
    }),
  };
}
