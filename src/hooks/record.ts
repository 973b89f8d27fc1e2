/**
 * The recorder: one normalised hook event → the manager. Opens the store, finds the session
 * the conversation works on, records the event's part, and reports what it did as log lines.
 * Never throws: every failure becomes a log line, and the hook still answers its CLI.
 */
import { gateToolCall, hookDir, isBatonError, locateStore, openManager } from '../manager/index.js';
import type { AgentContext, HookLogLine, SessionManager, ToolGate } from '../manager/index.js';
import { agentName } from '../manager/index.js';
import { agentPid, environOf } from './agent-process.js';
import { startKeeper } from './keeper-start.js';
import type { HookEvent } from './model.js';
import { BATON_PHASE_COMMAND } from './model.js';
import { takePending, spool } from './spool.js';

/** Where the hook runs and what the user chose (flags of `baton hook`, environment). */
export interface HookRunContext {
  env: Readonly<Record<string, string | undefined>>;
  /** The hook process's working folder (the payload's `cwd` wins for finding the store). */
  cwd: string;
  now: () => Date;
  /** --store, else BATON_STORE. */
  storeUrl: string | null;
  /** --dir, else BATON_DIR. */
  dir: string | null;
  /** Longest wait for a busy session lock. */
  lockTimeoutMs: number;
  /** Opt-ins (BATON_HOOK_AUTOSTART, BATON_HOOK_CAPTURE). */
  autostart: boolean;
  capture: { prompts: boolean; toolOutputs: boolean };
  briefingMaxChars: number;
  /** How to start a conversation's keeper (`baton hook keep`): null when off (BATON_HOOK_KEEPER=off) or not run as `baton`. */
  keeper: { node: string; script: string } | null;
}

/** The outcome of recording one event. */
export interface RecordOutcome {
  /** Additional context for the model (SessionStart's briefing), or null. */
  context: string | null;
  /** Lines for the hook log. */
  log: HookLogLine[];
  /** The hook folder the log goes to. */
  dir: string;
  /** Before a tool call: put it to the user or refuse it (a budget with ask or stop is exceeded); null: no word. */
  gate: ToolGate | null;
}

/** Errors after which the event is kept for the next hook to record (the store was busy or away). */
const RETRYABLE = new Set(['LOCKED', 'STORE_UNAVAILABLE', 'CONFLICT']);

