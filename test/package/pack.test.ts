/**
 * Issue 15, "Packaging": what `npm pack` puts in the tarball is what a user needs (dist,
 * skills, docs, README, LICENSE) and nothing else, and the tarball installed into a scratch
 * project gives a working `baton`: `--version`, and `baton mcp` answering an MCP initialize.
 * Dependencies come from the npm cache (`--prefer-offline`), so this takes seconds.
 */
import { execFile, execFileSync, spawn } from 'node:child_process';
import { promisify } from 'node:util';
import fs from 'node:fs';
import path from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { tempDir } from '../support/temp.js';
import { ROOT, needBuiltCli } from '../cli/helpers.js';

const pkg = JSON.parse(fs.readFileSync(path.join(ROOT, 'package.json'), 'utf8')) as {
  name: string;
  version: string;
  bin: Record<string, string>;
  files: string[];
};
/**
 * Runs npm without blocking the test worker: an install takes tens of seconds, and a worker
 * whose event loop stands still for a minute fails vitest's own calls to it.
 */
const npm = async (args: string[], cwd: string): Promise<string> =>
  (
    await promisify(execFile)('npm', args, {
      cwd,
      encoding: 'utf8',
      maxBuffer: 64 * 1024 * 1024,
      env: { ...process.env, npm_config_update_notifier: 'false' },
    })
  ).stdout;

let tarball = '';
let entries: string[] = [];

