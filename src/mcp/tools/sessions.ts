import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { z } from 'zod';
import { changeView, phasesOfPlan, SESSION_STATUSES, statusView } from '../../manager/index.js';
import type { SessionStatus } from '../../manager/index.js';
import type { Kit } from '../context.js';
import { MAX_ID_INPUT, agentArg, anyObject, changeFields, changeOutput, sessionArg, textArg } from '../schemas.js';
import { toolResumePlan } from '../hint-words.js';
import { defineTool } from './define.js';

const phaseSpec = z.union([
  z.string().min(1).max(500),
  z
    .object({
      id: z
        .string()
        .max(MAX_ID_INPUT)
        .optional()
        .describe('Phase id, used by the phase tools (letters, digits, . _ -). Default: derived from the name.'),
      name: z.string().min(1).max(500).describe('What the phase does, e.g. "Design".'),
      blockedBy: z
        .array(z.string().max(MAX_ID_INPUT))
        .max(1000)
        .optional()
        .describe('Ids of the phases that must be completed or skipped before this one may start.'),
      agents: z
        .array(z.string().min(1).max(200))
        .max(100)
        .optional()
        .describe('Agents expected to work on the phase (informational).'),
      maxRetries: z
        .number()
        .int()
        .min(0)
        .max(100)
        .optional()
        .describe('How often the phase may be retried after failing before RETRIES_EXHAUSTED.'),
    })
    .strict(),
]);

/** The connection's run on the workspace's active session, if it holds one (not refused by its own run). */
async function ownRunOnActive(kit: Kit): Promise<string | null> {
  const active = await kit
    .manager()
    .store.getActive()
    .catch(() => null);
  return active ? ((await kit.runs.current(active)) ?? null) : null;
}

/** Session tools: start, list, status, switch, pause, complete, resume (in `tools/list` order). */
export function registerSessionTools(server: McpServer, kit: Kit): void {
  registerStartTool(server, kit);
  registerReadTools(server, kit);
  registerStateTools(server, kit);
}

/** `session_start`: a new session with its plan. */
function registerStartTool(server: McpServer, kit: Kit): void {
  defineTool(
    server,
    kit,
    'session_start',
    {
      title: 'Start a session',
      description:
        "Create a new baton session (a durable record of a multi-step task) and make it the workspace's active session. Call this at the start of a task only when `session_list` shows no paused, interrupted or failed session for the same task (resume that one with `session_resume` instead). Give the plan as `phases` (names, or objects with id, name, blockedBy). Returns the new session id, its revision and its phases. Fails with ACTIVE_EXISTS while another session is active unless `switch` is true (which pauses it).",
      input: {
        title: textArg('What the session is for.'),
        id: z
          .string()
          .max(MAX_ID_INPUT)
          .optional()
          .describe('Explicit session id (letters, digits, . _ -). Default: generated from the date and title.'),
        phases: z
          .array(phaseSpec)
          .max(1000)
          .optional()
          .describe('The plan: phase names in order, or {id, name, blockedBy, maxRetries} objects.'),
        budget: z.number().int().positive().optional().describe('Token budget (input + output).'),
        contextSummary: textArg('Context for whoever resumes the session.').optional(),
        switch: z
          .boolean()
          .optional()
          .describe('Pause the currently active session instead of failing with ACTIVE_EXISTS.'),
        force: z
          .boolean()
          .optional()
          .describe('With switch: pause it even while another run works on it (else LOCKED).'),
        autoCheckpoint: z.boolean().optional().describe('Take a checkpoint whenever a phase completes (default true).'),
        agent: agentArg,
      },
      output: {
        ...changeOutput,
        title: z.string(),
        phases: z.array(
          z
            .object({ id: z.string(), name: z.string(), status: z.string(), blockedBy: z.array(z.string()) })
            .passthrough(),
        ),
      },
    },
    async (a) => {
      const phases = a.phases?.length ? await phasesOfPlan({ phases: a.phases }, 'phases') : [];
      const m = kit.manager(true);
      if (a.switch === true)
        await m.runs.assertActiveFree(
          a.id ?? null,
          await ownRunOnActive(kit),
          'start a session with switch',
          a.force === true,
        );
      const s = await m.start({
        title: a.title,
        ...(a.id !== undefined ? { id: a.id } : {}),
        phases,
        budget: a.budget ?? null,
        contextSummary: a.contextSummary ?? null,
        switch: a.switch === true,
        agent: kit.agent(a.agent),
        metadata: a.autoCheckpoint === false ? { autoCheckpoint: false } : {},
      });
      // The connection works on the session it started: one run, while connected.
      await kit.runs.runFor(s.id, kit.agent(a.agent));
      return {
        ...changeView(s),
        title: s.title,
        phases: s.phases.map((p) => ({ id: p.id, name: p.name, status: p.status, blockedBy: p.blockedBy })),
      };
    },
  );
}

