/**
 * Go Team defines a checkpoint's checksum as the sha256 of the content that contains the
 * checksum itself (seed 001 / docs/formats/go-team.md "Code vs prose": "the checksum is defined as sha256
 * of the content that contains the checksum itself (circular) — an implementation must define a
 * canonical form"). The definition is ambiguous, so a checksum is accepted when it matches the
 * document in any reasonable canonical form: without its `checksum` field (or with it empty, or
 * without `valid` too), keys in file order or sorted, serialised compact or pretty (2-space), or
 * the file's own text with the field cut out ("as written"), or as Python's `json.dumps` writes
 * it with numbers kept as written (`0.0` stays `0.0`, so files a Python toolkit wrote verify;
 * see json-lexemes.ts). baton writes the first form (file order, compact). A sha256 digest
 * matching none is a *mismatch*: the content is not what was hashed, so the checkpoint is
 * damaged (Go Team's "Recovery rules": validation = file exists + checksum + git commit + state
 * schema; a corrupt checkpoint is marked invalid and the last valid one is used). A value that
 * is no digest (a placeholder: not 64 hex digits, or one digit 64 times) cannot be checked:
 * *unverified*, a warning.
 */
import { createHash } from 'node:crypto';
import { type LexValue, parseLexemes, pyDumps, withoutKey, withValue } from './json-lexemes.js';

function sha(text: string): string {
  return `sha256:${createHash('sha256').update(text, 'utf8').digest('hex')}`;
}

function withoutChecksum(doc: Record<string, unknown>): Record<string, unknown> {
  const { checksum: _ignored, ...rest } = doc;
  return rest;
}

function sorted(v: unknown): unknown {
  if (Array.isArray(v)) return v.map(sorted);
  if (v === null || typeof v !== 'object') return v;
  const o = v as Record<string, unknown>;
  return Object.fromEntries(
    Object.keys(o)
      .sort()
      .map((k) => [k, sorted(o[k])]),
  );
}

/** The canonical checksum baton writes: the document without `checksum`, keys in file order, compact. */
export function checkpointChecksum(doc: Record<string, unknown>): string {
  return sha(JSON.stringify(withoutChecksum(doc)));
}

/**
 * What the checksum was computed over, as writers of a self-containing checksum do it: the
 * document without the field; with the field present but empty (`""` or null, filled in after
 * hashing); or, since Go Team's prose lists `valid` after `checksum`, without both (a writer
 * that hashes before adding `valid`).
 */
const BASES: Array<[string, (doc: Record<string, unknown>) => Record<string, unknown>, (v: LexValue) => LexValue]> = [
  ['', withoutChecksum, (v) => withoutKey(v, 'checksum')],
  ['-empty', (d) => ({ ...d, checksum: '' }), (v) => withValue(v, 'checksum', { t: 'str', value: '' })],
  ['-null', (d) => ({ ...d, checksum: null }), (v) => withValue(v, 'checksum', { t: 'lit', value: 'null' })],
  [
    '-no-valid',
    (d) => {
      const { valid: _v, ...rest } = withoutChecksum(d);
      return rest;
    },
    (v) => withoutKey(withoutKey(v, 'checksum'), 'valid'),
  ],
];

/**
 * The forms a checksum is compared against, by name (the name is reported when one matches),
 * computed one at a time so that a match stops the work.
 */
export function* checksumForms(doc: Record<string, unknown>, text: string | null): Generator<[string, string]> {
  for (const [base, cut] of BASES) {
    const rest = cut(doc);
    const s = sorted(rest);
    yield [`file-order-compact${base}`, sha(JSON.stringify(rest))];
    yield [`sorted-compact${base}`, sha(JSON.stringify(s))];
    yield [`file-order-pretty${base}`, sha(JSON.stringify(rest, null, 2))];
    yield [`sorted-pretty${base}`, sha(JSON.stringify(s, null, 2))];
  }
  if (text === null) return;
  // The file as written, minus the `"checksum": "…"` member and the comma that joined it.
  const cut = text.replace(/,\s*"checksum"\s*:\s*"[^"]*"/, '').replace(/"checksum"\s*:\s*"[^"]*"\s*,?/, '');
  if (cut !== text) {
    yield ['as-written', sha(cut)];
    yield ['as-written-trimmed', sha(cut.trim())];
  }
  const lex = parseLexemes(text);
  if (lex !== null) for (const [base, , cutLex] of BASES) yield* pythonForms(cutLex(lex), base);
}

/**
 * The forms Python's `json.dumps` gives, re-serialised from the text so that numbers keep their
 * lexeme: a Python toolkit hashing `{"x": 0.0}` hashed `0.0`, which `JSON.parse` has turned into
 * `0` (issue 27). Named `python-<keys>-<layout>[-ascii]<base>`.
 */
function* pythonForms(rest: LexValue, base: string): Generator<[string, string]> {
  const layouts: Array<[string, number | null, boolean]> = [
    ['default', null, false],
    ['compact', null, true],
    ['indent2', 2, false],
    ['indent4', 4, false],
  ];
  for (const sortKeys of [true, false]) {
    for (const [layout, indent, compact] of layouts) {
      for (const ascii of [true, false]) {
        const name = `python-${sortKeys ? 'sorted' : 'file-order'}-${layout}${ascii ? '-ascii' : ''}${base}`;
        yield [name, sha(pyDumps(rest, { sortKeys, indent, compact, ascii }))];
      }
    }
  }
}

/** How a checkpoint's checksum compares with its content. */
export interface ChecksumCheck {
  /**
   * ok: matches one canonical form; missing: no checksum field; mismatch: a sha256 digest that
   * matches none (the content is not what was hashed: damaged); unverified: a value that is no
   * digest at all (a placeholder such as `sha256:abc123`, a number), so nothing can be checked.
   */
  result: 'ok' | 'missing' | 'mismatch' | 'unverified';
  /** The form that matched (see {@link checksumForms}), null unless ok. */
  form: string | null;
}

/** A sha256 digest as a checksum holds it: 64 hex digits, `sha256:` before them or not. */
const DIGEST = /^(?:sha256:)?[0-9a-f]{64}$/;

/** Checks the checksum of a parsed checkpoint; `text` is the file as read (for the "as written" and Python forms). */
export function verifyChecksum(doc: Record<string, unknown>, text: string | null = null): ChecksumCheck {
  const c = doc.checksum;
  if (c === undefined || c === null || c === '') return { result: 'missing', form: null };
  if (typeof c !== 'string') return { result: 'unverified', form: null };
  const want = c.trim().toLowerCase();
  // A placeholder (`sha256:abc123`, 64 zeros) is no digest of anything: it cannot be checked.
  if (!DIGEST.test(want) || /^(?:sha256:)?(.)\1{63}$/.test(want)) return { result: 'unverified', form: null };
  const prefixed = want.startsWith('sha256:') ? want : `sha256:${want}`;
  for (const [name, h] of checksumForms(doc, text)) if (h === prefixed) return { result: 'ok', form: name };
  return { result: 'mismatch', form: null };
}
