/**
 * Value clean-up shared by import's parts: foreign values made into what baton's events accept,
 * and the problems import reports.
 */
import type { ForeignSession, FormatProblem, ProblemSeverity, TokenCountsLike } from './types.js';

/** A format problem about session `s` (no hint). */
export function note(
  severity: ProblemSeverity,
  code: string,
  s: ForeignSession,
  message: string,
  details?: Record<string, unknown>,
): FormatProblem {
  return { code, severity, sessionId: s.id, path: s.path, message, hint: null, ...(details ? { details } : {}) };
}

/** `v` when it is a non-blank string, else `fallback`; clipped to `max` characters. */
export function nonEmpty(v: string | null | undefined, fallback: string, max: number): string {
  const s = typeof v === 'string' && v.trim() !== '' ? v : fallback;
  return s.length > max ? s.slice(0, max) : s;
}

/** A token count from foreign data: a finite positive number rounded (capped at 10^12), else 0. */
export function count(v: unknown): number {
  return typeof v === 'number' && Number.isFinite(v) && v > 0 ? Math.min(Math.round(v), 1_000_000_000_000) : 0;
}

/** Token counts from foreign data, each through {@link count}. */
export function counts(t: TokenCountsLike | null | undefined): TokenCountsLike {
  return { input: count(t?.input), output: count(t?.output), cached: count(t?.cached) };
}

/** Longest text baton keeps of a foreign record (longer is clipped). */
export const MAX_TEXT = 100_000;