/** `session_list`, `session_status`: read-only views. */
function registerReadTools(server: McpServer, kit: Kit): void {
  defineTool(
    server,
    kit,
    'session_list',
    {
      title: 'List sessions',
      description:
        "List the sessions of this workspace, newest first: id, title, status (active, paused, interrupted, failed, completed, abandoned), progress and current phase. Call it at the start of a task to find a session to resume (status paused, interrupted or failed) before starting a new one. `active` names the workspace's active session. A workspace where no session was ever started has none (an empty list).",
      input: {
        status: z
          .enum(SESSION_STATUSES as unknown as [SessionStatus, ...SessionStatus[]])
          .optional()
          .describe('Only sessions with this status.'),
        all: z.boolean().optional().describe('Include archived sessions.'),
      },
      output: { sessions: z.array(anyObject), active: z.string().nullable() },
      readOnly: true,
    },
    async (a) =>
      kit.unlessNoStore(
        async (m) => {
          const sessions = await m.list({ all: a.all === true, ...(a.status ? { status: a.status } : {}) });
          return { sessions: sessions as unknown as Array<Record<string, unknown>>, active: await m.store.getActive() };
        },
        { sessions: [], active: null },
      ),
  );

  defineTool(
    server,
    kit,
    'session_status',
    {
      title: 'Show a session',
      description:
        'The full state of a session: status and its cause, phases (status, sub-step, retries, errors, files), token use and budget with the estimated cost by agent, phase and model, the budgets and their policies (`budgets`: what is exceeded and whether new work is refused), unresolved errors, decisions, findings, notes, milestones, artifacts, context summary, lease and revision. Read-only. To decide how to continue after a break, prefer `resume_plan`.',
      input: { session: sessionArg },
      output: {
        id: z.string(),
        title: z.string(),
        status: z.string(),
        revision: z.number().int(),
        phases: z.array(anyObject),
      },
      readOnly: true,
    },
    async (a) => {
      const m = kit.manager();
      const s = await m.get(await kit.session(a.session));
      const { dead, orphans } = m.runs.liveness(s);
      const view = { ...statusView(s, kit.now(), m.pricing(), dead, orphans), budgets: m.budgets.report(s) };
      return view as unknown as {
        id: string;
        title: string;
        status: string;
        revision: number;
        phases: Array<Record<string, unknown>>;
      };
    },
  );
}

/** `session_switch`, `session_pause`, `session_complete`, `session_resume`: moves between session states. */
function registerStateTools(server: McpServer, kit: Kit): void {
  defineTool(
    server,
    kit,
    'session_switch',
    {
      title: 'Switch the active session',
      description:
        "Make another session the workspace's active one; the session that was active is paused. A paused or interrupted target is reopened. Returns the target's id, revision and status.",
      input: {
        session: z.string().max(MAX_ID_INPUT).describe('Session to make active.'),
        force: z
          .boolean()
          .optional()
          .describe('Switch even while another run works on the current session (else LOCKED).'),
        agent: agentArg,
      },
      output: changeOutput,
    },
    async (a) => {
      const m = kit.manager();
      await m.runs.assertActiveFree(
        await m.expandId(a.session),
        await ownRunOnActive(kit),
        `switch to ${a.session}`,
        a.force === true,
      );
      const s = await m.switchTo(a.session, kit.agent(a.agent));
      await kit.runs.runFor(s.id, kit.agent(a.agent));
      return changeView(s);
    },
  );

  registerLifecycleTools(server, kit);
  registerArchiveTool(server, kit);

  defineTool(
    server,
    kit,
    'session_resume',
    {
      title: 'Resume a session',
      description:
        'Reopen a paused, interrupted or failed session and make it the active one, applying a recovery option: `live` (keep the recorded state), `fresh` (back to the start) or `checkpoint:<id>` (restore a checkpoint). Default: the recommendation of `resume_plan`, which you should read first. Takes over the lease of a crashed run (its writes are then refused as FENCED). On a session that is already active, live changes nothing (`changed: false`). Returns the option applied, the new status and the plan.',
      input: {
        session: sessionArg,
        from: z
          .string()
          .max(MAX_ID_INPUT + 20)
          .optional()
          .describe("live, fresh or checkpoint:<id>; default: the plan's recommendation."),
        force: z.boolean().optional().describe('Take over a lease another run still holds.'),
        agent: agentArg,
      },
      output: { ...changeOutput, appliedFrom: z.string(), changed: z.boolean(), plan: anyObject },
    },
    async (a) => {
      const id = await kit.session(a.session);
      const r = await kit
        .manager()
        .recovery.apply(id, { from: a.from ?? null, force: a.force === true, git: false, agent: kit.agent(a.agent) });
      await kit.runs.runFor(id, kit.agent(a.agent));
      return { ...changeView(r.state), appliedFrom: r.from, changed: r.changed, plan: toolResumePlan(r.plan) };
    },
  );
}

