import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { z } from 'zod';
import { changeView } from '../../manager/index.js';
import type { ChangeResult } from '../../manager/index.js';
import type { Kit } from '../context.js';
import { MAX_ID_INPUT, changeFields, changeOutput, phaseArg, textArg } from '../schemas.js';
import { defineTool } from './define.js';

const phasesArg = z.array(z.string().min(1).max(MAX_ID_INPUT)).max(1000);
const retriesArg = z.number().int().min(0).max(100);
const planOutput = {
  ...changeOutput,
  phase: z.string().nullable().describe('The phase added or changed.'),
  phases: z.array(z.string()).describe('The phase ids of the plan now, in order.'),
};
const why = textArg("Why the plan changes (the user's decision).").optional();

function result(r: ChangeResult<unknown>, phase: string | null): z.input<z.ZodObject<typeof planOutput>> {
  return {
    ...changeView(r.state),
    phase,
    phases: r.state.phases.map((p) => p.id),
  };
}

/**
 * Plan changes: `plan_add`, `plan_remove`, `plan_set` (as `baton plan add|remove|set`), the
 * user's way out of an escalation besides a retry, a skip or ending the session.
 */
export function registerPlanTools(server: McpServer, kit: Kit): void {
  defineTool(
    server,
    kit,
    'plan_add',
    {
      title: 'Add a phase',
      description:
        "Add a phase to the session's plan, on the user's decision (e.g. a fix-up phase after a failure): `name`, optionally `id`, its place (`after` or `before` a phase; default: at the end), `blockedBy` and `maxRetries`. Recorded as phase.added. Returns the new phase's id and the plan's phases.",
      input: {
        name: z.string().min(1).max(500).describe('The new phase.'),
        id: z.string().min(1).max(MAX_ID_INPUT).optional().describe('Its id (default: made from the name).'),
        after: phaseArg.optional().describe('Place it right after this phase.'),
        before: phaseArg.optional().describe('Place it right before this phase.'),
        blockedBy: phasesArg.optional().describe('Phases it waits for.'),
        maxRetries: retriesArg.optional().describe('Its retry limit (default 2).'),
        reason: why,
        ...changeFields,
      },
      output: planOutput,
    },
    async (a) => {
      const id = await kit.session(a.session);
      const r = await kit.manager().plan.add(
        id,
        {
          name: a.name,
          id: a.id ?? null,
          after: a.after ?? null,
          before: a.before ?? null,
          blockedBy: a.blockedBy ?? [],
          maxRetries: a.maxRetries,
          reason: a.reason ?? null,
        },
        await kit.change(a, id),
      );
      return result(r, r.result);
    },
  );

  defineTool(
    server,
    kit,
    'plan_remove',
    {
      title: 'Remove a phase',
      description:
        "Remove a pending phase from the session's plan, on the user's decision. Refused for a phase that has started or has records (skip it instead), and while other phases depend on it (the hint says how to change them with `plan_set`). Recorded as phase.removed.",
      input: { phase: phaseArg, reason: why, ...changeFields },
      output: planOutput,
    },
    async (a) => {
      const id = await kit.session(a.session);
      return result(
        await kit.manager().plan.remove(id, a.phase, { ...(await kit.change(a, id)), reason: a.reason ?? null }),
        null,
      );
    },
  );

  defineTool(
    server,
    kit,
    'plan_set',
    {
      title: 'Change a phase',
      description:
        "Change a phase's retry limit (`maxRetries`, e.g. one more after the retries were used up, on the user's decision) and/or its dependencies (`blockedBy`, all of them; [] for none; a cycle is refused). Recorded as phase.updated.",
      input: {
        phase: phaseArg,
        maxRetries: retriesArg.optional().describe('Its new retry limit (0 to 100).'),
        blockedBy: phasesArg.optional().describe('Every phase it waits for ([] for none).'),
        reason: why,
        ...changeFields,
      },
      output: planOutput,
    },
    async (a) => {
      const id = await kit.session(a.session);
      const r = await kit
        .manager()
        .plan.set(
          id,
          a.phase,
          { maxRetries: a.maxRetries, ...(a.blockedBy ? { blockedBy: a.blockedBy } : {}), reason: a.reason ?? null },
          await kit.change(a, id),
        );
      const e = r.events[0];
      return result(r, e?.type === 'phase.updated' ? e.data.phaseId : a.phase);
    },
  );
}
