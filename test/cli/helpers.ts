/**
 * Shared helpers of the CLI end-to-end tests. Every run happens in its own temporary
 * workspace, with the BATON_* variables cleared and NO_COLOR=1, and is looked at as exit
 * code, stdout and stderr separately. By default a run goes through the CLI's one entry,
 * `run(io)`, in-process with injected IO (what `dist/baton.cjs` does, minus the process);
 * `{ spawn: true }` spawns the built `dist/baton.cjs` where the process itself is the
 * subject (concurrency between processes, crashes, signals, stdio, start-up, the bundle).
 */
import { spawn } from 'node:child_process';
import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { expect } from 'vitest';
import { cliClock } from '../../src/cli/clock.js';
import { run as runCli } from '../../src/cli/main.js';
import { EXIT_CODES } from '../../src/cli/exit.js';
import { tempDir } from '../support/temp.js';

export const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
export const BATON = path.join(ROOT, 'dist', 'baton.cjs');
export { EXIT_CODES };

/** Fails with a clear message when a test needs the built CLI and it is not there. */
export function needBuiltCli(): void {
  if (!fs.existsSync(BATON)) {
    throw new Error(
      `This test spawns the built CLI, but ${BATON} does not exist. Run \`npm run build\` first (\`npm test\` builds it).`,
    );
  }
}

/**
 * A folder holding `baton`: a link to the built dist/baton.cjs, as `npm install -g` makes one.
 * `baton hooks install` writes `baton hook <cli>`, found on the PATH; tests that run installed
 * hooks put this folder first on the PATH they give the agent CLI (see {@link withBatonOnPath}).
 */
export function batonBinDir(): string {
  const dir = tempDir('baton-bin-');
  fs.symlinkSync(BATON, path.join(dir, 'baton'));
  return dir;
}

/** `env` (default: this process's) with a folder holding the built `baton` first on PATH. */
export function withBatonOnPath<E extends Record<string, string | undefined>>(env: E = process.env as E): E {
  return { ...env, PATH: [batonBinDir(), env['PATH'] ?? ''].filter(Boolean).join(path.delimiter) };
}

/** What one run of the CLI produced. */
export interface Result {
  code: number;
  stdout: string;
  stderr: string;
}

export interface RunOptions {
  /** Working directory (default: the workspace). */
  cwd?: string;
  /** Extra environment; `undefined` removes a variable. */
  env?: Record<string, string | undefined>;
  /** Spawn the built `dist/baton.cjs` instead of running in-process (the process is the subject). */
  spawn?: boolean;
}

/** The environment every run starts from: no BATON_* variable, no colour. */
export function baseEnv(extra: Record<string, string | undefined> = {}): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = { ...process.env };
  for (const k of Object.keys(env)) if (k.startsWith('BATON_') || k === 'FORCE_COLOR') delete env[k];
  env['NO_COLOR'] = '1';
  for (const [k, v] of Object.entries(extra)) {
    if (v === undefined) delete env[k];
    else env[k] = v;
  }
  return env;
}

/**
 * Whether a run can only be faithful as its own process: `baton run` hands its stdio to the
 * child and forwards signals, `baton claim` leaves a lease held by its pid (which must end
 * with it), `baton mcp` serves on the process's stdin/stdout, and BATON_TEST_CRASH_AT makes
 * the command SIGKILL itself.
 */
export function needsProcess(args: string[], env: NodeJS.ProcessEnv): boolean {
  const command = args.find((a) => !a.startsWith('-'));
  return command === 'run' || command === 'claim' || command === 'mcp' || env['BATON_TEST_CRASH_AT'] !== undefined;
}

/**
 * Runs the CLI in-process through `run(io)` with the same argv, cwd, environment, clock
 * (BATON_NOW) and non-TTY output the built command would get. Never rejects on a non-zero
 * exit. Refuses the runs that only a separate process can do faithfully.
 */
export async function runInProcess(args: string[], cwd: string, env: NodeJS.ProcessEnv): Promise<Result> {
  if (needsProcess(args, env)) throw new Error(`baton ${args.join(' ')} needs its own process: spawn it (runBaton).`);
  let stdout = '';
  let stderr = '';
  const code = await runCli({
    argv: args,
    env,
    cwd,
    stdout: (s) => void (stdout += s),
    stderr: (s) => void (stderr += s),
    isTTY: false,
    now: cliClock(env['BATON_NOW']),
  });
  return { code, stdout, stderr };
}

