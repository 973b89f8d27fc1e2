/**
 * `baton completion bash|zsh|fish`: the bash script is sourced in a real bash and asked to
 * complete, as bash does on Tab (COMP_WORDS, COMP_CWORD, then the registered function).
 * zsh and fish are not installed here: their scripts are checked for the tree they carry.
 */
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import { describe, expect, it } from 'vitest';
import path from 'node:path';
import { BATON, baseEnv, expectError, needBuiltCli, workspace } from './helpers.js';
import type { Workspace } from './helpers.js';

const hasBash = spawnSync('bash', ['--version']).status === 0;
if (!hasBash) console.warn('SKIPPED: the bash completion test needs bash, which this machine lacks');
const hasZsh = spawnSync('zsh', ['--version']).status === 0;
if (!hasZsh)
  console.warn(
    'SKIPPED: the zsh completion test needs zsh, which this machine lacks (its script is still checked as text)',
  );

/**
 * The candidates the zsh script offers for the words typed so far. compadd (which filters by
 * the typed prefix) and compdef exist only inside zsh's completion system: stand-ins print
 * what would be offered.
 */
function zshCandidates(file: string, words: string[]): string[] {
  const stubs =
    'compdef() { :; }; compadd() { [[ $1 == -- ]] && shift; print -l -- "$@"; }; _files() { print -- "<files>"; }';
  const r = spawnSync(
    'zsh',
    [
      '-f',
      '-c',
      `${stubs}; source '${file}'; words=(${words.map((w) => `'${w}'`).join(' ')}); CURRENT=${words.length}; _baton`,
    ],
    { encoding: 'utf8' },
  );
  expect(r.stderr).toBe('');
  return r.stdout.split('\n').filter(Boolean);
}

async function script(shell: string): Promise<string> {
  const r = await workspace().ok(['completion', shell]);
  return r.stdout;
}

/** What bash offers for the words typed so far (the last one is being completed). */
function complete(file: string, words: string[]): string[] {
  const arr = words.map((w) => `'${w}'`).join(' ');
  const r = spawnSync(
    'bash',
    [
      '--norc',
      '--noprofile',
      '-c',
      `source '${file}'; COMP_WORDS=(${arr}); COMP_CWORD=${words.length - 1}; _baton; printf '%s\\n' "\${COMPREPLY[@]}"`,
    ],
    { encoding: 'utf8' },
  );
  expect(r.stderr).toBe('');
  expect(r.status).toBe(0);
  return r.stdout.split('\n').filter(Boolean);
}

/**
 * What bash offers in workspace `ws`, with the built `baton` first on PATH (the script asks it
 * for ids): `-o default` falling back to file names shows as `<files>`.
 */
function completeIn(ws: Workspace, file: string, words: string[]): string[] {
  needBuiltCli();
  const bin = ws.write('bin/baton', `#!/bin/sh\nexec '${process.execPath}' '${BATON}' "$@"\n`);
  fs.chmodSync(bin, 0o755);
  const arr = words.map((w) => `'${w}'`).join(' ');
  // compopt works only inside a completion bash runs: a stand-in records whether the script turned file names off.
  const stub = 'FILES=1; compopt() { [[ "$*" == "+o default" ]] && FILES=0; return 0; }';
  const r = spawnSync(
    'bash',
    [
      '--norc',
      '--noprofile',
      '-c',
      `${stub}; source '${file}'; COMP_WORDS=(${arr}); COMP_CWORD=${words.length - 1}; _baton; printf '%s\\n' "\${COMPREPLY[@]}"; (( FILES )) && (( \${#COMPREPLY[@]} == 0 )) && echo '<files>'; true`,
    ],
    {
      cwd: ws.dir,
      env: baseEnv({ PATH: `${path.dirname(bin)}:${process.env['PATH']}` }),
      encoding: 'utf8',
    },
  );
  expect(r.stderr).toBe('');
  return r.stdout.split('\n').filter(Boolean);
}

