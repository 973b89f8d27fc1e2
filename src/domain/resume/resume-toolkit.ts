/**
 * The resume plan of an imported session follows the rules of the toolkit it came from,
 * recorded at import as data (toolkit-rules.ts): sessions the toolkit never resumes are not
 * offered, escalations come first where the toolkit says so, required review/reconciliation
 * steps are not skipped, orphaned running agents are reported (never restarted), and the
 * toolkit's recovery recommendation is followed, or the plan says why not. Pure; no format
 * name is branched on.
 */
import { list } from '../phrasing.js';
import { ESCALATION_WORDS } from './resume-plan-types.js';
import type {
  FailedPhase,
  InFlightPhase,
  NextPlan,
  PhaseFiles,
  Recommendation,
  RecoveryPlan,
} from './resume-plan-types.js';
import type { SessionState } from '../state.js';
import type { ToolkitRecommendation, ToolkitResume, ToolkitRules } from '../toolkits/toolkit-rules.js';

/**
 * In-flight phases where the toolkit tracks a finer resume point (ToolkitRules.resumeAt): the
 * phase resumes there, it is not restarted. Changes `inFlight` in place.
 */
export function toolkitInFlight(inFlight: InFlightPhase[], rules: ToolkitRules): void {
  const at = rules.resumeAt;
  const p = at ? inFlight.find((x) => x.phaseId === at.phaseId) : undefined;
  if (!at || !p) return;
  p.subStep = at.at;
  p.subStepAt = null;
  p.resumeAt = 'substep';
}

/** The next steps under the toolkit's rules: escalations first when it says so; required steps before archiving. */
export function toolkitNext(
  next: NextPlan,
  rules: ToolkitRules,
  failed: FailedPhase[],
  s: SessionState,
  resumable: boolean,
): NextPlan {
  if (!resumable) return next;
  const at = rules.resumeAt;
  let out: NextPlan = at
    ? {
        ...next,
        steps: next.steps.map((x) =>
          x.phaseId === at.phaseId && (x.action === 'resume' || x.action === 'restart')
            ? { ...x, action: 'resume' as const, subStep: at.at, reason: at.reason }
            : x,
        ),
      }
    : next;
  // An orphaned agent's phase is reported, never restarted silently: it leaves the steps.
  const orphaned = new Set(rules.orphanedAgents.map((a) => a.phaseId).filter((x): x is string => x !== null));
  const kept = out.steps.filter((x) => !(orphaned.has(x.phaseId) && (x.action === 'resume' || x.action === 'restart')));
  if (kept.length !== out.steps.length) {
    const names = rules.orphanedAgents.map((a) => `${a.agent}${a.id ? ` (${a.id})` : ''}`);
    out = {
      steps: kept,
      reason: `${list(names)} ${names.length === 1 ? 'is' : 'are'} orphaned (marked running in a context that is gone): check ${names.length === 1 ? 'its' : 'their'} output and record ${names.length === 1 ? 'it' : 'them'} done or failed; ${rules.toolkit} does not restart ${names.length === 1 ? 'it' : 'them'}.${kept.length ? ` Then: ${out.reason}` : ''}`,
    };
  }
  const escalate = failed.filter((p) => p.escalation);
  if (rules.escalateFirst && escalate.length && !next.steps.every((x) => x.action === 'escalate')) {
    out = {
      steps: [
        ...escalate.map((p) => ({
          phaseId: p.phaseId,
          name: p.name,
          action: 'escalate' as const,
          subStep: null,
          reason: `failed after ${p.retryCount} of ${p.maxRetries} retries: ${rules.toolkit} escalates before anything else; the user decides: ${ESCALATION_WORDS}`,
        })),
        ...next.steps.filter((x) => !escalate.some((p) => p.phaseId === x.phaseId)),
      ],
      reason: `${rules.toolkit} escalates a phase that used all its retries before continuing: ${list(escalate.map((p) => p.phaseId))} need${escalate.length === 1 ? 's' : ''} a decision first. ${next.reason}`,
    };
  }
  out = decideFirst(out, rules, s);
  // Recorded at import as not done yet: the toolkit's own later state comes back by re-import.
  const open = rules.required;
  if (open.length && out.steps.length === 0) {
    out = {
      steps: open
        .filter((r) => r.phaseId !== null && s.phases.some((p) => p.id === r.phaseId))
        .map((r) => ({
          phaseId: r.phaseId!,
          name: s.phases.find((p) => p.id === r.phaseId)!.name,
          action: 'review' as const,
          subStep: null,
          reason: r.reason,
        })),
      reason: `${rules.toolkit} requires ${list(open.map((r) => r.name))} before the session may be archived: do ${open.length === 1 ? 'it' : 'them'} before marking it completed.`,
    };
  }
  return out;
}

