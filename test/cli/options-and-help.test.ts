/**
 * Issue 15, "a CLI that feels like gh and docker": global options before the command, options
 * a command is not offered, suggestions that never steer into a change, --quiet and
 * --verbose, colour (NO_COLOR, FORCE_COLOR, a colour per status) and ASCII for a locale that
 * cannot show ✓ ○ █.
 */
import { describe, expect, it } from 'vitest';
import { expectError, withSession, workspace } from './helpers.js';

const ANSI = /\u001b\[/;

describe('global options anywhere', () => {
  it('before the command they mean what they mean after it: --session, --dir, --store, --json, --agent', async () => {
    const ws = await withSession('one', 'a,b');
    await ws.ok(['start', 'Two', '--id', 'two', '--switch', '--phases', 'x']);
    const after = await ws.ok(['status', '--session', 'one', '--json']);
    const before = await ws.ok(['--session', 'one', '--json', 'status']);
    expect(before.stdout).toBe(after.stdout);
    expect(JSON.parse(before.stdout).id).toBe('one');
    // --dir and --store before the command, from a folder with no store of its own.
    const elsewhere = workspace();
    expect(JSON.parse((await ws.ok(['--dir', ws.store, 'status', '--json'], { cwd: elsewhere.dir })).stdout).id).toBe(
      'two',
    );
    expect(
      JSON.parse(
        (await ws.ok(['--store', `file:${ws.store}`, '--session', 'one', 'status', '--json'], { cwd: elsewhere.dir }))
          .stdout,
      ).id,
    ).toBe('one');
    // --agent before a nested command is the agent of the change.
    await ws.ok(['--agent', 'alice', '--session', 'two', 'phase', 'start', 'x']);
    expect((await ws.status('two')).phases[0]!.agents).toEqual(['alice']);
    // After the command wins over before it.
    expect(JSON.parse((await ws.ok(['--session', 'one', 'status', '--session', 'two', '--json'])).stdout).id).toBe(
      'two',
    );
  });

  it('an option the command is not offered is refused before or after it, naming the command and its help', async () => {
    const ws = await withSession('one');
    const before = expectError(await ws.run(['--agent', 'alice', 'status']), 'BAD_INPUT');
    expect(before.message).toBe('`baton status` does not take --agent.');
    expect(before.hint).toContain('baton status --help');
    expectError(await ws.run(['status', '--agent', 'alice']), 'BAD_INPUT');
    expectError(await ws.run(['--session', 'one', 'doctor']), 'BAD_INPUT');
    expectError(await ws.run(['--json', 'mcp']), 'BAD_INPUT');
  });
});

describe('suggestions never steer into a change', () => {
  const suggestion = async (args: string[]): Promise<{ message: string; hint: string }> =>
    expectError(await workspace().run(args), 'BAD_INPUT');

  it('`stat` suggests status, not start; the hint always names --help', async () => {
    const r = await suggestion(['stat']);
    expect(r.message).toBe("Unknown command 'stat'");
    expect(r.hint).toBe('Did you mean `baton status`? Run `baton --help` to see the commands.');
    expect(r.hint).not.toContain('start');
  });

  it("a word that is another tool's command gets no state-changing suggestion, even one edit away", async () => {
    for (const word of ['rm', 'commit', 'reset', 'stats']) {
      const r = await suggestion([word]);
      expect(r.hint, word).not.toMatch(/`baton (start|restore|repair|init|complete|archive|pause)`/);
      expect(r.hint, word).toContain('baton --help');
    }
    // `completions` (plural) is the read-only `completion`, never `complete`.
    expect((await suggestion(['completions'])).hint).toBe(
      'Did you mean `baton completion`? Run `baton --help` to see the commands.',
    );
  });

  it("a slip of one edit in a word that is no other tool's command does suggest the change, and subcommands are suggested in place", async () => {
    expect((await suggestion(['strat'])).hint).toContain('`baton start`');
    expect((await suggestion(['phase', 'strat', 'a'])).hint).toBe(
      'Did you mean `baton phase start`? Run `baton phase --help` to see its usage and options.',
    );
    // Far from everything: no suggestion, the help.
    expect((await suggestion(['frobnicate'])).hint).toBe('Run `baton --help` to see the commands.');
  });

  it("an unknown option gets its suggestion and the command's --help", async () => {
    const r = await suggestion(['status', '--sesion', 'x']);
    expect(r.hint).toBe('Did you mean --session? Run `baton status --help` to see its usage and options.');
  });
});

describe('help', () => {
  it('a command group without its subcommand (`baton phase`) shows its help, with examples, on stderr, and exits BAD_INPUT', async () => {
    const r = await workspace().run(['phase']);
    expect(r.code).toBe(2);
    expect(r.stdout).toBe('');
    expect(r.stderr).toMatch(/^Usage: baton phase /);
    expect(r.stderr).toContain('\nExamples:\n  $ baton phase start design\n');
    // Asked for, help is data: stdout, exit 0.
    const asked = await workspace().run(['phase', '--help']);
    expect(asked.code).toBe(0);
    expect(asked.stdout).toContain('\nExamples:\n');
  });
});

describe('--quiet and --verbose', () => {
  it('--quiet drops confirmations but keeps data; --verbose names the store and the time taken', async () => {
    const ws = await withSession('q', 'a');
    expect((await ws.ok(['--quiet', 'phase', 'start', 'a'])).stdout).toBe('');
    expect((await ws.ok(['note', 'add', 'hello', '-q'])).stdout).toBe('');
    expect((await ws.status('q')).notes).toHaveLength(1);
    expect((await ws.ok(['status', '--quiet'])).stdout).toContain('Session q');
    // --json is data: --quiet does not take it away.
    expect(JSON.parse((await ws.ok(['note', 'add', 'again', '--quiet', '--json'])).stdout)).toMatchObject({
      session: 'q',
      noteId: 'note-2',
    });
    const v = await ws.run(['--verbose', 'status']);
    expect(v.code).toBe(0);
    expect(v.stderr).toMatch(/^baton: file store .+\.baton\nbaton: done in \d+ ms\n$/);
    expect((await ws.run(['status', '--verbose', '--quiet'])).stderr).toBe('');
  });
});

describe('colour and symbols', () => {
  async function interrupted(): Promise<Awaited<ReturnType<typeof withSession>>> {
    const ws = await withSession('i', 'build');
    const r = await ws.run(['run', '--', process.execPath, '-e', 'process.exit(3)']);
    expect(r.code).toBe(3);
    return ws;
  }

  it('FORCE_COLOR colours even in a pipe and wins over NO_COLOR; FORCE_COLOR=0 and NO_COLOR turn it off; every status has its colour', async () => {
    const ws = await interrupted();
    const forced = (await ws.ok(['list'], { env: { FORCE_COLOR: '1' } })).stdout;
    expect(forced).toContain('\u001b[35minterrupted\u001b[39m');
    expect((await ws.ok(['status'], { env: { FORCE_COLOR: '1' } })).stdout).toContain(
      'Status: \u001b[35minterrupted\u001b[39m',
    );
    expect((await ws.ok(['list'], { env: { FORCE_COLOR: '1', NO_COLOR: '1' } })).stdout).toMatch(ANSI);
    expect((await ws.ok(['list'], { env: { FORCE_COLOR: '0', NO_COLOR: undefined } })).stdout).not.toMatch(ANSI);
    expect((await ws.ok(['list'])).stdout).not.toMatch(ANSI);
    // --json is never coloured.
    expect((await ws.ok(['list', '--json'], { env: { FORCE_COLOR: '1' } })).stdout).not.toMatch(ANSI);
    // Errors on stderr follow the same switches.
    expect((await ws.run(['stat'], { env: { FORCE_COLOR: '1' } })).stderr).toMatch(/^\u001b\[31merror\[BAD_INPUT\]/);
  });

  it('each status is painted in its own colour', async () => {
    const { STATUS_COLOUR } = await import('../../src/cli/render/session-status.js');
    const { SESSION_STATUSES } = await import('../../src/manager/index.js');
    const colours = SESSION_STATUSES.map((s) => STATUS_COLOUR[s]);
    expect(colours.every(Boolean)).toBe(true);
    expect(new Set(colours).size).toBe(SESSION_STATUSES.length);
  });

  it('a locale without UTF-8 (LANG=C, LC_ALL=POSIX, a Latin-1 LC_CTYPE) gets ASCII for ✓ ○ █ and the rest; UTF-8 keeps them', async () => {
    const ws = await withSession('u', 'design,build,review');
    await ws.ok(['phase', 'start', 'design']);
    await ws.ok(['phase', 'complete', 'design']);
    await ws.ok(['phase', 'start', 'build']);
    const utf8 = (await ws.ok(['status'], { env: { LANG: 'en_US.UTF-8', LC_ALL: undefined, LC_CTYPE: undefined } }))
      .stdout;
    expect(utf8).toContain('✓ design');
    expect(utf8).toContain('○ build');
    expect(utf8).toContain('█');
    for (const env of [
      { LANG: 'C', LC_ALL: undefined, LC_CTYPE: undefined },
      { LC_ALL: 'POSIX', LANG: 'en_US.UTF-8' },
      { LC_CTYPE: 'en_US.ISO-8859-1', LC_ALL: undefined, LANG: 'en_US.UTF-8' },
    ]) {
      const out = (await ws.ok(['status'], { env })).stdout;
      expect(out, JSON.stringify(env)).toMatch(/^[\x20-\x7e\n]*$/);
      expect(out).toContain('+ design');
      expect(out).toContain('o build');
      expect(out).toMatch(/\[#+-+\] 1\/3 phases/);
    }
  });
});
