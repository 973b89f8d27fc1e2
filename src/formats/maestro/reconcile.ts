/**
 * What Maestro v1.6 reconciles (docs/formats/maestro.md): a phase's `planned_files` against
 * the file manifests it recorded (`files_created/modified/deleted`). A phase flagged
 * `requires_reconciliation` names the files to check; a completed phase whose manifests are
 * empty recorded no files at all, so its planned files are unaccounted for (issue 27). Pure.
 */
import type { FormatProblem, ForeignUnit } from '../types.js';
import { problem } from '../util.js';

const norm = (p: string): string => p.replace(/\\/g, '/').replace(/^(\.\/)+/, '');

/** The phase's `planned_files` (strings only, as written). */
export function plannedFiles(u: ForeignUnit): string[] {
  const p = u.metadata.planned_files;
  return Array.isArray(p) ? p.filter((x): x is string => typeof x === 'string' && x.trim() !== '') : [];
}

/** The files to reconcile: the planned ones (else the recorded ones), and the planned ones no manifest records. */
export function filesToReconcile(u: ForeignUnit): { files: string[]; unrecorded: string[] } {
  const planned = plannedFiles(u);
  const recorded = new Set(u.files.map((f) => norm(f.path)));
  if (planned.length === 0) return { files: u.files.map((f) => f.path), unrecorded: [] };
  return { files: planned, unrecorded: planned.filter((f) => !recorded.has(norm(f))) };
}

/** The sentence naming the files to reconcile, for messages and resume warnings ('' when none are known). */
export function reconcileText(u: ForeignUnit): string {
  const { files, unrecorded } = filesToReconcile(u);
  if (files.length === 0) return '';
  const src = plannedFiles(u).length ? 'planned_files' : 'its manifests';
  return ` Files to reconcile (${src}): ${files.join(', ')}${unrecorded.length ? `; not in any manifest: ${unrecorded.join(', ')}` : ''}.`;
}

/** RECONCILIATION_PENDING and EMPTY_MANIFEST problems of the phases of one session. */
export function reconcileProblems(units: ForeignUnit[], sessionId: string, rel: string): FormatProblem[] {
  const out: FormatProblem[] = [];
  for (const u of units) {
    if (u.metadata.requires_reconciliation === true) {
      const { files, unrecorded } = filesToReconcile(u);
      out.push(
        problem(
          'RECONCILIATION_PENDING',
          'warning',
          `Phase ${u.id} of session ${sessionId} has requires_reconciliation: true; Maestro refuses to archive until it is reconciled.${reconcileText(u)}`,
          {
            sessionId,
            path: rel,
            hint: 'Reconcile the phase (reconcile_phase) or clear the flag once its files are checked.',
            details: { phase: u.id, files, unrecorded },
          },
        ),
      );
    }
    if (u.status === 'completed' && u.files.length === 0) {
      const planned = plannedFiles(u);
      out.push(
        problem(
          'EMPTY_MANIFEST',
          planned.length ? 'warning' : 'info',
          `Phase ${u.id} of session ${sessionId} is completed but its file manifests (files_created, files_modified, files_deleted) are empty${planned.length ? `, though it planned ${planned.join(', ')}: what it changed is not recorded` : ''}.`,
          {
            sessionId,
            path: rel,
            hint: planned.length
              ? 'Reconcile the phase: scan its changes (scan_phase_changes) and record them (reconcile_phase), or check the planned files by hand.'
              : null,
            details: { phase: u.id, planned },
          },
        ),
      );
    }
  }
  return out;
}
