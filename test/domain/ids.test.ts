import { describe, expect, it } from 'vitest';
import { BatonError, ERROR_CODES, isBatonError } from '../../src/domain/errors.js';
import {
  BMAD_PREFIXES,
  clip,
  generateId,
  ID_FORMATS,
  MAX_ID_LENGTH,
  parseIdFormat,
  slugify,
  validateId,
} from '../../src/domain/ids.js';
import type { IdContext } from '../../src/domain/ids.js';
import { refusal } from './helpers.js';
import { cliHint } from '../../src/cli/hint-words.js';

/** A fixed clock and a fixed source of random bytes. */
function ctx(iso = '2026-03-04T10:20:30.000Z', bytes = [0xde, 0xad, 0xbe, 0xef]): IdContext & { asked: number[] } {
  const asked: number[] = [];
  return {
    now: new Date(iso),
    asked,
    randomBytes: (n: number) => {
      asked.push(n);
      return Uint8Array.from(bytes.slice(0, n));
    },
  };
}

describe('validateId', () => {
  it.each([
    'a',
    'abc',
    '2026-03-04-my-title',
    'session-deadbeef',
    'SES202603-ACME-WEBSHOP',
    'WFS-my-title',
    'A.b_c-1',
    '0',
    'v1.2.3',
    'x'.repeat(MAX_ID_LENGTH),
  ])('accepts %j', (id) => {
    expect(validateId(id)).toBe(id);
  });

  it.each([
    ['../x', /not valid/],
    ['', /empty/],
    ['a/b', /not valid/],
    ['a\\b', /not valid/],
    ['.hidden', /not valid/],
    ['a..b', /not valid/],
    ['..', /not valid/],
    ['-lead', /not valid/],
    ['_lead', /not valid/],
    ['a b', /not valid/],
    ['a\n', /not valid/],
    ['\na', /not valid/],
    ['café', /not valid/],
    ['a:b', /not valid/],
    ['a\u0000b', /not valid/],
  ])('rejects %j with BAD_INPUT', (id, message) => {
    const err = refusal(() => validateId(id), 'BAD_INPUT');
    expect(err.message).toMatch(message);
    expect(cliHint(err)).toBeTruthy();
  });

  it('rejects 2,000 characters and one past the limit, naming the length', () => {
    const err = refusal(() => validateId('a'.repeat(2000)), 'BAD_INPUT');
    expect(err.message).toContain('2000');
    expect(err.details).toEqual({ length: 2000 });
    refusal(() => validateId('a'.repeat(MAX_ID_LENGTH + 1)), 'BAD_INPUT');
    expect(MAX_ID_LENGTH).toBe(128);
  });

  it('rejects non-strings', () => {
    for (const v of [undefined, null, 42, {}, ['a']]) refusal(() => validateId(v), 'BAD_INPUT');
  });

  it('names what it checks in the message, and clips long input', () => {
    expect(refusal(() => validateId('../x', 'checkpoint id')).message).toContain('checkpoint id');
    const long = `/${'y'.repeat(100)}`;
    const msg = refusal(() => validateId(long)).message;
    expect(msg).toContain('…');
    expect(msg.length).toBeLessThan(120);
  });
});

describe('slugify', () => {
  it.each([
    ['My Title', 'my-title'],
    ['  Hello, World!  ', 'hello-world'],
    ['Crème brûlée', 'creme-brulee'],
    ['already-a-slug', 'already-a-slug'],
    ['a___b', 'a-b'],
    ['', 'session'],
    ['!!!', 'session'],
  ])('%j → %j', (title, slug) => {
    expect(slugify(title)).toBe(slug);
  });

  it('bounds the length without leaving a trailing dash', () => {
    expect(slugify('a'.repeat(100))).toBe('a'.repeat(60));
    expect(slugify(`${'a'.repeat(59)} bcd`)).toBe('a'.repeat(59));
    expect(slugify('abc def', 4)).toBe('abc');
  });
});

