/**
 * The command table (src/cli/command-table.ts) is the one place the command vocabulary is
 * written: the program the registrars build must have exactly its commands and subcommands,
 * in its order, and what help, completion, the global options, --quiet and the typo
 * suggestions do follows from its rows.
 */
import type { Command } from 'commander';
import { describe, expect, it } from 'vitest';
import { COMMAND_NAMES, COMMANDS, hasPath, scopeOfPath } from '../../src/cli/command-table.js';
import { EXAMPLES } from '../../src/cli/help-text.js';
import type { CliIO } from '../../src/cli/io.js';
import { buildProgram, run } from '../../src/cli/main.js';
import { GLOBAL_GROUP } from '../../src/cli/program.js';

const io: CliIO = {
  argv: [],
  env: {},
  cwd: '/',
  stdout: () => undefined,
  stderr: () => undefined,
  isTTY: false,
  now: () => new Date(0),
};

function paths(cmd: Command, prefix: string[] = []): string[] {
  return cmd.commands.flatMap((c) => [[...prefix, c.name()].join(' '), ...paths(c, [...prefix, c.name()])]);
}

function find(program: Command, path: string): Command {
  let c = program;
  for (const w of path.split(' ')) c = c.commands.find((x) => x.name() === w)!;
  return c;
}

async function cli(argv: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  let stdout = '';
  let stderr = '';
  const code = await run({
    ...io,
    argv,
    env: { NO_COLOR: '1' },
    stdout: (s) => {
      stdout += s;
    },
    stderr: (s) => {
      stderr += s;
    },
  });
  return { code, stdout, stderr };
}

describe('the command table', () => {
  const program = buildProgram(io, { ctx: null });

  it('names each command once, and the program has exactly its commands, in its order', () => {
    expect(new Set(COMMAND_NAMES).size).toBe(COMMAND_NAMES.length);
    expect(program.commands.map((c) => c.name())).toEqual(COMMAND_NAMES);
  });

  it('describes every subcommand a registrar defines, and defines every one it describes', () => {
    const defined = paths(program);
    expect(defined.filter((p) => !hasPath(p))).toEqual([]);
    const described = COMMANDS.flatMap((r) => [r.name, ...Object.keys(r.subs ?? {}).map((s) => `${r.name} ${s}`)]);
    expect(described.filter((p) => !defined.includes(p))).toEqual([]);
  });

  it('every path has examples, and every example is of a path that exists', () => {
    const defined = paths(program);
    expect(defined.filter((p) => !(EXAMPLES[p]?.length ?? 0))).toEqual([]);
    expect(Object.keys(EXAMPLES).filter((p) => p !== '' && !defined.includes(p))).toEqual([]);
  });

  it('each path is offered the global options its row does not lack', () => {
    const globals = (p: string): string[] =>
      find(program, p)
        .options.filter((o) => o.helpGroupHeading === GLOBAL_GROUP)
        .map((o) => o.long!);
    for (const p of paths(program)) {
      const scope = scopeOfPath(p);
      for (const lacked of scope.lacks) expect(globals(p), `${p} lacks --${lacked}`).not.toContain(`--${lacked}`);
    }
    // The rows decide: `tokens` reads (no --agent), `tokens add` changes (takes it).
    expect(globals('tokens')).not.toContain('--agent');
    expect(globals('tokens add')).toContain('--agent');
    expect(globals('tokens add')).toContain('--session');
    expect(globals('list')).not.toContain('--session');
  });

  it('a mistyped command is suggested from the rows: a reading one loosely, a changing one only one slip away', async () => {
    // `stauts` is two edits from `status` (reads): suggested.
    expect((await cli(['stauts'])).stderr).toContain('Did you mean `baton status`?');
    // `stat` is another tool's command, one edit from `start` (changes): `start` is not suggested.
    const stat = await cli(['stat']);
    expect(stat.code).toBe(2);
    expect(stat.stderr).not.toContain('`baton start`');
    // Subcommands too: `phase strat` is one slip from `phase start`.
    expect((await cli(['phase', 'strat', 'x'])).stderr).toContain('Did you mean `baton phase start`?');
  });

  it('--quiet keeps the data of a reading command and drops the confirmation of a changing one, as the rows say', () => {
    expect(scopeOfPath('status').printsData).toBe(true);
    expect(scopeOfPath('tokens add').printsData).toBe(false);
    expect(scopeOfPath('hooks status').printsData).toBe(true);
    // `mirror` changes state and prints data (the mirror shown): its row says so.
    expect(scopeOfPath('mirror')).toEqual({ lacks: [], changes: true, printsData: true });
  });

  it('only the hook has a bundle of its own', () => {
    expect(COMMANDS.filter((r) => r.bundle).map((r) => [r.name, r.bundle])).toEqual([['hook', 'hook']]);
  });
});
