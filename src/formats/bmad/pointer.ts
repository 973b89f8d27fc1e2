/**
 * `active-session.yaml`, BMAD's active pointer. Its content is never specified ("set as
 * active" / "clear"), so every plausible shape is accepted and the shape found is reported:
 * a bare id, `session_id: X`, `active_session: X`, a full copy of the session, or a cleared
 * pointer (empty file, `null`, or the key set to null/"").
 */
import type { ReadResult } from '../safe-dir.js';
import type { FormatProblem } from '../types.js';
import { parseText, problem, str } from '../util.js';

export type PointerStyle = 'bare' | 'session_id' | 'active_session' | 'copy' | 'empty';

/** What the pointer file holds. */
export interface Pointer {
  /** Relative path of the pointer file. */
  path: string;
  style: PointerStyle;
  /** Session id it names; null when cleared. */
  id: string | null;
  /** The parsed document, verbatim (for a lossless rewrite in the same style). */
  value: unknown;
}

/** Fields that only a session (not a pointer) has: their presence makes the pointer a full copy. */
const SESSION_KEYS = [
  'status',
  'tokens',
  'created',
  'last_updated',
  'agents_spawned',
  'artifacts',
  'milestones',
  'context_summary',
];

/** Parses the pointer; a file that cannot be understood is a problem and no pointer. */
export function parsePointer(r: ReadResult & { kind: 'ok' }): {
  pointer: Pointer | null;
  problem: FormatProblem | null;
} {
  if (r.text.trim() === '') return { pointer: { path: r.path, style: 'empty', id: null, value: null }, problem: null };
  const parsed = parseText(r.text, true);
  if (!parsed.ok) {
    return {
      pointer: null,
      problem: problem(
        'CORRUPT_FILE',
        'error',
        `${r.path} does not parse as YAML: ${parsed.reason}; no session can be taken as active.`,
        {
          path: r.path,
          hint: 'Rewrite it as "session_id: <id>" (or remove it to have no active session).',
        },
      ),
    };
  }
  const v = parsed.value;
  const pointer = pointerFromValue(r.path, v);
  if (pointer) return { pointer, problem: null };
  return {
    pointer: null,
    problem: problem(
      'BAD_VALUE',
      'error',
      `${r.path} holds ${JSON.stringify(v).slice(0, 80)}, which names no session (expected an id, "session_id: <id>" or "active_session: <id>").`,
      {
        path: r.path,
        hint: 'Rewrite it as "session_id: <id>".',
        details: { value: v },
      },
    ),
  };
}

/** Classifies a parsed pointer document; null when it names no session in any known way. */
export function pointerFromValue(path: string, v: unknown): Pointer | null {
  if (v === null || v === undefined || v === '') return { path, style: 'empty', id: null, value: v ?? null };
  if (typeof v === 'string' || typeof v === 'number') return { path, style: 'bare', id: String(v).trim(), value: v };
  if (typeof v === 'object' && !Array.isArray(v)) {
    const o = v as Record<string, unknown>;
    if ('session_id' in o) {
      const id = str(o['session_id']);
      const copy = SESSION_KEYS.some((k) => k in o);
      return { path, style: copy ? 'copy' : 'session_id', id: id && id.trim() !== '' ? id : null, value: v };
    }
    if ('active_session' in o) {
      const id = str(o['active_session']);
      return { path, style: 'active_session', id: id && id.trim() !== '' ? id : null, value: v };
    }
  }
  return null;
}

/** Describes a pointer in words, for the report. */
export function describePointer(p: Pointer): string {
  switch (p.style) {
    case 'empty':
      return `${p.path} is cleared (no active session)`;
    case 'bare':
      return `${p.path} holds the bare id ${p.id}`;
    case 'copy':
      return `${p.path} holds a full copy of session ${p.id ?? '(no id)'}`;
    default:
      return p.id === null ? `${p.path} has ${p.style}: null (cleared)` : `${p.path} has ${p.style}: ${p.id}`;
  }
}
