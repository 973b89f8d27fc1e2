/**
 * A transport for the SDK's Client that spawns `node dist/baton.cjs mcp …` itself and keeps
 * every byte the server wrote to stdout, so a test can check that stdout held JSON-RPC only.
 */
import { spawn } from 'node:child_process';
import type { ChildProcessWithoutNullStreams } from 'node:child_process';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { ReadBuffer, serializeMessage } from '@modelcontextprotocol/sdk/shared/stdio.js';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import type { JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js';
import { BATON, baseEnv } from '../cli/helpers.js';

export class SpawnedServer implements Transport {
  onmessage?: (m: JSONRPCMessage) => void;
  onclose?: () => void;
  onerror?: (e: Error) => void;
  readonly stdout: Buffer[] = [];
  readonly stderr: Buffer[] = [];
  child: ChildProcessWithoutNullStreams | null = null;
  /** Exit code and signal, once the process ended. */
  readonly exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
  private resolveExit!: (r: { code: number | null; signal: NodeJS.Signals | null }) => void;
  private readonly buffer = new ReadBuffer();

  constructor(
    private readonly args: string[],
    private readonly cwd: string,
    private readonly env: Record<string, string | undefined> = {},
  ) {
    this.exited = new Promise((r) => (this.resolveExit = r));
  }

  async start(): Promise<void> {
    const child = spawn(process.execPath, [BATON, 'mcp', ...this.args], {
      cwd: this.cwd,
      env: baseEnv(this.env),
      stdio: ['pipe', 'pipe', 'pipe'],
    });
    this.child = child;
    child.stdout.on('data', (b: Buffer) => {
      this.stdout.push(b);
      this.buffer.append(b);
      // A line the SDK's schema refuses (e.g. an error response with id null, which JSON-RPC
      // allows) is kept in stdout for the test to look at, not thrown out of this handler.
      for (;;) {
        let m: JSONRPCMessage | null;
        try {
          m = this.buffer.readMessage();
        } catch (e) {
          this.onerror?.(e as Error);
          continue;
        }
        if (!m) break;
        this.onmessage?.(m);
      }
    });
    child.stderr.on('data', (b: Buffer) => this.stderr.push(b));
    child.on('error', (e) => this.onerror?.(e));
    child.on('close', (code, signal) => {
      this.resolveExit({ code, signal });
      this.onclose?.();
    });
  }

  async send(m: JSONRPCMessage): Promise<void> {
    this.child!.stdin.write(serializeMessage(m));
  }

  /** Writes raw bytes to the server's stdin (for malformed input). */
  writeRaw(s: string): void {
    this.child!.stdin.write(s);
  }

  /** Ends stdin: the server must then exit on its own. */
  async close(): Promise<void> {
    this.child?.stdin.end();
  }

  /** Every line the server wrote to stdout. */
  lines(): string[] {
    return Buffer.concat(this.stdout)
      .toString('utf8')
      .split('\n')
      .filter((l, i, all) => l !== '' || i < all.length - 1);
  }

  get stderrText(): string {
    return Buffer.concat(this.stderr).toString('utf8');
  }
}

/** Spawns `baton mcp ARGS` in `cwd` and connects an SDK Client named `name` to it. */
export async function spawnClient(
  name: string,
  args: string[],
  cwd: string,
  env: Record<string, string | undefined> = {},
): Promise<{ client: Client; server: SpawnedServer }> {
  const server = new SpawnedServer(args, cwd, env);
  const client = new Client({ name, version: '1.0.0' });
  await client.connect(server);
  return { client, server };
}
