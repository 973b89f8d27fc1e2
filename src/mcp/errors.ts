import { ErrorCode, McpError } from '@modelcontextprotocol/sdk/types.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { type BatonError, toBatonError } from '../manager/index.js';
import { toolHint } from './hint-words.js';

/** The body of a refused call (its text content, as JSON): what the model reads to decide its next step. */
export interface ToolErrorBody {
  error: { code: string; message: string; hint: string | null; details: Record<string, unknown> };
}

/**
 * Turns anything a tool body threw into an `isError` result. A BatonError keeps its code,
 * message, hint and details; a file-system refusal becomes STORE_UNAVAILABLE as in the CLI;
 * anything else is INTERNAL. Never throws: a tool failure is the model's to handle, not a
 * protocol error.
 */
export function toolError(e: unknown): CallToolResult {
  return errorResult(asBatonError(e));
}

/**
 * The isError result of a BatonError: one text content holding `{"error": {code, message,
 * hint, details}}` as JSON (the hint worded for tools, see toolHint), like a success result holds its data. No `structuredContent`:
 * the MCP specification requires structured content to match the tool's output schema, and
 * SDK clients check it even on errors, so an error object there would turn a refusal the model
 * can act on into a client-side schema failure.
 */
export function errorResult(e: BatonError): CallToolResult {
  const body: ToolErrorBody = { error: { code: e.code, message: e.message, hint: toolHint(e), details: e.details } };
  return { isError: true, content: [{ type: 'text', text: JSON.stringify(body) }] };
}

/** Maps an unknown failure to the BatonError a caller should see. */
export function asBatonError(e: unknown): BatonError {
  return toBatonError(e, 'This is a bug in baton; report it with the tool call that caused it.');
}

/** JSON-RPC error code of "resource not found" in the MCP specification. */
export const RESOURCE_NOT_FOUND = -32002;

/**
 * A refusal while reading a resource or getting a prompt: those are not tool calls, so it is
 * a JSON-RPC error, whose `data` carries the same code, hint and details as a tool's.
 */
export function protocolError(e: unknown): McpError {
  const b = asBatonError(e);
  const rpc =
    b.code === 'NOT_FOUND' || b.code === 'NO_ACTIVE_SESSION' || b.code === 'NO_STORE'
      ? RESOURCE_NOT_FOUND
      : b.code === 'BAD_INPUT'
        ? ErrorCode.InvalidParams
        : ErrorCode.InternalError;
  const hint = toolHint(b);
  const text = `error[${b.code}]: ${b.message}${hint ? ` (hint: ${hint})` : ''}`;
  const err = new McpError(rpc, text, { code: b.code, hint, details: b.details });
  // The SDK sends `message` as the JSON-RPC error's message, and its client prefixes
  // "MCP error <code>: " again on receipt: sent bare, the client reads it prefixed once.
  err.message = text;
  return err;
}
