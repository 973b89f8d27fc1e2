/**
 * A command run many times per workflow must not pay for what it does not use: pg, the MCP
 * SDK, yaml, zod, node:crypto, cli-progress (the progress bar), the OpenTelemetry packages and
 * the dashboard's node:http are loaded only by the commands that need them
 * (test/ui/command.test.ts shows that `baton ui` does load node:http).
 */
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { BATON, ROOT, baseEnv, workspace } from './helpers.js';

describe('heavy packages stay off the start-up path', () => {
  const trace = { NODE_OPTIONS: `--require ${path.join(ROOT, 'test/fixtures/trace-require.cjs')}` };

  it('a file-store command loads none of pg, the MCP SDK, yaml, zod, node:crypto, cli-progress or OpenTelemetry; the commands that need them do', async () => {
    const ws = workspace();
    await ws.ok(['start', 'Plain', '--id', 'plain']);
    // Start-up is the subject: every traced run is a real `node dist/baton.cjs` process.
    const r = await ws.run(['tokens', 'add', '--agent', 'a', '--input', '1'], { env: trace, spawn: true });
    expect(r.code).toBe(0);
    expect(r.stderr).not.toContain('TRACE:');
    // The controls: the same trace does see each package when a command needs it.
    const pgRun = await ws.run(['list'], {
      env: { ...trace, BATON_STORE: 'postgres://postgres@127.0.0.1:1/test?connect_timeout=1' },
      spawn: true,
    });
    expect(pgRun.stderr).toContain('TRACE: pg loaded');
    const mcpRun = await ws.run(['mcp'], { env: trace, spawn: true }); // stdin is closed at once: the server starts and ends
    expect(mcpRun.stderr).toContain('TRACE: @modelcontextprotocol/sdk loaded');
    expect(mcpRun.stderr).not.toContain('TRACE: pg loaded');
    fs.writeFileSync(ws.path('README.md'), '# hello\n');
    const hashing = await ws.run(['file', 'created', 'README.md'], { env: trace, spawn: true }); // hashes the file
    expect(hashing.stderr).toContain('TRACE: node:crypto loaded');
    expect(hashing.stderr).not.toContain('TRACE: @opentelemetry');
    // `baton otel` loads the OpenTelemetry packages (and only it: the runs above did not).
    const otelRun = await ws.run(
      ['otel', 'export', '--session', 'plain', '--endpoint', 'http://127.0.0.1:1', '--retries', '0'],
      { env: { ...trace, OTEL_EXPORTER_OTLP_TIMEOUT: '300' }, spawn: true },
    );
    expect(otelRun.stderr).toContain('TRACE: @opentelemetry loaded');
    expect(otelRun.stderr).toContain('EXPORT_FAILED');
  });
});

describe('built-ins stay off the start-up path', () => {
  /** The built-ins `baton …` loads, run as a script runs it: stdout to /dev/null, stderr read. */
  function builtins(cwd: string, args: string[]): string[] {
    const r = spawnSync(process.execPath, [BATON, ...args], {
      cwd,
      env: baseEnv({ NODE_OPTIONS: `--require ${path.join(ROOT, 'test/fixtures/trace-builtins.cjs')}` }),
      stdio: ['ignore', 'ignore', 'pipe'],
      encoding: 'utf8',
    });
    expect(r.status, r.stderr).toBe(0);
    return r.stderr.split('\n').flatMap((l) => (l.startsWith('BUILTIN: ') ? [l.slice(9)] : []));
  }

  it('`tokens add` and `list --json` with stdout on /dev/null load neither node:tty (nor node:net) nor node:perf_hooks', async () => {
    const ws = workspace();
    await ws.ok(['start', 'Plain', '--id', 'plain']);
    for (const args of [
      ['tokens', 'add', '--agent', 'a', '--input', '1'],
      ['list', '--json', '--all'],
    ]) {
      const loaded = builtins(ws.dir, args);
      // The control: the trace does see what the command loads.
      expect(loaded, args.join(' ')).toContain('vm');
      for (const heavy of ['tty', 'net', 'perf_hooks'])
        expect(loaded, `${args.join(' ')} loads ${heavy}`).not.toContain(heavy);
    }
  });
});
