/**
 * A foreign toolkit's resume rules, as data. An imported session records them (session
 * metadata `toolkitRules`, written by import from what the format's reader found), and the
 * resume plan follows them without knowing which toolkit wrote them: no format name is
 * branched on here or in plan-resume.ts. Each field says what the toolkit's own document
 * requires; the reader that fills it cites the document.
 */
import type { SessionState } from '../state.js';

/** Session metadata key of the recorded rules. */
export const TOOLKIT_RULES_KEY = 'toolkitRules';

/** A step the toolkit requires before the session may be archived (review, reconciliation). */
export interface RequiredStep {
  /** The phase that does it, when it is one of the session's phases; null when it is not a phase (e.g. a code review the toolkit runs between the last phase and archiving). */
  phaseId: string | null;
  /** What must be done, e.g. "code review", "reconcile phase 3". */
  name: string;
  /** The toolkit's rule, quoted or paraphrased, with its source. */
  reason: string;
  /**
   * True when the step is the phase `phaseId` itself (CCW's review phase): completing that phase
   * does the step, so it never holds up that phase's own completion, and once the phase is
   * completed or skipped it holds up nothing. Absent: the step is done apart from the phase
   * (Maestro's reconciliation of a phase holds up completing it).
   */
  isPhase?: boolean;
}

/** An agent the toolkit marked running in a context that is gone: reported, never restarted silently. */
export interface OrphanedAgent {
  agent: string;
  /** The toolkit's id of the agent run, when it has one. */
  id: string | null;
  startedAt: string | null;
  phaseId: string | null;
  /** Why it counts as orphaned (the context's status). */
  reason: string;
}

/** The recovery the toolkit recommends. */
export interface ToolkitRecommendation {
  kind: 'checkpoint' | 'live' | 'fresh';
  /** The foreign checkpoint it names (for 'checkpoint'), when known. */
  checkpoint: string | null;
  /** 'toolkit': the toolkit's own file says so; 'default': its documented default. */
  by: 'toolkit' | 'default';
  reason: string;
  /**
   * The git state restoring it goes to, when the toolkit recorded one (Go Team: check out
   * `branch`, `git reset --hard resetTo`; `uncommittedChanges`: the toolkit saw uncommitted work
   * that the reset would discard); absent or null when none.
   */
  git?: { branch: string | null; resetTo: string | null; uncommittedChanges: boolean | null } | null;
}

/** Token counts as a toolkit writes them (input, output, cached). */
export interface WrittenCounts {
  input: number;
  output: number;
  cached: number;
}

/** How the toolkit counts a session's tokens, where it differs from baton (toolkit-tokens.ts). */
export interface ToolkitTokenRules {
  /**
   * The totals the toolkit's file writes when they disagree with its per-agent breakdown
   * (`written`), and what baton's ledger held at import (`ledger`: the larger of the two, per
   * count): the written totals are kept, moved by what baton recorded since.
   */
  totals?: { written: WrittenCounts; ledger: WrittenCounts };
  /** Tokens recorded against a phase (a spawned agent) are that agent's own, not the session's (BMAD's isolation). */
  isolatedAgents?: boolean;
  /** Budget thresholds are strictly above 80 % and 95 % (BMAD), not at them. */
  strictThresholds?: boolean;
  /** Tokens the toolkit's file says isolation saved, at import (BMAD `tokens.saved`). */
  saved?: number;
}

/** The rules of the toolkit a session was imported from, as they apply to that session. */
export interface ToolkitRules {
  /** Name of the toolkit, for people ("Go Team", "Maestro"…). */
  toolkit: string;
  /** Set when the toolkit never resumes the session (completed, failed, not resumable…): the reason, quoting its rule. */
  refuse: string | null;
  /** True when the toolkit escalates a unit that used all its retries before anything else. */
  escalateFirst: boolean;
  /**
   * True when the toolkit presents every unresolved error and waits for the user's decision
   * before proceeding (retries included): the plan's first steps are those decisions. Absent
   * in rules recorded before it existed (false).
   */
  waitOnErrors?: boolean;
  /** Steps the toolkit requires before archiving that have not been done. */
  required: RequiredStep[];
  /** Agents marked running in a closed or abandoned context. */
  orphanedAgents: OrphanedAgent[];
  /** The recovery the toolkit recommends, when it has a rule for it. */
  recommended: ToolkitRecommendation | null;
  /** Choices the toolkit offers at this point (e.g. proceed anyway / hand off to the orchestrator). */
  choices: string[];
  /** Other facts of the toolkit's rules a person resuming should know, in words. */
  notes: string[];
  /**
   * Events the toolkit logs when the session is resumed (bmit: "log recovery event" after a
   * fresh start from the template), in words: applying a resume records each once, as a note
   * in the session's journal. Absent or empty when none.
   */
  recoveryEvents?: string[];
  /**
   * Where the toolkit continues inside a phase in flight when it tracks finer units than
   * baton's sub-steps (CCW: the `.task/` task in progress, `impl-2.1`): the plan resumes the
   * phase there instead of restarting it. Absent or null when the toolkit has none.
   */
  resumeAt?: { phaseId: string; at: string; reason: string } | null;
  /** How the toolkit counts tokens, when it differs from baton; absent: as baton does. */
  tokens?: ToolkitTokenRules;
}

