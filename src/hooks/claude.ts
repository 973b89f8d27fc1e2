/** Claude Code hook payloads → {@link HookEvent} (events and fields: docs/hooks.md). */
import { baseEvent, outputText, pathOf, stepsFrom, subagentOf, toolInput } from './common.js';
import type { HookAction, HookEvent, Json } from './model.js';
import { obj, str } from './model.js';

/** Claude Code's file tools: each writes the file its input names. */
const FILE_TOOLS: ReadonlySet<string> = new Set(['Write', 'Edit', 'MultiEdit', 'NotebookEdit']);

/** Normalises one Claude Code payload. */
export function normaliseClaude(p: Json): HookEvent {
  const sub = subagentOf(p);
  return baseEvent('claude', p, action(p), sub);
}

function action(p: Json): HookAction {
  switch (str(p, 'hook_event_name')) {
    case 'SessionStart':
      return { kind: 'session-start', source: str(p, 'source') ?? 'startup' };
    case 'UserPromptSubmit':
      return { kind: 'prompt', prompt: str(p, 'prompt') };
    case 'PostToolUse':
      return toolAction(p);
    case 'PostToolUseFailure': {
      const err = p['error'];
      return { kind: 'tool-failed', tool: str(p, 'tool_name') ?? 'tool', message: (typeof err === 'string' ? err : outputText(err)) ?? 'failed' };
    }
    case 'Stop':
      return { kind: 'stop' };
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
      return { kind: 'compact', trigger: str(p, 'trigger') };
    case 'SessionEnd':
      return { kind: 'session-end', reason: str(p, 'reason') };
    default:
      return { kind: 'ignored' };
  }
}

function toolAction(p: Json): HookAction {
  const tool = str(p, 'tool_name') ?? '';
  const input = toolInput(p);
  if (FILE_TOOLS.has(tool)) {
    const file = pathOf(input);
    if (!file) return { kind: 'ignored' };
    // Write says whether it created the file (tool_response.type); the edit tools never do.
    const type = str(obj(p, 'tool_response'), 'type');
    const created = tool === 'Write' ? (type === 'create' ? [file] : type === 'update' ? [] : null) : [];
    return { kind: 'files', tool, written: [file], deleted: [], created };
  }
  if (tool === 'TodoWrite') return { kind: 'plan', tool, steps: stepsFrom(input['todos']) };
  return { kind: 'tool', tool, output: outputText(p['tool_response']) };
}
