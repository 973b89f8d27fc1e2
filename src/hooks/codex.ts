/** Codex CLI hook payloads → {@link HookEvent} (events and fields: docs/hooks.md). */
import { baseEvent, commandOf, lifecycleAction, outputText, stepsFrom, subagentOf, toolInput } from './common.js';
import type { HookAction, HookEvent, Json } from './model.js';
import { str } from './model.js';
import { findPatch, patchFiles } from './patch.js';

/** Normalises one Codex payload. */
export function normaliseCodex(p: Json): HookEvent {
  return baseEvent('codex', p, action(p), subagentOf(p));
}

function action(p: Json): HookAction {
  if (str(p, 'hook_event_name') === 'PostToolUse') return toolAction(p);
  return lifecycleAction(p) ?? { kind: 'ignored' };
}

function toolAction(p: Json): HookAction {
  const tool = str(p, 'tool_name') ?? '';
  const input = toolInput(p);
  const failure = failureOf(p['tool_response']);
  if (failure !== null) return { kind: 'tool-failed', tool, message: failure };
  if (tool === 'apply_patch') {
    const patch = findPatch(p['tool_input']);
    if (!patch) return { kind: 'ignored' };
    const { written, deleted, created } = patchFiles(patch);
    return written.length || deleted.length ? { kind: 'files', tool, written, deleted, created } : { kind: 'ignored' };
  }
  if (tool === 'update_plan') return { kind: 'plan', tool, steps: stepsFrom(input['plan']) };
  return { kind: 'tool', tool, output: outputText(p['tool_response']), command: commandOf(tool, input) };
}

/** A tool response that reports a failure (`success: false`, or an `error`), as its message. */
function failureOf(r: unknown): string | null {
  if (!r || typeof r !== 'object' || Array.isArray(r)) return null;
  const o = r as Json;
  if (typeof o['error'] === 'string' && o['error'] !== '') return o['error'];
  if (o['success'] === false) return str(o, 'output') ?? str(o, 'message') ?? 'failed';
  return null;
}
