/**
 * `baton hooks install|uninstall|status` on config files that already hold other hooks and
 * settings: those survive byte for byte, running twice changes nothing, uninstall gives back
 * the original, a malformed config is refused and not written, --dry-run writes nothing.
 */
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { BATON, batonBinDir, expectError, withBatonOnPath, workspace } from './helpers.js';
import type { Workspace } from './helpers.js';

/** Each CLI's project file, and a config of the user's with other hooks, settings and odd layout. */
const CASES = {
  claude: {
    file: '.claude/settings.json',
    original: `{
    "model": "opus",
    "permissions": { "allow": ["Bash(npm test)"], "deny": [] },
    "hooks": {
        "PostToolUse": [
            { "matcher": "Bash", "hooks": [ { "type": "command", "command": "./scripts/lint.sh", "timeout": 5 } ] }
        ],
        "Notification": [ { "hooks": [ { "type": "command", "command": "notify-send done" } ] } ]
    },
    "zz_unknown": {"keep": [1, 2, {"x": null}]}
}
`,
    events: 10,
  },
  codex: {
    file: '.codex/hooks.json',
    original:
      '{\r\n\t"hooks": {\r\n\t\t"Stop": [{"hooks": [{"type": "command", "command": "say done", "timeout": 3}]}]\r\n\t},\r\n\t"extra": true\r\n}\r\n',
    events: 9,
  },
  gemini: {
    file: '.gemini/settings.json',
    original: `// my settings
{
  "ui": { "theme": "GitHub" }, /* inline */
  "hooks": {
    "AfterTool": [
      {"matcher": "write_file", "hooks": [{"type": "command", "name": "fmt", "command": "prettier -w", "timeout": 5000}]}
    ]
  }
}`,
    events: 6,
  },
} as const;

type Cli = keyof typeof CASES;
const CLIS = Object.keys(CASES) as Cli[];

interface Settings {
  hooks: Record<
    string,
    Array<{ matcher?: string; hooks: Array<{ type: string; command: string; timeout?: number; name?: string }> }>
  >;
}

