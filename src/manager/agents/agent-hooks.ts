/**
 * `manager.hooks`: what an agent CLI hook (`baton hook claude|codex|gemini`) records, as
 * manager operations. Each call binds the conversation to the session (once) and records
 * its part in one conditional append, so a hook costs one write; a lost race is retried by
 * the manager like any commutative record. Which session a conversation goes to is
 * agent-resolve.ts; the lifecycle hooks (stop, compact, sessionEnd, sessionStart) are
 * agent-lifecycle.ts.
 */
import path from 'node:path';
import {
  decideBinding,
  decideSteps,
  decideSubagent,
  findBinding,
  hookPhase,
} from '../../domain/agents/agent-sessions.js';
import { conflictWarning, decideConflicts, phaseFromCommand } from '../../domain/runs/conversation-runs.js';
import { findRun } from '../../domain/runs/runs.js';
import { CLAUDE_TASK_TOOLS, foldTasks } from '../../domain/agents/transcript-salvage.js';
import type { ToolCall } from '../../domain/agents/transcript-salvage.js';
import type { BindingInput } from '../../domain/agents/agent-sessions.js';
import { decideError, decideFiles } from '../../domain/decide.js';
import { decideNote } from '../../domain/decide-records.js';
import type { EventDraft, MeasuredFile } from '../../domain/decide.js';
import { isBatonError } from '../../domain/errors.js';
import type { Phase, PlanStep, SessionState } from '../../domain/state.js';
import type { AgentContext, HookManager, ResolveOptions } from './agent-context.js';
import { hookCompact, hookSessionEnd, hookSessionStart, hookStop } from './agent-lifecycle.js';
import type { HookParts } from './agent-lifecycle.js';
import { HookResolver } from './agent-resolve.js';
import type { Resolved } from './agent-resolve.js';
import { ConversationRuns, conversationCalls } from './agent-runs.js';
import { hookDir, readHookProblems } from './hook-log.js';
import type { HookProblems } from './hook-log.js';
import { fileMeasurer } from '../measure.js';
import { mirrorFilesOf, mirrorWritten } from './agent-mirror.js';
import { subagentRan } from './agent-subagent-ran.js';
import type { SubagentRan } from './agent-subagent-ran.js';
import { ingestSubagentTranscripts } from './subagent-transcripts.js';

export type { AgentContext, BindingSource, HookManager, ResolveOptions } from './agent-context.js';

/** Longest prompt or tool output kept as a note when the user opted in. */
const MAX_CAPTURED = 4000;

/** See the file comment. */
export class AgentHooks {
  private readonly resolver: HookResolver;
  /** Problems that did not stop a call (a transcript not read): the hook logs them. */
  readonly warnings: string[] = [];
  /** What the model must be told after its tool call (a conflict with another live run): the hook puts it in its context. */
  readonly notices: string[] = [];
  /** The run a hook started for its conversation (it then starts the run's keeper), or null. */
  started: { sessionId: string; runId: string; pid: number } | null = null;
  /** Conversations as runs (agent-runs.ts). */
  readonly conversations: ConversationRuns;
  /** The run each conversation's records were made in, per session, once prepared in this process. */
  private readonly prepared = new Map<string, string | null>();

  constructor(
    private readonly m: HookManager,
    private readonly env: Readonly<Record<string, string | undefined>> = {},
  ) {
    this.resolver = new HookResolver(m, this.dir);
    this.conversations = new ConversationRuns(m);
  }

  /** The conversation's run, started when not live, after the deaths found now are written down (once per hook). */
  private async runOf(id: string, a: AgentContext, ending = false): Promise<string | null> {
    const key = `${id}\n${a.cli}\n${a.agentSessionId}`;
    if (this.prepared.has(key)) return this.prepared.get(key)!;
    const r = await this.conversations.prepare(id, a, ending);
    if (r.started && r.runId && a.pid) this.started = { sessionId: id, runId: r.runId, pid: a.pid };
    this.prepared.set(key, r.runId);
    return r.runId;
  }