/**
 * A toolkit that waits for the user on every unresolved error (Maestro's resume protocol:
 * "present each error … wait for user guidance before proceeding") has the user decide on each
 * one before any phase is restarted, retried or started. The errors are read from the
 * session as it is now, so an error resolved in baton no longer holds the plan up. An
 * escalated phase's errors are left to its escalation.
 */
function decideFirst(next: NextPlan, rules: ToolkitRules, s: SessionState): NextPlan {
  if (!rules.waitOnErrors) return next;
  const escalated = new Set(next.steps.filter((x) => x.action === 'escalate').map((x) => x.phaseId));
  const open = s.phases
    .filter((p) => (p.status === 'failed' || p.status === 'in_progress') && !escalated.has(p.id))
    .flatMap((p) => p.errors.filter((e) => !e.resolved).map((e) => ({ p, e })));
  if (open.length === 0) return next;
  const choices = rules.choices.length ? rules.choices.join(', ') : 'how to proceed';
  const decide = open.map(({ p, e }) => ({
    phaseId: p.id,
    name: p.name,
    action: 'decide' as const,
    errorId: e.id,
    subStep: null,
    reason: `unresolved ${e.type} error${e.agent ? ` from ${e.agent}` : ''}: ${e.message}; ${rules.toolkit} waits for the user to choose ${choices} before proceeding`,
  }));
  const firstOther = next.steps.findIndex((x) => x.action !== 'escalate');
  const at = firstOther < 0 ? next.steps.length : firstOther;
  const n = open.length;
  return {
    steps: [...next.steps.slice(0, at), ...decide, ...next.steps.slice(at)],
    reason: `${rules.toolkit} waits for the user's decision on ${n === 1 ? 'the unresolved error' : `each of ${n} unresolved errors`} (${list(open.map((x) => x.e.id))}) before proceeding. ${next.reason}`,
  };
}

/** The toolkit's warnings, first: a refusal, orphaned agents, required steps. */
export function toolkitWarnings(rules: ToolkitRules): string[] {
  const w: string[] = [];
  if (rules.refuse) w.push(`${rules.toolkit} does not resume this session: ${rules.refuse}`);
  for (const a of rules.orphanedAgents) {
    w.push(
      `Agent ${a.agent}${a.id ? ` (${a.id})` : ''} is marked running but ${a.reason}: it is orphaned. It is not restarted; check its output, then record it as done or failed.`,
    );
  }
  for (const r of rules.required) w.push(`Before archiving, ${rules.toolkit} requires ${r.name}: ${r.reason}`);
  return w;
}

/**
 * The recommendation under the toolkit's rules: its own when it names an option the plan has
 * (a checkpoint that can be restored), else baton's, with why. Files of completed phases that
 * are not as recorded keep a checkpoint recommendation (Go Team's "safe" restore is never
 * replaced by the live state): its reason says how its git reset puts them back, or that it
 * names no commit.
 */
