/**
 * Small helpers every format adapter needs, kept in one place so the five adapters read and
 * report the same way.
 */
import { createHash } from 'node:crypto';
import type { ReadResult, SafeDir } from './safe-dir.js';
import { slugify } from '../domain/ids.js';
import type {
  ExportInput,
  FormatAdapter,
  FormatProblem,
  InspectReport,
  ProblemCode,
  ProblemSeverity,
} from './types.js';
import { yamlModule } from './yaml.js';

/** Builds a {@link FormatProblem}. */
export function problem(
  code: ProblemCode,
  severity: ProblemSeverity,
  message: string,
  o: { sessionId?: string | null; path?: string | null; hint?: string | null; details?: Record<string, unknown> } = {},
): FormatProblem {
  return {
    code,
    severity,
    sessionId: o.sessionId ?? null,
    path: o.path ?? null,
    message,
    hint: o.hint ?? null,
    ...(o.details ? { details: o.details } : {}),
  };
}

/** sha256 (hex) over the bytes of the given reads, in order (missing files count as empty). */
export function hashSources(reads: ReadResult[]): string {
  const h = createHash('sha256');
  for (const r of reads) {
    h.update(r.path);
    h.update('\0');
    if (r.kind === 'ok') h.update(r.bytes);
    h.update('\0');
  }
  return h.digest('hex');
}

/** Result of a lenient parse. */
export type Parsed<T = unknown> = { ok: true; value: T } | { ok: false; problem: FormatProblem };

/**
 * Deepest nesting of objects and arrays a foreign document may have. Real session files stay
 * under ten levels; a file nested thousands deep is damage (or an attack), and reading it
 * whole would overflow the stack later (JSON.stringify, structuredClone, the journal).
 */
export const MAX_DOCUMENT_DEPTH = 100;

/**
 * True when `v` nests objects/arrays deeper than `max`. Iterative on purpose: a recursive walk
 * would overflow on exactly the documents it is meant to catch.
 */
export function nestedDeeperThan(v: unknown, max = MAX_DOCUMENT_DEPTH): boolean {
  const stack: Array<[unknown, number]> = [[v, 0]];
  const seen = new Set<object>(); // YAML anchors can make the same node appear many times
  while (stack.length > 0) {
    const [cur, depth] = stack.pop()!;
    if (cur === null || typeof cur !== 'object' || seen.has(cur)) continue;
    if (depth + 1 > max) return true;
    seen.add(cur);
    for (const child of Array.isArray(cur) ? cur : Object.values(cur)) {
      if (child !== null && typeof child === 'object') stack.push([child, depth + 1]);
    }
  }
  return false;
}

/** Result of {@link parseText}: the value, or why the text cannot be used (one line). */
export type TextParse = { ok: true; value: unknown } | { ok: false; reason: string; tooDeep: boolean };

/**
 * Parses JSON or YAML text, never throwing: a syntax error, a stack overflow inside the
 * parser, or a document nested deeper than {@link MAX_DOCUMENT_DEPTH} is a `reason`.
 */
export function parseText(text: string, yaml: boolean): TextParse {
  const tooDeep = `it nests more than ${MAX_DOCUMENT_DEPTH} levels deep, which no session file does`;
  let value: unknown;
  try {
    value = yaml ? yamlModule().parse(text) : JSON.parse(text);
  } catch (e) {
    // The yaml package reports its own stack overflow as a parse error carrying the message.
    if (e instanceof RangeError || /Maximum call stack size exceeded/.test((e as Error).message))
      return { ok: false, reason: tooDeep, tooDeep: true };
    return { ok: false, reason: (e as Error).message.split('\n')[0] ?? String(e), tooDeep: false };
  }
  if (nestedDeeperThan(value)) return { ok: false, reason: tooDeep, tooDeep: true };
  return { ok: true, value };
}

/**
 * Parses a read file as JSON (or YAML with `yaml: true`). Empty files, syntax errors,
 * documents nested deeper than {@link MAX_DOCUMENT_DEPTH} and non-object documents become an
 * `EMPTY_FILE` / `CORRUPT_FILE` problem, never a throw.
 */
export function parseDocument(
  r: ReadResult & { kind: 'ok' },
  o: { yaml?: boolean; sessionId?: string | null } = {},
): Parsed<Record<string, unknown>> {
  if (r.bytes.length === 0 || r.text.trim() === '') {
    return {
      ok: false,
      problem: problem('EMPTY_FILE', 'error', `${r.path} is empty.`, { path: r.path, sessionId: o.sessionId ?? null }),
    };
  }
  const parsed = parseText(r.text, o.yaml === true);
  if (!parsed.ok) {
    return {
      ok: false,
      problem: problem(
        'CORRUPT_FILE',
        'error',
        `${r.path} does not parse as ${o.yaml ? 'YAML' : 'JSON'}: ${parsed.reason}.`,
        {
          path: r.path,
          sessionId: o.sessionId ?? null,
          ...(parsed.tooDeep
            ? {
                hint: 'Restore the file from a backup or version control; baton does not read documents nested this deep.',
                details: { maxDepth: MAX_DOCUMENT_DEPTH },
              }
            : {}),
        },
      ),
    };
  }
  const value = parsed.value;
  if (value === null || typeof value !== 'object' || Array.isArray(value)) {
    return {
      ok: false,
      problem: problem('CORRUPT_FILE', 'error', `${r.path} does not hold an object.`, {
        path: r.path,
        sessionId: o.sessionId ?? null,
      }),
    };
  }
  return { ok: true, value: value as Record<string, unknown> };
}

