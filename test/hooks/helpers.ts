/**
 * Shared helpers of the hook tests: a temporary git workspace with a file store, payload
 * fixtures (test/fixtures/hooks/<cli>/<event>.json, `__CWD__` standing for the workspace),
 * the hook run in-process through its injected IO, or spawned as the real `baton hook`.
 */
import { execFileSync, spawn } from 'node:child_process';
import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { expect } from 'vitest';
import { tempDir } from '../support/temp.js';
import { openManager } from '../../src/manager/index.js';
import type { SessionManager } from '../../src/manager/index.js';
import { runHook } from '../../src/hooks/run.js';
import type { Json } from '../../src/hooks/model.js';

export const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
export const BATON = path.join(ROOT, 'dist', 'baton.cjs');
export const FIXTURES = path.join(ROOT, 'test', 'fixtures', 'hooks');

export { tempDir };

/** A git work tree with one commit and a file store holding an active session with phases build, test (build in progress). */
export async function workspace(
  o: { phases?: boolean; start?: boolean } = {},
): Promise<{ dir: string; m: () => SessionManager; id: string | null }> {
  const dir = tempDir();
  const git = (...a: string[]): string =>
    execFileSync('git', a, {
      cwd: dir,
      encoding: 'utf8',
      env: {
        ...process.env,
        GIT_AUTHOR_NAME: 't',
        GIT_AUTHOR_EMAIL: 't@t',
        GIT_COMMITTER_NAME: 't',
        GIT_COMMITTER_EMAIL: 't@t',
      },
    });
  git('init', '-q');
  fs.writeFileSync(path.join(dir, 'README.md'), 'old\n');
  fs.writeFileSync(path.join(dir, 'old.txt'), 'to delete\n');
  fs.mkdirSync(path.join(dir, 'src'));
  fs.writeFileSync(path.join(dir, 'src', 'a.txt'), 'x\n');
  git('add', '-A');
  git('commit', '-qm', 'init');
  // The transcripts the fixtures name, empty (a missing one is a logged problem): ignored by git.
  fs.writeFileSync(path.join(dir, '.git', 'info', 'exclude'), '.claude-transcript*\n.codex-*\n.gemini-chat.jsonl\n');
  for (const t of [
    '.claude-transcript.jsonl',
    '.claude-transcript/subagents/agent-a1b2c3d4e5f6.jsonl',
    '.codex-rollout.jsonl',
    '.codex-sub.jsonl',
    '.gemini-chat.jsonl',
  ]) {
    fs.mkdirSync(path.dirname(path.join(dir, t)), { recursive: true });
    fs.writeFileSync(path.join(dir, t), '');
  }
  const m = (): SessionManager => openManager({ url: null, dir: path.join(dir, '.baton'), cwd: dir, create: true });
  let id: string | null = null;
  if (o.start !== false) {
    const mgr = m();
    const s = await mgr.start({
      title: 'hooked work',
      id: 'hooked',
      phases:
        o.phases === false
          ? []
          : [
              { id: 'build', name: 'Build' },
              { id: 'test', name: 'Test' },
            ],
    });
    if (o.phases !== false) await mgr.phase(s.id, 'build', 'start');
    await mgr.store.close();
    id = s.id;
  } else {
    fs.mkdirSync(path.join(dir, '.baton'));
    m();
  }
  return { dir, m, id };
}

/** A fixture payload with `__CWD__` replaced by `cwd`. */
export function fixture(cli: string, name: string, cwd: string): Json {
  const text = fs.readFileSync(path.join(FIXTURES, cli, `${name}.json`), 'utf8');
  return JSON.parse(text.replaceAll('__CWD__', cwd).replaceAll(`/tmp/real-agent-clis/work-${cli}`, cwd)) as Json;
}

/** Every fixture name of a CLI. */
export function fixtureNames(cli: string): string[] {
  return fs
    .readdirSync(path.join(FIXTURES, cli))
    .filter((f) => f.endsWith('.json'))
    .map((f) => f.slice(0, -5))
    .sort();
}

/** The environment a hook runs with: none of the user's BATON_* variables. */
export function hookEnv(extra: Record<string, string> = {}): Record<string, string | undefined> {
  const env: Record<string, string | undefined> = {};
  for (const [k, v] of Object.entries(process.env)) if (!k.startsWith('BATON_')) env[k] = v;
  return { ...env, ...extra };
}

/** Runs the hook in-process with `payload` (an object, or raw text) as stdin; returns its stdout and exit status. */
export async function hookInProcess(
  cli: string,
  payload: Json | string,
  cwd: string,
  env: Record<string, string> = {},
): Promise<{ code: number; stdout: string }> {
  let stdout = '';
  const text = typeof payload === 'string' ? payload : JSON.stringify(payload);
  const code = await runHook({
    argv: [cli],
    env: hookEnv(env),
    cwd,
    now: () => new Date(),
    stdout: (s) => (stdout += s),
    read: (max) =>
      Buffer.byteLength(text) > max
        ? { text: null, bytes: Buffer.byteLength(text), problem: 'too-large' }
        : { text, bytes: Buffer.byteLength(text), problem: null },
  });
  return { code, stdout };
}

/** Spawns the real `node dist/baton.cjs hook <cli>` with `input` on stdin. */
export function hookSpawned(
  cli: string,
  input: string | Buffer,
  cwd: string,
  env: Record<string, string> = {},
): Promise<{ code: number | null; stdout: string; stderr: string; ms: number }> {
  return new Promise((resolve, reject) => {
    const t0 = Date.now();
    const child = spawn(process.execPath, [BATON, 'hook', cli], {
      cwd,
      env: hookEnv(env) as NodeJS.ProcessEnv,
      stdio: ['pipe', 'pipe', 'pipe'],
    });
    const out: Buffer[] = [];
    const err: Buffer[] = [];
    child.stdout.on('data', (b: Buffer) => out.push(b));
    child.stderr.on('data', (b: Buffer) => err.push(b));
    child.stdin.on('error', () => undefined);
    child.on('error', reject);
    child.on('close', (code) =>
      resolve({
        code,
        stdout: Buffer.concat(out).toString(),
        stderr: Buffer.concat(err).toString(),
        ms: Date.now() - t0,
      }),
    );
    child.stdin.end(input);
  });
}

/** The hook log lines of a store. */
export function hookLog(dir: string): Array<{ level: string; code: string; message: string; event: string | null }> {
  const file = path.join(dir, '.baton', 'hooks', 'hook.log');
  if (!fs.existsSync(file)) return [];
  return fs
    .readFileSync(file, 'utf8')
    .trim()
    .split('\n')
    .filter(Boolean)
    .map((l) => JSON.parse(l) as { level: string; code: string; message: string; event: string | null });
}

/** sha256 of a text, as the manifest records it. */
export const sha = (s: string): string => crypto.createHash('sha256').update(s).digest('hex');

/** Runs fixture `name` of `cli` in-process against the workspace `dir`; expects exit 0 and returns stdout. */
export async function runFixture(
  cli: string,
  name: string,
  dir: string,
  env: Record<string, string> = {},
): Promise<string> {
  const r = await hookInProcess(cli, fixture(cli, name, dir), dir, env);
  expect(r.code).toBe(0);
  return r.stdout;
}
