/**
 * Go Team defines a checkpoint's checksum as the sha256 of the content that contains the
 * checksum itself (seed 001 / docs/formats/go-team.md "Code vs prose": "the checksum is defined as sha256
 * of the content that contains the checksum itself (circular) — an implementation must define a
 * canonical form"). The definition is ambiguous, so a checksum is accepted when it matches the
 * document without its `checksum` field in any reasonable canonical form: keys in file order or
 * sorted, serialised compact or pretty (2-space), or the file's own text with the field cut out
 * ("as written"), or as Python's `json.dumps` writes it with numbers kept as written (`0.0`
 * stays `0.0`; see json-lexemes.ts). baton writes the first form (file order, compact). A checksum matching none
 * is *unverified* (a warning), never corrupt: corrupt means unreadable, truncated or
 * contradicting the manifest (docs/formats/go-team.md "Recovery rules": validation = file exists +
 * checksum + git commit + state schema).
 */
import { createHash } from 'node:crypto';
import { parseLexemes, pyDumps, withoutKey } from './json-lexemes.js';

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

/** The forms a checksum is compared against, by name (the name is reported when one matches). */
export function checksumForms(doc: Record<string, unknown>, text: string | null): Array<[string, string]> {
  const rest = withoutChecksum(doc);
  const s = sorted(rest);
  const forms: Array<[string, string]> = [
    ['file-order-compact', sha(JSON.stringify(rest))],
    ['sorted-compact', sha(JSON.stringify(s))],
    ['file-order-pretty', sha(JSON.stringify(rest, null, 2))],
    ['sorted-pretty', sha(JSON.stringify(s, null, 2))],
  ];
  if (text !== null) {
    // The file as written, minus the `"checksum": "…"` member and the comma that joined it.
    const cut = text.replace(/,\s*"checksum"\s*:\s*"[^"]*"/, '').replace(/"checksum"\s*:\s*"[^"]*"\s*,?/, '');
    if (cut !== text) forms.push(['as-written', sha(cut)], ['as-written-trimmed', sha(cut.trim())]);
    forms.push(...pythonForms(text));
  }
  return forms;
}

/**
 * The forms Python's `json.dumps` gives, re-serialised from the text so that numbers keep their
 * lexeme: a Python toolkit hashing `{"x": 0.0}` hashed `0.0`, which `JSON.parse` has turned into
 * `0` (issue 27). Named `python-<keys>-<layout>[-ascii]`.
 */
function pythonForms(text: string): Array<[string, string]> {
  const lex = parseLexemes(text);
  if (lex === null) return [];
  const rest = withoutKey(lex, 'checksum');
  const out: Array<[string, string]> = [];
  const layouts: Array<[string, number | null, boolean]> = [
    ['default', null, false],
    ['compact', null, true],
    ['indent2', 2, false],
    ['indent4', 4, false],
  ];
  for (const sortKeys of [true, false]) {
    for (const [layout, indent, compact] of layouts) {
      for (const ascii of [true, false]) {
        const name = `python-${sortKeys ? 'sorted' : 'file-order'}-${layout}${ascii ? '-ascii' : ''}`;
        out.push([name, sha(pyDumps(rest, { sortKeys, indent, compact, ascii }))]);
      }
    }
  }
  return out;
}

/** How a checkpoint's checksum compares with its content. */
export interface ChecksumCheck {
  /** ok: matches one canonical form; missing: no checksum field; unverified: matches none (or is not a string). */
  result: 'ok' | 'missing' | 'unverified';
  /** The form that matched (see {@link checksumForms}), null unless ok. */
  form: string | null;
}

/** Checks the checksum of a parsed checkpoint; `text` is the file as read (for the "as written" form). */
export function verifyChecksum(doc: Record<string, unknown>, text: string | null = null): ChecksumCheck {
  const c = doc.checksum;
  if (c === undefined || c === null || c === '') return { result: 'missing', form: null };
  if (typeof c !== 'string') return { result: 'unverified', form: null };
  const want = c.trim().toLowerCase();
  const hit = checksumForms(doc, text).find(([, h]) => h === want);
  return hit ? { result: 'ok', form: hit[0] } : { result: 'unverified', form: null };
}
