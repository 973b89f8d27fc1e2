/**
 * What the terminal can show, decided once per command from the environment: colour
 * (FORCE_COLOR, NO_COLOR, a TTY, TERM=dumb), non-ASCII symbols (the locale) and the width
 * human output must fit. Pure functions of their inputs, so tests pass any environment.
 */
import type { CliIO, Paint } from './io.js';
import { paint } from './io.js';
import { displayWidth, graphemes, headFitting } from './width.js';

/**
 * Whether to colour a stream: FORCE_COLOR (any value but 0 or false) turns colour on even in a
 * pipe and wins over NO_COLOR, as in Node itself; FORCE_COLOR=0 and a non-empty NO_COLOR turn
 * it off; otherwise only a terminal that is not TERM=dumb gets colour.
 */
export function colourEnabled(env: NodeJS.ProcessEnv, isTTY: boolean): boolean {
  const force = env['FORCE_COLOR'];
  if (force !== undefined && force !== '') return force !== '0' && force.toLowerCase() !== 'false';
  if (env['NO_COLOR']) return false;
  return isTTY && env['TERM'] !== 'dumb';
}

/**
 * Whether the locale can show ✓ ○ █: the first of LC_ALL, LC_CTYPE and LANG that is set
 * decides (UTF-8 in its name, or none set at all, means yes); `C`, `POSIX` or a Latin-1
 * locale means ASCII.
 */
export function unicodeLocale(env: NodeJS.ProcessEnv): boolean {
  const locale = env['LC_ALL'] || env['LC_CTYPE'] || env['LANG'];
  if (!locale) return true;
  return /utf-?8/i.test(locale);
}

/** The drawing helpers for stdout (or, `stream: 'stderr'`, for diagnostics). */
export function terminalPaint(io: CliIO, o: { json?: boolean; stream?: 'stdout' | 'stderr' } = {}): Paint {
  const tty = o.stream === 'stderr' ? (io.stderrIsTTY ?? io.isTTY) : io.isTTY;
  const width = tty && io.columns && io.columns > 0 ? io.columns : null;
  return paint(o.json !== true && colourEnabled(io.env, tty), { unicode: unicodeLocale(io.env), width });
}

/** Columns a string takes on a terminal: display columns (CJK and emoji two), colour codes none. */
export function visibleWidth(s: string): number {
  return displayWidth(s);
}

/** What each symbol human output uses becomes in a locale that cannot show it. */
const ASCII: Readonly<Record<string, string>> = {
  '✓': '+',
  '○': 'o',
  '●': '*',
  '█': '#',
  '░': '-',
  '✗': 'x',
  '□': '_',
  '▶': '>',
  '–': '-',
  '—': '-',
  '·': '-',
  '…': '...',
  '→': '->',
  '←': '<-',
  '“': '"',
  '”': '"',
  '‘': "'",
  '’': "'",
  '⚠': '!',
};
const NON_ASCII = new RegExp(`[${Object.keys(ASCII).join('')}]`, 'g');

/** `s` with the symbols above in ASCII; other text (titles, paths) is the user's and is kept. */
export function asciiSymbols(s: string): string {
  return s.replace(NON_ASCII, (ch) => ASCII[ch] ?? ch);
}

/** The ellipsis marking cut text on this terminal. */
export function ellipsis(c: Pick<Paint, 'unicode'>): string {
  return c.unicode ? '…' : '...';
}

/**
 * Cuts `s` to at most `width` columns at a word boundary, marked with an ellipsis; a word
 * that fills most of the room is cut inside, still marked. Colour codes are dropped from a
 * cut text.
 */
export function truncate(s: string, width: number, mark = '…'): string {
  if (visibleWidth(s) <= width) return s;
  const room = width - visibleWidth(mark);
  if (room <= 0) return headFitting(graphemes(mark), Math.max(0, width));
  const chars = graphemes(s);
  let cut = headFitting(chars, room);
  const next = chars.join('').slice(cut.length, cut.length + 1);
  const atBoundary = next === ' ' || next === '';
  // Back to the last word boundary, unless that would throw away most of the room (one long
  // word, such as an id, is cut inside instead: the ellipsis still says so).
  if (!atBoundary) {
    const space = cut.lastIndexOf(' ');
    if (space >= 0 && visibleWidth(cut.slice(0, space)) > room / 2) cut = cut.slice(0, space);
  }
  return `${cut.trimEnd()}${mark}`;
}

/**
 * Wraps one line to `width` columns at spaces, never inside a word, keeping the spacing
 * between the words that stay on a line (table columns stay aligned); continuation lines are
 * indented like the line's own leading spaces plus `hang`. A single word wider than the room
 * left is cut with an ellipsis rather than overflow the terminal.
 */
export function wrapLine(line: string, width: number, hang = 2, mark = '…'): string[] {
  if (visibleWidth(line) <= width) return [line];
  const lead = /^ */.exec(line)![0];
  const indent = ' '.repeat(Math.min(lead.length + hang, Math.floor(width / 2)));
  // Words and the runs of spaces between them, in order: [word, gap, word, gap, …].
  const parts = line.slice(lead.length).split(/( +)/);
  const out: string[] = [];
  let cur = lead;
  let curWidth = lead.length;
  let empty = true;
  for (let i = 0; i < parts.length; i += 2) {
    const w = parts[i]!;
    if (w === '') continue;
    const gap = empty ? '' : (parts[i - 1] ?? ' ');
    const ww = visibleWidth(w);
    if (curWidth + gap.length + ww <= width) {
      cur += `${gap}${w}`;
      curWidth += gap.length + ww;
      empty = false;
      continue;
    }
    if (!empty) out.push(cur);
    let start = out.length ? indent : lead;
    let room = width - start.length;
    let rest = w;
    // CJK text may break between any two characters: a run of it wider than the line goes on
    // over the next lines, nothing lost. Another word that long (a path) is cut, marked.
    if (
      visibleWidth(rest) > room &&
      /[\u1100-\uffff]/u.test(rest) &&
      room > 1 &&
      graphemes(rest).some((g) => visibleWidth(g) > 1)
    ) {
      const chars = graphemes(rest);
      while (visibleWidth(rest) > room) {
        const head = headFitting(chars, room);
        out.push(`${start}${head}`);
        chars.splice(0, graphemes(head).length);
        rest = chars.join('');
        start = indent;
        room = width - start.length;
      }
    }
    const word = visibleWidth(rest) > room ? truncate(rest, room, mark) : rest;
    cur = `${start}${word}`;
    curWidth = start.length + visibleWidth(word);
    empty = false;
  }
  out.push(cur);
  return out;
}

/**
 * Human text made to fit this terminal: symbols in ASCII when the locale needs it, and each
 * line wider than the terminal wrapped at word boundaries. Text for a pipe is left as it is.
 */
export function fitText(text: string, c: Pick<Paint, 'unicode' | 'width'>): string {
  const t = c.unicode ? text : asciiSymbols(text);
  if (c.width === null) return t;
  const mark = ellipsis(c);
  return t
    .split('\n')
    .flatMap((l) => wrapLine(l, c.width!, 2, mark))
    .join('\n');
}