beforeAll(async () => {
  needBuiltCli();
  const out = tempDir('baton-pack-');
  // dist is built already (needBuiltCli): --ignore-scripts packs it as it is.
  const name = (await npm(['pack', '--ignore-scripts', '--silent', '--pack-destination', out], ROOT))
    .trim()
    .split('\n')
    .pop()!;
  tarball = path.join(out, name);
  entries = execFileSync('tar', ['tzf', tarball], { encoding: 'utf8' })
    .split('\n')
    .filter(Boolean)
    .map((e) => e.replace(/^package\//, ''));
}, 60_000);

describe('the npm package', () => {
  it('is published under a name of its own, with the `baton` command', () => {
    expect(pkg.name).toBe('baton-sessions');
    expect(Object.keys(pkg.bin)).toEqual(['baton']);
  });

  it("holds dist (with the dashboard), skills, docs (with the README's screenshots), README and LICENSE, and nothing else", () => {
    for (const f of [
      'package.json',
      'README.md',
      'LICENSE',
      'dist/baton.cjs',
      'dist/cli.cjs',
      'dist/hook.cjs',
      'dist/index.js',
      'dist/domain.js',
      'dist/testing.js',
      'dist/langgraph.js',
      'dist/claude-agent-sdk.js',
      'dist/types/index.d.ts',
      'dist/types/domain/index.d.ts',
      'dist/types/testing/index.d.ts',
      'dist/types/langgraph/index.d.ts',
      'dist/types/claude-agent-sdk/index.d.ts',
      'dist/ui/app.js',
      'dist/ui/app.css',
      'skills/baton/SKILL.md',
      'docs/cli.md',
      'docs/mcp.md',
    ]) {
      expect(entries, f).toContain(f);
    }
    const allowed =
      /^(package\.json|README\.md|LICENSE|dist\/(baton|cli|core|hook)\.cjs|dist\/(index|domain|testing|langgraph|claude-agent-sdk)\.js|dist\/chunks\/[\w-]+\.js|dist\/types\/.+\.d\.ts|dist\/ui\/[\w.-]+|docs\/.+\.md|docs\/images\/[\w-]+\.png|skills\/.+\.md)$/;
    expect(entries.filter((e) => !allowed.test(e))).toEqual([]);
    // The CLI's own declarations are not the library's: only what index.ts and testing reach.
    expect(entries.some((e) => e.startsWith('dist/types/cli/commands/'))).toBe(false);
    // Whatever `--help` or the README points to in docs/ is in the package.
    const readme = fs.readFileSync(path.join(ROOT, 'README.md'), 'utf8');
    for (const [, link] of readme.matchAll(/\]\((docs\/[^)#]+)/g)) expect(entries, link).toContain(link);
    expect(fs.readFileSync(path.join(ROOT, 'LICENSE'), 'utf8')).toMatch(/^MIT License/);
  });

  it('installed from the tarball into a scratch project, `baton --version` and `baton mcp` work', async () => {
    const dir = tempDir('baton-install-');
    fs.writeFileSync(path.join(dir, 'package.json'), '{ "name": "scratch", "private": true }\n');
    await npm(
      ['install', '--prefer-offline', '--no-audit', '--no-fund', '--ignore-scripts', '--loglevel', 'error', tarball],
      dir,
    );
    const bin = path.join(dir, 'node_modules', '.bin', 'baton');
    expect(execFileSync(bin, ['--version'], { cwd: dir, encoding: 'utf8' }).trim()).toBe(pkg.version);

    // An MCP initialize round trip over stdio, as a client does it.
    const child = spawn(bin, ['mcp'], { cwd: dir, stdio: ['pipe', 'pipe', 'pipe'] });
    const reply = await new Promise<Record<string, any>>((resolve, reject) => {
      let buf = '';
      const timer = setTimeout(() => reject(new Error('no answer to initialize within 20 s')), 20_000);
      child.stdout.on('data', (b: Buffer) => {
        buf += b.toString('utf8');
        const nl = buf.indexOf('\n');
        if (nl >= 0) {
          clearTimeout(timer);
          resolve(JSON.parse(buf.slice(0, nl)) as Record<string, any>);
        }
      });
      child.on('error', reject);
      child.stdin.write(
        `${JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'pack-test', version: '1' } } })}\n`,
      );
    });
    expect(reply).toMatchObject({
      jsonrpc: '2.0',
      id: 1,
      result: { serverInfo: { name: 'baton', version: pkg.version } },
    });
    expect(reply['result']['capabilities']).toHaveProperty('tools');
    const exited = new Promise<number | null>((r) => child.on('exit', (code) => r(code)));
    child.stdin.end();
    expect(await exited).toBe(0);
    // Nothing of the scratch project was written by baton mcp: no client asked for a session.
    expect(fs.existsSync(path.join(dir, '.baton'))).toBe(false);
    // The code cache (src/cli/launcher.cjs) was made beside the installed bundle and serves the next run.
    const dist = path.join(dir, 'node_modules', pkg.name, 'dist');
    const caches = fs.readdirSync(dist).filter((f) => /^cli-[0-9a-f]+\.v8cache$/.test(f));
    expect(caches).toHaveLength(1);
    expect(execFileSync(bin, ['--version'], { cwd: dir, encoding: 'utf8' }).trim()).toBe(pkg.version);
  }, 120_000);

  it('installed globally from the tarball, as the README says (`npm install -g ./baton-sessions-<version>.tgz`, here into a prefix of its own), `baton` is on the PATH, and the hook command `baton hooks install` writes runs', async () => {
    const prefix = tempDir('baton-global-');
    const work = tempDir('baton-global-work-');
    await npm(
      [
        'install',
        '-g',
        '--prefix',
        prefix,
        '--prefer-offline',
        '--no-audit',
        '--no-fund',
        '--ignore-scripts',
        '--loglevel',
        'error',
        tarball,
      ],
      work,
    );
    const env = { ...process.env, PATH: `${path.join(prefix, 'bin')}${path.delimiter}${process.env['PATH'] ?? ''}` };
    const sh = (command: string, input = '') =>
      execFileSync('/bin/sh', ['-c', command], { cwd: work, env, input, encoding: 'utf8' });
    expect(sh('command -v baton').trim()).toBe(path.join(prefix, 'bin', 'baton'));
    expect(sh('baton --version').trim()).toBe(pkg.version);
    sh(
      'baton init && baton start "Global" --id g1 --phases build && baton phase start build && baton hooks install claude',
    );
    const settings = JSON.parse(fs.readFileSync(path.join(work, '.claude', 'settings.json'), 'utf8')) as {
      hooks: Record<string, Array<{ hooks: Array<{ command: string }> }>>;
    };
    const command = settings.hooks['PostToolUse']?.[0]?.hooks[0]?.command as string;
    expect(command).toBe('baton hook claude');
    // A Write reported the way Claude Code reports it, through the shell as Claude Code runs hooks.
    fs.writeFileSync(path.join(work, 'a.txt'), 'hello\n');
    const payload = {
      session_id: 'c1',
      cwd: work,
      hook_event_name: 'PostToolUse',
      tool_name: 'Write',
      tool_input: { file_path: path.join(work, 'a.txt'), content: 'hello\n' },
      tool_response: { success: true },
    };
    sh(command, JSON.stringify(payload));
    const status = JSON.parse(sh('baton status --json')) as {
      phases: Array<{ id: string; files: Array<{ path: string }> }>;
    };
    expect(status.phases.find((p) => p.id === 'build')?.files.map((f) => f.path)).toEqual(['a.txt']);
    const hooks = JSON.parse(sh('baton hooks status claude --json')) as {
      configs: Array<{ scope: string; installed: boolean; notFound: string[] }>;
    };
    expect(hooks.configs.find((c) => c.scope === 'project')).toMatchObject({ installed: true, notFound: [] });
  }, 120_000);
});
