/**
 * Agent CLI conversations as runs (docs/runs.md): the run a conversation's hooks record in,
 * started at its first hook with the agent CLI's own process as the proof of life; the deaths
 * of other conversations found at each hook (a process check, no write unless one died); and
 * the salvage of a dead conversation from its transcript (tokens read to the end, its last
 * plan, its last tool calls), recorded with its death.
 */
import fs from 'node:fs';
import path from 'node:path';
import { findBinding, decideSteps } from '../../domain/agents/agent-sessions.js';
import {
  CONVERSATION_TTL_MS,
  conversationRunId,
  decideConversationTakes,
} from '../../domain/runs/conversation-runs.js';
import { isBatonError } from '../../domain/errors.js';
import { findRun, runLive, unrecordedDeaths } from '../../domain/runs/runs.js';
import type { Run, Salvage } from '../../domain/runs/runs.js';
import type { SessionState } from '../../domain/state.js';
import { FINAL_STATUSES } from '../../domain/state.js';
import { lastPlan, lastTools, transcriptCalls } from '../../domain/agents/transcript-salvage.js';
import type { ToolCall } from '../../domain/agents/transcript-salvage.js';
import type { Runs, Salvager } from '../runs/runs.js';
import { ingestSubagentTranscripts } from './subagent-transcripts.js';
import type { ChangeOptions, ChangeResult, ManagerCore } from '../types.js';
import type { IngestInput, IngestResult } from './transcripts.js';

/** Most bytes of a transcript's end read for salvage and for the task tools' fold. */
const TAIL_BYTES = 16 * 1024 * 1024;

/** What this module needs of the manager. */
export interface RunsManager extends ManagerCore {
  readonly runs: Runs;
  readonly transcripts: { ingest(sessionId: string, input: IngestInput): Promise<IngestResult | unknown> };
}

/** The conversation a hook comes from, as far as its run is concerned. */
export interface ConversationOf {
  cli: string;
  agentSessionId: string;
  agent: string;
  transcriptPath: string | null;
  cwd: string | null;
  /** The agent CLI's process (an ancestor of the hook), or null when it could not be found. */
  pid?: number | null;
  /** The phase the conversation works on, from BATON_PHASE in the CLI's environment. */
  phase?: string | null;
}

/** The lines of a transcript's last {@link TAIL_BYTES} (a cut first line is dropped); [] when unreadable. */
export function readTail(file: string): string[] {
  try {
    const fd = fs.openSync(file, 'r');
    try {
      const size = fs.fstatSync(fd).size;
      const start = Math.max(0, size - TAIL_BYTES);
      const buf = Buffer.alloc(size - start);
      fs.readSync(fd, buf, 0, buf.length, start);
      const lines = buf.toString('utf8').split('\n');
      return start > 0 ? lines.slice(1) : lines;
    } finally {
      fs.closeSync(fd);
    }
  } catch {
    return [];
  }
}

/** The tool calls a conversation's transcript holds ([] when it has none or cannot be read). */
export function conversationCalls(cli: string, transcript: string | null, cwd: string | null): ToolCall[] {
  if (!transcript) return [];
  return transcriptCalls(cli, readTail(path.resolve(cwd ?? '.', transcript)));
}

/**
 * The conversation's own transcript. A Codex sub-agent's hooks carry its parent's session id
 * with the sub-agent's rollout, so the binding may name that one: the parent's rollout, named
 * after its thread id, is then found beside it.
 */
function ownTranscript(file: string, agentSessionId: string): string {
  if (path.basename(file).includes(agentSessionId)) return file;
  try {
    const mine = fs.readdirSync(path.dirname(file)).find((f) => f.includes(agentSessionId) && f.endsWith('.jsonl'));
    return mine ? path.join(path.dirname(file), mine) : file;
  } catch {
    return file;
  }
}

/** See the file comment. */
export class ConversationRuns {
  constructor(private readonly m: RunsManager) {}

  /** The run id of a conversation whose hooks found its process (null: the hooks record outside a run). */
  runIdOf(a: ConversationOf): string | null {
    return a.pid ? conversationRunId(a.cli, a.agentSessionId) : null;
  }

  /**
   * Before a hook records: the deaths of other runs found now are written down with what
   * was salvaged, and the conversation's run started when it is not live (its first hook, or
   * a new process resuming it). Returns the run id and whether it was started now (the hook
   * then starts its keeper). `ending`: SessionEnd, which starts no run.
   */
  async prepare(id: string, a: ConversationOf, ending: boolean): Promise<{ runId: string | null; started: boolean }> {
    const runId = this.runIdOf(a);
    let s: SessionState;
    try {
      s = await this.m.get(id);
    } catch (e) {
      if (isBatonError(e)) return { runId, started: false };
      throw e;
    }
    if (s.archived || FINAL_STATUSES.includes(s.status)) return { runId, started: false };
    const l = this.m.runs.liveness(s);
    // Process checks only: a write happens when a run of this host died or one lapsed.
    // At SessionEnd the CLI may be gone already (Gemini CLI does not wait for it): no sweep then,
    // or the ending conversation would be recorded dead.
    if (ending) return { runId, started: false };
    const gone = unrecordedDeaths(s, l);
    if (gone.length) await this.m.runs.sweep(id, this.salvager());
    if (!runId) return { runId, started: false };
    const cur = gone.length ? await this.m.get(id) : s;
    const mine = findRun(cur, runId);
    if (mine && runLive(mine, this.m.runs.liveness(cur))) return { runId, started: false };
    const ws = this.m.workspace;
    const cwd = a.cwd ? path.resolve(a.cwd) : null;
    const worktree = ws && cwd && cwd !== ws.root && !cwd.startsWith(`${ws.root}${path.sep}`) ? cwd : null;
    await this.m.runs.start(id, {
      kind: 'conversation',
      runId,
      agent: a.agent,
      cli: a.cli,
      agentSessionId: a.agentSessionId,
      pid: a.pid!,
      ttlMs: CONVERSATION_TTL_MS,
      worktree,
    });
    if (a.phase) await this.take(id, runId, a.phase, a.agent);
    return { runId, started: true };
  }

