import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { z } from 'zod';
import { renderResumePlan } from '../../manager/index.js';
import type { Kit } from '../context.js';
import { toolResumePlan, toolWords } from '../hint-words.js';
import { anyObject, sessionArg } from '../schemas.js';
import { defineTool } from './define.js';

/** The resume plan and the handoff briefing, as the CLI builds them. */
export function registerResumeTools(server: McpServer, kit: Kit): void {
  defineTool(
    server,
    kit,
    'resume_plan',
    {
      title: 'Plan a resume',
      description:
        'How to continue a session after a break or a crash, changing nothing: its status and why it stopped, the last completed phase, the phase in flight and its sub-step, failed phases with retries left or an escalation (the user decides among its `choices`: the tools that make them), blocked phases, recorded files changed since, recovery options (live, checkpoint, fresh) with what each loses, a recommendation and the next steps. Call it first when you pick up an existing session; then `session_resume`. `text` is the same plan as readable text.',
      input: { session: sessionArg },
      output: { session: z.string(), plan: anyObject, text: z.string() },
      readOnly: true,
    },
    async (a) => {
      const id = await kit.session(a.session);
      const { plan } = await kit.manager().recovery.plan(id);
      return { session: id, plan: toolResumePlan(plan), text: renderResumePlan(plan, toolWords) };
    },
  );

  defineTool(
    server,
    kit,
    'handoff',
    {
      title: 'Write a handoff',
      description:
        'A Markdown briefing of the session for the next agent or person: goal, phases, where work stopped, open errors, decisions, findings, files, next actions. Read-only; returns the Markdown.',
      input: { session: sessionArg },
      output: { session: z.string(), markdown: z.string() },
      readOnly: true,
    },
    async (a) => {
      const id = await kit.session(a.session);
      return { session: id, markdown: await handoffMarkdown(kit, id) };
    },
  );
}

/** The handoff Markdown of a session, as `baton handoff` prints it. */
export async function handoffMarkdown(kit: Kit, id: string): Promise<string> {
  return (await kit.manager().recovery.handoff(id)).markdown;
}
