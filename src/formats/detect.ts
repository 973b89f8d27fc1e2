/**
 * `--format auto`: every adapter says how sure it is that a folder holds its layout, and the
 * surest one wins, but only clearly: nothing at or above {@link DETECT_THRESHOLD}, or two
 * adapters equally sure, is not guessed at.
 */
import { BatonError } from '../domain/errors.js';
import type { SafeDir } from './safe-dir.js';
import { FORMAT_NAMES } from './types.js';
import type { FormatAdapter, FormatName, FormatProblem } from './types.js';

/** Lowest detection score that counts as "this is my layout". */
export const DETECT_THRESHOLD = 0.5;

/** One adapter's answer. */
export interface DetectScore {
  format: FormatName;
  score: number;
}

/** Outcome of {@link detect}. */
export type Detection =
  | { kind: 'found'; adapter: FormatAdapter; scores: DetectScore[] }
  | { kind: 'none' | 'tie'; scores: DetectScore[]; problem: FormatProblem };

/** Asks every adapter; an adapter that throws or answers nonsense counts as 0. Scores sorted surest first. */
export async function scores(dir: SafeDir, adapters: readonly FormatAdapter[]): Promise<DetectScore[]> {
  const out: DetectScore[] = [];
  for (const a of adapters) {
    let score = 0;
    try {
      const s = await a.detect(dir);
      score = typeof s === 'number' && Number.isFinite(s) ? Math.min(1, Math.max(0, s)) : 0;
    } catch {
      score = 0;
    }
    out.push({ format: a.name, score });
  }
  return out.sort((x, y) => y.score - x.score || FORMAT_NAMES.indexOf(x.format) - FORMAT_NAMES.indexOf(y.format));
}

function listed(s: DetectScore[]): string {
  return s.length ? s.map((x) => `${x.format} ${x.score.toFixed(2)}`).join(', ') : 'no adapter is available';
}

/** Picks the adapter for `dir`: the surest at or above the threshold, if no other is as sure. */
export async function detect(dir: SafeDir, adapters: readonly FormatAdapter[]): Promise<Detection> {
  const s = await scores(dir, adapters);
  const best = s[0];
  const hint = `Name the layout with --format (one of: ${adapters.map((a) => a.name).join(', ') || FORMAT_NAMES.join(', ')}).`;
  if (!best || best.score < DETECT_THRESHOLD) {
    return {
      kind: 'none',
      scores: s,
      problem: {
        code: 'UNKNOWN_FORMAT',
        severity: 'error',
        sessionId: null,
        path: null,
        message: `Nothing in ${dir.root} looks like a known session layout (scores: ${listed(s)}; at least ${DETECT_THRESHOLD} is needed).`,
        hint,
        details: { scores: s },
      },
    };
  }
  const tied = s.filter((x) => x.score === best.score);
  if (tied.length > 1) {
    return {
      kind: 'tie',
      scores: s,
      problem: {
        code: 'UNKNOWN_FORMAT',
        severity: 'error',
        sessionId: null,
        path: null,
        message: `${dir.root} looks equally like ${tied.map((x) => x.format).join(' and ')} (scores: ${listed(s)}).`,
        hint,
        details: { scores: s },
      },
    };
  }
  return { kind: 'found', adapter: adapters.find((a) => a.name === best.format)!, scores: s };
}

/** Options of {@link namedAdapter}. */
export interface NamedAdapterOptions {
  /**
   * Whether the command accepts `auto` (detection): true (the default) for inspect and
   * import, which read; false for export and mirror, which write and so need a named layout.
   * Only changes the wording of the refusal, so it never suggests what the command refuses.
   */
  allowAuto?: boolean;
}

/** The adapter named `name` among `adapters`; `BAD_INPUT` for an unknown or unavailable layout. */
export function namedAdapter(
  name: string,
  adapters: readonly FormatAdapter[],
  o: NamedAdapterOptions = {},
): FormatAdapter {
  const a = adapters.find((x) => x.name === name);
  if (a) return a;
  const allowAuto = o.allowAuto ?? true;
  const known = (FORMAT_NAMES as readonly string[]).includes(name);
  const names = adapters.map((x) => x.name).join(', ') || '(none available)';
  const details = { format: name, available: adapters.map((x) => x.name) };
  if (name === 'auto' && !allowAuto) {
    throw new BatonError(
      'BAD_INPUT',
      'This command writes a layout, so it needs the layout named: "auto" (detection) only applies to inspect and import.',
      {
        hint: `Use --format with one of: ${names}.`,
        details,
      },
    );
  }
  throw new BatonError(
    'BAD_INPUT',
    known
      ? `The ${name} layout is not available in this build of baton.`
      : `Unknown session layout ${JSON.stringify(name)}.`,
    {
      hint: `Use --format with one of: ${names}${known || !allowAuto ? '' : ', or auto'}.`,
      details,
    },
  );
}

/** `BAD_INPUT` for a detection that found no clear winner (import, export: nothing to guess at). */
export function detectionError(d: Detection & { kind: 'none' | 'tie' }): BatonError {
  return new BatonError('BAD_INPUT', d.problem.message, {
    hint: d.problem.hint ?? undefined,
    details: { scores: d.scores },
  });
}
