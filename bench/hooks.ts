// The agent hook (`baton hook claude`), which an agent CLI runs on every tool call, against
// `node -e 0` spawned alternately in the same run: a PostToolUse Write payload recorded into a
// file store with a session in progress, and a Stop whose transcript is 50 MB (timed after a
// first Stop has read it, with one new response appended before each timed call, as a live
// conversation grows). Run by bench/run.ts; on its own: node --import tsx bench/hooks.ts [--quick]
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import type { PgRow as Row } from './postgres.js';

const root = fileURLToPath(new URL('..', import.meta.url));
const baton = path.join(root, 'dist/baton.cjs');

/** How the hook rows are measured, for BENCHMARKS.md. */
export const HOOK_EXPLANATION = `- **Agent hook**: \`baton hook claude\` spawned with a PostToolUse \`Write\` payload on stdin
  (the file is hashed and recorded into the phase in progress of the active session of a file
  store), alternately with \`node -e 0\` given the same stdin. The hook's own bundle (dist/hook.cjs,
  without commander or the CLI's commands) stays: run through cli.cjs the hook took 1.5× the CPU
  time (paired runs), about 1.95× \`node -e 0\`.
- **Agent hook, 50 MB transcript**: \`baton hook claude\` with a Stop payload whose transcript is
  a 50 MB Claude Code JSONL file; a first Stop reads it whole (not timed), then each timed Stop
  follows one new response line appended to it, so only the new bytes are read.`;

function p50(xs: number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.floor(s.length / 2)] as number;
}

function timed(args: string[], input: string, cwd: string): number {
  const t0 = process.hrtime.bigint();
  const r = spawnSync(process.execPath, args, {
    cwd,
    input,
    stdio: ['pipe', 'ignore', 'pipe'],
    env: { ...process.env, NO_COLOR: '1' },
  });
  const t = Number(process.hrtime.bigint() - t0) / 1e6;
  if (r.status !== 0) throw new Error(`node ${args.join(' ')} failed: ${r.stderr.toString()}`);
  return t;
}

function baton_(args: string[], cwd: string): void {
  const r = spawnSync(process.execPath, [baton, ...args], { cwd, stdio: ['ignore', 'ignore', 'pipe'] });
  if (r.status !== 0) throw new Error(`baton ${args.join(' ')} failed: ${r.stderr.toString()}`);
}

/** One assistant line of a Claude Code transcript with its usage (a new response id each). */
function assistantLine(i: number, session: string, pad: string): string {
  return `${JSON.stringify({
    type: 'assistant',
    uuid: `u-${i}`,
    sessionId: session,
    requestId: `req_${i}`,
    timestamp: new Date(1_700_000_000_000 + i * 1000).toISOString(),
    message: {
      id: `msg_${i}`,
      role: 'assistant',
      model: 'claude-sonnet-4-5',
      content: [{ type: 'text', text: pad }],
      usage: { input_tokens: 10, output_tokens: 5, cache_read_input_tokens: 3, cache_creation_input_tokens: 2 },
    },
  })}\n`;
}

/** Alternates the hook and `node -e 0`, `runs` times each after a warm-up; returns both p50s. */
function compare(runs: number, hook: () => number, base: () => number): { a: number; b: number } {
  for (let i = 0; i < 3; i++) {
    hook();
    base();
  }
  const ta: number[] = [];
  const tb: number[] = [];
  for (let i = 0; i < runs; i++) {
    ta.push(hook());
    tb.push(base());
  }
  return { a: p50(ta), b: p50(tb) };
}

/** Measures both hook rows in a fresh folder under `work`. */
export function hookLatency(quick: boolean, work: string): Row[] {
  const dir = path.join(work, 'hook');
  fs.mkdirSync(dir, { recursive: true });
  baton_(['init'], dir);
  baton_(['start', 'Hook bench', '--id', 'bench', '--phases', 'build'], dir);
  baton_(['phase', 'start', 'build'], dir);
  const session = 'bench-conversation';
  const transcript = path.join(dir, 'transcript.jsonl');
  fs.writeFileSync(transcript, '');
  const common = { session_id: session, transcript_path: transcript, cwd: dir, permission_mode: 'bypassPermissions' };
  const file = path.join(dir, 'src.ts');
  const runs = quick ? 10 : 30;
  let n = 0;
  const write = (): string => {
    n += 1;
    fs.writeFileSync(file, `export const n = ${n};\n`);
    return JSON.stringify({
      ...common,
      hook_event_name: 'PostToolUse',
      tool_name: 'Write',
      tool_use_id: `toolu_${n}`,
      tool_input: { file_path: file, content: `export const n = ${n};\n` },
      tool_response: { type: 'update', filePath: file },
    });
  };
  const hook = [baton, 'hook', 'claude'];
  const base = ['-e', '0'];
  const small = compare(
    runs,
    () => timed(hook, write(), dir),
    () => timed(base, write(), dir),
  );

  // 50 MB of responses, then one Stop that reads them all (the first read is not timed).
  const pad = 'x'.repeat(2000);
  const fd = fs.openSync(transcript, 'a');
  let i = 0;
  while (fs.fstatSync(fd).size < 50 * 1024 * 1024) {
    let chunk = '';
    for (let k = 0; k < 500; k++) chunk += assistantLine(i++, session, pad);
    fs.writeSync(fd, chunk);
  }
  const stop = JSON.stringify({
    ...common,
    hook_event_name: 'Stop',
    stop_hook_active: false,
    last_assistant_message: 'done',
  });
  timed(hook, stop, dir);
  const big = compare(
    runs,
    () => {
      fs.writeSync(fd, assistantLine(i++, session, 'new'));
      return timed(hook, stop, dir);
    },
    () => timed(base, stop, dir),
  );
  fs.closeSync(fd);
  return [
    {
      // A recording hook: at most 1.5x `node -e 0`, with the hook's bundle of its own (dist/hook.cjs).
      name: "`baton hook claude`, PostToolUse Write into a file store (p50 wall time; needs the hook's own bundle)",
      baton: `${small.a.toFixed(1)} ms`,
      baseline: `${small.b.toFixed(1)} ms \`node -e 0\``,
      ratio: small.a / small.b,
      target: '≤ 1.5×',
      pass: small.a / small.b <= 1.5,
    },
    {
      name: '`baton hook claude`, Stop with a 50 MB transcript already read (p50 wall time)',
      baton: `${big.a.toFixed(1)} ms`,
      baseline: `${big.b.toFixed(1)} ms \`node -e 0\``,
      ratio: big.a / big.b,
      target: '≤ 1.5×',
      pass: big.a / big.b <= 1.5,
    },
  ];
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  const work = fs.mkdtempSync(path.join((await import('node:os')).tmpdir(), 'baton-bench-hook-'));
  try {
    for (const r of hookLatency(process.argv.includes('--quick'), work))
      console.log(
        `${r.name}: ${r.baton} vs ${r.baseline} = ${r.ratio.toFixed(2)}× (${r.target}) ${r.pass ? 'pass' : 'FAIL'}`,
      );
  } finally {
    fs.rmSync(work, { recursive: true, force: true });
  }
}
