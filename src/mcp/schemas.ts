import { z } from 'zod';
import { MAX_TEXT } from '../manager/index.js';

/*
 * Input fields shared by the tools. Every string is bounded here, before the domain sees it,
 * so a huge argument is refused as BAD_INPUT by the schema; the domain keeps its own, often
 * tighter, limits and its messages. Ids are only length-bounded here: their syntax (no '/',
 * no '..') is the domain's rule (validateId), which answers with a message naming the rule.
 */

/** Longest id string accepted by a schema (the domain allows 128; longer ones get its message). */
export const MAX_ID_INPUT = 1000;
/** Most paths in one `file_record` call. */
export const MAX_PATHS = 1000;

export const sessionArg = z
  .string()
  .max(MAX_ID_INPUT)
  .optional()
  .describe("Session id. Default: the server's session (BATON_SESSION), else the workspace's active session.");

export const agentArg = z
  .string()
  .min(1)
  .max(200)
  .optional()
  .describe("Your agent name, recorded with the change. Default: the server's --agent, else the MCP client's name.");

export const ifRevisionArg = z
  .number()
  .int()
  .nonnegative()
  .optional()
  .describe(
    'Apply only if the session is still at this revision (else CONFLICT). Omit to let baton merge with concurrent writers.',
  );

export const phaseArg = z.string().min(1).max(MAX_ID_INPUT).describe('Phase id or name.');

/** Free text up to the domain's limit. */
export const textArg = (what: string): z.ZodString => z.string().max(MAX_TEXT).describe(what);

/** Fields every tool that changes a session takes. */
export const changeFields = { session: sessionArg, agent: agentArg, ifRevision: ifRevisionArg };

/** Result of a change: the session, its new revision and status, plus tool-specific fields. */
export const changeOutput = {
  session: z.string().describe('Session id.'),
  revision: z.number().int().describe('Revision of the session after the change.'),
  status: z.string().describe('Session status after the change.'),
};

/** A loosely typed object (state fragments whose full shape is documented in docs/cli.md). */
export const anyObject = z.object({}).passthrough();
