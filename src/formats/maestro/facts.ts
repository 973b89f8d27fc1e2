/**
 * Facts of a Maestro session beyond its phases, and Maestro's resume rules as data for import
 * (domain/toolkits/toolkit-rules.ts). Sources: seed 000 (session-management SKILL.md) "Resume Protocol"
 * (unresolved errors: "Offer options: retry, skip, abort, or adjust parameters … Wait for user
 * guidance before proceeding"; "Conflict Detection: Files that were partially modified (phase
 * started but not completed)"), "Retry Tracking" (maximum 2 retries, then escalate),
 * "Archive Protocol" (when to archive); docs/formats/maestro.md (v1.6 JSON frontmatter, `workflow_mode`
 * standard|express, express resume "phase completed but session in_progress → run code review
 * then archive", `RECONCILIATION_PENDING` blocks archiving).
 */
import { noRules } from '../../domain/toolkits/toolkit-rules.js';
import type { ToolkitRules } from '../../domain/toolkits/toolkit-rules.js';
import type { ForeignTokens, FormatProblem, ForeignUnit, HalfWrittenFiles, ResumeAdvice } from '../types.js';
import { problem, str } from '../util.js';
import { reconcileText } from './reconcile.js';

/** What Maestro's escalation offers the user, in its own words (recorded with the toolkit's rules). */
const MAESTRO_ESCALATION_CHOICES = ['retry', 'skip', 'abort', 'adjust'];

/** What {@link maestroFacts} reads. */
export interface FactsInput {
  id: string;
  path: string;
  fm: Record<string, unknown>;
  frontmatterFormat: 'yaml' | 'json';
  units: ForeignUnit[];
  rawStatus: string | null;
  archived: boolean;
  minimal: boolean;
  /** The derived position (unit id), null when none. */
  position: string | null;
  resume: ResumeAdvice;
}

/** The facts and rules of one session. */
export interface MaestroFacts {
  variant: Record<string, string>;
  recordedPosition: { field: string; value: unknown; agrees: boolean } | null;
  halfWritten: HalfWrittenFiles[];
  archive: { allowed: boolean; reasons: string[] } | null;
  rules: ToolkitRules;
  problems: FormatProblem[];
}

const DONE = new Set(['completed', 'skipped']);

/**
 * Totals below their `by_agent` sum (e.g. 40100 written, 44100 summed): baton's ledger holds
 * the breakdown, and the written totals are kept beside it, reported and written back
 * (domain/toolkits/toolkit-tokens.ts). Totals above the sum need nothing: the rest is recorded
 * unattributed, so baton's total is the written one.
 */
export function totalsRule(t: ForeignTokens | null): ToolkitRules['tokens'] | undefined {
  if (!t?.byAgent || t.agrees !== false) return undefined;
  const sum = { input: 0, output: 0, cached: 0 };
  for (const c of Object.values(t.byAgent)) {
    sum.input += c.input;
    sum.output += c.output;
    sum.cached += c.cached;
  }
  const written = { input: t.input, output: t.output, cached: t.cached };
  if (written.input >= sum.input && written.output >= sum.output && written.cached >= sum.cached) return undefined;
  const ledger = {
    input: Math.max(written.input, sum.input),
    output: Math.max(written.output, sum.output),
    cached: Math.max(written.cached, sum.cached),
  };
  return { totals: { written, ledger } };
}

/** The facts of one Maestro session. */
export function maestroFacts(i: FactsInput): MaestroFacts {
  const problems: FormatProblem[] = [];
  const mode = str(i.fm.workflow_mode);
  const variant: Record<string, string> = { frontmatter: i.frontmatterFormat, mode: mode ?? 'standard' };
  if (i.minimal) variant.template = 'minimal';
  const recordedPosition =
    i.fm.current_phase === undefined || i.minimal
      ? null
      : {
          field: 'current_phase',
          value: i.fm.current_phase,
          agrees: str(i.fm.current_phase) === (i.position ?? i.units[i.units.length - 1]?.id ?? null),
        };

  // Every phase in flight or failed: its files may be half-written (seed 000 "Conflict Detection").
  const halfWritten: HalfWrittenFiles[] = [];
  if (!i.archived) {
    for (const u of i.units) {
      if (u.status !== 'in_progress' && u.status !== 'failed') continue;
      const files = u.files.filter((f) => f.action === 'created' || f.action === 'modified').map((f) => f.path);
      if (!files.length) continue;
      halfWritten.push({ unitId: u.id, status: u.status, files });
    }
  }

  // When archiving is allowed (seed 000 "When to Archive"; v1.6 RECONCILIATION_PENDING; express review).
  let archive: MaestroFacts['archive'] = null;
  const required: ToolkitRules['required'] = [];
  for (const u of i.units) {
    if (u.metadata.requires_reconciliation === true)
      required.push({
        phaseId: u.id,
        name: `reconciliation of phase ${u.id}`,
        reason: `phase ${u.id} has requires_reconciliation: true, and Maestro refuses to archive until it is reconciled (RECONCILIATION_PENDING).${reconcileText(u)}`,
      });
  }
  const allDone = i.units.length > 0 && i.units.every((u) => DONE.has(u.status));
  if (mode === 'express' && allDone && i.rawStatus !== 'completed' && !i.archived) {
    required.push({
      phaseId: null,
      name: 'the code review',
      reason:
        'in express mode, a session whose phases are completed but which is still in progress runs a code review, then archives (Maestro v1.6 express resume).',
    });
  }
  if (!i.archived) {
    const reasons: string[] = [];
    const open = i.units.filter((u) => !DONE.has(u.status));
    if (open.length)
      reasons.push(
        `${open.length} phase(s) are not completed (${open.map((u) => `${u.id} ${u.status}`).join(', ')}): Maestro archives when all phases are completed, or when the user asks.`,
      );
    for (const r of required) reasons.push(`${r.name} is required first: ${r.reason}`);
    archive = { allowed: reasons.length === 0, reasons };
    if (reasons.length && allDone) {
      problems.push(
        problem('ARCHIVE_BLOCKED', 'warning', `Session ${i.id} cannot be archived yet: ${reasons.join(' ')}`, {
          sessionId: i.id,
          path: i.path,
          hint: required.map((r) => `Do ${r.name}`).join('; ') || null,
          details: { reasons },
        }),
      );
    }
  }

  const rules = noRules('Maestro');
  if (i.archived)
    rules.refuse = 'the session is archived: Maestro resumes only state/active-session.md (seed 000, Resume Protocol).';
  else if (i.rawStatus === 'completed')
    rules.refuse = 'the session is completed: Maestro archives it, it does not resume it (seed 000, Archive Protocol).';
  rules.escalateFirst = true;
  // Resume Protocol step 6: every unresolved error is presented and the user decides first.
  rules.waitOnErrors = true;
  rules.required = required;
  if (i.resume.action === 'escalate' || i.units.some((u) => u.errors.some((e) => !e.resolved))) {
    rules.choices = [...MAESTRO_ESCALATION_CHOICES];
    rules.notes.push(
      'Maestro presents each unresolved error and waits for the user to choose retry, skip, abort or adjust parameters before proceeding (seed 000, Resume Protocol step 6).',
    );
  }
  for (const h of halfWritten)
    rules.notes.push(`Phase ${h.unitId} (${h.status}) may have half-written files: ${h.files.join(', ')}.`);
  return { variant, recordedPosition, halfWritten, archive, rules, problems };
}
