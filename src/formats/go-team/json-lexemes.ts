/**
 * A JSON reader that keeps each number as it was written, and serialisers in the forms a
 * Python toolkit hashes (`json.dumps`). Why: `JSON.parse` turns `0.0` into `0`, so a checksum
 * computed by Python over `0.0` can never be reproduced from parsed values (issue 27: 14 false
 * CHECKSUM_UNVERIFIED warnings on valid Go Team checkpoints). Pure, no I/O.
 */

/** A JSON value whose numbers keep their lexeme; objects keep their key order. */
export type LexValue =
  | { t: 'num'; lexeme: string }
  | { t: 'str'; value: string }
  | { t: 'lit'; value: 'true' | 'false' | 'null' }
  | { t: 'arr'; items: LexValue[] }
  | { t: 'obj'; entries: Array<[string, LexValue]> };

/** Parses JSON text keeping number lexemes; null when the text is not JSON (the caller already parsed it otherwise). */
export function parseLexemes(text: string): LexValue | null {
  let i = 0;
  const ws = (): void => {
    while (i < text.length && ' \t\n\r\uFEFF'.includes(text[i]!)) i++;
  };
  const str = (): string => {
    const m = /^"(?:[^"\\\u0000-\u001f]|\\.)*"/su.exec(text.slice(i));
    if (!m) throw new Error('string');
    i += m[0].length;
    return JSON.parse(m[0]) as string;
  };
  const value = (): LexValue => {
    ws();
    const c = text[i];
    if (c === '{') {
      i++;
      const entries: Array<[string, LexValue]> = [];
      ws();
      if (text[i] === '}') {
        i++;
        return { t: 'obj', entries };
      }
      for (;;) {
        ws();
        const k = str();
        ws();
        if (text[i++] !== ':') throw new Error(':');
        entries.push([k, value()]);
        ws();
        const n = text[i++];
        if (n === '}') return { t: 'obj', entries };
        if (n !== ',') throw new Error(',');
      }
    }
    if (c === '[') {
      i++;
      const items: LexValue[] = [];
      ws();
      if (text[i] === ']') {
        i++;
        return { t: 'arr', items };
      }
      for (;;) {
        items.push(value());
        ws();
        const n = text[i++];
        if (n === ']') return { t: 'arr', items };
        if (n !== ',') throw new Error(',');
      }
    }
    if (c === '"') return { t: 'str', value: str() };
    const lit = /^(true|false|null)/.exec(text.slice(i, i + 5));
    if (lit) {
      i += lit[0].length;
      return { t: 'lit', value: lit[0] as 'true' | 'false' | 'null' };
    }
    const num = /^-?(?:0|[1-9]\d*)(?:\.\d+)?(?:[eE][+-]?\d+)?/.exec(text.slice(i, i + 400));
    if (!num) throw new Error('value');
    i += num[0].length;
    return { t: 'num', lexeme: num[0] };
  };
  try {
    const v = value();
    ws();
    return i === text.length ? v : null;
  } catch {
    return null;
  }
}

/** Python's `repr` of a JSON number lexeme: ints exactly as written, floats as Python prints them (`0.0`, `1e-07`). */
export function pythonNumber(lexeme: string): string {
  // An integer is printed as Python's int: exactly as written, but `-0` is 0.
  if (!/[.eE]/.test(lexeme)) return lexeme === '-0' ? '0' : lexeme;
  const n = Number(lexeme);
  if (!Number.isFinite(n)) return n > 0 ? 'Infinity' : '-Infinity';
  // Python switches to exponent notation at 1e16 and below 1e-4; JS at 1e21 and 1e-7.
  const a = Math.abs(n);
  if (a !== 0 && (a >= 1e16 || a < 1e-4)) {
    const [m, e] = n.toExponential().split('e') as [string, string];
    const exp = Number(e);
    return `${m}e${exp < 0 ? '-' : '+'}${String(Math.abs(exp)).padStart(2, '0')}`;
  }
  if (Object.is(n, -0)) return '-0.0';
  const s = String(n);
  return s.includes('.') || s.includes('e') ? s : `${s}.0`;
}

function pyString(s: string, ascii: boolean): string {
  const j = JSON.stringify(s);
  if (!ascii) return j;
  return j.replace(/[\u007f-\uffff]/g, (ch) => `\\u${ch.charCodeAt(0).toString(16).padStart(4, '0')}`);
}

/** How a value is written: Python's `json.dumps` options. */
export interface PyDumpOptions {
  sortKeys: boolean;
  /** null: one line; a number: that indent (Python then separates items with "," and keys with ": "). */
  indent: number | null;
  /** Separators of the one-line form: Python's default (", ", ": ") or compact (",", ":"). */
  compact: boolean;
  /** Python's default ensure_ascii=True escapes every non-ASCII character. */
  ascii: boolean;
}

/** Serialises a value as Python's `json.dumps(value, **options)` would (numbers via {@link pythonNumber}). */
export function pyDumps(v: LexValue, o: PyDumpOptions, depth = 0): string {
  const item = o.indent === null ? (o.compact ? ',' : ', ') : ',';
  const key = o.indent === null && o.compact ? ':' : ': ';
  const nl = (d: number): string => (o.indent === null ? '' : `\n${' '.repeat(o.indent * d)}`);
  switch (v.t) {
    case 'num':
      return pythonNumber(v.lexeme);
    case 'str':
      return pyString(v.value, o.ascii);
    case 'lit':
      return v.value;
    case 'arr':
      if (v.items.length === 0) return '[]';
      return `[${v.items.map((x) => nl(depth + 1) + pyDumps(x, o, depth + 1)).join(item)}${nl(depth)}]`;
    case 'obj': {
      if (v.entries.length === 0) return '{}';
      const es = o.sortKeys ? [...v.entries].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)) : v.entries;
      return `{${es.map(([k, x]) => `${nl(depth + 1)}${pyString(k, o.ascii)}${key}${pyDumps(x, o, depth + 1)}`).join(item)}${nl(depth)}}`;
    }
  }
}

/** The object without one top-level key (the checksum is computed without its own field). */
export function withoutKey(v: LexValue, name: string): LexValue {
  return v.t === 'obj' ? { t: 'obj', entries: v.entries.filter(([k]) => k !== name) } : v;
}

/** The object with one top-level key's value replaced (kept in place), or the value unchanged when it lacks the key. */
export function withValue(v: LexValue, name: string, value: LexValue): LexValue {
  return v.t === 'obj' ? { t: 'obj', entries: v.entries.map(([k, x]) => [k, k === name ? value : x]) } : v;
}