/** `session_pause`, `session_complete`, `session_fail`, `session_abandon`: a session's lifecycle verbs. */
function registerLifecycleTools(server: McpServer, kit: Kit): void {
  for (const [verb, title, description] of [
    [
      'pause',
      'Pause a session',
      'Pause the session (status paused): call it before you stop working on an unfinished task, after recording where you are (`substep_reach`, `context_set`). A later agent resumes it with `session_resume`.',
    ],
    [
      'complete',
      'Complete a session',
      'Mark the session completed when every phase is completed or skipped and the task is done. A completed session takes no more changes and stops being the active one. Refused with BLOCKED, naming them, while a phase is neither completed nor skipped; `force: true` completes it anyway and records those phases as left unfinished.',
    ],
    [
      'fail',
      'Fail a session',
      "Mark the session failed, on the user's decision (e.g. a phase used all its retries and the user gives up on the run): give `reason`. It stops being the active one; `session_resume` can reopen it later.",
    ],
    [
      'abandon',
      'Abandon a session',
      "Abandon the session for good, on the user's decision: give `reason`. It takes no more changes and cannot be resumed.",
    ],
  ] as const) {
    defineTool(
      server,
      kit,
      `session_${verb}`,
      {
        title,
        description: `${description} Returns the id, revision and new status.`,
        input: {
          ...changeFields,
          reason: textArg('Why.').optional(),
          // fail and abandon are the user's decision: nothing to force.
          ...(verb === 'complete' || verb === 'pause'
            ? {
                force: z
                  .boolean()
                  .optional()
                  .describe(
                    verb === 'complete'
                      ? 'Complete even with unfinished phases, recording them as left unfinished.'
                      : 'Pause even while another run (another agent) works on the session (else LOCKED).',
                  ),
              }
            : {}),
        },
        output: changeOutput,
      },
      async (a) => {
        const id = await kit.session(a.session);
        const force = (a as { force?: boolean }).force === true;
        const m = kit.manager();
        const o = await kit.changeHeld(a, id);
        if (verb === 'pause') m.runs.assertNoOtherLiveRun(await m.get(id), o.run ?? null, `pause session ${id}`, force);
        const s = await m.lifecycle(id, verb, a.reason ?? null, { ...o, force: verb === 'complete' && force });
        // The connection's run on it ends by choice: a disconnect later is no interruption.
        await kit.runs.ended(
          id,
          verb === 'pause' ? 'paused' : 'finished',
          verb === 'pause' ? 'paused' : `session-${s.status}`,
          o.agent,
        );
        return changeView(s);
      },
    );
  }
}

/**
 * `session_archive`: the CLI's `baton archive`, with its `force`. A session imported from a
 * toolkit that requires a step first (Maestro's reconciliation, CCW's review) is refused with
 * BLOCKED and the toolkit's reason; `force: true` archives it anyway and records the override.
 * Export has no tool: see docs/mcp.md ("Not over MCP").
 */
function registerArchiveTool(server: McpServer, kit: Kit): void {
  defineTool(
    server,
    kit,
    'session_archive',
    {
      title: 'Archive a session',
      description:
        "Move a finished or paused session to the archive (`session_list` shows it again with `all: true`). Refused with INVALID_TRANSITION while it is active or interrupted (complete, pause or abandon it first), and with BLOCKED when the session was imported from a toolkit that requires a step before archiving (the toolkit's reason is in the message); `force: true` archives it anyway, only when a person said so, and records the override. Returns the id, revision and status.",
      input: {
        ...changeFields,
        session: z
          .string()
          .max(MAX_ID_INPUT)
          .describe('Session to archive (required: the active session is not taken by default).'),
        force: z
          .boolean()
          .optional()
          .describe("Archive even though the session's toolkit requires a step first (recorded)."),
      },
      output: changeOutput,
    },
    async (a) => {
      const m = kit.manager();
      const id = await m.expandId(a.session);
      const s = await m.archive(id, { ...(await kit.changeHeld(a, id)), force: a.force === true });
      return changeView(s);
    },
  );
}
