/**
 * The seed-era registry `.workflow/session_status.jsonl`: one JSON object per line (id,
 * status active|paused|completed, description, created, directory, complexity). Read
 * leniently: a torn or garbled line is skipped and reported with its number, a duplicate
 * id is reported and the last line wins (an append-only registry's latest word).
 */
import type { FormatProblem } from '../types.js';
import { parseText, problem, str } from '../util.js';

/** One registry line that parsed. */
export interface RegistryEntry {
  id: string;
  /** 1-based line number. */
  line: number;
  /** The parsed object, verbatim. */
  raw: Record<string, unknown>;
}

/** The registry, read. */
export interface Registry {
  path: string;
  /** By id; the last line of an id wins. */
  entries: Map<string, RegistryEntry>;
  problems: FormatProblem[];
}

/** Parses the registry text (BOM and CRLF already removed by SafeDir). Never throws. */
export function parseRegistry(text: string, path: string): Registry {
  const entries = new Map<string, RegistryEntry>();
  const problems: FormatProblem[] = [];
  const lines = text.split('\n');
  lines.forEach((line, i) => {
    const n = i + 1;
    if (line.trim() === '') return;
    const parsed = parseText(line, false);
    if (!parsed.ok) {
      problems.push(
        problem(
          'TRUNCATED_LINE',
          'warning',
          `Line ${n} of ${path} does not parse as JSON (${parsed.reason}); it was skipped, the other lines were read.`,
          {
            path,
            hint: 'A torn last line is what an interrupted append leaves; remove the line or re-register the session.',
            details: { line: n, text: line.length > 200 ? `${line.slice(0, 200)}…` : line },
          },
        ),
      );
      return;
    }
    const v = parsed.value;
    const o = v !== null && typeof v === 'object' && !Array.isArray(v) ? (v as Record<string, unknown>) : null;
    const id = o ? str(o.id) : null;
    if (!o || !id) {
      problems.push(
        problem(
          o ? 'MISSING_FIELD' : 'BAD_VALUE',
          'warning',
          `Line ${n} of ${path} is not a registry entry with an "id"; it was skipped.`,
          {
            path,
            hint: 'Each line must be an object such as {"id":"WFS-x","status":"paused",…}.',
            details: { line: n, field: 'id' },
          },
        ),
      );
      return;
    }
    const prev = entries.get(id);
    if (prev) {
      problems.push(
        problem(
          'DUPLICATE_ENTRY',
          'warning',
          `${path} lists ${id} twice (lines ${prev.line} and ${n}); the later line wins.`,
          {
            path,
            sessionId: id,
            hint: 'Keep one line per session in the registry.',
            details: { lines: [prev.line, n], kept: n },
          },
        ),
      );
    }
    entries.set(id, { id, line: n, raw: o });
  });
  return { path, entries, problems };
}
