/** Gemini CLI hook payloads → {@link HookEvent} (events and fields: docs/hooks.md). */
import { baseEvent, fileAction, lifecycleAction, outputText, pathOf, stepsFrom, toolInput } from './common.js';
import type { HookAction, HookEvent, Json } from './model.js';
import { obj, str } from './model.js';

/** Gemini CLI's file tools: each writes the file its input names. */
const FILE_TOOLS: ReadonlySet<string> = new Set(['write_file', 'replace']);

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
    default:
      return { kind: 'ignored' };
  }
}

function toolAction(p: Json): HookAction {
  const tool = str(p, 'tool_name') ?? '';
  const response = obj(p, 'tool_response');
  const err = response['error'];
  if (err) {
    const message = typeof err === 'string' ? err : str(err as Json, 'message') ?? outputText(err) ?? 'failed';
    return { kind: 'tool-failed', tool, message };
  }
  const input = toolInput(p);
  if (FILE_TOOLS.has(tool)) {
    // write_file's display says whether the file is new; replace edits an existing one.
    const isNew = obj(response, 'returnDisplay')['isNewFile'];
    return fileAction(tool, pathOf(input), tool === 'replace' ? false : typeof isNew === 'boolean' ? isNew : null);
  }
  if (tool === 'write_todos') return { kind: 'plan', tool, steps: stepsFrom(input['todos']) };
  return { kind: 'tool', tool, output: outputText(p['tool_response']) };
}
