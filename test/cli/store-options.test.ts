/**
 * Issue 15, bug 3: every command that opens a store takes `--store URL` and `--dir PATH`, as
 * the docs say, checked by walking every command of the real program.
 */
import type { Command } from 'commander';
import { describe, expect, it } from 'vitest';
import { buildProgram } from '../../src/cli/main.js';
import { cliClock } from '../../src/cli/clock.js';
import { expectError, workspace } from './helpers.js';

/** Commands that open no store of the workspace: `inspect` reads a foreign folder; `migrate-store` names two stores (--from, --to); `completion` prints a script. */
const NO_STORE = new Set(['inspect', 'migrate-store', 'completion']);

function leaves(cmd: Command, prefix: string[] = []): Array<{ path: string; cmd: Command }> {
  const subs = cmd.commands as Command[];
  if (!subs.length) return [{ path: prefix.join(' '), cmd }];
  return subs.flatMap((c) => leaves(c, [...prefix, c.name()]));
}

describe('bug 3: --store and --dir on every command that opens a store', () => {
  const io = {
    argv: [],
    env: {},
    cwd: '/',
    stdout: () => {},
    stderr: () => {},
    isTTY: false,
    now: cliClock(undefined),
  };
  const all = leaves(buildProgram(io, { ctx: null }));

  it('the walk sees the commands', () => {
    expect(all.map((l) => l.path)).toEqual(
      expect.arrayContaining([
        'doctor',
        'status',
        'phase start',
        'file created',
        'restore',
        'claim',
        'cleanup',
        'import',
        'run',
      ]),
    );
  });

  it.each(all.filter((l) => !NO_STORE.has(l.path)).map((l) => [l.path, l.cmd] as const))(
    '%s takes --store and --dir',
    (_path, cmd) => {
      const flags = cmd.options.map((o) => o.long);
      expect(flags).toContain('--store');
      expect(flags).toContain('--dir');
    },
  );

  it('doctor --store URL checks that store', async () => {
    const ws = workspace();
    await ws.ok(['start', 'Elsewhere', '--id', 'el', '--dir', ws.path('other', '.baton')]);
    const r = await ws.json<{ ok: boolean }>(['doctor', '--store', `file:${ws.path('other', '.baton')}`]);
    expect(r.ok).toBe(true);
    expectError(await ws.run(['doctor', '--store', 'nope://x']), 'BAD_INPUT');
  });
});