/** Parses a config the way its CLI does (Gemini strips comments first). */
function parseConfig(text: string): Settings {
  return JSON.parse(text.replace(/\/\/[^\n]*|\/\*[\s\S]*?\*\//g, '')) as Settings;
}

function batonCommands(s: Settings): string[] {
  return Object.values(s.hooks)
    .flatMap((groups) => groups.flatMap((g) => g.hooks.map((h) => h.command)))
    .filter((c) => c.includes(' hook '));
}

function setup(cli: Cli): { ws: Workspace; file: string } {
  const ws = workspace();
  return { ws, file: ws.write(CASES[cli].file, CASES[cli].original) };
}

describe.each(CLIS)('baton hooks install %s (project scope)', (cli) => {
  it('adds one baton handler per event, keeps every other byte, changes nothing the second time, and uninstall gives back the original', async () => {
    const { ws, file } = setup(cli);
    const { original } = CASES[cli];
    const r = await ws.json<{ changed: boolean; added: string[]; file: string; backup: string; command: string }>([
      'hooks',
      'install',
      cli,
    ]);
    expect(r.changed).toBe(true);
    expect(r.file).toBe(file);
    expect(r.added).toHaveLength(CASES[cli].events);
    const installed = fs.readFileSync(file, 'utf8');
    // The old file is the backup, byte for byte.
    expect(fs.readFileSync(r.backup, 'utf8')).toBe(original);
    // Every event runs `baton hook <cli>`, found on the PATH: no path of this machine in a file teams commit.
    const settings = parseConfig(installed);
    const cmds = batonCommands(settings);
    expect(cmds).toHaveLength(CASES[cli].events);
    expect(new Set(cmds)).toEqual(new Set([`baton hook ${cli}`]));
    // The user's own entries are still there, unchanged.
    const userHooks = JSON.stringify(parseConfig(original).hooks);
    for (const [event, groups] of Object.entries(parseConfig(original).hooks))
      expect(settings.hooks[event]?.slice(0, groups.length)).toEqual(groups);
    expect(userHooks.length).toBeGreaterThan(10);
    // Only insertions: deleting the added text gives back the original (nothing else moved).
    expect(isSubsequence(original, installed)).toBe(true);

    const again = await ws.json<{ changed: boolean; unchanged: string[] }>(['hooks', 'install', cli]);
    expect(again.changed).toBe(false);
    expect(again.unchanged).toHaveLength(CASES[cli].events);
    expect(fs.readFileSync(file, 'utf8')).toBe(installed);

    const u = await ws.json<{ changed: boolean; removed: string[] }>(['hooks', 'uninstall', cli]);
    expect(u.changed).toBe(true);
    expect(u.removed).toHaveLength(CASES[cli].events);
    expect(fs.readFileSync(file, 'utf8')).toBe(original);
    const u2 = await ws.json<{ changed: boolean }>(['hooks', 'uninstall', cli]);
    expect(u2.changed).toBe(false);
  });

  it('--dry-run prints the change as a diff and writes nothing', async () => {
    const { ws, file } = setup(cli);
    const r = await ws.run(['hooks', 'install', cli, '--dry-run']);
    expect(r.code).toBe(0);
    expect(r.stdout).toContain(`--- ${file}`);
    expect(r.stdout).toMatch(/^\+.*hook [a-z]+/m);
    expect(r.stderr).toContain('dry run');
    expect(fs.readFileSync(file, 'utf8')).toBe(CASES[cli].original);
    expect(fs.readdirSync(path.dirname(file))).toEqual([path.basename(file)]);
  });

  it('refuses a config that does not parse, naming the file and the line, and leaves it untouched', async () => {
    const ws = workspace();
    const broken = '{\n  "model": "x",\n  "hooks": {\n    "Stop": [\n  }\n}\n';
    const file = ws.write(CASES[cli].file, broken);
    for (const args of [
      ['hooks', 'install', cli],
      ['hooks', 'uninstall', cli],
    ]) {
      const e = expectError(await ws.run(args), 'BAD_INPUT');
      expect(e.message).toContain(file);
      expect(e.message).toContain('line 5');
      expect(e.hint).toContain('line 5');
    }
    expect(fs.readFileSync(file, 'utf8')).toBe(broken);
    expect(fs.readdirSync(path.dirname(file))).toEqual([path.basename(file)]);
  });

  it('replaces a stale baton entry in place (the store changed) and reports the store in status', async () => {
    const { ws, file } = setup(cli);
    await ws.ok(['hooks', 'install', cli]);
    const store = ws.path('elsewhere', '.baton');
    const r = await ws.json<{ updated: string[]; added: string[] }>(['hooks', 'install', cli, '--dir', store]);
    expect(r.updated).toHaveLength(CASES[cli].events);
    expect(r.added).toEqual([]);
    const cmds = batonCommands(parseConfig(fs.readFileSync(file, 'utf8')));
    expect(new Set(cmds)).toEqual(new Set([`baton hook ${cli} --dir ${store}`]));
    const s = await ws.json<{
      configs: Array<{
        cli: string;
        scope: string;
        installed: boolean;
        stores: string[];
        events: string[];
        missing: string[];
      }>;
    }>(['hooks', 'status']);
    const mine = s.configs.find((c) => c.cli === cli && c.scope === 'project');
    expect(mine).toMatchObject({ installed: true, stores: [store], missing: [] });
    expect(mine?.events).toHaveLength(CASES[cli].events);
    expect(s.configs.filter((c) => c.installed)).toHaveLength(1);
    await ws.ok(['hooks', 'uninstall', cli]);
    expect(fs.readFileSync(file, 'utf8')).toBe(CASES[cli].original);
  });
});

/** True when every character of `a` appears in `b` in order (b = a plus insertions). */
function isSubsequence(a: string, b: string): boolean {
  let i = 0;
  for (const ch of b) if (ch === a[i]) i++;
  return i === a.length;
}

describe('baton hooks install: scopes, missing files and Codex config.toml', () => {
  it('user scope writes under CLAUDE_CONFIG_DIR / CODEX_HOME / GEMINI_CLI_HOME, creating the file, and uninstall removes the file it created', async () => {
    const ws = workspace();
    const env = { CLAUDE_CONFIG_DIR: ws.path('cc'), CODEX_HOME: ws.path('cx'), GEMINI_CLI_HOME: ws.path('gh') };
    const where = {
      claude: ws.path('cc', 'settings.json'),
      codex: ws.path('cx', 'hooks.json'),
      gemini: ws.path('gh', '.gemini', 'settings.json'),
    };
    for (const cli of CLIS) {
      const r = await ws.json<{ file: string; changed: boolean }>(['hooks', 'install', cli, '--scope', 'user'], {
        env,
      });
      expect(r).toMatchObject({ file: where[cli], changed: true });
      expect(batonCommands(parseConfig(fs.readFileSync(where[cli], 'utf8')))).toHaveLength(CASES[cli].events);
    }
    const s = await ws.json<{ configs: Array<{ cli: string; scope: string; installed: boolean; file: string }> }>(
      ['hooks', 'status'],
      { env },
    );
    expect(s.configs.filter((c) => c.installed).map((c) => [c.cli, c.scope, c.file])).toEqual(
      CLIS.map((c) => [c, 'user', where[c]]),
    );
    for (const cli of CLIS) {
      await ws.ok(['hooks', 'uninstall', cli, '--scope', 'user'], { env });
      expect(fs.existsSync(where[cli])).toBe(false);
    }
    expect(fs.existsSync(ws.path('.claude'))).toBe(false);
  });

  it('Codex: refuses to rewrite config.toml when the user keeps hooks there, and says how to go on; [hooks.state] alone is no obstacle', async () => {
    const ws = workspace();
    const toml = '# mine\nmodel = "o3"\n\n[[hooks.Stop]]\n[[hooks.Stop.hooks]]\ntype = "command"\ncommand = "say hi"\n';
    ws.write('.codex/config.toml', toml);
    const e = expectError(await ws.run(['hooks', 'install', 'codex']), 'BAD_INPUT');
    expect(e.message).toContain(ws.path('.codex', 'config.toml'));
    expect(e.message).toContain('Stop');
    expect(e.hint).toContain('hooks.json');
    expect(fs.existsSync(ws.path('.codex', 'hooks.json'))).toBe(false);
    expect(fs.readFileSync(ws.path('.codex', 'config.toml'), 'utf8')).toBe(toml);

    const trustOnly = 'model = "o3"\n[hooks.state."x:stop:0:0"]\ntrusted_hash = "sha256:00"\n';
    ws.write('.codex/config.toml', trustOnly);
    const r = await ws.run(['hooks', 'install', 'codex']);
    expect(r.code).toBe(0);
    expect(r.stdout).toContain('/hooks');
    expect(r.stdout).toContain('trust');
    expect(fs.readFileSync(ws.path('.codex', 'config.toml'), 'utf8')).toBe(trustOnly);
  });

  it('Claude Code and Codex read strict JSON: a comment is refused (Gemini CLI allows them)', async () => {
    const ws = workspace();
    const text = '{\n  // note\n  "model": "x"\n}\n';
    const file = ws.write('.claude/settings.json', text);
    const e = expectError(await ws.run(['hooks', 'install', 'claude']), 'BAD_INPUT');
    expect(e.message).toContain('comment');
    expect(e.message).toContain('line 2');
    expect(fs.readFileSync(file, 'utf8')).toBe(text);
  });

  it('rejects an unknown CLI and an unknown scope', async () => {
    const ws = workspace();
    expectError(await ws.run(['hooks', 'install', 'cursor']), 'BAD_INPUT');
    expectError(await ws.run(['hooks', 'install', 'claude', '--scope', 'global']), 'BAD_INPUT');
  });
});

describe('baton hooks status: the hook problems of the store', () => {
  it('shows what the hook logged when a payload could not be read, through the installed command', async () => {
    const ws = workspace();
    await ws.ok(['init']);
    await ws.ok(['hooks', 'install', 'claude']);
    const clean = await ws.json<{ problems: Array<{ store: string; total: number }> }>(['hooks', 'status']);
    expect(clean.problems[0]).toMatchObject({ store: ws.store, total: 0 });
    const settings = JSON.parse(fs.readFileSync(ws.path('.claude', 'settings.json'), 'utf8')) as Settings;
    const command = settings.hooks['PostToolUse']?.[0]?.hooks[0]?.command as string;
    const { spawnSync } = await import('node:child_process');
    expect(command).toBe('baton hook claude');
    // As the agent CLI runs it: through a shell, `baton` found on the PATH (here, a link to the build).
    const r = spawnSync('/bin/sh', ['-c', command], {
      cwd: ws.dir,
      input: 'this is not json',
      encoding: 'utf8',
      env: withBatonOnPath(),
    });
    expect(r.status).toBe(0);
    const s = await ws.json<{
      problems: Array<{ store: string; total: number; problems: Array<{ code: string; cli: string }> }>;
    }>(['hooks', 'status']);
    expect(s.problems[0]?.total).toBe(1);
    expect(s.problems[0]?.problems[0]).toMatchObject({ code: 'BAD_PAYLOAD', cli: 'claude' });
    const text = await ws.run(['hooks', 'status']);
    expect(text.stdout).toContain('1 problem(s)');
    expect(text.stdout).toContain('BAD_PAYLOAD');
  });
});

interface StatusEntry {
  cli: string;
  scope: string;
  installed: boolean;
  commands: string[];
  notFound: string[];
  machinePaths: string[];
}

describe('the installed command works wherever baton is installed (issue 25)', () => {
  it('`baton hook <cli>` is written; install and status say when `baton` is not on the PATH, and how to put it there', async () => {
    const ws = workspace();
    const noBaton = { PATH: ws.path('empty-bin') };
    const r = await ws.json<{ command: string; notes: string[] }>(['hooks', 'install', 'claude'], { env: noBaton });
    expect(r.command).toBe('baton hook claude');
    const note = r.notes.find((n) => n.includes('not on the PATH'));
    expect(note).toContain('npm install -g baton-sessions');
    expect(note).toContain('npm install -g .');
    expect(note).toContain('--command');
    const s = await ws.json<{ configs: StatusEntry[] }>(['hooks', 'status', 'claude'], { env: noBaton });
    expect(s.configs.find((c) => c.scope === 'project')).toMatchObject({
      installed: true,
      notFound: ['baton'],
      machinePaths: [],
    });
    const text = await ws.run(['hooks', 'status', 'claude'], { env: noBaton });
    expect(text.stdout).toMatch(
      /not found: baton is not on the PATH: these hooks fail until it is \(npm install -g baton-sessions; from a checkout: npm install -g \. or npm link\)/,
    );

    // With baton on the PATH (as `npm install -g` puts it): no warning.
    const onPath = { PATH: batonBinDir() };
    const again = await ws.json<{ changed: boolean; notes: string[] }>(['hooks', 'install', 'claude'], { env: onPath });
    expect(again.changed).toBe(false);
    expect(again.notes.filter((n) => n.includes('PATH'))).toEqual([]);
    const ok = await ws.json<{ configs: StatusEntry[] }>(['hooks', 'status', 'claude'], { env: onPath });
    expect(ok.configs.find((c) => c.scope === 'project')).toMatchObject({
      installed: true,
      notFound: [],
      machinePaths: [],
    });
  });

  it('--command writes another way to start baton (a checkout), noting paths of this machine in a project file; the default install puts `baton hook` back', async () => {
    const ws = workspace();
    const file = ws.path('.claude', 'settings.json');
    const custom = `node ${BATON}`;
    const r = await ws.json<{ command: string; notes: string[] }>(['hooks', 'install', 'claude', '--command', custom], {
      env: { PATH: process.env['PATH'] },
    });
    expect(r.command).toBe(`node ${BATON} hook claude`);
    expect(new Set(batonCommands(parseConfig(fs.readFileSync(file, 'utf8'))))).toEqual(
      new Set([`node ${BATON} hook claude`]),
    );
    expect(r.notes.find((n) => n.includes('paths of this machine'))).toContain(BATON);
    const s = await ws.json<{ configs: StatusEntry[] }>(['hooks', 'status', 'claude'], {
      env: { PATH: process.env['PATH'] },
    });
    expect(s.configs.find((c) => c.scope === 'project')).toMatchObject({ notFound: [], machinePaths: [BATON] });
    expect((await ws.run(['hooks', 'status', 'claude'], { env: { PATH: process.env['PATH'] } })).stdout).toContain(
      `this machine only: names ${BATON}; \`baton hooks install claude\` writes \`baton hook claude\``,
    );

    // An install from before (absolute node and bundle paths) is replaced in place by the portable command.
    const back = await ws.json<{ updated: string[]; added: string[] }>(['hooks', 'install', 'claude'], {
      env: withBatonOnPath({}),
    });
    expect(back.updated).toHaveLength(CASES.claude.events);
    expect(back.added).toEqual([]);
    expect(new Set(batonCommands(parseConfig(fs.readFileSync(file, 'utf8'))))).toEqual(new Set(['baton hook claude']));
  });

  it('refuses a --command that does not start baton (it could not be found again to update or remove), writing nothing', async () => {
    const ws = workspace();
    for (const bad of ['echo hi', '', 'node tools/other.js']) {
      const e = expectError(await ws.run(['hooks', 'install', 'gemini', '--command', bad]), 'BAD_INPUT');
      expect(e.message).toContain('does not start baton');
      expect(e.hint).toContain('--command');
    }
    expect(fs.existsSync(ws.path('.gemini'))).toBe(false);
  });
});
