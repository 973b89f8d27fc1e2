/** The terminal rules as functions: colour switches, locale, cutting and wrapping text. */
import { describe, expect, it } from 'vitest';
import { truncateMiddle } from '../../src/cli/width.js';
import {
  asciiSymbols,
  colourEnabled,
  fitText,
  truncate,
  unicodeLocale,
  visibleWidth,
  wrapLine,
} from '../../src/cli/terminal.js';

describe('terminal rules', () => {
  it('colour: FORCE_COLOR wins (0 and false turn it off), then NO_COLOR, then a TTY that is not TERM=dumb', () => {
    expect(colourEnabled({}, true)).toBe(true);
    expect(colourEnabled({}, false)).toBe(false);
    expect(colourEnabled({ TERM: 'dumb' }, true)).toBe(false);
    expect(colourEnabled({ NO_COLOR: '1' }, true)).toBe(false);
    expect(colourEnabled({ NO_COLOR: '' }, true)).toBe(true);
    expect(colourEnabled({ FORCE_COLOR: '1', NO_COLOR: '1' }, false)).toBe(true);
    expect(colourEnabled({ FORCE_COLOR: '0' }, true)).toBe(false);
    expect(colourEnabled({ FORCE_COLOR: 'false' }, true)).toBe(false);
  });

  it('locale: the first of LC_ALL, LC_CTYPE, LANG decides; none set means UTF-8', () => {
    expect(unicodeLocale({})).toBe(true);
    expect(unicodeLocale({ LANG: 'en_GB.UTF-8' })).toBe(true);
    expect(unicodeLocale({ LANG: 'C.utf8' })).toBe(true);
    expect(unicodeLocale({ LANG: 'C' })).toBe(false);
    expect(unicodeLocale({ LC_ALL: 'POSIX', LANG: 'en_US.UTF-8' })).toBe(false);
    expect(unicodeLocale({ LC_CTYPE: 'de_DE.UTF-8', LANG: 'C' })).toBe(true);
    expect(asciiSymbols('✓ a · b … [██░░]')).toBe('+ a - b ... [##--]');
  });

  it('truncate: at a word boundary with the mark; a long single word is cut inside, still marked', () => {
    expect(truncate('short', 10)).toBe('short');
    expect(truncate('the quick brown fox', 12)).toBe('the quick…');
    expect(truncate('2026-11-24-a-very-long-identifier', 12)).toBe('2026-11-24-…');
    expect(truncate('the quick brown fox', 12, '...')).toBe('the quick...');
    expect(visibleWidth(truncate('\u001b[31mred text that is long\u001b[39m', 9))).toBeLessThanOrEqual(9);
  });

  it('wrapLine: breaks only at spaces, keeps the gaps of aligned columns, indents continuation lines', () => {
    expect(wrapLine('  alpha beta gamma delta', 14)).toEqual(['  alpha beta', '    gamma', '    delta']);
    expect(wrapLine('a   b   c', 5)).toEqual(['a   b', '  c']);
    for (const l of wrapLine('x '.repeat(50).trim(), 20)) expect(l.length).toBeLessThanOrEqual(20);
    // A word wider than the room left is cut with the mark rather than overflow.
    expect(wrapLine('see /a/really/long/path/that/cannot/fit', 16)).toEqual(['see', '  /a/really/lon…']);
    expect(fitText('✓ done\n', { unicode: false, width: null })).toBe('+ done\n');
  });
});

describe('display columns (issue 25: width counted code points)', () => {
  it('CJK and emoji take two columns, combining marks and colour codes none', () => {
    expect(visibleWidth('abc')).toBe(3);
    expect(visibleWidth('数据库')).toBe(6);
    expect(visibleWidth('🚀a')).toBe(3);
    expect(visibleWidth('👩‍💻')).toBe(2);
    expect(visibleWidth('e\u0301')).toBe(1);
    expect(visibleWidth('\u001b[32m数据\u001b[39m')).toBe(4);
  });

  it('truncate and truncateMiddle never exceed the width, cutting whole characters', () => {
    for (let w = 3; w < 20; w++) {
      for (const s of [
        '数据库迁移和用户认证模块的重构工作计划',
        '🚀 Launch 🎉 prep 🧪 now',
        '2026-11-27-migrate-auth-store-a3f1',
      ]) {
        expect(visibleWidth(truncate(s, w)), `${s} at ${w}`).toBeLessThanOrEqual(w);
        expect(visibleWidth(truncateMiddle(s, w)), `${s} at ${w}`).toBeLessThanOrEqual(w);
      }
    }
    expect(truncate('数据库迁移', 6)).toBe('数据…');
    expect(truncateMiddle('2026-11-27-migrate-auth-store-a3f1', 16)).toBe('2026-1…tore-a3f1');
  });

  it('wrapLine breaks CJK between characters, losing nothing, and an ASCII line only between words', () => {
    const cjk = wrapLine('  note: 数据库迁移和用户认证模块的重构工作计划', 14, 2);
    for (const l of cjk) expect(visibleWidth(l)).toBeLessThanOrEqual(14);
    expect(cjk.join('').replace(/\s/g, '')).toBe('note:数据库迁移和用户认证模块的重构工作计划');
    expect(wrapLine('alpha beta gamma delta', 11, 2)).toEqual(['alpha beta', '  gamma', '  delta']);
  });
});
