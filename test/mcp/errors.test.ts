/**
 * How failures the SDK detects itself become coded refusals: a result that breaks the tool's
 * own output schema is baton's bug (INTERNAL), not the caller's bad input.
 */
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { SessionManager } from '../../src/manager/manager.js';
import { createMcpServer } from '../../src/mcp/server.js';
import { MemoryStore } from '../../src/store/memory.js';

describe('SDK-detected failures', () => {
  it('a tool result that fails its output schema is INTERNAL (a bug in baton), not BAD_INPUT', async () => {
    const server = createMcpServer({ manager: new SessionManager({ store: new MemoryStore(), pid: 1, host: 'h' }) });
    // A tool with a bug: it promises a number and returns text.
    server.registerTool(
      'broken',
      { description: 'returns the wrong shape', inputSchema: { n: z.number() }, outputSchema: { n: z.number() } },
      async () => ({ content: [], structuredContent: { n: 'not a number' } }),
    );
    const [a, b] = InMemoryTransport.createLinkedPair();
    const client = new Client({ name: 't', version: '1' });
    await server.connect(b);
    await client.connect(a);
    try {
      const r = (await client.callTool({ name: 'broken', arguments: { n: 1 } })) as CallToolResult;
      expect(r.isError).toBe(true);
      const body = JSON.parse((r.content[0] as { text: string }).text) as {
        error: { code: string; message: string; hint: string };
      };
      expect(body.error.code).toBe('INTERNAL');
      expect(body.error.message).toMatch(/output schema/);
      expect(body.error.hint).toMatch(/bug in baton/);
      // Bad arguments to the same tool are still the caller's: BAD_INPUT.
      const bad = (await client.callTool({ name: 'broken', arguments: { n: 'x' } })) as CallToolResult;
      expect(JSON.parse((bad.content[0] as { text: string }).text).error.code).toBe('BAD_INPUT');
    } finally {
      await client.close();
      await server.close();
    }
  });
});
