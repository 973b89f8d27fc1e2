import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import type { GetPromptResult } from '@modelcontextprotocol/sdk/types.js';
import { z } from 'zod';
import { renderResumePlan } from '../manager/index.js';
import type { Kit } from './context.js';
import { toolWords } from './hint-words.js';
import { protocolError } from './errors.js';
import { MAX_ID_INPUT } from './schemas.js';

/**
 * The briefing an agent gets to resume a session: the resume plan as text, and what to call
 * next. Built from the same plan as `resume_plan`.
 */
export async function resumeBriefing(kit: Kit, explicit: string | null): Promise<{ id: string; text: string }> {
  const id = await kit.session(explicit);
  const { plan } = await kit.manager().recovery.plan(id);
  const rec = plan.recovery.recommended?.from ?? 'live';
  const steps =
    plan.status === 'active'
      ? ['The session is active: go on with the next step below.']
      : plan.resumable
        ? [
            `Call \`session_resume\` with session "${id}"${rec === 'live' ? '' : ` and from "${rec}"`} to reopen it (recommended recovery: ${rec}).`,
          ]
        : ['This session cannot be resumed; start a new one with `session_start` if the work must go on.'];
  const text = [
    `You are taking over the baton session "${id}". Its resume plan follows.`,
    '',
    renderResumePlan(plan, toolWords).trimEnd(),
    '',
    'What to do:',
    ...steps.map((s) => `- ${s}`),
    '- Deal with unresolved errors and failed phases as the plan says (retry only while retries are left; otherwise escalate to a person).',
    '- Record progress with the baton tools as you work: `phase_start`, `substep_reach`, `file_record`, `error_add`, `tokens_add`, `phase_complete`.',
    '- Before you stop: `context_set` with a short briefing, then `session_pause` (or `session_complete` when all is done).',
  ].join('\n');
  return { id, text };
}

/** Prompts: "resume this session". */
export function registerPrompts(server: McpServer, kit: Kit): void {
  server.registerPrompt(
    'resume_session',
    {
      title: 'Resume a baton session',
      description:
        'A briefing to take over a session: its resume plan (where work stopped, what failed, recovery options) and the tool calls to continue.',
      argsSchema: {
        session: z.string().max(MAX_ID_INPUT).optional().describe('Session id (default: the active session).'),
      },
    },
    async (args): Promise<GetPromptResult> => {
      try {
        const b = await resumeBriefing(kit, args.session ?? null);
        return {
          description: `Resume baton session ${b.id}`,
          messages: [{ role: 'user', content: { type: 'text', text: b.text } }],
        };
      } catch (e) {
        throw protocolError(e);
      }
    },
  );
}
