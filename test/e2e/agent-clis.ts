/**
 * How the hook end-to-end tests run each real agent CLI offline: its config home (so nothing
 * touches the real home folder), the environment pointing it at its mock model API, the
 * command line of a first session and of a session that resumes it, and where it reports the
 * id of its conversation. The CLIs come from the cache folder scripts/test-clis.mjs fills.
 */
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Handler } from './model-mocks.js';
import { anthropicHandler } from './mock-anthropic.js';
import { geminiHandler } from './mock-gemini.js';
import { openaiHandler } from './mock-openai.js';

export type Cli = 'claude' | 'codex' | 'gemini';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');

/** The pinned CLIs and the cache folder (scripts/test-clis.mjs, shared with `.ci/run`). */
export async function cliBin(cli: Cli): Promise<string> {
  const m = (await import(path.join(ROOT, 'scripts', 'test-clis.mjs'))) as { testCliBin: (c: string) => string };
  return m.testCliBin(cli);
}

/** What one run of a CLI printed. */
export interface CliResult {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** One CLI's recipe. */
export interface AgentCli {
  cli: Cli;
  handler: Handler;
  /** Writes the CLI's config home for a work folder and mock; returns the environment to run it with. */
  prepare(home: string, work: string, mockUrl: string): Record<string, string>;
  /** Arguments of a first session with `prompt`. */
  first(prompt: string): string[];
  /** Arguments of a session that resumes conversation `id`. */
  resume(id: string, prompt: string): string[];
  /** The conversation id from the first session's output. */
  sessionId(r: CliResult): string;
  /** The event the CLI fires before compacting (which these runs cannot trigger). */
  compactEvent: string;
}

const lastJson = (s: string): Record<string, unknown> =>
  JSON.parse(
    s
      .trim()
      .split('\n')
      .filter((l) => l.startsWith('{'))
      .at(-1) ?? '{}',
  ) as Record<string, unknown>;

export const CLAUDE: AgentCli = {
  cli: 'claude',
  handler: anthropicHandler,
  prepare: (home, _work, url) => ({
    CLAUDE_CONFIG_DIR: path.join(home, 'claude'),
    ANTHROPIC_BASE_URL: url,
    ANTHROPIC_API_KEY: 'test-key',
    CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: '1',
    DISABLE_TELEMETRY: '1',
    DISABLE_AUTOUPDATER: '1',
    // --dangerously-skip-permissions is refused to root outside a sandbox.
    IS_SANDBOX: '1',
  }),
  first: (p) => ['-p', p, '--dangerously-skip-permissions', '--output-format', 'json'],
  resume: (id, p) => ['-p', p, '--resume', id, '--dangerously-skip-permissions', '--output-format', 'json'],
  sessionId: (r) => String(lastJson(r.stdout)['session_id'] ?? ''),
  compactEvent: 'PreCompact',
};

export const CODEX: AgentCli = {
  cli: 'codex',
  handler: openaiHandler,
  prepare: (home, work, url) => {
    const dir = path.join(home, 'codex');
    fs.mkdirSync(dir, { recursive: true });
    // A model Codex knows (for apply_patch), the mock provider, no approvals, multi-agent tools
    // (v2: spawn_agent in the collaboration namespace), and the work folder trusted (project
    // .codex/hooks.json is read only in a trusted project).
    fs.writeFileSync(
      path.join(dir, 'config.toml'),
      [
        'model = "gpt-5.5"',
        'model_provider = "mock"',
        'approval_policy = "never"',
        'sandbox_mode = "danger-full-access"',
        '',
        '[features]',
        'multi_agent_v2 = true',
        '',
        '[model_providers.mock]',
        'name = "Mock"',
        `base_url = "${url}/v1"`,
        'wire_api = "responses"',
        'env_key = "MOCK_API_KEY"',
        'request_max_retries = 0',
        'stream_max_retries = 0',
        '',
        `[projects."${work}"]`,
        'trust_level = "trusted"',
        '',
      ].join('\n'),
    );
    return { CODEX_HOME: dir, MOCK_API_KEY: 'test-key' };
  },
  // Hooks must be trusted one by one (the /hooks screen); a test run trusts them by flag.
  first: (p) => ['exec', '--skip-git-repo-check', '--dangerously-bypass-hook-trust', '--json', p],
  resume: (id, p) => ['exec', '--skip-git-repo-check', '--dangerously-bypass-hook-trust', '--json', 'resume', id, p],
  sessionId: (r) => {
    const started = r.stdout
      .split('\n')
      .filter((l) => l.includes('thread.started'))
      .map((l) => JSON.parse(l) as { thread_id?: string })[0];
    return started?.thread_id ?? '';
  },
  compactEvent: 'PreCompact',
};

export const GEMINI: AgentCli = {
  cli: 'gemini',
  handler: geminiHandler,
  prepare: (home, work, url) => {
    const dir = path.join(home, 'gemini');
    fs.mkdirSync(path.join(dir, '.gemini'), { recursive: true });
    // API-key auth (else the custom base URL selects a gateway auth that -p refuses), no
    // telemetry or update checks, and the work folder trusted.
    const settings = {
      security: { auth: { selectedType: 'gemini-api-key' } },
      privacy: { usageStatisticsEnabled: false },
      telemetry: { enabled: false },
      general: { disableAutoUpdate: true, disableUpdateNag: true },
    };
    fs.writeFileSync(path.join(dir, '.gemini', 'settings.json'), JSON.stringify(settings, null, 2));
    fs.writeFileSync(path.join(dir, '.gemini', 'trustedFolders.json'), JSON.stringify({ [work]: 'TRUST_FOLDER' }));
    return {
      HOME: dir,
      GEMINI_CLI_HOME: dir,
      GEMINI_API_KEY: 'test-key',
      GOOGLE_GEMINI_BASE_URL: url,
      GEMINI_CLI_TRUST_WORKSPACE: 'true',
    };
  },
  first: (p) => ['-p', p, '--yolo', '--output-format', 'json'],
  resume: (id, p) => ['--resume', id, '-p', p, '--yolo', '--output-format', 'json'],
  sessionId: (r) => String(lastJsonObject(r.stdout)['session_id'] ?? ''),
  compactEvent: 'PreCompress',
};

/** Gemini prints one pretty-printed JSON object. */
function lastJsonObject(s: string): Record<string, unknown> {
  const start = s.indexOf('{');
  try {
    return JSON.parse(s.slice(start)) as Record<string, unknown>;
  } catch {
    return {};
  }
}

/** Runs a CLI (no stdin, a time limit) and collects its output. */
export function runCli(
  bin: string,
  args: string[],
  cwd: string,
  env: NodeJS.ProcessEnv,
  timeoutMs = 180_000,
): Promise<CliResult> {
  return new Promise((resolve, reject) => {
    const child = spawn(bin, args, { cwd, env, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    const timer = setTimeout(() => child.kill('SIGKILL'), timeoutMs);
    child.on('error', reject);
    child.on('close', (code) => {
      clearTimeout(timer);
      resolve({ code, stdout, stderr });
    });
  });
}

/** Runs a hook command line through the shell, as the CLIs do, with `payload` on stdin. */
export function runHookCommand(
  command: string,
  payload: unknown,
  cwd: string,
  env: NodeJS.ProcessEnv,
): Promise<CliResult> {
  return new Promise((resolve, reject) => {
    const child = spawn('/bin/sh', ['-c', command], { cwd, env, stdio: ['pipe', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, stdout, stderr }));
    child.stdin.end(JSON.stringify(payload));
  });
}