  /** The phase a record of this conversation that names none goes to: its run's own phase, else the hook's guess. */
  private phaseOf(s: SessionState, a: AgentContext, runId: string | null): Phase | null {
    return runId && findRun(s, runId) ? this.m.runs.recordPhase(s, runId, a.agent) : hookPhase(s, a.agent);
  }

  /** The folder of the hook log and the binding index of this store. */
  get dir(): string {
    return hookDir(this.m.store.location, this.env);
  }

  /** The hook log's unacknowledged problems (what `baton doctor` and `baton hooks status` show). */
  problems(): HookProblems {
    return readHookProblems(this.dir);
  }

  /**
   * The session a conversation's events go to: `explicit` (BATON_SESSION), else the session
   * that conversation was bound to before, else the workspace's active session, else (with
   * `autostart`) a new session named after the conversation; null when none applies.
   * Sessions that have ended or been archived are skipped.
   */
  resolve(a: AgentContext, o: ResolveOptions): Promise<Resolved | null> {
    return this.resolver.resolve(a, o);
  }

  /** This object's own parts, for the lifecycle hooks (agent-lifecycle.ts). */
  private get parts(): HookParts {
    return {
      m: this.m,
      conversations: this.conversations,
      bind: (id, a) => this.bind(id, a),
      ingest: (id, a, file, agent) => this.ingest(id, a, file, agent),
      record: (id, a, more, ending) => this.record(id, a, more, ending),
      runOf: (id, a, ending) => this.runOf(id, a, ending),
      phaseOf: (s, a, runId) => this.phaseOf(s, a, runId),
    };
  }

  /**
   * The binding drafts first, then `more` (computed on the state after the binding), in one
   * append. A session the binding index named unread that has ended is forgotten, and the
   * record goes where the slow lookup says (the caller learns the id from the state).
   */
  private async record(
    id: string,
    a: AgentContext,
    more: (s: SessionState, runId: string | null) => EventDraft[],
    ending = false,
  ): Promise<SessionState> {
    let dirty: { paths: string[]; sha256: Record<string, string | null> } | null = null;
    try {
      const runId = await this.runOf(id, a, ending);
      const r = await this.m.change(
        id,
        (s) => {
          // git is asked only when the conversation is new to the session.
          if (!findBinding(s, a.cli, a.agentSessionId)) dirty ??= this.dirtyPaths();
          const binding: BindingInput = {
            cli: a.cli,
            agentSessionId: a.agentSessionId,
            transcriptPath: a.transcriptPath,
            model: a.model,
            cwd: a.cwd,
            dirtyAtStart: dirty?.paths ?? [],
            ...(dirty ? { dirtyAtStartSha256: dirty.sha256 } : {}),
          };
          // A run recorded over (a dead conversation resumed elsewhere) no longer takes records in its name.
          const run = runId && findRun(s, runId) && !findRun(s, runId)!.ended ? runId : null;
          return { events: [...decideBinding(s, binding), ...more(s, run)], result: undefined };
        },
        this.conversations.options(a, runId),
      );
      this.resolver.remember(a, id);
      return r.state;
    } catch (e) {
      const again = await this.resolver.instead(id, e);
      if (!again) throw e;
      return this.record(again.id, a, more, ending);
    }
  }

  /** Paths git reports changed now (bounded), with their content's hash: what a new conversation did not do. */
  private dirtyPaths(): { paths: string[]; sha256: Record<string, string | null> } {
    try {
      const ws = this.m.workspace;
      const st = ws?.git.changes();
      if (!ws || !st) return { paths: [], sha256: {} };
      const paths = st.dirty.slice(0, 1000);
      const sha256: Record<string, string | null> = {};
      for (const p of paths) sha256[p] = ws.hashFile(path.join(st.top, p)).sha256;
      return { paths, sha256 };
    } catch {
      return { paths: [], sha256: {} };
    }
  }

