/** The CLI registers only the invoked command's group; the table it uses must be the truth. */
import { Command } from 'commander';
import { describe, expect, it } from 'vitest';
import fs from 'node:fs';
import path from 'node:path';
import { ALL_COMMANDS } from '../../src/cli/command-words.js';
import { CORE_COMMANDS, CORE_GROUPS } from '../../src/cli/core-groups.js';
import { buildProgramOf } from '../../src/cli/dispatch.js';
import { GROUPS, buildProgram } from '../../src/cli/main.js';
import { ROOT } from './helpers.js';
import type { CliIO } from '../../src/cli/io.js';

const io: CliIO = {
  argv: [],
  env: {},
  cwd: '/',
  stdout: () => undefined,
  stderr: () => undefined,
  isTTY: false,
  now: () => new Date(),
};

describe('command groups', () => {
  it('each group registers exactly the commands the table names', () => {
    for (const g of GROUPS) {
      const program = new Command('baton').enablePositionalOptions();
      g.register(program, io, { ctx: null });
      expect(program.commands.map((c) => c.name()).sort()).toEqual([...g.commands].sort());
    }
  });

  it('told the command invoked, a group registers it, and for the two largest groups little else', () => {
    for (const g of GROUPS) {
      for (const name of g.commands) {
        const program = new Command('baton').enablePositionalOptions();
        g.register(program, io, { ctx: null }, name);
        const names = program.commands.map((c) => c.name());
        expect(names, `${name}: ${names.join(' ')}`).toContain(name);
        for (const n of names) expect(g.commands).toContain(n);
      }
    }
    const only = (name: string): string[] => {
      const program = new Command('baton').enablePositionalOptions();
      GROUPS.find((g) => g.commands.includes(name))!.register(program, io, { ctx: null }, name);
      return program.commands.map((c) => c.name());
    };
    expect(only('tokens')).toEqual(['tokens']);
    expect(only('list')).toEqual(['list']);
    expect(only('pause')).toEqual(['switch', 'pause', 'complete', 'fail', 'abandon', 'archive']);
  });

  it('a command name belongs to one group; the full program has every command once', () => {
    const all = GROUPS.flatMap((g) => g.commands);
    expect(new Set(all).size).toBe(all.length);
    expect(
      buildProgram(io, { ctx: null })
        .commands.map((c) => c.name())
        .sort(),
    ).toEqual([...all].sort());
    expect(buildProgram(io, { ctx: null }, 'tokens').commands.map((c) => c.name())).toContain('tokens');
    expect(buildProgram(io, { ctx: null }, 'tokens').commands.map((c) => c.name())).not.toContain('list');
    // A word that names no command gets them all, for the suggestion.
    expect(
      buildProgram(io, { ctx: null }, 'phsae')
        .commands.map((c) => c.name())
        .sort(),
    ).toEqual([...all].sort());
  });

  it('the core bundle registers every word the launcher sends it, as the whole CLI does', () => {
    // The launcher's list (src/cli/launcher.cjs) is the core bundle's, word for word.
    const launcher = fs.readFileSync(path.join(ROOT, 'src/cli/launcher.cjs'), 'utf8');
    const listed = JSON.parse(/const CORE = (\[[^\]]*\]);/.exec(launcher)![1]!.replace(/'/g, '"')) as string[];
    expect(listed).toEqual([...CORE_COMMANDS]);
    expect(listed.length).toBeGreaterThan(20);
    for (const g of CORE_GROUPS) expect(GROUPS).toContainEqual(g);
    for (const w of listed) {
      const core = buildProgramOf(CORE_GROUPS, io, { ctx: null }, w);
      const full = buildProgram(io, { ctx: null }, w);
      expect(
        core.commands.map((c) => c.name()),
        w,
      ).toEqual(full.commands.map((c) => c.name()));
      const sub = (p: Command) => p.commands.find((c) => c.name() === w)!.commands.map((c) => c.name());
      expect(sub(core), w).toEqual(sub(full));
    }
    expect([...ALL_COMMANDS].sort()).toEqual(GROUPS.flatMap((g) => g.commands).sort());
  });
});
