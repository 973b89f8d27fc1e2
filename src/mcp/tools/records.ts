import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { z } from 'zod';
import { changeView, costReport, isBatonError, sessionBudget } from '../../manager/index.js';
import type { ChangeResult, CostReport } from '../../manager/index.js';
import type { Kit } from '../context.js';
import { MAX_ID_INPUT, MAX_PATHS, anyObject, changeFields, changeOutput, textArg } from '../schemas.js';
import { defineTool } from './define.js';

const phaseOpt = z
  .string()
  .min(1)
  .max(MAX_ID_INPUT)
  .optional()
  .describe('Phase id or name it belongs to (default: none).');

/** A tool that records one item and returns its new id under `key`. */
function recordTool<I extends z.ZodRawShape>(
  server: McpServer,
  kit: Kit,
  name: string,
  title: string,
  description: string,
  key: string,
  input: I,
  call: (
    id: string,
    a: z.infer<z.ZodObject<I & typeof changeFields>>,
    o: Awaited<ReturnType<Kit['change']>>,
  ) => Promise<ChangeResult<string>>,
): void {
  defineTool(
    server,
    kit,
    name,
    {
      title,
      description: `${description} Returns its id (\`${key}\`) and the session's new revision.`,
      input: { ...input, ...changeFields },
      output: { ...changeOutput, [key]: z.string() },
    },
    async (a) => {
      const args = a as z.infer<z.ZodObject<I & typeof changeFields>>;
      const id = await kit.session(args.session);
      const r = await call(id, args, await kit.change(args, id));
      return { ...changeView(r.state), [key]: r.result };
    },
  );
}

/** A tool that changes something and returns only the new revision. */
function changeTool<I extends z.ZodRawShape>(
  server: McpServer,
  kit: Kit,
  name: string,
  title: string,
  description: string,
  input: I,
  call: (
    id: string,
    a: z.infer<z.ZodObject<I & typeof changeFields>>,
    o: Awaited<ReturnType<Kit['change']>>,
  ) => Promise<ChangeResult<unknown>>,
): void {
  defineTool(
    server,
    kit,
    name,
    {
      title,
      description: `${description} Returns the session's new revision.`,
      input: { ...input, ...changeFields },
      output: changeOutput,
    },
    async (a) => {
      const args = a as z.infer<z.ZodObject<I & typeof changeFields>>;
      const id = await kit.session(args.session);
      return changeView((await call(id, args, await kit.change(args, id))).state);
    },
  );
}

/** Record tools: files, errors, tokens, decisions, findings, notes, milestones, artifacts, context (in `tools/list` order). */
export function registerRecordTools(server: McpServer, kit: Kit): void {
  registerFileTool(server, kit);
  registerErrorTools(server, kit);
  registerTokensTool(server, kit);
  registerKnowledgeTools(server, kit);
  registerGoalTools(server, kit);
}

/** `file_record`: files touched, hashed now. */
function registerFileTool(server: McpServer, kit: Kit): void {
  defineTool(
    server,
    kit,
    'file_record',
    {
      title: 'Record files',
      description:
        'Record files you created, modified or deleted, right after changing them. Paths are relative to the workspace (the folder holding .baton); each file is hashed now, so a resume can tell whether it changed later. `phase` defaults to the phase in progress. Returns the records (path, sha256, size) and the new revision.',
      input: {
        action: z
          .enum(['created', 'modified', 'deleted'])
          .describe('What you did to the files: created, modified or deleted.'),
        paths: z
          .array(z.string().min(1).max(4096))
          .min(1)
          .max(MAX_PATHS)
          .describe('File paths, relative to the workspace.'),
        phase: phaseOpt.describe('Phase the files belong to (default: the one in progress).'),
        ...changeFields,
      },
      output: { ...changeOutput, files: z.array(anyObject) },
    },
    async (a) => {
      const id = await kit.session(a.session);
      const r = await kit.manager().files(id, a.action, a.paths, a.phase ?? null, await kit.change(a, id));
      return {
        ...changeView(r.state),
        files: r.events
          .filter((e) => e.type === 'file.recorded')
          .map((e) => e.data as unknown as Record<string, unknown>),
      };
    },
  );
}

