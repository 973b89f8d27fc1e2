/**
 * MCP tool arguments that are not an object are invalid params (-32602 naming the problem),
 * never internal errors, and the server reads on.
 */
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import { describe, expect, it } from 'vitest';
import { BATON, baseEnv, needBuiltCli, withSession } from './helpers.js';

/** Every file and folder under `dir`, relative, sorted. */
function _tree(dir: string): string[] {
  return (fs.readdirSync(dir, { recursive: true }) as string[]).map(String).sort();
}

describe('MCP tool arguments that are not an object', () => {
  // Checked before the MCP SDK sees them (src/mcp/arguments-guard.ts): the SDK answers these
  // with a bare -32603, and {"constructor": null} with its validator's TypeError text.
  it('a number, an array, null and {"constructor": …} are refused with -32602 naming the problem; the server reads on', async () => {
    needBuiltCli();
    const ws = await withSession('s1');
    const child = spawn(process.execPath, [BATON, 'mcp'], {
      cwd: ws.dir,
      env: baseEnv(),
      stdio: ['pipe', 'pipe', 'pipe'],
    });
    const answers = new Map<number, { error?: { code: number; message: string }; result?: { isError?: boolean } }>();
    let buf = '';
    const done = new Promise<void>((resolve) => {
      child.stdout.on('data', (d: Buffer) => {
        buf += d.toString('utf8');
        let nl: number;
        while ((nl = buf.indexOf('\n')) !== -1) {
          const msg = JSON.parse(buf.slice(0, nl)) as { id?: number };
          buf = buf.slice(nl + 1);
          if (typeof msg.id === 'number') answers.set(msg.id, msg as never);
          if (answers.size === 7) resolve();
        }
      });
    });
    const send = (m: unknown): boolean => child.stdin.write(`${JSON.stringify(m)}\n`);
    send({
      jsonrpc: '2.0',
      id: 0,
      method: 'initialize',
      params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 't', version: '1' } },
    });
    send({ jsonrpc: '2.0', method: 'notifications/initialized' });
    const bad: unknown[] = [5, [], null, { constructor: null }, { constructor: 5 }];
    bad.forEach((a, i) =>
      send({ jsonrpc: '2.0', id: i + 1, method: 'tools/call', params: { name: 'session_status', arguments: a } }),
    );
    send({ jsonrpc: '2.0', id: 6, method: 'tools/call', params: { name: 'session_status', arguments: {} } });
    await Promise.race([
      done,
      new Promise((_, reject) =>
        setTimeout(() => reject(new Error(`answers: ${JSON.stringify([...answers])}`)), 20_000),
      ),
    ]);
    child.stdin.end();
    child.kill();
    const said = ['is a number', 'is an array', 'is null', 'has the key "constructor"', 'has the key "constructor"'];
    for (let id = 1; id <= bad.length; id++) {
      const a = answers.get(id)!;
      expect(a.error?.code, `${JSON.stringify(bad[id - 1])}: ${JSON.stringify(a)}`).toBe(-32602);
      expect(a.error?.message).toContain(`"arguments" of tools/call "session_status" ${said[id - 1]}`);
      expect(a.error?.message).not.toMatch(/prototype|TypeError/);
    }
    expect(answers.get(6)!.result?.isError ?? false).toBe(false);
  });
});