  private measure(a: AgentContext, paths: string[]): MeasuredFile[] {
    const ws = this.m.workspace;
    if (!ws) return paths.map((p) => ({ path: p, sha256: null, size: null }));
    const measure = fileMeasurer(a.cwd ?? ws.root, ws);
    return paths.map(measure);
  }

  /** Binds the conversation (no other record): for events that only need the session to know it. */
  async bind(id: string, a: AgentContext): Promise<SessionState> {
    // Already bound as given: a read, no append (an end of turn must stay cheap); the run is
    // started all the same (a conversation resumed in a new process is a new life of its run).
    try {
      await this.runOf(id, a);
      const s = await this.m.get(id);
      const binding: BindingInput = {
        cli: a.cli,
        agentSessionId: a.agentSessionId,
        transcriptPath: a.transcriptPath,
        model: a.model,
        cwd: a.cwd,
        dirtyAtStart: [],
      };
      if (findBinding(s, a.cli, a.agentSessionId) && decideBinding(s, binding).length === 0) return s;
    } catch (e) {
      if (!isBatonError(e)) throw e;
      // An ended or missing session: record() finds where the events go instead.
    }
    return this.record(id, a, () => []);
  }

  /**
   * Files a file tool wrote or deleted, hashed now, on the phase in progress (or the
   * session). `created` (of `written`) names the new files when the CLI said; without it, a
   * file the session never recorded counts as created.
   */
  async files(
    id: string,
    a: AgentContext,
    written: string[],
    deleted: string[],
    created: string[] | null = null,
    tool: string | null = null,
  ): Promise<SessionState> {
    const isNew = created ? new Set(this.measure(a, created).map((f) => f.path)) : null;
    // The mirror's own files become events of the session (mirrorWritten), not files of the work.
    const mirrored = await mirrorFilesOf(this.m, id, a, written);
    const toolkit = new Set(this.measure(a, mirrored).map((f) => f.path));
    const w = this.measure(a, written).filter((f) => !toolkit.has(f.path));
    const d = this.measure(a, deleted).map((f) => ({ ...f, sha256: null, size: null }));
    const state = await this.record(id, a, (s, runId) => {
      const phase = this.phaseOf(s, a, runId)?.id ?? null;
      const out: EventDraft[] = [];
      if (runId) {
        // Another live run wrote one of these last: recorded, and this conversation is told.
        const c = decideConflicts(
          s,
          runId,
          [...w, ...d].map((f) => f.path),
          phase,
          this.m.runs.liveness(s),
        );
        out.push(...c.events);
        const warning = conflictWarning(s, c.conflicts);
        this.notices.splice(0, this.notices.length, ...(warning ? [warning] : []));
      }
      // A file the session never saw is created; one it knows is modified.
      const known = knownPaths(s);
      const fresh = (f: MeasuredFile): boolean => (isNew ? isNew.has(f.path) : !known.has(f.path));
      const added = w.filter(fresh);
      const modified = w.filter((f) => !fresh(f));
      if (added.length) out.push(...decideFiles(s, 'created', added, phase, a.agent));
      if (modified.length) out.push(...decideFiles(s, 'modified', modified, phase, a.agent));
      if (d.length) out.push(...decideFiles(s, 'deleted', d, phase, a.agent));
      // The tool is kept so a trace shows the call (docs/telemetry.md).
      return tool ? out.map((x) => ({ ...x, data: { ...x.data, tool } }) as EventDraft) : out;
    });
    return mirrored.length ? mirrorWritten(this.m, this.conversations, state, a, mirrored, this) : state;
  }

  /** The agent's todo list, as the steps of the phase in progress. */
  async plan(id: string, a: AgentContext, steps: PlanStep[], tool: string | null = null): Promise<SessionState> {
    return this.record(id, a, (s, runId) =>
      decideSteps(s, a.agent, steps, this.phaseOf(s, a, runId)).map((x) =>
        tool && x.type === 'steps.planned' ? ({ ...x, data: { ...x.data, tool } } as EventDraft) : x,
      ),
    );
  }

