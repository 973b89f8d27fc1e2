/** Recognising baton's hook commands among a user's own, whatever path or quoting they carry. */
import { describe, expect, it } from 'vitest';
import { buildHookCommand, parseHookCommand, shellWords } from '../../src/cli/hooks/command.js';

describe('baton hook commands', () => {
  it('writes `baton hook <cli>` by default, with a store path that needs quoting, and reads it back', () => {
    const c = buildHookCommand({ program: 'baton', cli: 'codex', dir: '/work/my project/.baton' });
    expect(c).toBe("baton hook codex --dir '/work/my project/.baton'");
    expect(parseHookCommand(c)).toEqual({
      cli: 'codex',
      launcher: 'baton',
      node: null,
      script: null,
      store: { dir: '/work/my project/.baton' },
    });
  });

  it('round-trips a custom program (--command) with paths that need quoting', () => {
    const c = buildHookCommand({
      program: `'/opt/node 20/bin/node' '/home/o'\\''neil/baton/dist/baton.cjs'`,
      cli: 'claude',
      store: 'postgres://u@h/db',
    });
    expect(shellWords(c)).toEqual([
      '/opt/node 20/bin/node',
      "/home/o'neil/baton/dist/baton.cjs",
      'hook',
      'claude',
      '--store',
      'postgres://u@h/db',
    ]);
    expect(parseHookCommand(c)).toEqual({
      cli: 'claude',
      launcher: '/opt/node 20/bin/node',
      node: '/opt/node 20/bin/node',
      script: "/home/o'neil/baton/dist/baton.cjs",
      store: { store: 'postgres://u@h/db' },
    });
  });

  it('recognises baton run other ways: a global bin, npx, an environment prefix, --store=URL', () => {
    expect(parseHookCommand('baton hook gemini')?.cli).toBe('gemini');
    expect(parseHookCommand('npx -y baton hook claude')?.cli).toBe('claude');
    expect(parseHookCommand('npx -y baton-sessions hook claude')).toMatchObject({
      cli: 'claude',
      launcher: 'npx',
      script: null,
    });
    expect(parseHookCommand('BATON_DIR=/x/.baton baton hook codex')).toMatchObject({
      launcher: 'baton',
      store: { dir: '/x/.baton' },
    });
    expect(
      parseHookCommand('BATON_DIR=/x/.baton node /usr/lib/node_modules/baton/dist/baton.cjs hook claude')?.store,
    ).toEqual({ dir: '/x/.baton' });
    expect(parseHookCommand('"/p/dist/cli.cjs" hook codex --store=postgres://u@h/db')?.store).toEqual({
      store: 'postgres://u@h/db',
    });
  });

  it("leaves the user's commands alone, even those that mention hook and a CLI name", () => {
    for (const c of [
      './scripts/lint.sh',
      'my-hook claude',
      'node tools/hook.js hook claude',
      'baton status',
      'baton hook cursor',
      'echo baton hook claude-ish',
    ]) {
      expect(parseHookCommand(c), c).toBeNull();
    }
  });
});
