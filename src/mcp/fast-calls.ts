import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { getParseErrorMessage } from '@modelcontextprotocol/sdk/server/zod-compat.js';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import { ErrorCode, McpError } from '@modelcontextprotocol/sdk/types.js';
import type { CallToolResult, JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js';
import type { Kit, ToolEntry } from './context.js';
import {
  RELATED_TASK_META_KEY,
  isPlainMeta,
  isPlainNotification,
  isPlainObject,
  isPlainRequest,
  isRequestId,
} from './envelope.js';
import type { RequestId } from './envelope.js';
import { sdkToolError } from './errors.js';
import { compileCheck } from './fast-check.js';

/*
 * The `tools/call` of one of baton's own tools, answered without the SDK's layers. Through the
 * SDK a call is parsed by zod schemas seven times (the message, its classification as result,
 * error and request, the tools/call request twice, the arguments) and its result twice (the
 * output schema, the result schema), ≈ 0.2 ms of a call whose durable append costs ≈ 0.15 ms.
 * Here the envelope is checked by hand (envelope.ts), the arguments by the tool's own schema,
 * the structured result by its output schema, and the response is written at once; the
 * derived files are refreshed after it (Kit.changedSoon).
 *
 * Only calls the SDK would accept and run the same way take this path: a well-formed request
 * naming one of `kit.tools`, with arguments its schema accepts and without task augmentation.
 * Anything else (an unknown tool, bad arguments, a task, an odd envelope) goes to the SDK
 * unchanged, which answers it as it always has; so do all other messages.
 */

/** A `tools/call` this path runs: the request id, the tool and its validated arguments. */
interface FastCall {
  id: RequestId;
  name: string;
  tool: ToolEntry;
  args: unknown;
}

const CALL_PARAM_KEYS: ReadonlySet<string> = new Set(['name', 'arguments', '_meta']);

/** Own keys an arguments object may not have on this path (the SDK's record parse treats them specially). */
const ODD_KEYS = ['constructor', '__proto__'];

/**
 * The call `message` asks for when this path may run it, else null (the SDK takes it).
 * `maxElements`: the SDK's cap on array items and object members in the arguments.
 */
export function fastCall(
  message: unknown,
  tools: ReadonlyMap<string, ToolEntry>,
  maxElements: number,
): FastCall | null {
  if (!isPlainRequest(message) || message.method !== 'tools/call') return null;
  const params = message.params;
  if (!params) return null;
  for (const k in params) if (!CALL_PARAM_KEYS.has(k)) return null;
  const name = params['name'];
  if (typeof name !== 'string') return null;
  const tool = tools.get(name);
  if (!tool) return null;
  const meta = params['_meta'] as Record<string, unknown> | undefined;
  if (!isPlainMeta(meta) || (meta && meta[RELATED_TASK_META_KEY] !== undefined)) return null;
  const raw = params['arguments'];
  if (raw !== undefined && !isPlainObject(raw)) return null;
  if (raw && ODD_KEYS.some((k) => Object.hasOwn(raw, k))) return null;
  if (elementsOver(raw, maxElements)) return null;
  const args = raw ?? {};
  if (compileCheck(tool.input)?.(args)) return { id: message.id, name, tool, args };
  let parsed: { success: boolean; data?: unknown };
  try {
    parsed = tool.input.safeParse(args);
  } catch {
    return null;
  }
  return parsed.success ? { id: message.id, name, tool, args: parsed.data } : null;
}

/** More than `max` array items and object members in `value`, counted as the SDK counts them. */
function elementsOver(value: unknown, max: number): boolean {
  let count = 0;
  const stack: unknown[] = [value];
  while (stack.length) {
    const node = stack.pop();
    if (node === null || typeof node !== 'object') continue;
    if (Array.isArray(node)) {
      for (const child of node) {
        if (++count > max) return true;
        if (child !== null && typeof child === 'object') stack.push(child);
      }
    } else {
      for (const key in node) {
        if (!Object.hasOwn(node, key)) continue;
        if (++count > max) return true;
        const child = (node as Record<string, unknown>)[key];
        if (child !== null && typeof child === 'object') stack.push(child);
      }
    }
  }
  return false;
}

/**
 * The result as the SDK would send it: a successful result whose structured content does not
 * match the tool's output schema becomes the error the SDK reports (see sdkToolError: INTERNAL).
 */
function checkedResult(name: string, tool: ToolEntry, result: CallToolResult): CallToolResult {
  if (result.isError) return result;
  if (!result.structuredContent) {
    return sdkToolError(
      new McpError(
        ErrorCode.InvalidParams,
        `Output validation error: Tool ${name} has an output schema but no structured content was provided`,
      ).message,
    );
  }
  if (compileCheck(tool.output)?.(result.structuredContent)) return result;
  const checked = tool.output.safeParse(result.structuredContent);
  if (checked.success) return result;
  return sdkToolError(
    new McpError(
      ErrorCode.InvalidParams,
      `Output validation error: Invalid structured content for tool ${name}: ${getParseErrorMessage(checked.error)}`,
    ).message,
  );
}

/** A call in flight; `cancelled` once the client cancelled it or the connection closed. */
interface InFlight {
  cancelled: boolean;
}

/**
 * Makes every transport `server` connects to answer the calls {@link fastCall} accepts itself,
 * before the SDK sees them; all other messages reach the SDK as before. A call cancelled by
 * the client (notifications/cancelled) or cut by the connection's close gets no response, as
 * with the SDK. Call once, before connecting.
 */
export function installFastCalls(server: McpServer, kit: Kit, maxElements: number): void {
  const connect = server.connect.bind(server);
  server.connect = async (transport: Transport): Promise<void> => {
    await connect(transport);
    const sdkMessage = transport.onmessage;
    const sdkClose = transport.onclose;
    // An SDK that stopped routing messages through the transport's callbacks keeps its own path.
    if (!sdkMessage) return;
    const inFlight = new Map<RequestId, InFlight>();
    const fail = (e: unknown): void =>
      server.server.onerror?.(new Error(`Failed to send response: ${(e as Error)?.message ?? String(e)}`));
    const answer = async (call: FastCall): Promise<void> => {
      const entry: InFlight = { cancelled: false };
      inFlight.set(call.id, entry);
      let response: JSONRPCMessage;
      try {
        // The SDK's member order: result, jsonrpc, id.
        response = {
          result: checkedResult(call.name, call.tool, await call.tool.run(call.args)),
          jsonrpc: '2.0',
          id: call.id,
        } as JSONRPCMessage;
      } catch (e) {
        // A tool body turns its failures into results; this is only for a bug past it. The SDK
        // answers a handler that throws with a JSON-RPC error, so does this.
        response = {
          jsonrpc: '2.0',
          id: call.id,
          error: { code: ErrorCode.InternalError, message: (e as Error)?.message ?? 'Internal error' },
        };
      } finally {
        if (inFlight.get(call.id) === entry) inFlight.delete(call.id);
      }
      try {
        if (!entry.cancelled) await transport.send(response).catch(fail);
      } finally {
        if (call.tool.changes) kit.changedSoon();
      }
    };
    transport.onmessage = (message, extra) => {
      const call = fastCall(message, kit.tools, maxElements);
      if (call) {
        void answer(call);
        return;
      }
      if (isPlainNotification(message) && message.method === 'notifications/cancelled') {
        // As the SDK: a falsy requestId cancels nothing. The SDK sees the notification too.
        const id = message.params?.['requestId'];
        if (id && isRequestId(id)) {
          const entry = inFlight.get(id);
          if (entry) entry.cancelled = true;
        }
      }
      sdkMessage.call(transport, message, extra);
    };
    transport.onclose = () => {
      for (const entry of inFlight.values()) entry.cancelled = true;
      inFlight.clear();
      sdkClose?.call(transport);
    };
  };
}