describe('generateId', () => {
  it('date: YYYY-MM-DD-<slug> from the injected clock (UTC)', () => {
    expect(generateId('date', 'My Title', ctx())).toBe('2026-03-04-my-title');
    expect(generateId('date', 'My Title', ctx('2026-12-31T23:59:59.999Z'))).toBe('2026-12-31-my-title');
    expect(generateId('date', '', ctx())).toBe('2026-03-04-session');
  });

  it('uuid: session-<8 hex> from 4 injected random bytes', () => {
    const c = ctx();
    expect(generateId('uuid', 'ignored', c)).toBe('session-deadbeef');
    expect(c.asked).toEqual([4]);
    expect(generateId('uuid', 'x', ctx(undefined, [0, 1, 0x0a, 0xff]))).toBe('session-00010aff');
  });

  it('bmad: <PREFIX><YYYYMM>-<CLIENT>-<PROJECT>', () => {
    expect(generateId('bmad', 'ignored', ctx(), { client: 'acme', project: 'webshop' })).toBe('SES202603-ACME-WEBSHOP');
    expect(generateId('bmad', 'ignored', ctx(), { prefix: 'eng', client: 'Acme Corp', project: 'Web Shop 2' })).toBe(
      'ENG202603-ACMECORP-WEBSHOP2',
    );
    // project defaults to the title, client to CLIENT
    expect(generateId('bmad', 'Data Lake', ctx('2025-11-01T00:00:00Z'))).toBe('SES202511-CLIENT-DATALAKE');
    for (const prefix of BMAD_PREFIXES) {
      expect(generateId('bmad', 't', ctx(), { prefix, client: 'c', project: 'p' })).toBe(`${prefix}202603-C-P`);
    }
  });

  it('bmad: refuses an unknown prefix', () => {
    const err = refusal(() => generateId('bmad', 't', ctx(), { prefix: 'XYZ' }), 'BAD_INPUT');
    expect(err.message).toContain('XYZ');
    expect(cliHint(err)).toContain('SES');
  });

  it('wfs: WFS-<slug>', () => {
    expect(generateId('wfs', 'My Title', ctx())).toBe('WFS-my-title');
    expect(generateId('wfs', '', ctx())).toBe('WFS-session');
  });

  it('always yields a valid id, whatever the title', () => {
    const titles = ['', '../../etc/passwd', '..', 'a/b\\c', '.hidden', 'x'.repeat(5000), '日本語', '💥💥', 'a..b'];
    for (const format of ID_FORMATS) {
      for (const title of titles) {
        const id = generateId(format, title, ctx(), { client: title, project: title });
        expect(validateId(id)).toBe(id);
      }
    }
  });
});

describe('parseIdFormat', () => {
  it('accepts the four formats', () => {
    expect([...ID_FORMATS]).toEqual(['date', 'uuid', 'bmad', 'wfs']);
    for (const f of ID_FORMATS) expect(parseIdFormat(f)).toBe(f);
  });

  it.each(['', 'UUID', 'guid', 'date ', 'maestro'])('rejects %j listing the choices', (v) => {
    const err = refusal(() => parseIdFormat(v), 'BAD_INPUT');
    expect(cliHint(err)).toBe('Use one of: date, uuid, bmad, wfs.');
  });
});

describe('errors', () => {
  it('BatonError carries code, hint, details and cause; toJSON omits empty parts', () => {
    const cause = new Error('disk');
    const e = new BatonError('CONFLICT', 'stale', { hint: 'retry', details: { expected: 3 }, cause });
    expect(e).toBeInstanceOf(Error);
    expect(e.name).toBe('BatonError');
    expect(e.cause).toBe(cause);
    expect(e.toJSON()).toEqual({ code: 'CONFLICT', message: 'stale', hint: 'retry', details: { expected: 3 } });
    expect(new BatonError('NOT_FOUND', 'gone').toJSON()).toEqual({ code: 'NOT_FOUND', message: 'gone' });
    expect(isBatonError(e)).toBe(true);
    expect(isBatonError(e, 'CONFLICT')).toBe(true);
    expect(isBatonError(e, 'LOCKED')).toBe(false);
    expect(isBatonError(cause)).toBe(false);
    expect(new Set(ERROR_CODES).size).toBe(ERROR_CODES.length);
  });

  it('clip shortens long strings only', () => {
    expect(clip('abc')).toBe('abc');
    expect(clip('abcdef', 3)).toBe('abc…');
  });
});
