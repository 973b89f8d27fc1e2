/** Opening the manager from plain JavaScript, where no type check names a missing option. */
import { describe, expect, it } from 'vitest';
import { isBatonError } from '../../src/domain/errors.js';
import { openManager } from '../../src/manager/open.js';

describe('openManager without its folder', () => {
  it.each([
    ['no options', undefined],
    ['no cwd', {}],
    ['an empty cwd', { cwd: '' }],
  ])('%s: BAD_INPUT naming cwd and the way out, not a TypeError', (_name, o) => {
    let err: unknown;
    try {
      openManager(o as never);
    } catch (e) {
      err = e;
    }
    expect(isBatonError(err, 'BAD_INPUT')).toBe(true);
    expect((err as Error).message).toContain('cwd');
    expect(JSON.stringify(err)).toContain('process.cwd()');
  });
});