/** Spawns `node dist/baton.cjs ...args` and collects its output. Never rejects on a non-zero exit. */
export function runBaton(args: string[], cwd: string, env: NodeJS.ProcessEnv): Promise<Result> {
  needBuiltCli();
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [BATON, ...args], { cwd, env, stdio: ['ignore', 'pipe', 'pipe'] });
    const out: Buffer[] = [];
    const err: Buffer[] = [];
    child.stdout.on('data', (b: Buffer) => out.push(b));
    child.stderr.on('data', (b: Buffer) => err.push(b));
    child.on('error', reject);
    child.on('close', (code, signal) => {
      const stdout = Buffer.concat(out).toString('utf8');
      const stderr = Buffer.concat(err).toString('utf8');
      if (code === null) reject(new Error(`baton ${args.join(' ')} was killed by ${signal}\nstderr: ${stderr}`));
      else resolve({ code, stdout, stderr });
    });
  });
}

function describeRun(args: string[], r: Result): string {
  return `baton ${args.join(' ')} → exit ${r.code}\n--- stdout ---\n${r.stdout}--- stderr ---\n${r.stderr}`;
}

/** A temporary workspace directory (no `.baton` until a test creates one). */
export class Workspace {
  constructor(readonly dir: string) {}

  /** Absolute path of a file in the workspace. */
  path(...parts: string[]): string {
    return path.join(this.dir, ...parts);
  }

  /** The store directory. */
  get store(): string {
    return this.path('.baton');
  }

  /** Writes a file (creating folders) and returns its absolute path. */
  write(rel: string, content: string | Buffer): string {
    const p = this.path(rel);
    fs.mkdirSync(path.dirname(p), { recursive: true });
    fs.writeFileSync(p, content);
    return p;
  }

  /**
   * Runs `baton ...args`: in-process, unless `o.spawn` or the run needs its own process
   * (see `needsProcess`).
   */
  run(args: string[], o: RunOptions = {}): Promise<Result> {
    const env = baseEnv(o.env);
    return (o.spawn || needsProcess(args, env) ? runBaton : runInProcess)(args, o.cwd ?? this.dir, env);
  }

  /** Runs and expects exit 0 with nothing on stderr. */
  async ok(args: string[], o: RunOptions = {}): Promise<Result> {
    const r = await this.run(args, o);
    if (r.code !== 0 || r.stderr !== '')
      throw new Error(`expected success without diagnostics:\n${describeRun(args, r)}`);
    return r;
  }

  /** Runs with --json, expects exit 0 and an empty stderr, and parses stdout. */
  async json<T>(args: string[], o: RunOptions = {}): Promise<T> {
    const r = await this.ok([...args, '--json'], o);
    return JSON.parse(r.stdout) as T;
  }

  /** `status --json` of the session acted on (or `--session id`). */
  status(id?: string, o: RunOptions = {}): Promise<StatusJson> {
    return this.json<StatusJson>(['status', ...(id ? ['--session', id] : [])], o);
  }

  /** `log --json`. */
  log(id?: string, o: RunOptions = {}): Promise<EventJson[]> {
    return this.json<EventJson[]>(['log', ...(id ? ['--session', id] : [])], o);
  }
}

/** A fresh workspace under the OS temp directory, removed after the file's tests. */
export function workspace(): Workspace {
  return new Workspace(tempDir('baton-cli-'));
}

/** A workspace with one started session (`id`, phases given as a list). */
export async function withSession(id = 's1', phases?: string): Promise<Workspace> {
  const ws = workspace();
  await ws.ok(['start', `Session ${id}`, '--id', id, ...(phases ? ['--phases', phases] : [])]);
  return ws;
}

/**
 * Checks the human error contract: exit code of `code`, nothing on stdout, and on stderr a
 * first line `error[CODE]: message` and a `hint: …` line. Returns the message and hint.
 */
export function expectError(r: Result, code: keyof typeof EXIT_CODES): { message: string; hint: string } {
  const context = `exit ${r.code}\n--- stdout ---\n${r.stdout}--- stderr ---\n${r.stderr}`;
  expect(r.code, context).toBe(EXIT_CODES[code]);
  expect(r.stdout, context).toBe('');
  const m = /^error\[([A-Z_]+)\]: (.+)\n(?:.*\n)*?hint: (.+)\n$/.exec(r.stderr);
  expect(m, context).not.toBeNull();
  expect(m![1]).toBe(code);
  return { message: m![2]!, hint: m![3]! };
}

/**
 * The error contract of `baton run`, whose own failures all exit 125 (its child's status is
 * its own): exit 125, nothing on stdout, `error[CODE]: message` and a hint on stderr.
 */