/** `error_add`, `error_resolve`. */
function registerErrorTools(server: McpServer, kit: Kit): void {
  recordTool(
    server,
    kit,
    'error_add',
    'Add an error',
    'Add an error that happened in a phase (a failing test, a timeout, a tool failure) as soon as you see it, before deciding to retry or fail the phase. `type` is e.g. validation, timeout, file_conflict, runtime, dependency, quota.',
    'errorId',
    {
      phase: z.string().min(1).max(MAX_ID_INPUT).describe('Phase the error belongs to.'),
      type: z
        .string()
        .min(1)
        .max(100)
        .describe('Kind of error, e.g. validation, timeout, file_conflict, runtime, dependency, quota.'),
      message: textArg('What went wrong.'),
    },
    (id, a, o) => kit.manager().error(id, { phase: a.phase, type: a.type, message: a.message, agent: o.agent }, o),
  );

  changeTool(
    server,
    kit,
    'error_resolve',
    'Resolve an error',
    'Mark a recorded error resolved, saying how, once it no longer applies. Unresolved errors are what a resume plan asks the next agent to deal with.',
    {
      errorId: z.string().min(1).max(MAX_ID_INPUT).describe('Id of the error, as error_add returned it (e.g. err-1).'),
      resolution: textArg('How it was resolved.'),
    },
    (id, a, o) => kit.manager().resolveError(id, a.errorId, a.resolution, o),
  );
}

/** `tokens_add`: token use against the budget. */
function registerTokensTool(server: McpServer, kit: Kit): void {
  defineTool(
    server,
    kit,
    'tokens_add',
    {
      title: 'Add token use',
      description:
        "Add token use to the session (input, output, cache reads, cache writes), attributed to you, to a phase and to the model that spent it. Only with the counts a model API's usage report gave (an orchestrator passing them on); never an estimate of your own tokens, which you cannot know. Agent CLIs with baton's hooks installed have their tokens recorded from the transcript: do not call this for them. Counts add up; concurrent calls never lose a count. Returns the session totals, the token budget (level ok, warning, critical or exceeded), and the estimated cost with the cost budget (a model missing from the pricing table has an unknown cost).",
      input: {
        input: z
          .number()
          .int()
          .nonnegative()
          .optional()
          .describe('Input (prompt) tokens spent since the last report, not counting cached ones.'),
        output: z
          .number()
          .int()
          .nonnegative()
          .optional()
          .describe('Output (completion) tokens spent since the last report, reasoning included.'),
        cached: z.number().int().nonnegative().optional().describe('Tokens read from a prompt cache.'),
        cacheWrite: z.number().int().nonnegative().optional().describe('Tokens written to a prompt cache.'),
        model: z
          .string()
          .min(1)
          .max(200)
          .optional()
          .describe('Model that spent them, e.g. claude-sonnet-4-5 (prices them).'),
        phase: phaseOpt.describe('Phase the tokens were spent on.'),
        ...changeFields,
      },
      output: {
        ...changeOutput,
        tokens: z.object({
          input: z.number(),
          output: z.number(),
          cached: z.number(),
          cacheWrite: z.number().optional(),
          budget: anyObject,
          cost: anyObject.optional(),
          costBudget: anyObject.optional(),
        }),
      },
    },
    async (a) => {
      const id = await kit.session(a.session);
      const m = kit.manager();
      const r = await m.tokens(
        id,
        {
          agent: kit.agent(a.agent),
          phase: a.phase ?? null,
          input: a.input ?? 0,
          output: a.output ?? 0,
          cached: a.cached ?? 0,
          cacheWrite: a.cacheWrite ?? 0,
          model: a.model ?? null,
        },
        await kit.change(a, id),
      );
      const t = r.state.tokens;
      let cost: CostReport | null = null;
      try {
        cost = costReport(r.state, m.pricing());
      } catch (e) {
        // The tokens are recorded; a pricing file that cannot be used only leaves the cost out.
        if (!isBatonError(e)) throw e;
      }
      return {
        ...changeView(r.state),
        tokens: {
          input: t.input,
          output: t.output,
          cached: t.cached,
          ...(t.cacheWrite ? { cacheWrite: t.cacheWrite } : {}),
          budget: sessionBudget(r.state) as unknown as Record<string, unknown>,
          ...(cost
            ? {
                cost: cost.total as unknown as Record<string, unknown>,
                costBudget: cost.budget as unknown as Record<string, unknown>,
              }
            : {}),
        },
      };
    },
  );
}

