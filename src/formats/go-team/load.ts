/**
 * What reading one Go Team tree shares: the reading context (folder, layout, clock, tree-wide
 * problems) and the lenient JSON loader every file of a session goes through.
 */
import type { ReadResult, SafeDir } from '../safe-dir.js';
import type { FormatProblem } from '../types.js';
import { parseDocument, str } from '../util.js';
import type { Layout } from './layout.js';

/** Milliseconds since the epoch of an ISO time string, null when absent or unparseable. */
export function time(v: unknown): number | null {
  const s = str(v);
  if (s === null) return null;
  const t = Date.parse(s);
  return Number.isNaN(t) ? null : t;
}

/** State shared while reading one tree. */
export class Ctx {
  readonly problems: FormatProblem[] = [];
  constructor(
    readonly dir: SafeDir,
    readonly layout: Layout,
    readonly now: Date,
  ) {}
}

/** One file as read, with its parsed JSON object (null when missing, unsafe or unparseable). */
export interface Loaded {
  read: ReadResult;
  doc: Record<string, unknown> | null;
}

/** Reads and parses one JSON file of a session; damage goes to `problems`. */
export async function load(
  ctx: Ctx,
  rel: string,
  sessionId: string | null,
  problems: FormatProblem[],
  o: { missing?: FormatProblem | null; quiet?: boolean } = {},
): Promise<Loaded> {
  const read = await ctx.dir.read(rel);
  if (read.kind === 'missing') {
    if (o.missing) problems.push(o.missing);
    return { read, doc: null };
  }
  if (read.kind !== 'ok') {
    problems.push({ ...read.problem, sessionId });
    return { read, doc: null };
  }
  const p = parseDocument(read, { sessionId });
  if (!p.ok) {
    if (!o.quiet)
      problems.push({
        ...p.problem,
        hint:
          p.problem.hint ??
          'Go Team keeps no backup of this file: restore it from git, or let baton rewrite it with export.',
      });
    return { read, doc: null };
  }
  return { read, doc: p.value };
}
