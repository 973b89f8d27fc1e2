/** The CLI registers only the invoked command's group; the table it uses must be the truth. */
import { Command } from 'commander';
import { describe, expect, it } from 'vitest';
import { GROUPS, buildProgram } from '../../src/cli/main.js';
import type { CliIO } from '../../src/cli/io.js';

const io: CliIO = { argv: [], env: {}, cwd: '/', stdout: () => undefined, stderr: () => undefined, isTTY: false, now: () => new Date() };

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
    expect(buildProgram(io, { ctx: null }).commands.map((c) => c.name()).sort()).toEqual([...all].sort());
    expect(buildProgram(io, { ctx: null }, 'tokens').commands.map((c) => c.name())).toContain('tokens');
    expect(buildProgram(io, { ctx: null }, 'tokens').commands.map((c) => c.name())).not.toContain('list');
    // A word that names no command gets them all, for the suggestion.
    expect(buildProgram(io, { ctx: null }, 'phsae').commands.map((c) => c.name()).sort()).toEqual([...all].sort());
  });
});