/** What the plan did with the toolkit's rules (`ResumePlan.toolkit`). */
export interface ToolkitResume {
  toolkit: string;
  /** The toolkit's reason for never resuming the session; null when it may be resumed. */
  refused: string | null;
  /** The recovery the toolkit recommends, null when it has no rule for it. */
  recommended: ToolkitRecommendation | null;
  /** True when baton's recommendation is the toolkit's; false when it departs (see `departure`); null when either has none. */
  followed: boolean | null;
  /** Why baton departs from the toolkit's recommendation; null when it does not. */
  departure: string | null;
  escalateFirst: boolean;
  /** True when the toolkit waits for the user's decision on every unresolved error first. */
  waitOnErrors: boolean;
  /** Steps the toolkit requires before archiving, not done yet. */
  required: RequiredStep[];
  orphanedAgents: OrphanedAgent[];
  choices: string[];
  notes: string[];
  /** The session's tokens as its toolkit counts them (its main session and isolated agents, its savings), in words; empty when as baton does. */
  tokens: string[];
}

/** Rules with nothing in them, for a toolkit that states none. */
export function noRules(toolkit: string): ToolkitRules {
  return {
    toolkit,
    refuse: null,
    escalateFirst: false,
    waitOnErrors: false,
    required: [],
    orphanedAgents: [],
    recommended: null,
    choices: [],
    notes: [],
  };
}

/**
 * A required step as recorded, lifted to what import records now. Imports made before
 * {@link RequiredStep.isPhase} existed lack the flag on a step that is its phase itself (CCW's
 * review, recorded as "the review phase" with that phase's id): derived here from the name
 * naming the step's own phase, so completing that phase is not refused until a re-import or
 * `--force`. A flag that is recorded (true or false) is kept.
 */
function liftRequired(r: RequiredStep): RequiredStep {
  if (r.isPhase !== undefined || typeof r.phaseId !== 'string' || typeof r.name !== 'string') return r;
  const own = r.name.trim().toLowerCase() === `the ${r.phaseId.toLowerCase()} phase`;
  return own ? { ...r, isPhase: true } : r;
}

/** The rules recorded on a session at import, or null when it was not imported (or recorded none). */
export function toolkitRulesOf(s: SessionState): ToolkitRules | null {
  const r = s.metadata[TOOLKIT_RULES_KEY] as Partial<ToolkitRules> | undefined;
  if (!r || typeof r !== 'object' || typeof r.toolkit !== 'string') return null;
  return {
    toolkit: r.toolkit,
    refuse: typeof r.refuse === 'string' ? r.refuse : null,
    escalateFirst: r.escalateFirst === true,
    waitOnErrors: r.waitOnErrors === true,
    required: Array.isArray(r.required) ? r.required.map(liftRequired) : [],
    orphanedAgents: Array.isArray(r.orphanedAgents) ? r.orphanedAgents : [],
    recommended: r.recommended && typeof r.recommended === 'object' ? r.recommended : null,
    choices: Array.isArray(r.choices) ? r.choices.map(String) : [],
    notes: Array.isArray(r.notes) ? r.notes.map(String) : [],
    ...(r.resumeAt && typeof r.resumeAt === 'object' && typeof r.resumeAt.phaseId === 'string'
      ? { resumeAt: { phaseId: r.resumeAt.phaseId, at: String(r.resumeAt.at), reason: String(r.resumeAt.reason) } }
      : {}),
    ...(Array.isArray(r.recoveryEvents) && r.recoveryEvents.length
      ? { recoveryEvents: r.recoveryEvents.map(String) }
      : {}),
    ...(r.tokens && typeof r.tokens === 'object' ? { tokens: r.tokens } : {}),
  };
}

/** The toolkit's recovery events (ToolkitRules.recoveryEvents) not yet in the session's notes. */
export function pendingRecoveryEvents(s: SessionState): string[] {
  const events = toolkitRulesOf(s)?.recoveryEvents ?? [];
  return events.filter((e) => !s.notes.some((n) => n.text === e));
}
