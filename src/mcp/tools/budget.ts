import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { z } from 'zod';
import { changeView } from '../../manager/index.js';
import type { Kit } from '../context.js';
import { MAX_ID_INPUT, anyObject, changeFields, changeOutput } from '../schemas.js';
import { defineTool } from './define.js';

/** `budget_set`: a budget (tokens, dollars) and what happens past it, for the session, a phase or an agent. */
export function registerBudgetTools(server: McpServer, kit: Kit): void {
  defineTool(
    server,
    kit,
    'budget_set',
    {
      title: 'Set a budget',
      description:
        "Set the session's budget, or a phase's or an agent's: tokens (input + output) and/or estimated US dollars, and what happens once it is exceeded: warn (a warning at 80 %, 95 % and past it), ask (agents' tool calls are put to the user) or stop (new work is refused with BUDGET_EXCEEDED). Fields left out stay as they were; null removes a limit. Only when the user asked for it, or agreed to raise an exceeded budget: spending more is their decision. Returns the budgets and the use against each (`session_status` shows them too).",
      input: {
        tokens: z
          .number()
          .int()
          .positive()
          .nullable()
          .optional()
          .describe('Token budget (input + output); null removes it.'),
        usd: z.number().positive().nullable().optional().describe('Cost budget in US dollars; null removes it.'),
        onExceed: z.enum(['warn', 'ask', 'stop']).optional().describe('What happens once the budget is exceeded.'),
        phase: z.string().min(1).max(MAX_ID_INPUT).optional().describe("A phase's budget instead of the session's."),
        forAgent: z.string().min(1).max(200).optional().describe("An agent's budget instead of the session's."),
        ...changeFields,
      },
      output: { ...changeOutput, budgets: anyObject },
    },
    async (a) => {
      const id = await kit.session(a.session);
      const m = kit.manager();
      const r = await m.budgets.set(
        id,
        {
          ...(a.tokens !== undefined ? { tokens: a.tokens } : {}),
          ...(a.usd !== undefined ? { usd: a.usd } : {}),
          ...(a.onExceed !== undefined ? { onExceed: a.onExceed } : {}),
          ...(a.phase !== undefined ? { phase: a.phase } : {}),
          ...(a.forAgent !== undefined ? { agent: a.forAgent } : {}),
        },
        await kit.change(a, id),
      );
      return {
        ...changeView(r.state),
        budgets: m.budgets.report(r.state) as unknown as Record<string, unknown>,
      };
    },
  );
}
