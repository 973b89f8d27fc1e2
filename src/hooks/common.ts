/** Pieces the three normalisers share: reading the common fields, todo lists, tool output. */
import { agentName } from '../manager/index.js';
import type { HookAction, HookCli, HookEvent, HookStep, Json } from './model.js';
import { obj, str } from './model.js';

/** Longest tool output or prompt kept when the user opted in to storing them. */
export const MAX_CAPTURED_TEXT = 4000;

/** Builds the event from the fields every payload of every CLI carries. */
export function baseEvent(
  cli: HookCli,
  p: Json,
  action: HookAction,
  sub?: { agentId: string | null; agentType: string | null },
): HookEvent {
  return {
    cli,
    event: str(p, 'hook_event_name') ?? '',
    agentSessionId: str(p, 'session_id'),
    transcriptPath: str(p, 'transcript_path'),
    cwd: str(p, 'cwd'),
    model: modelOf(p),
    agent: agentName(cli, sub ?? null),
    action,
  };
}

function modelOf(p: Json): string | null {
  const m = p['model'];
  if (typeof m === 'string' && m !== '') return m;
  // Some builds send the model as an object ({ id, display_name }).
  if (m && typeof m === 'object') return str(m as Json, 'id') ?? str(m as Json, 'name');
  return null;
}

/** The sub-agent a payload comes from (Claude sends agent_id/agent_type inside a sub-agent). */
export function subagentOf(p: Json): { agentId: string | null; agentType: string | null } | undefined {
  const agentId = str(p, 'agent_id');
  return agentId ? { agentId, agentType: str(p, 'agent_type') } : undefined;
}

/** A todo list from any CLI's todo tool: items with a text and a status. */
export function stepsFrom(items: unknown): HookStep[] {
  if (!Array.isArray(items)) return [];
  const out: HookStep[] = [];
  for (const it of items) {
    if (!it || typeof it !== 'object') continue;
    const o = it as Json;
    const name = str(o, 'content') ?? str(o, 'step') ?? str(o, 'description') ?? str(o, 'text') ?? str(o, 'title');
    if (!name) continue;
    out.push({ name: name.replace(/\s+/g, ' ').trim(), status: status(o['status']) });
  }
  return out;
}

function status(raw: unknown): HookStep['status'] {
  const v = typeof raw === 'string' ? raw.toLowerCase().replace(/[\s-]/g, '_') : '';
  if (v === 'completed' || v === 'done' || v === 'complete') return 'completed';
  if (v === 'in_progress' || v === 'active' || v === 'running') return 'in_progress';
  if (v === 'cancelled' || v === 'canceled' || v === 'skipped') return 'cancelled';
  return 'pending';
}

/** A tool's output as bounded text (only stored when the user opted in). */
export function outputText(v: unknown): string | null {
  if (v === undefined || v === null) return null;
  const s = typeof v === 'string' ? v : JSON.stringify(v);
  return s.length > MAX_CAPTURED_TEXT ? `${s.slice(0, MAX_CAPTURED_TEXT)}…` : s;
}

/** The file path fields file tools use. */
export function pathOf(input: Json): string | null {
  return str(input, 'file_path') ?? str(input, 'notebook_path') ?? str(input, 'path') ?? str(input, 'absolute_path');
}

/** The command a shell tool ran (Claude Code and Codex `Bash`, Codex `exec_command`/`shell`, Gemini CLI `run_shell_command`), or null. */
export function commandOf(tool: string, input: Json): string | null {
  if (!/^(Bash|exec_command|shell|local_shell|run_shell_command)$/.test(tool)) return null;
  const c = input['command'] ?? input['cmd'];
  if (typeof c === 'string') return c;
  return Array.isArray(c) ? c.filter((x) => typeof x === 'string').join(' ') : null;
}

/** The tool input object of a payload. */
export function toolInput(p: Json): Json {
  return obj(p, 'tool_input');
}

/**
 * The events the CLIs name alike (Claude Code and Codex all of them; Gemini CLI its
 * SessionStart, SessionEnd and, as PreCompress, compaction): null for any other event.
 */
export function lifecycleAction(p: Json): HookAction | null {
  switch (str(p, 'hook_event_name')) {
    case 'SessionStart':
      return { kind: 'session-start', source: str(p, 'source') ?? 'startup' };
    case 'UserPromptSubmit':
      return { kind: 'prompt', prompt: str(p, 'prompt') };
    case 'Stop':
      return { kind: 'stop' };
    // Before a tool runs (Gemini CLI: BeforeTool): the budgets are checked, and the call may be put to the user or refused.
    case 'PreToolUse':
    case 'BeforeTool':
      return { kind: 'pre-tool', tool: str(p, 'tool_name') ?? 'tool', callId: str(p, 'tool_use_id') };
    case 'SubagentStart':
    case 'SubagentStop': {
      const agentId = str(p, 'agent_id');
      if (!agentId) return { kind: 'ignored' };
      const agentType = str(p, 'agent_type');
      return str(p, 'hook_event_name') === 'SubagentStart'
        ? { kind: 'subagent-start', agentId, agentType }
        : { kind: 'subagent-stop', agentId, agentType, transcriptPath: str(p, 'agent_transcript_path') };
    }
    case 'PreCompact':
    case 'PreCompress':
      return { kind: 'compact', trigger: str(p, 'trigger') };
    case 'SessionEnd':
      return { kind: 'session-end', reason: str(p, 'reason') };
    default:
      return null;
  }
}

/** A file tool's action (`isNew`: whether the tool created the file, null when it does not say), or ignored when its input names no file. */
export function fileAction(tool: string, file: string | null, isNew: boolean | null): HookAction {
  return file
    ? { kind: 'files', tool, written: [file], deleted: [], created: isNew === null ? null : isNew ? [file] : [] }
    : { kind: 'ignored' };
}
