/** Gemini CLI hook payloads → {@link HookEvent} (events and fields: docs/hooks.md). */
import {
  baseEvent,
  commandOf,
  fileAction,
  lifecycleAction,
  outputText,
  pathOf,
  stepsFrom,
  toolInput,
} from './common.js';
import type { HookAction, HookEvent, Json } from './model.js';
import { obj, str } from './model.js';

/** Gemini CLI's file tools: each writes the file its input names. */
const FILE_TOOLS: ReadonlySet<string> = new Set(['write_file', 'replace']);

/** The tools that run a sub-agent (Gemini CLI has no sub-agent hook events; older builds name it `delegate_to_agent`). */
const SUBAGENT_TOOLS: ReadonlySet<string> = new Set(['invoke_agent', 'delegate_to_agent']);

/** Normalises one Gemini CLI payload. */
export function normaliseGemini(p: Json): HookEvent {
  return baseEvent('gemini', p, action(p));
}

function action(p: Json): HookAction {
  switch (str(p, 'hook_event_name')) {
    case 'SessionStart':
    case 'SessionEnd':
    case 'PreCompress':
      return lifecycleAction(p)!;
    case 'BeforeAgent':
      return { kind: 'prompt', prompt: str(p, 'prompt') };
    case 'AfterTool':
      return toolAction(p);
    case 'AfterAgent':
      return { kind: 'stop' };
    case 'BeforeTool':
      return lifecycleAction(p)!;
    default:
      return { kind: 'ignored' };
  }
}

function toolAction(p: Json): HookAction {
  const tool = str(p, 'tool_name') ?? '';
  const response = obj(p, 'tool_response');
  const input = toolInput(p);
  // A sub-agent is recorded even when its call ended in an error: it ran and spent tokens.
  if (SUBAGENT_TOOLS.has(tool)) return subagentAction(tool, input, response);
  const err = response['error'];
  if (err) {
    const message = typeof err === 'string' ? err : (str(err as Json, 'message') ?? outputText(err) ?? 'failed');
    return { kind: 'tool-failed', tool, message };
  }
  if (FILE_TOOLS.has(tool)) {
    // write_file's display says whether the file is new; replace edits an existing one.
    const isNew = obj(response, 'returnDisplay')['isNewFile'];
    return fileAction(tool, pathOf(input), tool === 'replace' ? false : typeof isNew === 'boolean' ? isNew : null);
  }
  if (tool === 'write_todos') return { kind: 'plan', tool, steps: stepsFrom(input['todos']) };
  return { kind: 'tool', tool, output: outputText(p['tool_response']), command: commandOf(tool, input) };
}

/**
 * `invoke_agent`'s AfterTool. The display's `recentActivity` lists the sub-agent's tool calls
 * with ids `<sub-agent id>#<turn>-<n>` (the id its chat file is named by) and their arguments:
 * that is where its id and the files it wrote are read from. The list is the recent part only,
 * so an id may be missing (the recorder then finds the chat) and so may early files (they stay
 * recorded as the main agent's: both hooks carry the same session id).
 */
function subagentAction(tool: string, input: Json, response: Json): HookAction {
  const display = obj(response, 'returnDisplay');
  const activity = Array.isArray(display['recentActivity']) ? (display['recentActivity'] as unknown[]) : [];
  let agentId: string | null = null;
  const written: string[] = [];
  for (const item of activity) {
    if (!item || typeof item !== 'object') continue;
    const a = item as Json;
    if (str(a, 'type') !== 'tool_call') continue;
    const id = str(a, 'id');
    const hash = id ? id.indexOf('#') : -1;
    if (id && hash > 0) agentId ??= id.slice(0, hash);
    if (!FILE_TOOLS.has(str(a, 'content') ?? '') || str(a, 'status') !== 'completed') continue;
    const file = pathOf(argsOf(a['args']));
    if (file && !written.includes(file)) written.push(file);
  }
  const agentType = str(input, 'agent_name') ?? str(display, 'agentName');
  return {
    kind: 'subagent-ran',
    tool,
    agentId,
    agentType,
    task: str(input, 'prompt') ?? str(input, 'objective'),
    written,
  };
}

/** A tool call's arguments: a JSON string in the activity list (an object in some builds). */
function argsOf(v: unknown): Json {
  if (v && typeof v === 'object' && !Array.isArray(v)) return v as Json;
  if (typeof v !== 'string') return {};
  try {
    const o = JSON.parse(v) as unknown;
    return o && typeof o === 'object' && !Array.isArray(o) ? (o as Json) : {};
  } catch {
    return {};
  }
}