/** `decision_add`, `finding_add`, `finding_remove`, `note_add`: what was learnt and decided. */
function registerKnowledgeTools(server: McpServer, kit: Kit): void {
  recordTool(
    server,
    kit,
    'decision_add',
    'Add a decision',
    'Add a decision you made (what about, the choice, why, the alternatives), so that a later agent does not undo it.',
    'decisionId',
    {
      title: z.string().min(1).max(1000).describe('What was decided about.'),
      choice: textArg('What was chosen.'),
      rationale: textArg('Why.').optional(),
      alternatives: z
        .array(z.string().max(1000))
        .max(100)
        .optional()
        .describe('The options considered and not chosen.'),
      phase: phaseOpt,
    },
    (id, a, o) =>
      kit.manager().decision(
        id,
        {
          title: a.title,
          choice: a.choice,
          rationale: a.rationale ?? null,
          alternatives: a.alternatives ?? [],
          phase: a.phase ?? null,
          agent: o.agent,
        },
        o,
      ),
  );

  recordTool(
    server,
    kit,
    'finding_add',
    'Add a finding',
    'Add an open finding (a problem or fact discovered that someone must act on, e.g. a bug outside this task).',
    'findingId',
    {
      text: textArg('The finding.'),
      severity: z.string().max(100).optional().describe('e.g. low, medium, high.'),
      phase: phaseOpt,
    },
    (id, a, o) => kit.manager().finding(id, { text: a.text, severity: a.severity ?? null, phase: a.phase ?? null }, o),
  );

  changeTool(
    server,
    kit,
    'finding_remove',
    'Remove a finding',
    'Remove an open finding that was dealt with or was wrong.',
    { findingId: z.string().min(1).max(MAX_ID_INPUT).describe('Id of the finding, as finding_add returned it.') },
    (id, a, o) => kit.manager().removeFinding(id, a.findingId, o),
  );

  recordTool(
    server,
    kit,
    'note_add',
    'Add a note',
    'Add a free-text note to the session (progress, an observation, something the next agent should know).',
    'noteId',
    { text: textArg('The note.'), phase: phaseOpt },
    (id, a, o) => kit.manager().note(id, { text: a.text, phase: a.phase ?? null }, o),
  );
}

/** `milestone_add`, `milestone_done`, `artifact_add`, `context_set`: goals, outputs and the briefing for the next agent. */
function registerGoalTools(server: McpServer, kit: Kit): void {
  recordTool(
    server,
    kit,
    'milestone_add',
    'Add a milestone',
    'Add a milestone (a goal spanning phases), optionally with a target date (ISO-8601).',
    'milestoneId',
    {
      title: z.string().min(1).max(1000).describe('What the milestone is, e.g. "beta released".'),
      targetDate: z.string().max(100).optional().describe('When it is due, as an ISO-8601 date (e.g. 2026-12-01).'),
    },
    (id, a, o) => kit.manager().milestone(id, { title: a.title, targetDate: a.targetDate ?? null }, o),
  );

  changeTool(
    server,
    kit,
    'milestone_done',
    'Complete a milestone',
    'Mark a milestone done (by id or title).',
    { milestone: z.string().min(1).max(1000).describe('Milestone id or title.') },
    (id, a, o) => kit.manager().milestoneDone(id, a.milestone, o),
  );

  recordTool(
    server,
    kit,
    'artifact_add',
    'Add an artifact',
    'Add an artifact the work produced (a design doc, a report, a build), by path, so the next agent finds it.',
    'artifactId',
    {
      path: z.string().min(1).max(4096).describe('Path of the artifact, relative to the workspace.'),
      kind: z.string().max(100).optional().describe('e.g. design-doc, report, build.'),
      description: textArg('What it is.').optional(),
      phase: phaseOpt,
    },
    (id, a, o) =>
      kit
        .manager()
        .artifact(
          id,
          { path: a.path, kind: a.kind ?? null, description: a.description ?? null, phase: a.phase ?? null },
          o,
        ),
  );

  changeTool(
    server,
    kit,
    'context_set',
    'Set the context summary',
    "Replace the session's context summary: a short briefing of where things stand, for whoever resumes it. Call it before you stop working.",
    { summary: textArg('The briefing.') },
    (id, a, o) => kit.manager().context(id, a.summary, o),
  );
}
