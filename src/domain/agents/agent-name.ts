/**
 * Agent names recorded by hooks (a contract shared with the token ingestion): the main agent
 * of a CLI conversation is the CLI's name (`claude`, `codex`, `gemini`); a sub-agent is
 * `<cli>/<agent_type>#<first 8 characters of agent_id>`, with `agent` when the type is missing.
 */
export function agentName(cli: string, sub?: { agentId: string | null; agentType: string | null } | null): string {
  if (!sub?.agentId) return cli;
  return `${cli}/${sub.agentType || 'agent'}#${sub.agentId.slice(0, 8)}`;
}