  /**
   * Run `runId` takes phase `phase`: a pending one is claimed (started for it), one in
   * progress that no other live run owns passes to it. A phase another live run owns stays
   * its owner's; a phase that does not exist is ignored (the hook logs nothing: never in the way).
   */
  async take(id: string, runId: string, phase: string, agent: string): Promise<boolean> {
    const s = await this.m.get(id);
    const p = s.phases.find((x) => x.id === phase || x.name === phase);
    if (!p) return false;
    if (p.status === 'pending') {
      try {
        await this.m.runs.claimPhase(id, runId, p.id, { agent });
        return true;
      } catch (e) {
        if (isBatonError(e, 'LOCKED') || isBatonError(e, 'INVALID_TRANSITION')) return false;
        throw e;
      }
    }
    const r = await this.m.change(
      id,
      (cur) => ({ events: decideConversationTakes(cur, runId, p.id, this.m.runs.liveness(cur)), result: undefined }),
      { agent, run: runId },
    );
    return r.state.phases.find((x) => x.id === p.id)?.owner === runId;
  }

  /** The options of a change made in the conversation's run (when it has one). */
  options(a: ConversationOf, runId: string | null): ChangeOptions {
    return runId ? { agent: a.agent, run: runId } : { agent: a.agent };
  }

  /**
   * What a dead conversation left, for {@link Runs.sweep} and {@link Runs.died}: its
   * transcript's tokens read to the end (counted once: the read starts at the remembered
   * offset), its last plan recorded on its phase when the hooks missed the last change, and
   * its last tool calls. Other kinds of run: nothing.
   */
  salvager(): Salvager {
    return async (s: SessionState, run: Run): Promise<Salvage | null> => {
      if (run.kind !== 'conversation' || !run.cli || !run.agentSessionId) return null;
      const b = findBinding(s, run.cli, run.agentSessionId);
      if (!b?.transcriptPath) return null;
      const file = ownTranscript(path.resolve(b.cwd ?? '.', b.transcriptPath), run.agentSessionId);
      const out: Salvage = {};
      const phaseOf = (cur: SessionState): string | null => this.m.runs.recordPhase(cur, run.id, run.agent)?.id ?? null;
      if (run.cli === 'claude' || run.cli === 'codex' || run.cli === 'gemini') {
        // Its sub-agents' transcripts first, to their end (a sub-agent may have been mid-work),
        // as the hooks do: the first file to report a response decides whose it is.
        const fromSubagents = await ingestSubagentTranscripts(
          this.m,
          s.id,
          { cli: run.cli, transcriptPath: file, agentSessionId: run.agentSessionId },
          () => {},
        );
        if (fromSubagents) out.tokens = fromSubagents;
        try {
          const r = (await this.m.transcripts.ingest(s.id, {
            cli: run.cli,
            path: file,
            agent: run.agent ?? run.cli,
            agentSessionId: run.agentSessionId,
            run: run.id,
            phaseOf,
          })) as Partial<IngestResult> | undefined;
          const n = (r?.input ?? 0) + (r?.output ?? 0) + (r?.cacheRead ?? 0) + (r?.cacheWrite ?? 0);
          if (n) out.tokens = (out.tokens ?? 0) + n;
        } catch (e) {
          if (!isBatonError(e)) throw e;
        }
      }
      const calls = transcriptCalls(run.cli, readTail(file));
      out.lastTools = lastTools(calls);
      const steps = lastPlan(calls);
      if (steps?.length) {
        out.steps = steps;
        await this.recordSteps(s.id, run, steps);
      }
      return out;
    };
  }

  /** The plan a dead run's transcript last held, on its phase, when the hooks missed it. */
  private async recordSteps(id: string, run: Run, steps: NonNullable<Salvage['steps']>): Promise<void> {
    await this.m
      .change(
        id,
        (cur) => {
          const phase = this.m.runs.recordPhase(cur, run.id, run.agent);
          return { events: decideSteps(cur, run.agent, steps, phase), result: undefined };
        },
        { agent: run.agent, run: run.id },
      )
      .catch((e: unknown) => {
        if (!isBatonError(e)) throw e;
      });
  }

  /** Renews a conversation's run (its keeper, while the CLI's process lives); FENCED once it has ended. */
  renew(id: string, runId: string): Promise<ChangeResult<undefined>> {
    return this.m.runs.renew(id, runId);
  }
}
