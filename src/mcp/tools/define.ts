import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import type { CallToolResult, ToolAnnotations } from '@modelcontextprotocol/sdk/types.js';
import { z } from 'zod';
import type { Kit } from '../context.js';
import { asBatonError, errorResult } from '../errors.js';

/** How one tool is described to the model. */
export interface ToolSpec<I extends z.ZodRawShape, O extends z.ZodRawShape> {
  title: string;
  /** When to call it and what comes back: written for a model. */
  description: string;
  input: I;
  output: O;
  /** Reads only (no change to any session). */
  readOnly?: boolean;
  /** May undo work (restore). */
  destructive?: boolean;
}

/** A tool body: the validated arguments in, the structured result out. Throws BatonError to refuse. */
export type ToolBody<I extends z.ZodRawShape, O extends z.ZodRawShape> = (
  args: z.infer<z.ZodObject<I>>,
) => Promise<z.input<z.ZodObject<O>>>;

/**
 * Registers a tool with the SDK: a strict input schema (unknown argument names are refused, not
 * dropped) and an output schema, both checked by the SDK; the body's result becomes
 * `structuredContent` (and its JSON the text content). A refusal from the body becomes an
 * `isError` result with the coded body (see errors.ts), never a protocol error. After a tool
 * that changes something, the derived files are refreshed once its response is sent
 * (Kit.changedSoon).
 */
export function defineTool<I extends z.ZodRawShape, O extends z.ZodRawShape>(
  server: McpServer,
  kit: Kit,
  name: string,
  spec: ToolSpec<I, O>,
  body: ToolBody<I, O>,
): void {
  const annotations: ToolAnnotations = {
    title: spec.title,
    readOnlyHint: spec.readOnly === true,
    destructiveHint: spec.destructive === true,
    openWorldHint: false,
  };
  const changes = !spec.readOnly;
  const run = async (args: z.infer<z.ZodObject<I>>): Promise<CallToolResult> => {
    try {
      const data = (await body(args)) as Record<string, unknown>;
      return { content: [{ type: 'text', text: JSON.stringify(data) }], structuredContent: data };
    } catch (e) {
      const b = asBatonError(e);
      // A bug is the maintainers' to see: its stack goes to the server's log (stderr).
      if (b.code === 'INTERNAL') kit.o.onWarning?.(`${name} failed unexpectedly: ${(e as Error)?.stack ?? String(e)}`);
      return errorResult(b);
    } finally {
      // Scheduled for after the event loop turns: the SDK sends the response before that.
      if (changes) kit.changedSoon();
    }
  };
  server.registerTool(
    name,
    {
      title: spec.title,
      description: spec.description,
      inputSchema: z.object(spec.input).strict(),
      outputSchema: z.object(spec.output).passthrough(),
      annotations,
    },
    run as never,
  );
}
