/**
 * The design document and implementation plan a session names (`design_document`,
 * `implementation_plan`). The seed writes them relative to the project (`.gemini/plans/x.md`),
 * v1.6 relative to the state dir (`plans/x.md`); archiving moves them to `plans/archive/`.
 * A path that climbs out, is absolute or goes through a link leading outside is reported and
 * never followed.
 */
import type { ReadResult, SafeDir } from '../safe-dir.js';
import type { FormatProblem } from '../types.js';
import { problem, str } from '../util.js';

/** The state-dir names Maestro has used as defaults (seed, then v1.4+). */
export const DEFAULT_STATE_DIRS = ['.gemini', 'docs/maestro'] as const;

/** The plan fields of a session and the artifact kind baton records them as. */
export const PLAN_FIELDS = [
  ['design_document', 'design'],
  ['implementation_plan', 'implementation-plan'],
] as const;

interface PlanCtx {
  sessionId: string;
  path: string;
  /** State dir relative to the inspected root; '' when the root is the state dir. */
  stateDir: string;
  archived: boolean;
  express: boolean;
}

/** Joins relative paths ('' is the root). */
export function join(a: string, b: string): string {
  return a === '' ? b : `${a}/${b}`;
}

/** The relative places a plan path may mean, most literal first. */
export function candidates(p: string, stateDir: string): string[] {
  const out = [p, join(stateDir, p)];
  for (const d of DEFAULT_STATE_DIRS) if (p.startsWith(`${d}/`)) out.push(join(stateDir, p.slice(d.length + 1)));
  return [...new Set(out)];
}

/** A plan file of a session as read: it travels with the session (docs/formats/maestro.md "On-disk layout": plans/). */
export interface PlanFile {
  field: string;
  /** Relative to the inspected root. */
  path: string;
  read: ReadResult & { kind: 'ok' };
}

/** Checks the plan paths of one session; returns the problems found and the plan files read. */
export async function checkPlans(
  dir: SafeDir,
  fm: Record<string, unknown>,
  ctx: PlanCtx,
): Promise<FormatProblem[] & { files?: PlanFile[] }> {
  const problems: FormatProblem[] & { files?: PlanFile[] } = [];
  const files: PlanFile[] = [];
  problems.files = files;
  for (const [field] of PLAN_FIELDS) {
    const raw = fm[field];
    if (raw === undefined || raw === null) continue;
    const p = str(raw);
    if (p === null || p.trim() === '') {
      problems.push(
        problem('BAD_VALUE', 'warning', `Session ${ctx.sessionId}: ${field} is not a path.`, {
          sessionId: ctx.sessionId,
          path: ctx.path,
          details: { field, value: raw },
        }),
      );
      continue;
    }
    const norm = p.replace(/\\/g, '/');
    let unsafe: FormatProblem | null = null;
    let found: string | null = null;
    for (const c of candidates(norm, ctx.stateDir)) {
      const chk = await dir.check(c);
      if (!chk.ok) {
        unsafe = chk.problem;
        break; // never look further along a path that leads out
      }
      if (await dir.exists(chk.rel)) {
        found = chk.rel;
        break;
      }
    }
    if (unsafe) {
      problems.push({
        ...unsafe,
        sessionId: ctx.sessionId,
        path: unsafe.path,
        details: { field, value: p, file: ctx.path },
      });
      continue;
    }
    const base = norm.split('/').pop()!;
    const archivedAt = join(ctx.stateDir, `plans/archive/${base}`);
    const inArchive = (await dir.check(archivedAt)).ok && (await dir.exists(archivedAt));
    // The plan's text, from where the toolkit would read it now (the archive for an archived session).
    const from = ctx.archived && inArchive ? archivedAt : found;
    if (from) {
      const r = await dir.read(from);
      if (r.kind === 'ok') files.push({ field, path: from, read: r });
    }
    if (ctx.archived) {
      if (found && !found.includes('/archive/')) {
        // Seed 000 "Archive Verification": plan files are no longer in plans/. Before advising
        // removal of a leftover, say whether it is byte-identical to the archived copy.
        const identical = inArchive ? await sameBytes(dir, found, archivedAt) : null;
        const hint =
          identical === true
            ? `${found} is byte-identical to ${archivedAt}: delete the leftover (archiving moves the plan).`
            : identical === false
              ? `${found} differs from ${archivedAt}: compare them and keep the right one in plans/archive/ before deleting the leftover.`
              : `Move ${found} to plans/archive/ (archiving moves the design and plan there).`;
        problems.push(
          problem(
            'ARCHIVE_COPIED',
            'warning',
            `Session ${ctx.sessionId} is archived but its ${field} ${found} is still in plans/${inArchive ? ` (and also in plans/archive/: copied, not moved; ${identical ? 'byte-identical' : 'the copies differ'})` : ''}.`,
            {
              sessionId: ctx.sessionId,
              path: found,
              hint,
              details: { field, kind: 'plan', archivedCopy: inArchive ? archivedAt : null, identical },
            },
          ),
        );
      } else if (!found && !inArchive) {
        problems.push(
          problem(
            'MISSING_PLAN',
            'warning',
            `Session ${ctx.sessionId}: its ${field} ${p} is neither in plans/ nor in plans/archive/.`,
            { sessionId: ctx.sessionId, path: ctx.path, details: { field, value: p } },
          ),
        );
      }
    } else if (!found) {
      problems.push(
        problem(
          'MISSING_PLAN',
          'warning',
          `Session ${ctx.sessionId}: its ${field} ${p} does not exist${inArchive ? ' (it is in plans/archive/, as if the session had been archived)' : ''}.`,
          {
            sessionId: ctx.sessionId,
            path: ctx.path,
            hint: 'Restore the plan file or correct the path; resuming re-reads the implementation plan.',
            details: { field, value: p, archivedCopy: inArchive ? archivedAt : null },
          },
        ),
      );
    }
  }
  return problems;
}

/** True when both files read and hold the same bytes; false when they differ; null when either cannot be read. */
export async function sameBytes(dir: SafeDir, a: string, b: string): Promise<boolean | null> {
  const [x, y] = [await dir.read(a), await dir.read(b)];
  if (x.kind !== 'ok' || y.kind !== 'ok') return null;
  return Buffer.from(x.bytes).equals(Buffer.from(y.bytes));
}
