/**
 * Go Team's resume rules as data (domain/toolkits/toolkit-rules.ts), for baton's own resume plan after
 * import. Source: seed 001 "3. RESUME SESSION" (completed and failed refused), "2. CHECK FOR
 * RESUMABLE SESSIONS" (only `resumable == true`), and the recovery options with their
 * recommendation (docs/formats/go-team.md "Recovery rules").
 */
import type { SessionStatus } from '../../domain/state.js';
import { noRules } from '../../domain/toolkits/toolkit-rules.js';
import type { ToolkitRules } from '../../domain/toolkits/toolkit-rules.js';
import type { RecoveryOption, ResumeAdvice } from '../types.js';

/** The rules of one Go Team session. */
export function goTeamRules(
  status: SessionStatus,
  rawStatus: string | null,
  resumable: boolean | null,
  advice: ResumeAdvice,
): ToolkitRules {
  const r = noRules('Go Team');
  if (status === 'completed')
    r.refuse =
      'Go Team refuses to resume a completed session ("Session already completed"; seed 001, 3. RESUME SESSION).';
  else if (status === 'failed')
    r.refuse =
      'Go Team never resumes a failed session ("Session failed and cannot be resumed"; seed 001, 3. RESUME SESSION).';
  else if (status === 'abandoned' || resumable === false)
    r.refuse = `Go Team lists only sessions with resumable == true; this one is marked not resumable${rawStatus ? ` (status "${rawStatus}")` : ''} (seed 001, 2. CHECK FOR RESUMABLE SESSIONS).`;
  const chosen = advice.options.find((o) => o.recommended) ?? null;
  if (!r.refuse && chosen && chosen.kind !== 'rebuild') {
    r.recommended = {
      kind: chosen.kind,
      checkpoint: chosen.kind === 'checkpoint' ? chosen.target : null,
      by: advice.recommendedBy === 'toolkit' ? 'toolkit' : 'default',
      reason: `${advice.recommendedBy === 'toolkit' ? `recovery.json recommends ${chosen.kind}` : 'Go Team recommends the last checkpoint by default ("Resume from checkpoint (RECOMMENDED) … Safe and reliable")'}; by Go Team's count it loses ${chosen.loses}`,
      git: chosen.git ?? null,
    };
  }
  // Where each option takes git (seed 001 "Option 1: git checkout {branch}; git reset --hard
  // {commit_hash}"; "Option 2: git checkout {session.git_branch}"), for resume and the handoff.
  if (!r.refuse) for (const o of advice.options) if (o.git?.resetTo || o.git?.branch) r.notes.push(gitNote(o));
  for (const o of advice.options) for (const w of o.warnings ?? []) if (!r.notes.includes(w)) r.notes.push(w);
  if (advice.departure) r.notes.push(advice.departure);
  return r;
}

/** One option's git target, in words. */
function gitNote(o: RecoveryOption): string {
  const what =
    o.kind === 'checkpoint'
      ? `checkpoint ${o.target}`
      : o.kind === 'rebuild'
        ? `rebuild of ${o.target}`
        : 'the live auto-save';
  const g = o.git!;
  return g.resetTo
    ? `Git for ${what}: git checkout ${g.branch ?? '<session branch>'} && git reset --hard ${g.resetTo}.`
    : `Git for ${what}: git checkout ${g.branch} (no reset; the work tree may not match it).`;
}