/** `v` as a string, or null. */
export function str(v: unknown): string | null {
  return typeof v === 'string' ? v : typeof v === 'number' ? String(v) : null;
}

/** `v` as a finite non-negative number, or `fallback`. */
export function num(v: unknown, fallback = 0): number {
  const n = typeof v === 'string' && v.trim() !== '' ? Number(v) : v;
  return typeof n === 'number' && Number.isFinite(n) && n >= 0 ? n : fallback;
}

/** `v` as an object, or an empty one. */
export function obj(v: unknown): Record<string, unknown> {
  return v !== null && typeof v === 'object' && !Array.isArray(v) ? (v as Record<string, unknown>) : {};
}

/** `v` as an array, or an empty one. */
export function arr(v: unknown): unknown[] {
  return Array.isArray(v) ? v : [];
}

/** The fields of `o` not named in `known`, verbatim (round-trip safety). */
export function rest(o: Record<string, unknown>, known: readonly string[]): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(o)) if (!known.includes(k)) out[k] = v;
  return out;
}

/**
 * Wraps an adapter's inspect so the folders it could not list or search (permission denied)
 * are reported as `UNREADABLE` in the tree's problems, unless the adapter already reported
 * that path itself: an unreadable folder must not pass for an empty one.
 */
export function reportingAccess(inspect: FormatAdapter['inspect']): FormatAdapter['inspect'] {
  return async (dir: SafeDir, now: Date): Promise<InspectReport> => {
    const report = await inspect(dir, now);
    const seen = new Set(
      [...report.problems, ...report.sessions.flatMap((s) => s.problems)]
        .filter((p) => p.code === 'UNREADABLE')
        .map((p) => p.path),
    );
    const extra = dir.accessProblems().filter((p) => !seen.has(p.path));
    return extra.length ? { ...report, problems: [...report.problems, ...extra] } : report;
  };
}

/**
 * True for a foreign id that can name a file or folder inside the session folder: starts with
 * a letter, digit or "_", then letters (any script, with their accents), digits, ".", "_",
 * "-"; no "..", at most 128 chars. A toolkit id such as "sessão-1" names its own file: it is
 * not renamed on export (only a path-like id is).
 */
export function isSafeFileId(id: string): boolean {
  return id.length <= 128 && /^[\p{L}\p{N}_][\p{L}\p{M}\p{N}._-]*$/u.test(id) && !id.includes('..');
}

/**
 * The export input with a foreign id safe to name files with. An imported id such as
 * "../../x" imports fine (it is only data there) but would name a path outside the output
 * folder: it is replaced by the baton id (slugged if need be) and an `UNSAFE_PATH` warning
 * says so, instead of refusing the whole export.
 */
export function withSafeForeignId(
  input: ExportInput,
  format: string,
  safe: (id: string) => boolean = isSafeFileId,
): { input: ExportInput; problem: FormatProblem | null } {
  if (safe(input.foreignId)) return { input, problem: null };
  const fallback = safe(input.state.id) ? input.state.id : slugify(input.state.id, 100);
  return {
    input: { ...input, foreignId: fallback },
    problem: problem(
      'UNSAFE_PATH',
      'warning',
      `The ${format} session id ${JSON.stringify(input.foreignId)} cannot name a file inside the output folder; the session was written as ${JSON.stringify(fallback)} (from the baton id) instead.`,
      {
        sessionId: fallback,
        hint: `The toolkit will know the session as ${fallback}; rename it there if another name is wanted.`,
        details: { field: 'session_id', value: input.foreignId, written: fallback },
      },
    ),
  };
}

/**
 * A duration for people: "45 s", "12 min", "3 h", "328 days" (rounded down to the largest
 * unit that fits; "1 day" in the singular). Negative durations (a clock ahead of baton's)
 * are written as "0 s".
 */
export function humanDuration(seconds: number): string {
  const s = Math.max(0, Math.floor(seconds));
  if (s < 60) return `${s} s`;
  if (s < 3600) return `${Math.floor(s / 60)} min`;
  if (s < 86400) return `${Math.floor(s / 3600)} h`;
  const d = Math.floor(s / 86400);
  return `${d} day${d === 1 ? '' : 's'}`;
}
