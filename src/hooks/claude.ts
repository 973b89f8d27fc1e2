/** Claude Code hook payloads → {@link HookEvent} (events and fields: docs/hooks.md). */
import {
  baseEvent,
  commandOf,
  fileAction,
  lifecycleAction,
  outputText,
  pathOf,
  stepsFrom,
  subagentOf,
  toolInput,
} from './common.js';
import type { HookAction, HookEvent, Json } from './model.js';
import { obj, str } from './model.js';

/** Claude Code's file tools: each writes the file its input names. */
const FILE_TOOLS: ReadonlySet<string> = new Set(['Write', 'Edit', 'MultiEdit', 'NotebookEdit']);

/** Claude Code 2.1's task tools: each call carries one change of the plan (TaskGet only reads one task). */
const TASK_TOOLS: ReadonlySet<string> = new Set(['TaskCreate', 'TaskUpdate', 'TaskList']);

/** Normalises one Claude Code payload. */
export function normaliseClaude(p: Json): HookEvent {
  const sub = subagentOf(p);
  return baseEvent('claude', p, action(p), sub);
}

function action(p: Json): HookAction {
  switch (str(p, 'hook_event_name')) {
    case 'PostToolUse':
      return toolAction(p);
    case 'PostToolUseFailure': {
      const err = p['error'];
      return {
        kind: 'tool-failed',
        tool: str(p, 'tool_name') ?? 'tool',
        message: (typeof err === 'string' ? err : outputText(err)) ?? 'failed',
      };
    }
    default:
      return lifecycleAction(p) ?? { kind: 'ignored' };
  }
}

function toolAction(p: Json): HookAction {
  const tool = str(p, 'tool_name') ?? '';
  const input = toolInput(p);
  if (FILE_TOOLS.has(tool)) {
    // Write says whether it created the file (tool_response.type); the edit tools never do.
    const type = str(obj(p, 'tool_response'), 'type');
    return fileAction(
      tool,
      pathOf(input),
      tool === 'Write' ? (type === 'create' ? true : type === 'update' ? false : null) : false,
    );
  }
  if (tool === 'TodoWrite') return { kind: 'plan', tool, steps: stepsFrom(input['todos']) };
  if (TASK_TOOLS.has(tool))
    return {
      kind: 'tasks',
      tool,
      call: { id: str(p, 'tool_use_id') ?? '', tool, input, response: p['tool_response'] ?? null },
    };
  return { kind: 'tool', tool, output: outputText(p['tool_response']), command: commandOf(tool, input) };
}
