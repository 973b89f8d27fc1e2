/**
 * Input baton cannot take is BAD_INPUT with nothing written: an empty phase list, a plan file
 * that is not UTF-8, argv bytes that are not UTF-8.
 */
import { spawnSync } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { BATON, baseEnv, EXIT_CODES, expectError, needBuiltCli, withSession, workspace } from './helpers.js';

describe('an empty phase list and a plan file that is not UTF-8 are BAD_INPUT, nothing written', () => {
  it('start --phases "" is refused with the way out', async () => {
    const ws = workspace();
    const e = expectError(await ws.run(['start', 'Empty', '--id', 'em', '--phases', '']), 'BAD_INPUT');
    expect(e.message).toBe('The phase list is empty.');
    expect(e.hint).toBe('Pass --phases a,b,c.');
    expectError(await ws.run(['status', '--session', 'em']), 'NO_STORE');
  });

  it('a plan file with bytes that are not UTF-8 is refused, naming the file', async () => {
    const ws = workspace();
    ws.write(
      'plan.yaml',
      Buffer.concat([Buffer.from('phases:\n  - id: a\n    name: caf'), Buffer.from([0xe9]), Buffer.from('\n')]),
    );
    const e = expectError(await ws.run(['start', 'Latin', '--id', 'la', '--plan', 'plan.yaml']), 'BAD_INPUT');
    expect(e.message).toMatch(/^Plan plan\.yaml is not UTF-8 text/);
    expect(e.hint).toMatch(/UTF-8.*nothing was written/);
    expectError(await ws.run(['status', '--session', 'la']), 'NO_STORE');
  });
});

describe('argv bytes that are not UTF-8', () => {
  it('a note whose bytes are not UTF-8 is refused before anything is written', async () => {
    needBuiltCli();
    const ws = await withSession('nb');
    const before = (await ws.log('nb')).length;
    // Real bytes on the command line: "caf" then 0xE9 (Latin-1 é), which is not UTF-8.
    const r = spawnSync('sh', ['-c', `"${process.execPath}" "${BATON}" note add "$(printf 'caf\\351')"`], {
      cwd: ws.dir,
      env: baseEnv(),
      encoding: 'utf8',
    });
    expect(r.status, r.stderr).toBe(EXIT_CODES.BAD_INPUT);
    expect(r.stderr).toMatch(/^error\[BAD_INPUT\]: Argument 3 \(.*\) is not UTF-8 text/);
    expect(r.stderr).toMatch(/hint: Pass the text in UTF-8/);
    expect((await ws.log('nb')).length).toBe(before);
  });
});
