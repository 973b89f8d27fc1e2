/**
 * Small helpers every format adapter needs, kept in one place so the five adapters read and
 * report the same way.
 */
import { createHash } from 'node:crypto';
import type { ReadResult } from './safe-dir.js';
import type { FormatProblem, ProblemCode, ProblemSeverity } from './types.js';
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
 * Parses a read file as JSON (or YAML with `yaml: true`). Empty files, syntax errors and
 * non-object documents become a `EMPTY_FILE` / `CORRUPT_FILE` problem, never a throw.
 */
export function parseDocument(r: ReadResult & { kind: 'ok' }, o: { yaml?: boolean; sessionId?: string | null } = {}): Parsed<Record<string, unknown>> {
  if (r.bytes.length === 0 || r.text.trim() === '') {
    return { ok: false, problem: problem('EMPTY_FILE', 'error', `${r.path} is empty.`, { path: r.path, sessionId: o.sessionId ?? null }) };
  }
  let value: unknown;
  try {
    value = o.yaml ? yamlModule().parse(r.text) : JSON.parse(r.text);
  } catch (e) {
    return {
      ok: false,
      problem: problem('CORRUPT_FILE', 'error', `${r.path} does not parse as ${o.yaml ? 'YAML' : 'JSON'}: ${(e as Error).message.split('\n')[0]}.`, {
        path: r.path,
        sessionId: o.sessionId ?? null,
      }),
    };
  }
  if (value === null || typeof value !== 'object' || Array.isArray(value)) {
    return { ok: false, problem: problem('CORRUPT_FILE', 'error', `${r.path} does not hold an object.`, { path: r.path, sessionId: o.sessionId ?? null }) };
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
