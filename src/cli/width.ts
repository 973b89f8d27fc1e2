/**
 * Display columns of text on a terminal: a CJK character or an emoji takes two, a combining
 * mark none. ASCII (nearly all of baton's output) is measured by its length; text whose every
 * code point stands alone (CJK, accented letters: no emoji, combining mark, joiner or
 * variation selector) by the East Asian Width of each, as `string-width` itself does; the rest
 * by `string-width`, loaded on first use: it builds an `Intl.Segmenter` when loaded and
 * compiles large emoji patterns when first used, ~0.1 s that an everyday command should not pay
 * for a CJK title.
 */
import { eastAsianWidth } from 'get-east-asian-width';

const ANSI = /\u001b\[[0-9;]*m/g;
const PRINTABLE_ASCII = /^[\x20-\x7e]*$/;
/** Scripts whose code points are each one character of East Asian Width (Latin, Greek, Cyrillic, symbols, CJK, kana, Hangul syllables, fullwidth forms)… */
const SIMPLE =
  /^[\x20-\x7e\u00a0-\u024f\u0370-\u052f\u1e00-\u1fff\u2010-\u205e\u2070-\u27bf\u2e80-\u303f\u3040-\u31ff\u3200-\u4dbf\u4e00-\u9fff\uac00-\ud7a3\uf900-\ufaff\ufe30-\ufe4f\uff01-\uffbe\uffe0-\uffe6\u{20000}-\u{3fffd}]*$/u;
/** …except those that join, modify or vanish: emoji, marks, format, ignorable and unassigned code points. */
const CLUSTERED = /[\p{Extended_Pictographic}\p{Emoji_Modifier}\p{M}\p{Cf}\p{Cn}\p{Default_Ignorable_Code_Point}]/u;

type Measure = (s: string) => number;
let measure: Measure | undefined;
let segmenter: Intl.Segmenter | undefined;

function stringWidth(s: string): number {
  // require, not import: the CLI bundle then initialises string-width on this first call only.
  measure ??= (require('string-width') as { default: Measure }).default;
  return measure(s);
}

/** `s` without colour codes. */
export function stripAnsi(s: string): string {
  return s.replace(ANSI, '');
}

/** Columns `s` takes on a terminal (colour codes take none). */
export function displayWidth(s: string): number {
  const plain = s.includes('\u001b') ? stripAnsi(s) : s;
  if (PRINTABLE_ASCII.test(plain)) return plain.length;
  if (!SIMPLE.test(plain) || CLUSTERED.test(plain)) return stringWidth(plain);
  let n = 0;
  for (const ch of plain) n += eastAsianWidth(ch.codePointAt(0)!, { ambiguousAsWide: false });
  return n;
}

/** The user-perceived characters of `s` (grapheme clusters), colour codes removed. */
export function graphemes(s: string): string[] {
  const plain = stripAnsi(s);
  if (PRINTABLE_ASCII.test(plain)) return plain.split('');
  if (SIMPLE.test(plain) && !CLUSTERED.test(plain)) return Array.from(plain);
  segmenter ??= new Intl.Segmenter();
  return Array.from(segmenter.segment(plain), (g) => g.segment);
}

/** The longest start of `chars` that fits in `room` columns. */
export function headFitting(chars: readonly string[], room: number): string {
  let out = '';
  let used = 0;
  for (const ch of chars) {
    const w = displayWidth(ch);
    if (used + w > room) break;
    out += ch;
    used += w;
  }
  return out;
}

/** The longest end of `chars` that fits in `room` columns. */
export function tailFitting(chars: readonly string[], room: number): string {
  let out = '';
  let used = 0;
  for (let i = chars.length - 1; i >= 0; i--) {
    const w = displayWidth(chars[i]!);
    if (used + w > room) break;
    out = chars[i]! + out;
    used += w;
  }
  return out;
}

/**
 * `s` cut in its middle to at most `width` columns, the cut marked: `2026-11…mig-a3f`. An id
 * keeps its end, which tells ids of one day apart; `head` is the share of the room kept from
 * the start (0.4 by default).
 */
export function truncateMiddle(s: string, width: number, mark = '…', head = 0.4): string {
  if (displayWidth(s) <= width) return s;
  const markWidth = displayWidth(mark);
  const room = width - markWidth;
  if (room <= 0) return headFitting(graphemes(mark), Math.max(0, width));
  const chars = graphemes(s);
  const start = headFitting(chars, Math.max(1, Math.round(room * head)));
  const end = tailFitting(chars, room - displayWidth(start));
  return `${start}${mark}${end}`;
}
