/** The hooks demo runs and shows a conversation captured with no baton call from the model. */
import { spawnSync } from 'node:child_process';
import path from 'node:path';
import { expect, it } from 'vitest';
import { ROOT } from './helpers.js';

it('npm run demo:hooks: every hook exits 0, and status/resume show what the hooks recorded', () => {
  const r = spawnSync(process.execPath, [path.join(ROOT, 'scripts', 'demo-hooks.mjs')], {
    encoding: 'utf8',
    env: { ...process.env, NO_COLOR: '1' },
  });
  expect(r.status).toBe(0);
  const hooks = r.stdout.split('\n').filter((l) => l.startsWith('  hook '));
  expect(hooks).toHaveLength(14);
  expect(hooks.every((l) => / exit 0 in /.test(l))).toBe(true);
  expect(r.stdout).toContain('agents: claude, claude/general-purpose#a1b2c3d4 · 3 files · 1 unresolved error');
  expect(r.stdout).toContain('[>] Test the greeting  ← resume here');
  expect(r.stdout).toContain('Tokens: 4,444 in / 176 out / 1,332 cached');
  expect(r.stdout).toContain('claude --resume 11111111-aaaa-4bbb-8ccc-000000000001');
  expect(r.stdout).toContain('Files changed outside the file tools: README.md');
});
