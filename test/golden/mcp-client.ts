/**
 * Drives the real `baton mcp` (the built dist/baton.cjs) over stdio with the SDK's client and
 * records every call and its result as text for the golden test.
 */
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { normalise } from './normalise.js';

const BATON = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../dist/baton.cjs');

/** Calls one tool; its result is recorded. */
export type Call = (name: string, args: Record<string, unknown>) => Promise<void>;

/**
 * Starts `baton mcp` in `ws` with its clock at `start`, records the server's description and
 * tool list, runs `script`, and returns everything recorded (normalised).
 */
export async function mcpSession(ws: string, start: number, script: (call: Call) => Promise<void>): Promise<string> {
  if (!fs.existsSync(BATON))
    throw new Error(`The MCP golden runs the built CLI, but ${BATON} does not exist. Run \`npm run build\` first.`);
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: [BATON, 'mcp'],
    cwd: ws,
    env: {
      NO_COLOR: '1',
      BATON_AGENT: 'golden-agent',
      BATON_NOW: new Date(start).toISOString(),
      PATH: process.env['PATH'] ?? '',
    },
    stderr: 'pipe',
  });
  let stderr = '';
  transport.stderr?.on('data', (b: Buffer) => void (stderr += b.toString('utf8')));
  const client = new Client({ name: 'golden-client', version: '1.0.0' });
  await client.connect(transport);
  const pid = transport.pid ?? undefined;
  const out: string[] = [];
  const norm = (s: string): string => normalise(s, { ws, times: true, pid });
  try {
    out.push(
      '=== server',
      norm(JSON.stringify({ version: client.getServerVersion(), instructions: client.getInstructions() }, null, 2)),
    );
    const tools = await client.listTools();
    out.push('=== tools/list', norm(JSON.stringify(tools, null, 2)));
    await script(async (name, args) => {
      const r = await client.callTool({ name, arguments: args });
      out.push(`=== ${name} ${JSON.stringify(args)}`, norm(JSON.stringify(r, null, 2)));
      if (stderr) out.push('--- stderr', norm(stderr));
      stderr = '';
    });
  } finally {
    await client.close();
  }
  return `${out.join('\n')}\n`;
}
