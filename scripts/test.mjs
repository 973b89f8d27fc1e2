// `npm test`: build the CLI, type-check, run every test, and end with one plain summary line
// ("N passed, N failed, N skipped") that CI can read whatever the runner prints.
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';

const step = (cmd, args) => {
  const r = spawnSync(cmd, args, { stdio: 'inherit' });
  return r.status ?? 1;
};

// Format and lint first: a formatting slip fails in seconds, not after the suite.
if (step(process.execPath, ['node_modules/@biomejs/biome/bin/biome', 'ci', '--error-on-warnings']) !== 0) {
  console.error('Format or lint check failed: `npx biome check --write` fixes formatting and safe lint findings.');
  process.exit(1);
}
if (step(process.execPath, ['scripts/build.mjs']) !== 0) process.exit(1);
// The dashboard's web page (src/ui/web) has a config of its own: DOM types and JSX.
if (
  step(process.execPath, ['node_modules/typescript/bin/tsc', '-p', '.']) !== 0 ||
  step(process.execPath, ['node_modules/typescript/bin/tsc', '-p', 'src/ui/web']) !== 0
) {
  console.error('Type check failed.');
  process.exit(1);
}
// The globalSetup of vitest.config.ts makes the same choice (and prints it first).
const pg = process.env.BATON_TEST_PG_URL
  ? 'PostgreSQL tests ran on the real server of BATON_TEST_PG_URL'
  : 'PostgreSQL tests ran on an embedded PGlite (set BATON_TEST_PG_URL for a real server; tests that need one say SKIPPED above)';
const out = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'baton-test-')), 'results.json');
const code = step(process.execPath, [
  'node_modules/vitest/vitest.mjs',
  'run',
  '--reporter=default',
  '--reporter=json',
  `--outputFile.json=${out}`,
  ...process.argv.slice(2),
]);
try {
  const r = JSON.parse(fs.readFileSync(out, 'utf8'));
  const skipped = (r.numPendingTests ?? 0) + (r.numTodoTests ?? 0);
  console.log(`\n${pg}.`);
  console.log(`${r.numPassedTests} passed, ${r.numFailedTests} failed${skipped ? `, ${skipped} skipped` : ''}`);
} catch {
  console.log('\n0 passed, 1 failed (no test results were written)');
}
process.exit(code);
