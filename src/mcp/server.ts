import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { Kit } from './context.js';
import type { ServerOptions } from './context.js';
import { registerPrompts } from './prompts.js';
import { registerResources } from './resources.js';
import { registerCheckpointTools } from './tools/checkpoints.js';
import { registerPhaseTools } from './tools/phases.js';
import { registerPlanTools } from './tools/plan.js';
import { registerBudgetTools } from './tools/budget.js';
import { registerRecordTools } from './tools/records.js';
import { registerResumeTools } from './tools/resume.js';
import { registerSessionTools } from './tools/sessions.js';

export type { ServerOptions };

declare const BATON_VERSION: string | undefined;

/** What the server tells a client about itself; many clients show it to the model. */
const INSTRUCTIONS = [
  'baton keeps the durable state of a multi-step task: its phases, progress, files, errors, decisions and token use.',
  'At the start: session_list; resume a paused/interrupted/failed session of the same task (resume_plan, then session_resume) or create one (session_start).',
  'While working: phase_start, substep_reach at each step, file_record after changing files, error_add on errors, tokens_add, phase_complete.',
  'Before stopping: context_set with a briefing, then session_pause (or session_complete when done). Disconnecting without it leaves the session interrupted.',
  "A phase that used all its retries (RETRIES_EXHAUSTED) is the user's decision: ask, then phase_retry with force, phase_skip, session_fail, session_abandon, or plan_set / plan_add / plan_remove.",
  'Several agents on one session: phase_claim takes a free phase for you; records that name no phase go to it.',
  'A refused call is an isError result whose text is {"error": {code, message, hint, details}}: the code (e.g. BLOCKED, INVALID_TRANSITION) says what went wrong, the hint what to do instead. Arguments that do not match a tool\'s input schema get an "Input validation error" text naming the field.',
].join('\n');

/** Most elements (array items and object members) accepted in one tool call's arguments. */
export const MAX_INPUT_ELEMENTS = 20_000;

/**
 * Builds the baton MCP server: one tool per verb, the session resources, the resume prompt.
 * Every call goes through `options.manager`, the same manager (store, leases, validation) the
 * CLI uses. Connect it to any transport (`serveStdio` for `baton mcp`).
 */
export function createMcpServer(options: ServerOptions): McpServer {
  const server = new McpServer(
    {
      name: 'baton',
      title: 'baton session manager',
      version: typeof BATON_VERSION === 'string' ? BATON_VERSION : '0.0.0-dev',
    },
    {
      instructions: INSTRUCTIONS,
      maxToolInputElements: MAX_INPUT_ELEMENTS,
      capabilities: { tools: {}, resources: {}, prompts: {} },
    },
  );
  const kit = new Kit(options, () => server.server.getClientVersion()?.name ?? null);
  registerSessionTools(server, kit);
  registerPhaseTools(server, kit);
  registerPlanTools(server, kit);
  registerRecordTools(server, kit);
  registerBudgetTools(server, kit);
  registerCheckpointTools(server, kit);
  registerResumeTools(server, kit);
  registerResources(server, kit);
  registerPrompts(server, kit);
  kits.set(server, kit);
  // However the transport closes (stdin ended, the client gone), the connection's runs end.
  server.server.onclose = () => void kit.runs.disconnect();
  return server;
}

const kits = new WeakMap<McpServer, Kit>();

/** The client is gone: the runs the connection held end (`disconnected`; docs/runs.md). */
export async function serverDisconnected(server: McpServer): Promise<void> {
  const kit = kits.get(server);
  await kit?.runs.disconnect();
  // Its derived files (handoff.md) are refreshed before the store closes (see serverSettled).
  kit?.changedSoon();
}

/**
 * Resolves once the work `server` does after its responses (refreshing handoff.md and
 * mirrors of the sessions its calls changed) is done: wait for it before closing the store.
 */
export async function serverSettled(server: McpServer): Promise<void> {
  await kits.get(server)?.settled();
}
