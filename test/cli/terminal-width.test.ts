/**
 * Human output fits the terminal: the built `baton` runs in a real pseudo-terminal (util-linux
 * `script`, with `stty cols N`) at 60 and 120 columns, and no line may be wider than the
 * terminal, and no word may be cut: every word of the narrow output is a word of the same
 * command's unconstrained output (a pipe), or ends with the ellipsis that marks a cut.
 */
import { spawnSync } from 'node:child_process';
import { beforeAll, describe, expect, it } from 'vitest';
import { displayWidth } from '../../src/cli/width.js';
import { BATON, baseEnv, needBuiltCli, withSession, workspace } from './helpers.js';
import type { Workspace } from './helpers.js';

const hasScript = spawnSync('script', ['--version']).status === 0;
if (!hasScript) console.warn('SKIPPED: the terminal width tests need util-linux `script` to make a pseudo-terminal');

const ANSI = /\u001b\[[0-9;?]*[A-Za-z]/g;

function quote(a: string): string {
  return `'${a.replace(/'/g, `'\\''`)}'`;
}

/** stdout+stderr of `baton …args` in a pseudo-terminal `cols` wide, colour codes and CRs removed. */
function inTerminal(ws: Workspace, args: string[], cols: number): string {
  const command = `stty cols ${cols} rows 60; ${quote(process.execPath)} ${quote(BATON)} ${args.map(quote).join(' ')}`;
  const r = spawnSync('script', ['-qfec', command, '/dev/null'], {
    cwd: ws.dir,
    env: baseEnv({ ...env, NO_COLOR: undefined, TERM: 'xterm-256color' }),
    encoding: 'utf8',
  });
  expect(r.error).toBeUndefined();
  return r.stdout.replace(ANSI, '').replace(/\r/g, '');
}

/** The same command into a pipe: nothing is cut or wrapped there. */
function inPipe(ws: Workspace, args: string[]): string {
  const r = spawnSync(process.execPath, [BATON, ...args], { cwd: ws.dir, env: baseEnv(env), encoding: 'utf8' });
  expect(r.error).toBeUndefined();
  return r.stdout + r.stderr;
}

/** One clock for every run, so relative times read the same in both outputs. */
const env = {
  LANG: 'C.UTF-8',
  LC_ALL: undefined,
  LC_CTYPE: undefined,
  BATON_NOW: new Date(Date.now() + 5_400_000).toISOString(),
};

const words = (text: string): string[] => text.split(/\s+/).filter(Boolean);

const LONG =
  'Refactor the authentication middleware so that sessions survive restarts of the gateway and every worker behind it';

describe.runIf(hasScript)('human output fits a 60- and a 120-column terminal', () => {
  let ws: Workspace;
  beforeAll(async () => {
    needBuiltCli();
    ws = await withSession('short', 'a');
    await ws.ok([
      'start',
      LONG,
      '--id',
      'auth-refactor-with-a-rather-long-session-identifier',
      '--switch',
      '--phases',
      'design-the-session-store,implement-the-middleware,review',
    ]);
    await ws.ok(['phase', 'start', 'design-the-session-store', '--agent', 'an-agent-with-a-long-name']);
    await ws.ok([
      'error',
      'add',
      '--phase',
      'design-the-session-store',
      '--type',
      'validation',
      '--message',
      'The schema of the session store rejects tokens longer than two hundred and fifty five characters, which the identity provider sends',
    ]);
    await ws.ok(['checkpoint', 'before the risky change to the middleware that everything depends on']);
    await ws.ok(['tokens', 'add', '--agent', 'an-agent-with-a-long-name', '--input', '123456789', '--output', '98765']);
  });

  const commands = [
    ['list'],
    ['status'],
    ['checkpoints'],
    ['resume'],
    ['tokens', '--by', 'agent'],
    ['doctor'],
    ['--help'],
    ['phase', 'start', '--help'],
    ['stat'],
  ];

  for (const cols of [60, 120]) {
    it.each(commands.map((c) => [c.join(' '), c]))(
      `%s at ${cols} columns: no line wider, no word cut`,
      (_name, args) => {
        const narrow = inTerminal(ws, args as string[], cols);
        const wide = new Set(words(inPipe(ws, args as string[]).replace(ANSI, '')));
        expect(narrow.trim().length).toBeGreaterThan(0);
        for (const line of narrow.split('\n'))
          expect(displayWidth(line), `line wider than ${cols}: ${JSON.stringify(line)}`).toBeLessThanOrEqual(cols);
        for (const w of words(narrow)) {
          if (w.endsWith('…')) continue;
          // An id cut in its middle: its start and its end are those of one word of the full output.
          if (w.includes('…')) {
            const [head, tail] = w.split('…') as [string, string];
            expect(
              [...wide].some((x) => x.startsWith(head) && x.endsWith(tail)),
              `${JSON.stringify(w)} is no id cut in its middle`,
            ).toBe(true);
            continue;
          }
          expect(wide.has(w), `${JSON.stringify(w)} is not a word of the unconstrained output: cut?\n${narrow}`).toBe(
            true,
          );
        }
      },
    );
  }

  it('doctor draws one progress line in place on a terminal (the built bundle loads cli-progress), a plain line in a pipe, none with --json', async () => {
    const many = workspace();
    for (let i = 0; i < 12; i++) await many.ok(['start', `S${i}`, '--id', `s${i}`, '--switch']);
    const knob = { BATON_PROGRESS_AFTER_MS: '0' };
    const command = `stty cols 100 rows 40; ${quote(process.execPath)} ${quote(BATON)} doctor`;
    const r = spawnSync('script', ['-qfec', command, '/dev/null'], {
      cwd: many.dir,
      env: baseEnv({ ...env, ...knob, NO_COLOR: undefined, TERM: 'xterm-256color' }),
      encoding: 'utf8',
    });
    expect(r.stdout).toMatch(/doctor \[[█░]+\] \d+\/12 sessions · ETA/);
    expect(r.stdout).not.toContain('error[');
    expect(r.stdout).toContain('Store ');
    const piped = spawnSync(process.execPath, [BATON, 'doctor'], {
      cwd: many.dir,
      env: baseEnv({ ...env, ...knob }),
      encoding: 'utf8',
    });
    expect(piped.stderr).toMatch(/^baton: doctor: 0\/12 sessions \(0%\)\n/);
    const json = spawnSync(process.execPath, [BATON, 'doctor', '--json'], {
      cwd: many.dir,
      env: baseEnv({ ...env, ...knob }),
      encoding: 'utf8',
    });
    expect(json.stderr).toBe('');
  });

  it('a narrow list still shows a header and cuts the long title with an ellipsis', () => {
    const out = inTerminal(ws, ['list'], 60).split('\n');
    expect(out[0]).toMatch(/^ {2}ID\s+STATUS\s+PHASES\s+UPDATED\s+TITLE$/);
    expect(out.find((l) => l.includes('active'))).toMatch(/Refactor[^…]*…$/);
    // At 120 columns more of the title shows, cut at a word boundary.
    expect(inTerminal(ws, ['list'], 120)).toMatch(/Refactor the authentication( \w+)*…/);
  });
});