describe('completion', () => {
  it.runIf(hasBash)(
    'bash: a phase, session or checkpoint argument completes ids from the store, never file names',
    async () => {
      const ws = workspace();
      await ws.ok(['start', 'One', '--id', '2026-11-27-alpha', '--phases', 'design,build,bundle']);
      await ws.ok(['start', 'Two', '--id', '2026-11-27-beta', '--switch', '--phases', 'review']);
      await ws.ok(['checkpoint', 'first']);
      await ws.ok(['checkpoint', 'second']);
      ws.write('build.txt', 'a file whose name a phase could be taken for');
      const file = ws.write('baton.bash', await script('bash'));
      // Phases of the active session, and of the one --session names.
      expect(completeIn(ws, file, ['baton', 'phase', 'start', ''])).toEqual(['review']);
      expect(completeIn(ws, file, ['baton', 'phase', 'complete', '--session', '2026-11-27-alpha', 'b'])).toEqual([
        'build',
        'bundle',
      ]);
      expect(completeIn(ws, file, ['baton', 'file', 'created', '--phase', 'r'])).toEqual(['review']);
      // Sessions: an argument and the value of --session.
      expect(completeIn(ws, file, ['baton', 'switch', '2026'])).toEqual(['2026-11-27-beta', '2026-11-27-alpha']);
      expect(completeIn(ws, file, ['baton', 'status', '--session', '2026-11-27-a'])).toEqual(['2026-11-27-alpha']);
      // Checkpoints.
      expect(completeIn(ws, file, ['baton', 'restore', 'cp-'])).toEqual(['cp-1-first', 'cp-2-second']);
      expect(completeIn(ws, file, ['baton', 'checkpoint', 'show', ''])).toEqual(['cp-1-first', 'cp-2-second']);
      // Nothing matches: still no file names.
      expect(completeIn(ws, file, ['baton', 'phase', 'start', 'bu'])).toEqual([]);
      // Only the first argument is an id; file arguments still complete file names.
      expect(completeIn(ws, file, ['baton', 'substep', 'review', ''])).toEqual(['<files>']);
      expect(completeIn(ws, file, ['baton', 'file', 'created', 'bu'])).toEqual(['<files>']);
      // The ids come from `baton completion --ids KIND`, one per line.
      expect(
        (await ws.ok(['completion', '--ids', 'phase'], { env: { BATON_SESSION: '2026-11-27-alpha' } })).stdout,
      ).toBe('design\nbuild\nbundle\n');
      expect((await workspace().ok(['completion', '--ids', 'session'])).stdout).toBe('');
    },
  );

  it.runIf(hasBash)(
    'bash: `baton ph` completes to phase, `baton phase st` to start, options of the command typed',
    async () => {
      const ws = workspace();
      const file = ws.write('baton.bash', await script('bash'));
      expect(complete(file, ['baton', 'ph'])).toEqual(['phase']);
      expect(complete(file, ['baton', 'phase', 'st'])).toEqual(['start']);
      expect(complete(file, ['baton', 'check'])).toEqual(['checkpoint', 'checkpoints']);
      // Options: those of the command typed, global options included, none it is not offered.
      expect(complete(file, ['baton', 'status', '--se'])).toEqual(['--session']);
      expect(complete(file, ['baton', 'phase', 'start', 'a', '--if'])).toEqual(['--if-revision']);
      expect(complete(file, ['baton', 'status', '--ag'])).toEqual([]);
      // Global options before the command are skipped when finding it.
      expect(complete(file, ['baton', '--json', 'phase', 'co'])).toEqual(['complete']);
      // The registration itself.
      const reg = spawnSync('bash', ['--norc', '-c', `source '${file}'; complete -p baton`], { encoding: 'utf8' });
      expect(reg.stdout.trim()).toBe('complete -o default -F _baton baton');
    },
  );

  it.runIf(hasZsh)(
    'zsh: sourced in a real zsh, it offers the commands, the subcommands of the one typed, and its options',
    async () => {
      const file = workspace().write('_baton', await script('zsh'));
      expect(zshCandidates(file, ['baton', 'ph'])).toContain('phase');
      expect(zshCandidates(file, ['baton', 'phase', 'st'])).toEqual(['start', 'complete', 'fail', 'skip', 'retry']);
      const opts = zshCandidates(file, ['baton', 'status', '--se']);
      expect(opts).toContain('--session');
      expect(opts).not.toContain('--agent');
      // An argument that is no subcommand completes file names.
      expect(zshCandidates(file, ['baton', 'file', 'created', 'sr'])).toEqual(['<files>']);
    },
  );

  it('zsh and fish scripts carry the same command tree', async () => {
    const zsh = await script('zsh');
    expect(zsh.startsWith('#compdef baton\n')).toBe(true);
    expect(zsh).toContain('"phase") echo "start complete fail skip retry claim" ;;');
    expect(zsh).toContain('compdef _baton baton');
    // Ids complete from the store in zsh too, with no fall-back to file names.
    expect(zsh).toContain('"phase start") echo "phase" ;;');
    expect(zsh).toContain('"restore") echo "checkpoint" ;;');
    expect(zsh).toContain('"switch") echo "session" ;;');
    expect(zsh).toContain('baton completion --ids "$kind"');
    const fish = await script('fish');
    expect(fish).toContain("complete -c baton -n '__baton_at \\'\\'' -f -a 'phase'");
    expect(fish).toContain("complete -c baton -n '__baton_at \\'phase\\'' -f -a 'start'");
    expect(fish).toMatch(/complete -c baton -n '__baton_at \\'status\\'' -l session -d /);
    expect(fish).not.toMatch(/__baton_at \\'status\\'' -l agent /);
  });

  it('an unknown shell is BAD_INPUT naming the ones there are', async () => {
    const { hint } = expectError(await workspace().run(['completion', 'powershell']), 'BAD_INPUT');
    expect(hint).toContain('bash, zsh, fish');
  });
});
