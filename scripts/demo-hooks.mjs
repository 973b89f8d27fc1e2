#!/usr/bin/env node
// A simulated Claude Code conversation captured by hooks alone: the recorded payloads in
// test/fixtures/hooks/claude/ are fed, in the order Claude Code sends them, through the real
// `baton hook claude` (dist/baton.cjs), while this script plays the model's part on disk
// (writing files, running a "shell" edit). The model never calls baton; afterwards
// `baton status`, `baton resume` and the handoff show what the hooks recorded.
// Run: npm run demo:hooks   (builds first)
import { execFileSync, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const baton = path.join(root, 'dist', 'baton.cjs');
const fixtures = path.join(root, 'test', 'fixtures', 'hooks', 'claude');
const work = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'baton-demo-hooks-')));
const env = Object.fromEntries(Object.entries(process.env).filter(([k]) => !k.startsWith('BATON_')));
env.NO_COLOR = '1';

const say = (text) => process.stdout.write(`\n\x1b[1m${text}\x1b[0m\n`);
const quote = (text) => `${text.replace(/\n$/, '').replace(/^/gm, '  │ ')}\n`;
const cli = (...args) => {
  const r = spawnSync(process.execPath, [baton, ...args], { cwd: work, env, encoding: 'utf8' });
  process.stdout.write(quote(r.stdout));
  if (r.status !== 0) process.stdout.write(r.stderr);
};
/** One hook event: the recorded payload, pointed at this workspace, through the real command. */
const hook = (name, note) => {
  const payload = fs.readFileSync(path.join(fixtures, `${name}.json`), 'utf8').replaceAll('__CWD__', work);
  const t0 = Date.now();
  const r = spawnSync(process.execPath, [baton, 'hook', 'claude'], {
    cwd: work,
    env,
    input: payload,
    encoding: 'utf8',
  });
  const event = JSON.parse(payload).hook_event_name;
  process.stdout.write(
    `  hook ${event.padEnd(18)} exit ${r.status} in ${String(Date.now() - t0).padStart(3)} ms  ${note}\n`,
  );
  return r.stdout;
};
const write = (file, text) => {
  fs.mkdirSync(path.dirname(path.join(work, file)), { recursive: true });
  fs.writeFileSync(path.join(work, file), text);
};

if (!fs.existsSync(baton)) {
  console.error('Build first: npm run build (npm run demo:hooks does it).');
  process.exit(1);
}

say(`1. A project with a baton session, in ${work}`);
execFileSync('git', ['init', '-q'], { cwd: work });
write('README.md', 'old\n');
execFileSync('git', ['add', '-A'], { cwd: work });
execFileSync('git', ['-c', 'user.name=demo', '-c', 'user.email=demo@example.com', 'commit', '-qm', 'start'], {
  cwd: work,
});
cli('init');
cli('start', 'Add a greeting', '--phases', 'implement,test');
cli('phase', 'start', 'implement');
// The transcript Claude Code keeps (usage per response), from a real run, trimmed.
fs.copyFileSync(
  path.join(root, 'test', 'fixtures', 'transcripts', 'claude-main.jsonl'),
  path.join(work, '.claude-transcript.jsonl'),
);
fs.mkdirSync(path.join(work, '.claude-transcript', 'subagents'), { recursive: true });
fs.copyFileSync(
  path.join(root, 'test', 'fixtures', 'transcripts', 'claude-subagent.jsonl'),
  path.join(work, '.claude-transcript', 'subagents', 'agent-a1b2c3d4e5f6.jsonl'),
);
fs.writeFileSync(path.join(work, '.git', 'info', 'exclude'), '.claude-transcript*\n');

say('2. A Claude Code conversation: every line is one hook the CLI runs; the model never calls baton');
const start = hook('SessionStart', 'binds the conversation, returns the briefing');
hook('UserPromptSubmit', 'the prompt is not stored (opt in: BATON_HOOK_CAPTURE=prompts)');
hook('PostToolUse-TodoWrite', "the model's todo list becomes the phase's steps");
write('src/greet.txt', 'hello\n');
hook('PostToolUse-Write', 'Write src/greet.txt: recorded with its hash');
write('src/greet.txt', 'hello, world\n');
hook('PostToolUse-Edit', 'Edit src/greet.txt: recorded again, modified');
hook('SubagentStart', 'a sub-agent joins the phase');
write('src/sub.txt', 'from the sub-agent\n');
hook('PostToolUse-Write-subagent', 'its Write is attributed to claude/general-purpose#a1b2c3d4');
hook('SubagentStop', "its own transcript's tokens, for the sub-agent");
write('README.md', 'changed by sed in a Bash call\n');
hook('PostToolUse-Bash', 'a shell edit: no file event (found at Stop)');
hook('PostToolUseFailure', 'npm test failed: an error of type tool');
hook('Stop', 'tokens from the transcript; README.md found by comparing the work tree');
hook('PreCompact', 'a checkpoint and a fresh handoff before compaction');
hook('SessionEnd', 'the session is paused: agent-session-end');

say('3. What the SessionStart hook gave the model as additional context');
process.stdout.write(quote(JSON.parse(start).hookSpecificOutput.additionalContext));

say('4. baton status (recorded by hooks only)');
cli('status');

say('5. A new conversation resumes: its briefing names the step to resume at');
const resumed = hook('SessionStart-resume', 'reopens the session');
process.stdout.write(quote(JSON.parse(resumed).hookSpecificOutput.additionalContext));

say('6. baton resume names the command that continues the conversation');
cli('resume');

say('7. The hook log (what the hooks did, and any problem: `baton doctor` reports those)');
process.stdout.write(quote(fs.readFileSync(path.join(work, '.baton', 'hooks', 'hook.log'), 'utf8')));

fs.rmSync(work, { recursive: true, force: true });
