import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { ErrorCode, McpError } from '@modelcontextprotocol/sdk/types.js';

type RequestHandler = (
  request: { params?: { name?: unknown; arguments?: unknown } },
  extra: unknown,
) => Promise<unknown>;

/**
 * Makes `tools/call` answer arguments that are not a JSON object (a number, an array, null)
 * with -32602 invalid params. The SDK parses the request with a schema before any tool runs,
 * and a failure of that parse (or a crash inside it: an object whose own `constructor` key is
 * not a function trips the schema library) would otherwise reach the client as -32603, an
 * internal error, although the caller's arguments are what is wrong. Call it after the tools
 * are registered (the SDK installs its `tools/call` handler with the first one).
 */
export function guardToolArguments(server: McpServer): void {
  const handlers = (server.server as unknown as { _requestHandlers?: Map<string, RequestHandler> })._requestHandlers;
  const inner = handlers?.get('tools/call');
  if (!handlers || !inner) return; // an SDK that changed its internals keeps its own answers
  handlers.set('tools/call', async (request, extra) => {
    const name = typeof request.params?.name === 'string' ? request.params.name : '(unnamed)';
    const args = request.params?.arguments;
    if (args !== undefined && !isPlainObject(args)) {
      throw new McpError(
        ErrorCode.InvalidParams,
        `Invalid arguments for tool ${name}: arguments must be a JSON object of named values, got ${describe(args)}.`,
      );
    }
    if (args !== undefined && Object.hasOwn(args, 'constructor')) {
      // No tool takes an argument of this name (every input schema is strict).
      throw new McpError(
        ErrorCode.InvalidParams,
        `Invalid arguments for tool ${name}: unknown argument "constructor".`,
      );
    }
    try {
      return await inner(request, extra);
    } catch (e) {
      // Only the request parse can fail here with a schema error: a tool body's failures
      // become isError results inside the handler.
      if ((e as Error)?.name === 'ZodError')
        throw new McpError(ErrorCode.InvalidParams, `Invalid params of tools/call: ${(e as Error).message}`);
      throw e;
    }
  });
}

function isPlainObject(v: unknown): v is Record<string, unknown> {
  if (v === null || typeof v !== 'object' || Array.isArray(v)) return false;
  const proto = Object.getPrototypeOf(v) as unknown;
  return proto === Object.prototype || proto === null;
}

function describe(v: unknown): string {
  if (v === null) return 'null';
  if (Array.isArray(v)) return 'an array';
  return `a ${typeof v}`;
}
