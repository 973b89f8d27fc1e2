/**
 * How a plan born in baton maps onto bmit's eight fixed steps (docs/formats/bmit.md
 * "Export"): a phase is a step only by identity (its id is the step key, "3.5" for "3_5", or
 * its id or name is the step's name, "IaC Plan" ~ "iac-plan"). A phase that is none of them is
 * never written as a step of its own (bmit's agents are bound to their step numbers: an
 * unknown step is one no agent resumes) nor placed on a step by position. When no phase is a
 * bmit step there is nothing bmit could resume: the export is refused.
 */
import { BatonError } from '../../domain/errors.js';
import type { Phase, SessionState } from '../../domain/state.js';
import type { FormatProblem } from '../types.js';
import { problem } from '../util.js';
import { STEP_NAMES, STEP_ORDER } from './steps.js';

const norm = (s: string) => s.toLowerCase().replace(/[^a-z0-9]+/g, '');

/** The bmit step key a baton phase is, or null. */
export function bmitStepOf(p: Phase): string | null {
  const k = p.id.trim().replace('.', '_');
  if ((STEP_ORDER as readonly string[]).includes(k)) return k;
  return (
    STEP_ORDER.find((s) => norm(STEP_NAMES[s] ?? '') === norm(p.id) || norm(STEP_NAMES[s] ?? '') === norm(p.name)) ??
    null
  );
}

/** The phases of a session born in baton by bmit step key, and what the export says of the rest. */
export function bornSteps(
  s: SessionState,
  id: string,
  rel: string,
): { byKey: Map<string, Phase>; problems: FormatProblem[] } {
  const byKey = new Map<string, Phase>();
  const unmapped: Phase[] = [];
  for (const p of s.phases) {
    const k = bmitStepOf(p);
    if (k === null || byKey.has(k)) unmapped.push(p);
    else byKey.set(k, p);
  }
  const steps = STEP_ORDER.map((k) => STEP_NAMES[k]).join(', ');
  if (byKey.size === 0 && s.phases.length > 0)
    throw new BatonError(
      'BAD_INPUT',
      `bmit runs eight fixed steps (${steps}); none of the phases of ${s.id} (${s.phases.map((p) => p.id).join(', ')}) is one of them, so bmit could resume none of it. Nothing was written.`,
      {
        hint: "Name the phases after bmit's steps (e.g. --phases requirements,architecture,design), or export to maestro, bmad or ccw, whose phases are free.",
        details: { phases: s.phases.map((p) => p.id) },
      },
    );
  const problems: FormatProblem[] = [];
  if (unmapped.length > 0)
    problems.push(
      problem(
        'NOT_REPRESENTED',
        'warning',
        `bmit runs eight fixed steps (${steps}); the phase(s) ${unmapped.map((p) => `${p.id} (${p.status.replace('_', ' ')})`).join(', ')} are none of them and were not written.`,
        { sessionId: id, path: rel, details: { phases: unmapped.map((p) => p.id) } },
      ),
    );
  const errors = s.phases.reduce((n, p) => n + p.errors.length, 0);
  const tokens = s.tokens.input + s.tokens.output + s.tokens.cached;
  if (errors > 0 || tokens > 0)
    problems.push(
      problem(
        'NOT_REPRESENTED',
        'info',
        `bmit's state file keeps no errors and no token counts: ${errors} error(s) and ${tokens} token(s) of the session are not in it.`,
        { sessionId: id, path: rel, details: { errors, tokens } },
      ),
    );
  return { byKey, problems };
}