  /** A failed tool call, as an error of type `tool` on the phase in progress (none in progress: only bound). */
  async toolFailed(
    id: string,
    a: AgentContext,
    tool: string,
    message: string,
  ): Promise<{ state: SessionState; errorId: string | null }> {
    let errorId: string | null = null;
    const state = await this.record(id, a, (s, runId) => {
      const phase = this.phaseOf(s, a, runId);
      if (!phase) return [];
      const r = decideError(s, {
        phase: phase.id,
        type: 'tool',
        message: `${tool}: ${message}`.slice(0, 2000),
        agent: a.agent,
      });
      errorId = r.errorId;
      return r.events;
    });
    return { state, errorId };
  }

  /** A sub-agent started or stopped (at stop, its own transcript's tokens are read). */
  async subagent(
    id: string,
    a: AgentContext,
    what: 'start' | 'stop',
    sub: { agent: string; agentId: string; agentType: string | null; transcriptPath: string | null },
  ): Promise<SessionState> {
    const state = await this.record(id, a, (s, runId) =>
      decideSubagent(
        s,
        what,
        { agent: sub.agent, agentId: sub.agentId, agentType: sub.agentType, parent: a.agent },
        this.phaseOf(s, a, runId),
      ),
    );
    if (what === 'stop' && sub.transcriptPath) await this.ingest(state.id, a, sub.transcriptPath, sub.agent);
    return state;
  }

  /**
   * A sub-agent that ran inside one tool call (Gemini CLI's `invoke_agent`): recorded started
   * and stopped, its tokens read from its own chat, its files re-attributed to it. Its name, or
   * null when neither the payload nor the chats name it (nothing recorded).
   */
  subagentRan(id: string, a: AgentContext, ran: SubagentRan): Promise<string | null> {
    return subagentRan({ get: (x) => this.m.get(x), hooks: this, root: this.m.workspace?.root ?? null }, id, a, ran);
  }

  /** Late lines of the conversation's sub-agents' transcripts, before the turn's own (problems go to `warnings`). */
  private async subagentTranscripts(id: string, a: AgentContext): Promise<void> {
    await ingestSubagentTranscripts(this.m, id, a, (w) => this.warnings.push(w));
  }

  /** A prompt or tool output the user opted in to keeping, as a note (bounded). */
  async capture(id: string, a: AgentContext, label: string, text: string): Promise<SessionState> {
    const body = text.length > MAX_CAPTURED ? `${text.slice(0, MAX_CAPTURED)}…` : text;
    return this.record(
      id,
      a,
      (s, runId) =>
        decideNote(s, { text: `${label}: ${body}`, phase: this.phaseOf(s, a, runId)?.id ?? null, agent: a.agent })
          .events,
    );
  }

  /**
   * The end of a turn (Stop, Gemini AfterAgent): tokens read from the transcript, and files
   * changed by shell commands found by comparing the work tree with the manifest.
   */
  async stop(sid: string, a: AgentContext): Promise<{ state: SessionState; swept: string[] }> {
    await this.subagentTranscripts(sid, a);
    return hookStop(this.parts, sid, a);
  }

  /**
   * Before a compaction: tokens so far, then a checkpoint (unless nothing changed since the
   * last one this made: Gemini CLI sends PreCompress at every turn).
   */
  compact(
    sid: string,
    a: AgentContext,
    trigger: string | null,
  ): Promise<{ state: SessionState; checkpointId: string | null }> {
    return hookCompact(this.parts, sid, a, trigger);
  }

  /**
   * The conversation ended: tokens read, the session paused with cause `agent-session-end`
   * (when it was active), and a lease held for this conversation (owner `<cli>:<id>`) released.
   */
  async sessionEnd(sid: string, a: AgentContext, reason: string | null): Promise<SessionState> {
    await this.subagentTranscripts(sid, a);
    return hookSessionEnd(this.parts, sid, a, reason);
  }

