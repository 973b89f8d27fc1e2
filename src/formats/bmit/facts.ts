/**
 * Facts of a bmit project beyond its steps, and bmit's rules as data for import
 * (domain/toolkits/toolkit-rules.ts). Sources: seed 002 (session-resume SKILL.md) "Resume Flow"
 * (in_progress → read sub_step, skip to checkpoint), "Corrupt State Recovery" (parse failure
 * ⇒ restore `.bak`), "Schema Version Enforcement"; docs/formats/bmit.md "Recovery / resume rules"
 * (direct invocation: an earlier step pending or in_progress ⇒ warn, offer proceed anyway or
 * hand off to the orchestrator; orchestrator falls back to the handoff, then an artifact scan),
 * "Schema (v3.0)" (`complexity` default "standard"; sub-step checkpoint tables).
 */
import { noRules } from '../../domain/toolkits/toolkit-rules.js';
import type { ToolkitRules } from '../../domain/toolkits/toolkit-rules.js';
import type { ReadResult, SafeDir } from '../safe-dir.js';
import type { FormatProblem, ForeignUnit } from '../types.js';
import { num, obj, problem, str } from '../util.js';
import { STEP_ORDER, SUB_STEPS, stepLabel, stepRank } from './steps.js';

/** The choices bmit's direct-invocation rule offers. */
export const DIRECT_INVOCATION_CHOICES = ['proceed anyway', 'hand off to the orchestrator'];

const spelling = (s: string): string => s.replace(/\./g, '_');

/** The sub-step checkpoint after `current` in the step's table (the first one when `current` is null); null at the end or for a step without a table. */
export function nextSubStep(stepId: string, current: string | null): string | null {
  const table = SUB_STEPS[stepId];
  if (!table) return null;
  if (current === null) return table[0] ?? null;
  const i = table.findIndex((x) => spelling(x) === spelling(current));
  if (i < 0) return null;
  // Two spellings of one checkpoint (phase_3.5_strategy / phase_3_5_strategy) are one step.
  return table.slice(i + 1).find((x) => spelling(x) !== spelling(current)) ?? null;
}

/** The recorded `current_step` beside the real position; AHEAD_OF_POSITION when a later step's agent was invoked while an earlier step is in progress. */
export function currentStepFacts(
  doc: Record<string, unknown>,
  units: ForeignUnit[],
  id: string,
  file: string,
  problems: FormatProblem[],
): { recorded: { field: string; value: unknown; agrees: boolean } | null; choices: string[] } {
  if (doc.current_step === undefined || doc.current_step === null) return { recorded: null, choices: [] };
  const key = String(num(doc.current_step, -1));
  const inFlight = units.filter((u) => u.status === 'in_progress');
  const real =
    inFlight[0] ?? units.find((u) => u.status === 'pending' || u.status === 'failed' || u.status === 'blocked') ?? null;
  const agrees =
    real === null ? true : real.id === key || (key === String(parseInt(real.id, 10)) && real.id.includes('_'));
  const behind = inFlight.filter(
    (u) => stepRank(u.id) < stepRank(key) && (STEP_ORDER as readonly string[]).includes(key),
  );
  if (behind.length === 0) return { recorded: { field: 'current_step', value: doc.current_step, agrees }, choices: [] };
  problems.push(
    problem(
      'AHEAD_OF_POSITION',
      'warning',
      `current_step is ${key} but ${behind.map((u) => stepLabel(u.id, u.name)).join(', ')} ${behind.length === 1 ? 'is' : 'are'} still in progress: a later step's agent was invoked while an earlier step is in progress.`,
      {
        sessionId: id,
        path: file,
        hint: `bmit's direct-invocation rule: warn, then ${DIRECT_INVOCATION_CHOICES.join(' or ')} to finish ${behind.map((u) => `step ${u.id}`).join(', ')} first.`,
        details: {
          field: 'current_step',
          value: doc.current_step,
          inProgress: behind.map((u) => u.id),
          choices: DIRECT_INVOCATION_CHOICES,
        },
      },
    ),
  );
  return {
    recorded: { field: 'current_step', value: doc.current_step, agrees: false },
    choices: [...DIRECT_INVOCATION_CHOICES],
  };
}

