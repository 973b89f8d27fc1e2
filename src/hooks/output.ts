/**
 * What the hook prints, per CLI, so the CLI always reads valid output: the briefing as
 * SessionStart's `hookSpecificOutput.additionalContext` (the shape Claude Code, Codex and
 * Gemini CLI all take); before a tool call, the budget's word (a permission decision with its
 * reason, or the running total as context); and otherwise nothing (Claude Code, Codex) or
 * `{}` (Gemini CLI, whose stdout must be JSON on exit 0).
 */
import type { ToolGate } from '../manager/index.js';
import type { HookCli } from './model.js';

/** The stdout of a hook run: `context` is the additional context for the model, if any; `gate` the budget's word before a tool call. */
export function hookOutput(cli: HookCli, event: string, context: string | null, gate: ToolGate | null = null): string {
  if (gate?.decision && (event === 'PreToolUse' || event === 'BeforeTool'))
    return `${JSON.stringify(decision(cli, event, gate))}\n`;
  // SessionStart's briefing; after a tool (PostToolUse, Gemini CLI's AfterTool), a warning (a conflict with another live run);
  // before a tool, a budget that crossed a threshold.
  if (
    context !== null &&
    context !== '' &&
    (event === 'SessionStart' ||
      event === 'PostToolUse' ||
      event === 'AfterTool' ||
      event === 'PreToolUse' ||
      event === 'BeforeTool')
  ) {
    return `${JSON.stringify({ hookSpecificOutput: { hookEventName: event, additionalContext: context } })}\n`;
  }
  return cli === 'gemini' ? '{}\n' : '';
}

/**
 * A permission decision in each CLI's words: Claude Code and Codex take `permissionDecision`
 * (ask: the user is asked; deny: the reason goes to the model); Gemini CLI's BeforeTool takes
 * a top-level `decision` and `reason`.
 */
function decision(cli: HookCli, event: string, g: ToolGate): Record<string, unknown> {
  if (cli === 'gemini') return { decision: g.decision, reason: g.reason };
  return {
    hookSpecificOutput: { hookEventName: event, permissionDecision: g.decision, permissionDecisionReason: g.reason },
  };
}