  /**
   * A shell command the model ran that succeeded: `baton phase start|claim <phase>` makes
   * the conversation's run take that phase. False when it took none.
   */
  async shellRan(id: string, a: AgentContext, command: string): Promise<boolean> {
    const named = phaseFromCommand(command);
    if (!named) return false;
    const runId = await this.runOf(id, a);
    if (!runId) return false;
    const s = await this.bind(id, a);
    // `baton phase claim` with no phase took the first free one: the phase started last that no live run owns.
    const live = new Set(this.m.runs.live(s).map((r) => r.id));
    const phase =
      named.phase ??
      s.phases
        .filter((p) => p.status === 'in_progress' && (!p.owner || !live.has(p.owner)))
        .sort((x, y) => ((x.startedAt ?? '') < (y.startedAt ?? '') ? 1 : -1))[0]?.id;
    return phase ? this.conversations.take(id, runId, phase, a.agent) : false;
  }

  /**
   * A call of Claude Code's task tools (TaskCreate, TaskUpdate, TaskList): the plan is the
   * fold of every task call the transcript holds and this one (which the transcript may not
   * hold yet), recorded as the phase's steps like a TodoWrite list.
   */
  async tasks(id: string, a: AgentContext, call: ToolCall): Promise<SessionState> {
    let calls = conversationCalls(a.cli, a.transcriptPath, a.cwd).filter(
      (c) => CLAUDE_TASK_TOOLS.has(c.tool) && c.id !== call.id,
    );
    if (!calls.length && call.tool !== 'TaskList') {
      // No transcript to fold: the steps recorded so far are the tasks, in creation order (ids 1, 2 …).
      const s = await this.m.get(id);
      const steps = this.phaseOf(s, a, this.conversations.runIdOf(a))?.steps ?? s.steps ?? [];
      calls = [
        {
          id: '',
          tool: 'TaskList',
          input: {},
          response: { tasks: steps.map((x, i) => ({ id: String(i + 1), subject: x.name, status: x.status })) },
        },
      ];
    }
    const steps = foldTasks([...calls, call]) ?? [];
    return this.plan(id, a, steps, call.tool);
  }

  /**
   * A conversation starts (startup, resume, clear, compact): the session reopened when it
   * was paused or interrupted, and the resume briefing returned, at most `maxChars` long.
   */
  sessionStart(
    id: string,
    a: AgentContext,
    source: string,
    maxChars: number,
  ): Promise<{ state: SessionState; briefing: string }> {
    return hookSessionStart(this.parts, id, a, source, maxChars);
  }

  /** Reads new token use from a transcript (manager.transcripts); a problem becomes a warning (also before a tool call: budget-gate.ts). */
  async ingest(id: string, a: AgentContext, file: string | null, agent: string): Promise<void> {
    const t = this.m.transcripts;
    if (!file) return;
    const cli = a.cli === 'claude' || a.cli === 'codex' || a.cli === 'gemini' ? a.cli : null;
    if (!cli) return;
    const runId = this.conversations.runIdOf(a);
    const run = runId
      ? {
          run: runId,
          phaseOf: (s: SessionState) =>
            (findRun(s, runId) ? this.m.runs.recordPhase(s, runId, agent) : hookPhase(s, agent))?.id ?? null,
        }
      : {};
    try {
      await t.ingest(id, {
        cli,
        path: path.resolve(a.cwd ?? '.', file),
        agent,
        agentSessionId: a.agentSessionId,
        ...run,
      });
    } catch (e) {
      // Tokens not read now are read at the next Stop: the offset did not move.
      this.warnings.push(
        `transcript ${file} not read (${isBatonError(e) ? e.code : 'ERROR'}): ${(e as Error).message}`,
      );
    }
  }
}

/** Paths the session has records for (any phase, or none). */
function knownPaths(s: SessionState): Set<string> {
  const out = new Set<string>();
  for (const p of s.phases) for (const f of p.files) out.add(f.path);
  for (const f of s.looseFiles ?? []) out.add(f.path);
  return out;
}
