/**
 * What the torture fuzzing found, kept as regression tests: a path the file system cannot
 * take (longer than a file name may be, or through a file) is BAD_INPUT naming it, never an
 * INTERNAL crash, and nothing is written.
 */
import fs from 'node:fs';
import { describe, expect, it } from 'vitest';
import { expectError, expectJsonError, withSession } from '../cli/helpers.js';

const LONG = 'x'.repeat(3000);

describe('paths the file system refuses', () => {
  it('a store folder name too long for the file system is BAD_INPUT (init, start, migrate-store)', async () => {
    const ws = await withSession('s1');
    const before = fs.readdirSync(ws.dir);
    expectError(await ws.run(['init', '--store', LONG]), 'BAD_INPUT');
    expectError(await ws.run(['start', 'T', '--dir', LONG]), 'BAD_INPUT');
    const r = expectJsonError(await ws.run(['migrate-store', '--from', '.baton', '--to', LONG, '--json']), 'BAD_INPUT');
    expect(r.message).toMatch(/too long/);
    expect(fs.readdirSync(ws.dir)).toEqual(before);
  });

  it('a store folder under a file is BAD_INPUT or NO_STORE, never INTERNAL', async () => {
    const ws = await withSession('s1');
    ws.write('afile', 'x');
    for (const args of [
      ['init', '--dir', 'afile/store'],
      ['start', 'T', '--dir', 'afile/store'],
      ['status', '--dir', 'afile/store'],
    ]) {
      const res = await ws.run(args);
      expect([2, 14], `${args.join(' ')}: ${res.stderr}`).toContain(res.code);
      expect(res.stderr).toMatch(/^error\[(BAD_INPUT|NO_STORE)\]/);
    }
  });
});