/** Records one event (and any an earlier hook could not). See the file comment. */
export async function recordHook(ev: HookEvent, ctx: HookRunContext): Promise<RecordOutcome> {
  const cwd = ev.cwd ?? ctx.cwd;
  const location = locateStore({ url: ctx.storeUrl, dir: ctx.dir, cwd });
  const out: RecordOutcome = { context: null, log: [], dir: hookDir(location, ctx.env), gate: null };
  const line = (level: HookLogLine['level'], code: string, message: string, sessionId: string | null = null): void => {
    out.log.push({ time: ctx.now().toISOString(), level, code, cli: ev.cli, event: ev.event, message, sessionId });
  };
  if (!ev.agentSessionId) {
    line('warn', 'BAD_PAYLOAD', 'The payload has no session_id: nothing can be recorded.');
    return out;
  }
  let m: SessionManager | null = null;
  try {
    // Derived files (handoff.md, mirrors) are rewritten only where a hook asks (compaction, the
    // end of the conversation): rendering a handoff at every tool call would slow the agent.
    m = openManager({
      url: ctx.storeUrl,
      dir: ctx.dir,
      cwd,
      now: ctx.now,
      agent: ev.agent,
      lockTimeoutMs: ctx.lockTimeoutMs,
      env: ctx.env,
      workspace: ctx.env['BATON_WORKSPACE'] || null,
      derivedFiles: { refresh: 'flush', handoff: ctx.env['BATON_HANDOFF'] !== 'off' },
    });
    out.dir = m.hooks.dir;
    for (const earlier of takePending(out.dir))
      await recordOne(m, earlier, ctx, line).catch((e: unknown) =>
        line('error', codeOf(e), `An event kept from an earlier hook was not recorded: ${messageOf(e)}`),
      );
    const pid = agentPid(ctx.env);
    const said = await recordOne(m, ev, ctx, line, pid);
    out.context = said.context;
    out.gate = said.gate;
    // A warning after a tool call (a conflict with another live run) reaches the model as context.
    const notices = m.hooks.notices.splice(0);
    if (notices.length && out.context === null) out.context = notices.join('\n');
    for (const n of notices) line('warn', 'CONFLICT', n);
    const st = m.hooks.started;
    if (st && ctx.keeper) {
      const kept = startKeeper(
        ctx.keeper,
        { session: st.sessionId, run: st.runId, pid: st.pid, cwd, storeUrl: ctx.storeUrl, dir: ctx.dir },
        ctx.env,
      );
      line(
        kept ? 'info' : 'warn',
        'KEEPER',
        kept
          ? `Run ${st.runId} (pid ${st.pid}): keeper pid ${kept}.`
          : `Run ${st.runId}: its keeper could not be started; its death is found by the next hook or command on this host.`,
        st.sessionId,
      );
    }
  } catch (e) {
    const code = codeOf(e);
    if (code === 'NO_STORE')
      line(
        'warn',
        code,
        `No baton store for ${cwd}: nothing recorded. Run \`baton init\` there, or install the hooks with --dir/--store.`,
      );
    else {
      const kept = m !== null && RETRYABLE.has(code) && spool(out.dir, ev);
      line('error', code, `${messageOf(e)}${kept ? ' (kept: the next hook records it)' : ''}`);
    }
  } finally {
    if (m) {
      for (const w of m.hooks.warnings.splice(0)) line('warn', w.startsWith('mirror ') ? 'MIRROR' : 'TRANSCRIPT', w);
      await m.close().catch(() => undefined);
    }
  }
  return out;
}

/** Who acted, as the manager's hooks take it: the conversation, its CLI's process and its phase. */
function agentContext(ev: HookEvent, ctx: HookRunContext, pid: number | null): AgentContext {
  // BATON_PHASE: the hook's own environment (inherited from the CLI), else the CLI's.
  const phase = ctx.env['BATON_PHASE'] || (pid ? environOf(pid, 'BATON_PHASE') : null);
  return {
    cli: ev.cli,
    agentSessionId: ev.agentSessionId!,
    transcriptPath: ev.transcriptPath,
    model: ev.model,
    cwd: ev.cwd,
    agent: ev.agent,
    pid,
    phase,
  };
}

type Line = (level: HookLogLine['level'], code: string, message: string, sessionId?: string | null) => void;

