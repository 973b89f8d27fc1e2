/**
 * `npm run demo` is the first command of the README: it must run the whole workflow (with its
 * crash and resume) and end on its own, leaving no process of the crashed agent behind.
 */
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { baseEnv } from './helpers.js';

const root = path.resolve(import.meta.dirname, '..', '..');

describe('the demo', () => {
  it('runs the workflow through the crash and the resume, and exits 0 on its own', async () => {
    const child = spawn(process.execPath, [path.join(root, 'scripts', 'demo.mjs')], {
      cwd: root,
      env: baseEnv({}),
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let out = '';
    child.stdout.on('data', (b: Buffer) => (out += b.toString('utf8')));
    const code = await new Promise<number | null>((resolve) => child.on('close', (c) => resolve(c)));
    expect(code).toBe(0);
    expect(out).toMatch(
      /Status: interrupted \(lease-expired: held by coder-be .*in flight: backend \(sub-step: write session\.ts\)/,
    );
    expect(out).toMatch(/session\.completed/);
    // The agent that finished the backend after the crash is one of its agents (issue 15, bug 1).
    expect(out).toMatch(/✓ backend .* completed · agents: coder-be, coder-be2 ·/);
    const dir = /remove it with: rm -rf (\S+)/.exec(out)?.[1];
    expect(dir).toBeDefined();
    fs.rmSync(dir!, { recursive: true, force: true });
  }, 180_000);
});
