/**
 * Maestro session files are Markdown with a frontmatter block between `---` lines. The
 * seed/v1.x era writes YAML there; the v1.6 MCP server writes pretty-printed JSON
 * (`JSON.stringify(data, null, 2)`) and can only read that back. We read both and write
 * each file back in the flavour it came in, so neither generation of the toolkit is cut off.
 */
import { parseText } from '../util.js';
import { yamlModule } from '../yaml.js';

/** The flavour of a frontmatter block. */
export type FrontmatterFormat = 'json' | 'yaml';

/** A Maestro session document as kept in `ForeignSession.documents` (the basis of export). */
export interface MaestroDocument {
  frontmatterFormat: FrontmatterFormat;
  frontmatter: Record<string, unknown>;
  /** Everything after the closing `---` line, verbatim (LF line endings). */
  body: string;
}

/** Result of {@link parseSessionText}. */
export type FrontmatterParse = { ok: true; doc: MaestroDocument } | { ok: false; reason: string };

const FENCE = /^---[ \t]*$/;
const CLOSE = /^(---|\.\.\.)[ \t]*$/;

/**
 * Splits and parses a session file's text (BOM already stripped, CRLF already LF). Never
 * throws: a missing or unterminated block, a syntax error or a non-object is a `reason`.
 */
export function parseSessionText(text: string): FrontmatterParse {
  const lines = text.split('\n');
  let i = 0;
  while (i < lines.length && lines[i]!.trim() === '') i++;
  if (i >= lines.length || !FENCE.test(lines[i]!))
    return { ok: false, reason: 'it has no frontmatter block (the file must start with a "---" line)' };
  const start = i + 1;
  let end = -1;
  for (let j = start; j < lines.length; j++) {
    if (CLOSE.test(lines[j]!)) {
      end = j;
      break;
    }
  }
  if (end < 0) return { ok: false, reason: 'its frontmatter block is never closed by a "---" line' };
  const fmText = lines.slice(start, end).join('\n');
  const body = lines.slice(end + 1).join('\n');
  if (fmText.trim() === '') return { ok: false, reason: 'its frontmatter block is empty' };
  const json = fmText.trimStart().startsWith('{');
  const parsed = parseText(fmText, !json);
  if (!parsed.ok)
    return { ok: false, reason: `its ${json ? 'JSON' : 'YAML'} frontmatter does not parse: ${parsed.reason}` };
  const value = parsed.value;
  if (value === null || typeof value !== 'object' || Array.isArray(value)) {
    return { ok: false, reason: 'its frontmatter does not hold a mapping of fields' };
  }
  return {
    ok: true,
    doc: { frontmatterFormat: json ? 'json' : 'yaml', frontmatter: value as Record<string, unknown>, body },
  };
}

/** Renders a session document: frontmatter in its flavour, then the body verbatim. */
export function renderSessionText(doc: MaestroDocument): string {
  const fm =
    doc.frontmatterFormat === 'json'
      ? JSON.stringify(doc.frontmatter, null, 2)
      : // Values double-quoted as in Maestro's template: a YAML 1.1 reader would turn a bare
        // 2026-03-01T09:00:00Z into a date, and a bare "yes" into a boolean.
        yamlModule()
          .stringify(doc.frontmatter, { lineWidth: 0, defaultStringType: 'QUOTE_DOUBLE', defaultKeyType: 'PLAIN' })
          .replace(/\n$/, '');
  return `---\n${fm}\n---\n${doc.body}`;
}

/** True when `v` has the shape of a {@link MaestroDocument} (e.g. from `ExportInput.original`). */
export function isMaestroDocument(v: unknown): v is MaestroDocument {
  if (v === null || typeof v !== 'object') return false;
  const d = v as Record<string, unknown>;
  return (
    (d.frontmatterFormat === 'json' || d.frontmatterFormat === 'yaml') &&
    typeof d.body === 'string' &&
    d.frontmatter !== null &&
    typeof d.frontmatter === 'object'
  );
}
