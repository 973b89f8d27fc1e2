// `npm run demo`: a scripted multi-agent workflow on the default file store, in a temporary
// workspace. Each agent is a separate process calling the real `baton` CLI; the frontend and
// backend agents work at the same time on one session. The backend agent's run is killed
// mid-phase; the next agent reads the status, the resume plan and the handoff, and finishes.
import { execFile, spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';

const run = promisify(execFile);
const baton = fileURLToPath(new URL('../dist/baton.cjs', import.meta.url));
const work = fs.mkdtempSync(path.join(os.tmpdir(), 'baton-demo-'));
const env = { ...process.env, BATON_DIR: undefined, BATON_SESSION: undefined, NO_COLOR: process.env.NO_COLOR };
delete env.BATON_DIR;
delete env.BATON_SESSION;

/** Runs one baton command as `agent`; prints it and its output like a transcript. */
async function b(agent, ...args) {
  const { stdout } = await run(process.execPath, [baton, ...args], { cwd: work, env: { ...env, BATON_AGENT: agent } });
  console.log(
    `  [${agent}] baton ${args.map((a) => (/\s/.test(a) ? JSON.stringify(a) : a)).join(' ')}${stdout.trim() ? `\n      → ${stdout.trim().split('\n').join('\n        ')}` : ''}`,
  );
  return stdout.trim();
}

function write(rel, text) {
  fs.mkdirSync(path.dirname(path.join(work, rel)), { recursive: true });
  fs.writeFileSync(path.join(work, rel), text);
}

const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

/** Prints a baton command's output as a person would see it. */
const show = async (...args) => {
  const { stdout } = await run(process.execPath, [baton, ...args], { cwd: work, env });
  process.stdout.write(stdout);
};

/** An agent: its own process per command, as a real agent runtime would call baton. */
async function agent(name, phase, files, tokens, extra = async () => {}) {
  await b(name, 'phase', 'start', phase);
  for (const [i, f] of files.entries()) {
    await b(name, 'substep', phase, `write ${path.basename(f)}`);
    write(f, `// ${f} written by ${name}\n`);
    await b(name, 'file', 'created', f);
    await b(
      name,
      'tokens',
      'add',
      '--phase',
      phase,
      '--input',
      String(tokens[0] + i * 100),
      '--output',
      String(tokens[1]),
      '--cached',
      String(tokens[2]),
    );
    await sleep(20);
  }
  await extra();
  await b(name, 'phase', 'complete', phase);
}

console.log(`Workspace: ${work}\n`);
write(
  'plan.json',
  JSON.stringify(
    {
      phases: [
        { id: 'design', name: 'Design the login flow', agents: ['architect'] },
        { id: 'backend', name: 'Session API', agents: ['coder-be'], blockedBy: ['design'], parallel: 'build' },
        { id: 'frontend', name: 'Login page', agents: ['coder-fe'], blockedBy: ['design'], parallel: 'build' },
        { id: 'tests', name: 'End-to-end tests', agents: ['tester'], blockedBy: ['backend', 'frontend'] },
      ],
    },
    null,
    2,
  ),
);

console.log('1. The orchestrator starts a session from a plan.');
await b('orchestrator', 'start', 'Add a login page', '--plan', 'plan.json', '--budget', '60000');
await b('orchestrator', 'milestone', 'add', 'Login works end to end');

console.log('\n2. The architect designs and records a decision.');
await agent('architect', 'design', ['docs/login-design.md'], [4200, 1800, 900], async () => {
  await b(
    'architect',
    'decision',
    'add',
    '--title',
    'Session storage',
    '--choice',
    'HTTP-only cookie',
    '--rationale',
    'Not readable by scripts; CSRF handled by SameSite',
    '--alternative',
    'localStorage JWT',
  );
});

console.log('\n3. Backend and frontend agents work at the same time (separate processes, one session).');
console.log('   The backend agent runs under `baton run`, which holds the session lease; it crashes mid-phase.');
const crashing = spawn(
  process.execPath,
  [
    baton,
    'run',
    '--agent',
    'coder-be',
    '--heartbeat',
    '200ms',
    '--ttl',
    '1500ms',
    '--',
    process.execPath,
    '-e',
    `
  const { execFileSync } = require('node:child_process');
  const fs = require('node:fs');
  const b = (...a) => execFileSync(process.execPath, [${JSON.stringify(baton)}, ...a], { stdio: 'ignore' });
  b('phase', 'start', 'backend');
  b('substep', 'backend', 'write session.ts');
  fs.mkdirSync('src/api', { recursive: true });
  fs.writeFileSync('src/api/session.ts', '// half of the session API');
  b('file', 'created', 'src/api/session.ts');
  b('tokens', 'add', '--phase', 'backend', '--input', '6000', '--output', '2500', '--cached', '1200');
  console.log('READY ' + process.pid);
  setInterval(() => {}, 1000);
`,
  ],
  { cwd: work, env: { ...env, BATON_AGENT: 'coder-be' }, stdio: ['ignore', 'pipe', 'ignore'], detached: true },
);
const tryStartTests = b('tester', 'phase', 'start', 'tests').catch((e) =>
  console.log(`  [tester] refused while blocked → ${e.stderr.trim().split('\n')[0]}`),
);
let agentPid = 0;
await Promise.all([
  new Promise((resolve) =>
    crashing.stdout.on('data', (d) => {
      const m = /READY (\d+)/.exec(String(d));
      if (m) {
        agentPid = Number(m[1]);
        resolve();
      }
    }),
  ),
  agent('coder-fe', 'frontend', ['src/ui/LoginPage.tsx', 'src/ui/login.css'], [5000, 3000, 800]),
  tryStartTests,
]);
console.log('  [coder-be] … the machine running the backend agent dies (SIGKILL to baton run and its agent).');
// As when the machine dies: `baton run` and the agent under it, which runs in a process group
// of its own (baton refuses a takeover while it still runs: see docs/runs.md).
process.kill(-crashing.pid, 'SIGKILL');
process.kill(-agentPid, 'SIGKILL');
crashing.stdout.destroy();
await sleep(1700); // its lease (1.5 s here, 60 s by default) runs out

console.log('\n4. The next agent finds out what happened and picks up without guessing.\n');
console.log('$ baton status');
await show('status');
console.log('\n$ baton resume        # the plan: changes nothing');
await show('resume');
console.log('\n$ baton handoff       # the briefing for the next agent (first lines)');
const handoff = (await run(process.execPath, [baton, 'handoff'], { cwd: work, env })).stdout.split('\n');
console.log(`${handoff.slice(0, 24).join('\n')}\n  … (${handoff.length - 24} more lines)`);
console.log('');
await b('coder-be2', 'resume', '--apply');
await b('coder-be2', 'substep', 'backend', 'write login.ts');
write('src/api/session.ts', '// session API, finished');
write('src/api/login.ts', '// login API');
await b('coder-be2', 'file', 'modified', 'src/api/session.ts', '--phase', 'backend');
await b('coder-be2', 'file', 'created', 'src/api/login.ts', '--phase', 'backend');
await b('coder-be2', 'tokens', 'add', '--phase', 'backend', '--input', '4100', '--output', '2000');
await b('coder-be2', 'phase', 'complete', 'backend');

console.log('\n5. The tester hits a failure, records it, retries, and finishes.');
await b('tester', 'phase', 'start', 'tests');
write('test/login.spec.ts', '// e2e test\n');
await b('tester', 'file', 'created', 'test/login.spec.ts');
const errorId = await b(
  'tester',
  'error',
  'add',
  '--phase',
  'tests',
  '--type',
  'validation',
  '--message',
  'Login button not found by selector',
);
await b('tester', 'phase', 'fail', 'tests', '--reason', 'selector mismatch');
await b('tester', 'phase', 'retry', 'tests');
await b('tester', 'error', 'resolve', errorId, '--resolution', 'Added data-testid to the button');
await b('tester', 'tokens', 'add', '--phase', 'tests', '--input', '3000', '--output', '1200');
await b('tester', 'phase', 'complete', 'tests');
await b('orchestrator', 'milestone', 'done', 'Login works end to end');
await b('orchestrator', 'note', 'add', 'Ready for review');
await b('orchestrator', 'complete');

console.log('\n6. Final state.\n');
const id = JSON.parse((await run(process.execPath, [baton, 'list', '--all', '--json'], { cwd: work, env })).stdout)[0]
  .id;
console.log(`$ baton status --session ${id}`);
await show('status', '--session', id);
console.log(`\n$ baton log --session ${id}`);
await show('log', '--session', id);
console.log(`\nThe session lives in ${path.join(work, '.baton')}; remove it with: rm -rf ${work}`);