export function toolkitRecommendation(
  rules: ToolkitRules,
  recovery: RecoveryPlan,
  touchedDone: PhaseFiles[],
  s: SessionState,
): { recommended: Recommendation | null; followed: boolean | null; departure: string | null } {
  const mine = recovery.recommended;
  const theirs = rules.recommended;
  if (!mine || !theirs) return { recommended: mine, followed: null, departure: null };
  // The toolkit's advice is how to recover from the stop it recorded: once the session was
  // resumed in baton (its checkpoint restored, or the session made active again), it is done.
  const done = theirs.checkpoint !== null && (s.restores ?? []).some((r) => r.checkpointId === theirs.checkpoint);
  if (done || s.status === 'active') return { recommended: mine, followed: null, departure: null };
  const option = recovery.options.find((o) => o.kind === theirs.kind && o.available);
  const said = `${rules.toolkit} recommends ${theirs.kind}${theirs.checkpoint ? ` ${theirs.checkpoint}` : ''} (${theirs.reason})`;
  if (!option || option.from === null) {
    return {
      recommended: mine,
      followed: mine.kind === theirs.kind,
      departure: `${said}, but that option is not available here; baton recommends ${mine.kind}.`,
    };
  }
  // Files of completed phases not as recorded do not turn the toolkit's safe checkpoint restore
  // into the live state: its restore resets git to the checkpoint's commit, which puts them back.
  const files = theirs.kind === 'checkpoint' && touchedDone.length ? filesNote(theirs, touchedDone) : '';
  if (theirs.checkpoint && option.checkpoint && option.checkpoint.id !== theirs.checkpoint) {
    return {
      recommended: {
        kind: option.kind,
        from: option.from,
        reason: `${said}; that checkpoint cannot be restored, so the last valid one, ${option.checkpoint.id}, is recommended.${files}`,
      },
      followed: false,
      departure: `${theirs.checkpoint} cannot be restored; baton offers ${option.checkpoint.id}.`,
    };
  }
  return {
    recommended: {
      kind: option.kind,
      from: option.from,
      reason: `${said}.${option.loses.summary ? ` Restoring loses ${option.loses.summary}.` : ''}${gitText(theirs)}${files}`,
    },
    followed: true,
    departure: null,
  };
}

/** The git reset the toolkit's restore does, in words ('' when it recorded none). */
export function gitText(r: ToolkitRecommendation): string {
  const g = r.git;
  if (!g?.resetTo) return '';
  const dirty = g.uncommittedChanges
    ? ' The toolkit recorded uncommitted changes: the reset discards them, commit or stash them first.'
    : '';
  return ` Its restore checks out ${g.branch ?? 'the session branch'} and resets it to ${g.resetTo} (git reset --hard).${dirty}`;
}

/** Why files of completed phases that are not as recorded do not change the toolkit's checkpoint recommendation. */
function filesNote(r: ToolkitRecommendation, touchedDone: PhaseFiles[]): string {
  const where = `${touchedDone.length === 1 ? 'phase' : 'phases'} ${list(touchedDone.map((g) => g.phaseId ?? '-'))}`;
  return r.git?.resetTo
    ? ` Files of completed ${where} are not in the work tree as recorded: restore with the git reset (--git), which puts back the files of ${r.git.resetTo}.`
    : ` Files of completed ${where} are not in the work tree as recorded, and the checkpoint names no commit: restoring puts back the record, not the files; check them first.`;
}

/** The `toolkit` part of the plan. */
export function toolkitResume(
  rules: ToolkitRules,
  rec: { followed: boolean | null; departure: string | null },
  tokens: string[] = [],
): ToolkitResume {
  return {
    toolkit: rules.toolkit,
    refused: rules.refuse,
    recommended: rules.recommended,
    followed: rules.refuse ? null : rec.followed,
    departure: rules.refuse ? null : rec.departure,
    escalateFirst: rules.escalateFirst,
    waitOnErrors: rules.waitOnErrors === true,
    required: rules.required,
    orphanedAgents: rules.orphanedAgents,
    choices: rules.choices,
    notes: rules.notes,
    tokens,
  };
}
