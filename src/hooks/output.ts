/**
 * What the hook prints, per CLI, so the CLI always reads valid output: the briefing as
 * SessionStart's `hookSpecificOutput.additionalContext` (the shape Claude Code, Codex and
 * Gemini CLI all take), and otherwise nothing (Claude Code, Codex) or `{}` (Gemini CLI,
 * whose stdout must be JSON on exit 0).
 */
import type { HookCli } from './model.js';

/** The stdout of a hook run: `context` is the additional context for the model, if any. */
export function hookOutput(cli: HookCli, event: string, context: string | null): string {
  // SessionStart's briefing; after a tool (PostToolUse, Gemini CLI's AfterTool), a warning (a conflict with another live run).
  if (
    context !== null &&
    context !== '' &&
    (event === 'SessionStart' || event === 'PostToolUse' || event === 'AfterTool')
  ) {
    return `${JSON.stringify({ hookSpecificOutput: { hookEventName: event, additionalContext: context } })}\n`;
  }
  return cli === 'gemini' ? '{}\n' : '';
}