/** When the damaged state file's readable part shows a newer `updated` than the backup read instead, progress since the backup may be lost. */
export function progressSinceBackup(
  state: ReadResult,
  backupDoc: Record<string, unknown> | null,
  backupPath: string | null,
  id: string,
  problems: FormatProblem[],
): void {
  if (state.kind !== 'ok' || !backupDoc || !backupPath) return;
  const seen = /"updated"\s*:\s*"([^"]+)"/.exec(state.text)?.[1] ?? null;
  const bak = str(backupDoc.updated);
  if (seen === null || Number.isNaN(Date.parse(seen))) return;
  if (bak !== null && !(Date.parse(seen) > Date.parse(bak))) return;
  problems.push(
    problem(
      'PROGRESS_MAY_BE_LOST',
      'warning',
      `${state.path} is damaged, but its readable part says updated ${seen}, newer than ${backupPath} (${bak ?? 'no updated time'}): restoring the backup loses the progress made since.`,
      {
        sessionId: id,
        path: state.path,
        hint: `Before restoring ${backupPath}, recover what you can from the readable part of ${state.path} (steps, sub_step, artifacts).`,
        details: { damagedUpdated: seen, backupUpdated: bak, backup: backupPath },
      },
    ),
  );
}

/** Fields bmit's rules default when absent (reported, with the value assumed). */
export function defaultedFields(
  doc: Record<string, unknown> | null,
  missingSteps: string[],
  id: string,
  file: string,
  problems: FormatProblem[],
): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  if (!doc) return out;
  if (doc.schema_version === undefined || doc.schema_version === null) out.schema_version = '3.0';
  const dec = doc.decisions;
  if (
    dec === undefined ||
    dec === null ||
    obj(dec).complexity === undefined ||
    obj(dec).complexity === null ||
    obj(dec).complexity === ''
  ) {
    out['decisions.complexity'] = 'standard';
    problems.push(
      problem('MISSING_FIELD', 'info', `decisions.complexity is missing; bmit reads it as "standard".`, {
        sessionId: id,
        path: file,
        details: { field: 'decisions.complexity', assumed: 'standard' },
      }),
    );
  }
  for (const k of missingSteps) out[`steps.${k}`] = 'pending';
  for (const [k, v] of Object.entries(obj(doc.steps))) {
    const s = obj(v);
    if (s.status === undefined || s.status === null) out[`steps.${k}.status`] = 'pending';
  }
  return out;
}

/** Step outputs (`0N-*.md` in the project folder) whose step the state does not record as started: OUTPUT_WITHOUT_STATE. */
export async function outputsWithoutState(
  dir: SafeDir,
  projectRel: string,
  units: ForeignUnit[],
  id: string,
  problems: FormatProblem[],
): Promise<string[]> {
  const found: string[] = [];
  for (const e of await dir.list(projectRel)) {
    const m = /^0([1-7])-.+\.md$/.exec(e.name);
    if (!m || e.kind !== 'file') continue;
    const u = units.find((x) => x.id === m[1]);
    const listed = units.some((x) => x.files.some((f) => f.path.endsWith(e.name)));
    if (u && u.status === 'pending' && !listed) {
      found.push(e.path);
      problems.push(
        problem(
          'OUTPUT_WITHOUT_STATE',
          'warning',
          `${e.path} exists, but ${stepLabel(u.id, u.name)} is pending in the state file: the output was written without the state recording it.`,
          {
            sessionId: id,
            path: e.path,
            hint: `Check the output; if the step really ran, mark ${stepLabel(u.id)} in_progress or complete (bmit's orchestrator would find it by an artifact scan).`,
            details: { step: u.id, file: e.path },
          },
        ),
      );
    }
  }
  return found;
}

/** bmit's rules for one project. */
export function bmitRules(choices: string[], notes: string[], recovery: string | null = null): ToolkitRules {
  const r = noRules('bmit');
  r.choices = choices;
  r.notes = notes;
  if (recovery) {
    r.recoveryEvents = [recovery];
    r.notes.push(`On resume, bmit logs a recovery event ("Corrupt State Recovery"): ${recovery}`);
  }
  return r;
}

/**
 * The recovery event bmit logs when the state file is unusable and no backup parses: "create
 * fresh state from template, mark all steps pending, log recovery event" (seed 002, "Corrupt
 * State Recovery"). The seed names no file for it (schema 3.0 has no event log), so it goes to
 * baton's journal only.
 */
export function recoveryEvent(why: string | null): string {
  return `bmit recovery event: ${why ? `${why} ` : ''}No backup (.bak) could be restored, so the state was created fresh from the template (schema 3.0, every step pending); the artifacts on disk were kept.`;
}