/** Records one event; returns SessionStart's briefing. */
async function recordOne(
  m: SessionManager,
  ev: HookEvent,
  ctx: HookRunContext,
  line: Line,
  pid: number | null = null,
): Promise<{ context: string | null; gate: ToolGate | null }> {
  const a = agentContext(ev, ctx, pid);
  const found = await m.hooks.resolve(a, { explicit: ctx.env['BATON_SESSION'] || null, autostart: ctx.autostart });
  if (!found) {
    if (ev.action.kind === 'session-start')
      line(
        'info',
        'NO_SESSION',
        'No baton session to record into (no BATON_SESSION, binding or active session); set BATON_HOOK_AUTOSTART=1 to start one per conversation.',
      );
    return { context: null, gate: null };
  }
  const id = found.id;
  const act = ev.action;
  let refresh = false;
  let context: string | null = null;
  let gate: ToolGate | null = null;
  switch (act.kind) {
    case 'session-start': {
      const r = await m.hooks.sessionStart(id, a, act.source, ctx.briefingMaxChars);
      context = r.briefing;
      line(
        'info',
        'SESSION_START',
        `Bound ${ev.cli} conversation ${a.agentSessionId} (${found.source}); briefing of ${r.briefing.length} characters.`,
        id,
      );
      break;
    }
    case 'prompt':
      if (ctx.capture.prompts && act.prompt) await m.hooks.capture(id, a, 'prompt', act.prompt);
      break;
    case 'tool':
      if (ctx.capture.toolOutputs && act.output) await m.hooks.capture(id, a, `${act.tool} output`, act.output);
      if (act.command && BATON_PHASE_COMMAND.test(act.command) && (await m.hooks.shellRan(id, a, act.command)))
        line(
          'info',
          'PHASE_TAKEN',
          `${act.tool} ran \`${act.command.slice(0, 200)}\`: the conversation's run took the phase.`,
          id,
        );
      break;
    case 'tasks':
      await m.hooks.tasks(id, a, act.call);
      break;
    case 'files':
      await m.hooks.files(id, a, act.written, act.deleted, act.created, act.tool);
      break;
    case 'plan':
      await m.hooks.plan(id, a, act.steps, act.tool);
      break;
    case 'tool-failed': {
      const r = await m.hooks.toolFailed(id, a, act.tool, act.message);
      if (!r.errorId)
        line('info', 'NO_PHASE', `${act.tool} failed with no phase in progress: not recorded as an error.`, id);
      break;
    }
    case 'subagent-start':
    case 'subagent-stop': {
      const sub = {
        agent: agentName(ev.cli, { agentId: act.agentId, agentType: act.agentType }),
        agentId: act.agentId,
        agentType: act.agentType,
        transcriptPath: act.kind === 'subagent-stop' ? act.transcriptPath : null,
      };
      // The sub-agent event comes from the parent: the parent is the main agent.
      await m.hooks.subagent(id, { ...a, agent: ev.cli }, act.kind === 'subagent-start' ? 'start' : 'stop', sub);
      break;
    }
    case 'subagent-ran': {
      const name = await m.hooks.subagentRan(id, a, act);
      if (!name)
        line(
          'info',
          'NO_SUBAGENT',
          `${act.tool} ran a sub-agent that neither the payload nor the chats folder names: not recorded.`,
          id,
        );
      break;
    }
    case 'stop': {
      const r = await m.hooks.stop(id, a);
      // No handoff here: the end of every turn must stay cheap; compaction and the end of the conversation refresh it.
      if (r.swept.length) line('info', 'SWEPT', `Files changed outside the file tools: ${r.swept.join(', ')}`, id);
      break;
    }
    case 'compact': {
      const r = await m.hooks.compact(id, a, act.trigger);
      if (r.checkpointId) line('info', 'CHECKPOINT', `Checkpoint ${r.checkpointId} before compaction.`, id);
      refresh = true;
      break;
    }
    case 'session-end':
      await m.hooks.sessionEnd(id, a, act.reason);
      line('info', 'SESSION_END', `Conversation ${a.agentSessionId} ended (${act.reason ?? 'no reason'}).`, id);
      refresh = true;
      break;
    case 'pre-tool':
      gate = await preTool(m, id, a, act.tool, act.callId, line);
      context = gate.context;
      break;
    case 'ignored':
      break;
  }
  if (refresh) for (const p of await m.derivedFiles.flush()) line('warn', 'HANDOFF', p, id);
  return { context, gate };
}

/** Before a tool call: the budgets' word on it (budget-gate.ts), logged when it is put to the user or refused. */
async function preTool(
  m: SessionManager,
  id: string,
  a: AgentContext,
  tool: string,
  callId: string | null,
  line: Line,
): Promise<ToolGate> {
  const gate = await gateToolCall(m, id, a, callId);
  if (gate.decision)
    line('warn', 'BUDGET', `${tool}: ${gate.decision === 'deny' ? 'refused' : 'put to the user'}. ${gate.reason}`, id);
  return gate;
}

function codeOf(e: unknown): string {
  if (isBatonError(e)) return e.code;
  const code = (e as NodeJS.ErrnoException | null)?.code;
  return code === 'EACCES' || code === 'EROFS' || code === 'ENOSPC' ? 'STORE_UNAVAILABLE' : 'INTERNAL';
}

function messageOf(e: unknown): string {
  if (isBatonError(e)) return e.message;
  return e instanceof Error ? (e.stack ?? e.message).split('\n').slice(0, 4).join(' | ') : String(e);
}
