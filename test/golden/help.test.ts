/**
 * Golden `--help` of the root and of every command (test/golden/help/*.txt, one file per
 * command), run through the CLI's one entry at the default width of 80 columns. Also the rules
 * the help follows: every command's help ends with examples, the root lists the command groups
 * and the global options, and no command is offered an option that means nothing to it.
 */
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Command } from 'commander';
import { describe, expect, it } from 'vitest';
import { buildProgram, run } from '../../src/cli/main.js';
import { compareGolden } from './compare.js';

const HERE = path.dirname(fileURLToPath(import.meta.url));

async function help(args: string[]): Promise<string> {
  let out = '';
  const code = await run({
    argv: [...args, '--help'],
    env: { NO_COLOR: '1' },
    cwd: '/',
    stdout: (s) => void (out += s),
    stderr: () => undefined,
    isTTY: false,
    now: () => new Date(0),
  });
  expect(code).toBe(0);
  return out;
}

function paths(cmd: Command, prefix: string[] = []): string[][] {
  return cmd.commands.flatMap((c) => [[...prefix, c.name()], ...paths(c, [...prefix, c.name()])]);
}

const io = {
  argv: [],
  env: {},
  cwd: '/',
  stdout: () => undefined,
  stderr: () => undefined,
  isTTY: false,
  now: () => new Date(0),
};
const program = buildProgram(io, { ctx: null });
const all = paths(program);

describe('--help', () => {
  it('root: the command groups, the global options, examples', async () => {
    const text = await help([]);
    compareGolden(path.join(HERE, 'help', 'baton.txt'), text);
    const headings = text.split('\n').filter((l) => /^[A-Z][a-z ]+:$/.test(l));
    expect(headings).toEqual([
      'Options:',
      'Global options:',
      'Sessions:',
      'Phases and records:',
      'Runs and recovery:',
      'Stores and maintenance:',
      'Integrations:',
      'Help:',
      'Examples:',
    ]);
    for (const flag of ['--session', '--json', '--dir', '--store', '--agent', '--quiet', '--verbose'])
      expect(text).toContain(flag);
    // Every top-level command sits in a named group, none under a catch-all "Commands:".
    expect(text).not.toContain('\nCommands:\n');
  });

  it.each(all.map((p) => [p.join(' ')]))('baton %s --help matches its golden and ends with examples', async (p) => {
    const text = await help(p.split(' '));
    compareGolden(path.join(HERE, 'help', `${p.replace(/ /g, '-')}.txt`), text);
    const tail = text.slice(text.lastIndexOf('\nExamples:\n'));
    expect(tail, 'the help ends with an Examples section').toMatch(/^\nExamples:\n( {2}\$ .*baton .+\n {6}.+\n)+$/);
  });

  it('read-only commands take no --agent; commands that pick no one session take no --session', () => {
    const options = (p: string): string[] => {
      let c: Command = program;
      for (const w of p.split(' ')) c = c.commands.find((x) => x.name() === w)!;
      return c.options.map((o) => o.long!);
    };
    for (const p of ['status', 'list', 'checkpoints', 'checkpoint show', 'handoff', 'pricing', 'watch'])
      expect(options(p), p).not.toContain('--agent');
    // `log --agent NAME` is log's own filter (the events of that agent), not the global option.
    const logAgent = program.commands.find((x) => x.name() === 'log')!.options.find((o) => o.long === '--agent')!;
    expect(logAgent.description).toMatch(/^only events/);
    for (const p of [
      'init',
      'start',
      'list',
      'pricing',
      'cleanup',
      'claim',
      'import',
      'doctor',
      'migrate-store',
      'completion',
    ])
      expect(options(p), p).not.toContain('--session');
    for (const p of ['mcp', 'completion', 'hook']) expect(options(p), p).not.toContain('--json');
    // The ones that act do take them.
    for (const p of ['phase start', 'tokens add', 'start', 'restore']) expect(options(p), p).toContain('--agent');
    for (const p of ['status', 'phase complete', 'log', 'restore']) expect(options(p), p).toContain('--session');
  });
});