export function expectRunError(r: Result, code: keyof typeof EXIT_CODES): { message: string; hint: string } {
  return expectError({ ...r, code: r.code === 125 ? EXIT_CODES[code] : -r.code - 1000 }, code);
}

/** Checks the --json error contract: exit code, `{"error": {code, message, hint}}` on stdout, stderr empty. */
export function expectJsonError(
  r: Result,
  code: keyof typeof EXIT_CODES,
): { code: string; message: string; hint: string | null } {
  const context = `exit ${r.code}\n--- stdout ---\n${r.stdout}--- stderr ---\n${r.stderr}`;
  expect(r.code, context).toBe(EXIT_CODES[code]);
  expect(r.stderr, context).toBe('');
  const body = JSON.parse(r.stdout) as { error: { code: string; message: string; hint: string | null } };
  expect(Object.keys(body)).toEqual(['error']);
  expect(body.error.code).toBe(code);
  expect(typeof body.error.message).toBe('string');
  expect(body.error.message.length).toBeGreaterThan(0);
  expect(typeof body.error.hint).toBe('string');
  expect(body.error.hint!.length).toBeGreaterThan(0);
  return body.error;
}

/** sha256 (hex) of a file's bytes. */
export function sha256(file: string): string {
  return crypto.createHash('sha256').update(fs.readFileSync(file)).digest('hex');
}

/** Today's UTC date (YYYY-MM-DD). */
export function utcDate(d = new Date()): string {
  return d.toISOString().slice(0, 10);
}

/** Runs `fn` over `items` with at most `limit` at a time. */
export async function pool<T, R>(items: T[], limit: number, fn: (item: T, i: number) => Promise<R>): Promise<R[]> {
  const out: R[] = new Array(items.length);
  let next = 0;
  const worker = async (): Promise<void> => {
    while (next < items.length) {
      const i = next++;
      out[i] = await fn(items[i]!, i);
    }
  };
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, worker));
  return out;
}

// ---- the JSON shapes the tests read (the documented contract, loosely typed) ----

export interface FileJson {
  path: string;
  action: 'created' | 'modified' | 'deleted';
  sha256: string | null;
  size: number | null;
  recordedAt: string;
  agent: string | null;
}

export interface ErrorJson {
  id: string;
  phaseId: string;
  agent: string | null;
  type: string;
  message: string;
  resolved: boolean;
  resolution: string | null;
}

export interface PhaseJson {
  id: string;
  name: string;
  status: 'pending' | 'in_progress' | 'completed' | 'failed' | 'skipped';
  agents: string[];
  blockedBy: string[];
  retryCount: number;
  maxRetries: number;
  subStep: string | null;
  errors: ErrorJson[];
  files: FileJson[];
  [k: string]: unknown;
}

export interface Counts {
  input: number;
  output: number;
  cached: number;
}

export interface TokensJson extends Counts {
  byAgent: Record<string, Counts>;
  byPhase: Record<string, Counts>;
  budget: { max: number | null; used: number; percent: number | null; level: string };
  byModel?: Record<string, Counts>;
  cost?: Record<string, unknown>;
}

export interface StatusJson {
  id: string;
  title: string;
  status: string;
  cause: { cause: string; detail: string | null; at: string } | null;
  archived: boolean;
  revision: number;
  phases: PhaseJson[];
  tokens: TokensJson;
  unresolvedErrors: Array<{ id: string; phaseId: string; type: string; message: string }>;
  decisions: Array<Record<string, unknown>>;
  findings: Array<Record<string, unknown>>;
  notes: Array<Record<string, unknown>>;
  milestones: Array<Record<string, unknown>>;
  artifacts: Array<Record<string, unknown>>;
  contextSummary: string | null;
  metadata: Record<string, unknown>;
  repairs: Array<{ kind: string; detail: Record<string, unknown> }>;
  [k: string]: unknown;
}

export interface EventJson {
  seq: number;
  type: string;
  time: string;
  actor: { agent: string | null; pid: number; host: string };
  data: Record<string, unknown>;
}

export interface ListRow {
  id: string;
  title: string;
  status: string;
  archived: boolean;
  revision: number;
  phasesTotal: number;
  phasesDone: number;
  cause: { cause: string } | null;
  [k: string]: unknown;
}

/** The phase with this id (fails the test when missing). */
export function phaseOf(s: StatusJson, id: string): PhaseJson {
  const p = s.phases.find((x) => x.id === id);
  if (!p) throw new Error(`status has no phase ${id}; phases: ${s.phases.map((x) => x.id).join(', ')}`);
  return p;
}
