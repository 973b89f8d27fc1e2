import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { z } from 'zod';
import { BatonError, changeView, findPhase, isBatonError, startablePhases } from '../../manager/index.js';
import type { Phase, PhaseAction } from '../../manager/index.js';
import type { Kit } from '../context.js';
import { CODE_HINTS, toolWording } from '../hint-words.js';
import { changeFields, changeOutput, phaseArg, textArg } from '../schemas.js';
import { defineTool } from './define.js';

const phaseOutput = z
  .object({
    id: z.string(),
    name: z.string(),
    status: z.string(),
    retryCount: z.number().int(),
    maxRetries: z.number().int(),
    subStep: z.string().nullable(),
  })
  .passthrough();

function phaseView(p: Phase): z.infer<typeof phaseOutput> {
  return {
    id: p.id,
    name: p.name,
    status: p.status,
    retryCount: p.retryCount,
    maxRetries: p.maxRetries,
    subStep: p.subStep ?? null,
  };
}

const VERBS: ReadonlyArray<[string, PhaseAction, string, string]> = [
  [
    'phase_start',
    'start',
    'Start a phase',
    'Start a pending phase (status in_progress) before working on it; on a failed phase this is a retry. Refused with BLOCKED while a phase it depends on is not completed or skipped, and RETRIES_EXHAUSTED past its retry limit (then escalate: ask, skip, or pass force: true); the hint names the phases that may be started now.',
  ],
  [
    'phase_complete',
    'complete',
    'Complete a phase',
    'Mark an in-progress phase completed once its work is done and recorded. A checkpoint is taken automatically (unless the session opted out).',
  ],
  [
    'phase_fail',
    'fail',
    'Fail a phase',
    'Mark an in-progress phase failed (give `reason`); record the error first with `error_add`. A failed phase can be retried with `phase_retry` while it has retries left.',
  ],
  [
    'phase_skip',
    'skip',
    'Skip a phase',
    "Skip a pending phase that is not needed, or a failed one when the user decides so after its retries are used up (recorded as the user's decision); give `reason`. Phases blocked by it may then start.",
  ],
  [
    'phase_retry',
    'retry',
    'Retry a phase',
    'Retry a failed phase (back to in_progress), counted against its retry limit. Refused with RETRIES_EXHAUSTED once the limit is used: escalate instead of forcing.',
  ],
];

/** Phase tools: start, complete, fail, skip, retry; and reaching a sub-step. */
export function registerPhaseTools(server: McpServer, kit: Kit): void {
  for (const [name, action, title, description] of VERBS) {
    defineTool(
      server,
      kit,
      name,
      {
        title,
        description: `${description} Returns the phase (status, retries, sub-step) and the session's new revision.`,
        input: {
          phase: phaseArg,
          ...changeFields,
          ...(action === 'fail' || action === 'skip' ? { reason: textArg('Why.').optional() } : {}),
          ...(action === 'start' || action === 'retry'
            ? {
                force: z
                  .boolean()
                  .optional()
                  .describe('Start despite open blockers or a used-up retry limit. Only when a person said so.'),
              }
            : action === 'complete'
              ? {
                  force: z
                    .boolean()
                    .optional()
                    .describe(
                      "Complete although the session's toolkit requires a step first (e.g. Maestro's reconciliation); recorded. Only when a person said so.",
                    ),
                }
              : {}),
        },
        output: { ...changeOutput, phase: phaseOutput },
      },
      async (a) => {
        const args = a as typeof a & { reason?: string; force?: boolean };
        const id = await kit.session(args.session);
        const m = kit.manager();
        try {
          const r = await m.phase(id, args.phase, action, {
            ...(await kit.change(args, id)),
            force: args.force === true,
            reason: args.reason ?? null,
          });
          // The domain's lookup (id before name), so the phase shown is the one that changed.
          const p = findPhase(r.state, args.phase);
          return { ...changeView(r.state), phase: phaseView(p) };
        } catch (e) {
          throw await withStartable(kit, id, e);
        }
      },
    );
  }

  defineTool(
    server,
    kit,
    'phase_claim',
    {
      title: 'Claim a phase',
      description:
        'Take a phase for this connection when several agents work on one session at once: `phase` names it, or without it the first one free (pending with its blockers done, or left by an agent that died). A pending phase is started for you; records that name no phase then go to it. Refused with LOCKED while another live agent owns it: the error lists the phases that are free (details.free) — claim one of those. Returns the phase and the new revision.',
      input: { phase: phaseArg.optional(), ...changeFields },
      output: { ...changeOutput, phase: phaseOutput, run: z.string() },
    },
    async (a) => {
      const id = await kit.session(a.session);
      const m = kit.manager();
      const agent = kit.agent(a.agent);
      const run = await kit.runs.runFor(id, agent, { reopen: true });
      if (!run)
        throw new BatonError(
          'INVALID_TRANSITION',
          `Session ${id} takes no phase claims: it is ${(await m.get(id)).status}.`,
          { hint: 'Resume it first (`session_resume`), or start a new session.' },
        );
      const r = await m.runs.claimPhase(id, run, a.phase ?? null, { ...(await kit.changeHeld(a, id)), run });
      const p = findPhase(r.state, r.result);
      return { ...changeView(r.state), phase: phaseView(p), run };
    },
  );

  defineTool(
    server,
    kit,
    'substep_reach',
    {
      title: 'Reach a sub-step',
      description:
        'Record that an in-progress phase reached a named sub-step (e.g. "tests written"). This is the resume point a later agent sees: call it at each meaningful step inside a phase. Returns the phase and the new revision.',
      input: { phase: phaseArg, name: z.string().min(1).max(1000).describe('The sub-step reached.'), ...changeFields },
      output: { ...changeOutput, phase: phaseOutput },
    },
    async (a) => {
      const id = await kit.session(a.session);
      try {
        const r = await kit.manager().substep(id, a.phase, a.name, await kit.change(a, id));
        const p = findPhase(r.state, a.phase);
        return { ...changeView(r.state), phase: phaseView(p) };
      } catch (e) {
        throw await withStartable(kit, id, e);
      }
    },
  );
}

/** A refused phase verb, with the phases that may be started now added to its hint and details. */
async function withStartable(kit: Kit, id: string, e: unknown): Promise<unknown> {
  if (!isBatonError(e) || !['INVALID_TRANSITION', 'BLOCKED', 'NOT_FOUND', 'RETRIES_EXHAUSTED'].includes(e.code))
    return e;
  let startable: string[];
  try {
    startable = startablePhases(await kit.manager().get(id));
  } catch {
    return e;
  }
  const more = startable.length
    ? `Phases that may be started now: ${startable.join(', ')}.`
    : 'No phase may be started now.';
  // A hint no tool can follow gives way to the code's hint, without the phases (as for any refusal).
  const worded = toolWording(e);
  const hint = worded === undefined ? more : worded === null ? CODE_HINTS[e.code] : `${worded} ${more}`;
  return new BatonError(e.code, e.message, { hint, details: { ...e.details, startable }, cause: e });
}
