// Installs the real agent CLIs the end-to-end hook tests run (Claude Code, Codex CLI, Gemini CLI)
// from the npm registry into a cache folder outside the project's dependencies, at pinned
// versions, and reuses them when present. Called by the vitest global setup and by `.ci/run`.
// Usage: node scripts/test-clis.mjs [--check]   (--check: report only, install nothing)
// The folder is BATON_TEST_CLIS_DIR, else ~/.cache/baton-test-clis. Exit 1 when a CLI is missing.
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';

/** Pinned versions: Claude Code 2.1.197 is the last that declares Node >= 18 (we run on 20). */
export const TEST_CLIS = {
  claude: { pkg: '@anthropic-ai/claude-code', version: '2.1.197', bin: 'claude' },
  codex: { pkg: '@openai/codex', version: '0.169.0', bin: 'codex' },
  gemini: { pkg: '@google/gemini-cli', version: '0.61.0', bin: 'gemini' },
};

/** The cache folder the CLIs live in. */
export function testClisDir(env = process.env) {
  return env.BATON_TEST_CLIS_DIR || path.join(os.homedir(), '.cache', 'baton-test-clis');
}

/** Absolute path of one CLI's executable in the cache (present or not). */
export function testCliBin(cli, env = process.env) {
  const c = TEST_CLIS[cli];
  return path.join(testClisDir(env), `${cli}-${c.version}`, 'node_modules', '.bin', c.bin);
}

/**
 * Makes sure every CLI is installed; returns { ok, lines } where lines say what happened to
 * each, including the registry's refusal when an install failed.
 */
export function ensureTestClis({ env = process.env, check = false } = {}) {
  const lines = [];
  let ok = true;
  for (const [cli, c] of Object.entries(TEST_CLIS)) {
    const bin = testCliBin(cli, env);
    if (fs.existsSync(bin)) {
      lines.push(`${cli} ${c.version}: present at ${bin}`);
      continue;
    }
    if (check) {
      ok = false;
      lines.push(`${cli} ${c.version}: missing (${bin}); run node scripts/test-clis.mjs`);
      continue;
    }
    const dir = path.dirname(path.dirname(path.dirname(bin)));
    fs.mkdirSync(dir, { recursive: true });
    // A package.json of our own keeps npm from walking up into a project that holds the folder.
    fs.writeFileSync(
      path.join(dir, 'package.json'),
      `${JSON.stringify({ name: `baton-test-${cli}`, private: true })}\n`,
    );
    const npm = process.platform === 'win32' ? 'npm.cmd' : 'npm';
    const r = spawnSync(
      npm,
      ['install', '--no-audit', '--no-fund', '--no-save', '--loglevel=error', `${c.pkg}@${c.version}`],
      {
        cwd: dir,
        encoding: 'utf8',
        timeout: 900_000,
      },
    );
    if (r.status === 0 && fs.existsSync(bin)) {
      lines.push(`${cli} ${c.version}: installed at ${bin}`);
    } else {
      ok = false;
      const why = `${r.stderr || ''}${r.error ? String(r.error) : ''}`.trim().split('\n').slice(-6).join('\n  ');
      lines.push(`${cli} ${c.version}: could not be installed from the npm registry (npm exit ${r.status}):\n  ${why}`);
    }
  }
  return { ok, lines };
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  const { ok, lines } = ensureTestClis({ check: process.argv.includes('--check') });
  for (const l of lines) console.log(l);
  process.exit(ok ? 0 : 1);
}
