/**
 * The official MCP conformance suite (`@modelcontextprotocol/conformance`, server scenarios,
 * the version pinned in package.json) run against `baton mcp --http`'s server. The suite's
 * client sends no credentials, so it reaches the server through a small proxy that adds the
 * bearer token and forwards everything else untouched (the Host and Origin headers included,
 * so the DNS-rebinding scenario still meets baton's own check). The scenarios baton does not
 * pass are listed, each with its reason, in fixtures/conformance-expected-failures.yaml; the
 * suite fails the run on any other failure and on a listed scenario that starts passing.
 */
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { SessionManager } from '../../src/manager/manager.js';
import { startHttpServer } from '../../src/mcp/http.js';
import type { HttpMcp } from '../../src/mcp/http.js';
import { MemoryStore } from '../../src/store/memory.js';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const SUITE = path.join(ROOT, 'node_modules/@modelcontextprotocol/conformance');
const EXPECTED_FAILURES = path.join(ROOT, 'test/mcp/fixtures/conformance-expected-failures.yaml');

/** A proxy on loopback that adds `Authorization: Bearer <token>` to every request it forwards to `target`. */
async function tokenProxy(target: URL, token: string): Promise<http.Server> {
  const proxy = http.createServer((req, res) => {
    const upstream = http.request(
      {
        host: target.hostname,
        port: target.port,
        path: req.url,
        method: req.method,
        headers: { ...req.headers, authorization: `Bearer ${token}` },
      },
      (answer) => {
        res.writeHead(answer.statusCode ?? 502, answer.headers);
        answer.pipe(res);
      },
    );
    upstream.on('error', () => {
      if (!res.headersSent) res.writeHead(502);
      res.end();
    });
    req.pipe(upstream);
  });
  await new Promise<void>((resolve) => proxy.listen(0, '127.0.0.1', resolve));
  return proxy;
}

const cleanup: Array<() => Promise<void>> = [];
afterAll(async () => {
  for (const c of cleanup.reverse()) await c();
});

describe('MCP conformance suite against baton mcp --http', () => {
  it('passes every server scenario except those listed with their reason', { timeout: 180_000 }, async () => {
    const pinned = (
      JSON.parse(fs.readFileSync(path.join(ROOT, 'package.json'), 'utf8')) as {
        devDependencies: Record<string, string>;
      }
    ).devDependencies['@modelcontextprotocol/conformance'];
    const installed = (JSON.parse(fs.readFileSync(path.join(SUITE, 'package.json'), 'utf8')) as { version: string })
      .version;
    expect(pinned, 'the suite is pinned to an exact version').toMatch(/^\d+\.\d+\.\d+$/);
    expect(installed).toBe(pinned);

    const manager = new SessionManager({ store: new MemoryStore(), pid: 1, host: 'h' });
    const served: HttpMcp = await startHttpServer({ manager }, { port: 0, token: 'conformance-token' });
    cleanup.push(() => served.close());
    const proxy = await tokenProxy(new URL(served.url), served.token);
    cleanup.push(() => new Promise((resolve) => proxy.close(() => resolve())));
    const url = `http://localhost:${(proxy.address() as AddressInfo).port}/mcp`;

    const run = spawn(
      process.execPath,
      [path.join(SUITE, 'dist/index.js'), 'server', '--url', url, '--expected-failures', EXPECTED_FAILURES],
      { cwd: ROOT, stdio: ['ignore', 'pipe', 'pipe'], env: { ...process.env, NO_COLOR: '1', FORCE_COLOR: '0' } },
    );
    let out = '';
    run.stdout.on('data', (b: Buffer) => (out += b.toString()));
    run.stderr.on('data', (b: Buffer) => (out += b.toString()));
    const code = await new Promise<number | null>((resolve) => run.on('close', resolve));
    const plain = out.replace(/\x1b\[[0-9;]*m/g, '');
    const summary = plain.slice(plain.indexOf('=== SUMMARY ==='));
    // The summary in the test output: what passed, what failed as expected, what did not.
    console.log(`@modelcontextprotocol/conformance ${installed}, server scenarios against baton:\n${summary}`);
    expect(plain, 'the suite printed its summary').toContain('=== SUMMARY ===');
    expect(code, summary).toBe(0);
    for (const scenario of [
      'server-initialize',
      'ping',
      'tools-list',
      'tools-call-error',
      'resources-list',
      'prompts-list',
      'server-sse-multiple-streams',
      'dns-rebinding-protection',
    ]) {
      expect(summary, scenario).toMatch(new RegExp(`✓ ${scenario}: \\d+ passed, 0 failed`));
    }
  });
});
