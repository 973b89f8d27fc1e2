/**
 * Export: an adapter plans the files that put a baton session in its layout, and this runs
 * the plan inside the output folder: every path is checked first (nothing is written when
 * one is unsafe), then each file is replaced atomically (keeping `<file>.bak` first when the
 * plan asks, bmit's rule), then the planned removals run.
 */
import { BatonError } from '../domain/errors.js';
import { SETTING_KEYS } from '../domain/settings.js';
import type { SessionState } from '../domain/state.js';
import { provenanceOf, PROVENANCE_KEY, stillUntimed, workHash } from './import.js';
import type { SafeDir } from './safe-dir.js';
import type { ExportInput, FormatAdapter, FormatProblem, WritePlan } from './types.js';

/** Session metadata keys baton itself keeps; an exporter gets the state without them. */
export const BATON_METADATA_KEYS = [
  PROVENANCE_KEY,
  SETTING_KEYS.mirror,
  SETTING_KEYS.mirrorError,
  SETTING_KEYS.mirrorWritten,
] as const;

/** What an export did, paths relative to the output folder. */
export interface ExportOutcome {
  written: string[];
  backups: string[];
  removed: string[];
  /** What the adapter had to change to write the session (e.g. an unsafe foreign id replaced). */
  problems: FormatProblem[];
}

/**
 * The input an adapter gets for `state`: `original` = the documents of the import when the
 * session was imported from this same format (else null); `foreignId` = the imported id for
 * that format, else the baton id. baton's own metadata (provenance, mirror) is left out of
 * the state; loose errors stay (they are the session's).
 */
export function exportInput(state: SessionState, format: string, now: Date): ExportInput {
  const prov = provenanceOf(state);
  const same = prov !== null && prov.format === format;
  const metadata = { ...state.metadata };
  for (const k of BATON_METADATA_KEYS) delete metadata[k];
  return {
    state: { ...state, metadata },
    original: same ? (structuredClone(prov.documents) ?? null) : null,
    foreignId: same ? prov.foreignId : state.id,
    now,
    untimed: prov ? stillUntimed(prov, state) : [],
    // Nothing baton did changed the work since the import: fields baton did not change stay as written.
    unchangedSinceImport: same && typeof prov.workHash === 'string' && prov.workHash === workHash(state),
  };
}

/** Checks every path of a plan before anything is written. `BAD_INPUT` names the first bad one. */
async function checkPlan(plan: WritePlan, out: SafeDir, adapter: string): Promise<void> {
  if (!plan || !Array.isArray(plan.writes) || !Array.isArray(plan.removes)) {
    throw new BatonError('INTERNAL', `The ${adapter} exporter returned no valid write plan.`, {
      hint: 'This is a bug in the adapter; please report it.',
    });
  }
  const written = new Set<string>();
  for (const [rel, isWrite] of [
    ...plan.writes.map((w) => [w.path, true] as const),
    ...plan.removes.map((r) => [r, false] as const),
  ]) {
    const c = await out.check(rel);
    if (!c.ok || c.rel === '') {
      throw new BatonError(
        'BAD_INPUT',
        `The ${adapter} export would ${isWrite ? 'write' : 'remove'} ${JSON.stringify(rel)}, outside ${out.root} or through a link leading out of it; nothing was written.`,
        {
          hint: 'Export into a folder without links leading outside it (or a fresh folder).',
          details: { path: rel },
        },
      );
    }
    if (isWrite && written.has(c.rel)) {
      throw new BatonError('INTERNAL', `The ${adapter} export plans ${c.rel} twice.`, {
        hint: 'This is a bug in the adapter; please report it.',
      });
    }
    if (isWrite) written.add(c.rel);
  }
}

/**
 * Runs `adapter.exportPlan` for `input` and applies the plan inside `out`. `guard`, when
 * given, sees the checked plan before anything is written and may refuse it by throwing
 * (the mirror refuses to overwrite a file someone else changed); nothing is written then.
 */
export async function runExport(
  adapter: FormatAdapter,
  input: ExportInput,
  out: SafeDir,
  guard?: (plan: WritePlan, out: SafeDir) => Promise<void>,
): Promise<ExportOutcome> {
  const plan = await adapter.exportPlan(input, out);
  await checkPlan(plan, out, adapter.name);
  if (guard) await guard(plan, out);
  const outcome: ExportOutcome = {
    written: [],
    backups: [],
    removed: [],
    problems: Array.isArray(plan.problems) ? plan.problems : [],
  };
  for (const w of plan.writes) {
    const backup = w.backup === true && (await out.exists(w.path));
    await out.writeAtomic(w.path, w.content, { backup: w.backup === true });
    outcome.written.push(w.path);
    if (backup) outcome.backups.push(`${w.path}.bak`);
  }
  for (const r of plan.removes) {
    if (!(await out.exists(r))) continue;
    await out.remove(r);
    outcome.removed.push(r);
  }
  return outcome;
}
