/**
 * Where to resume a Go Team session, by the rules of its session-manager (seed 001):
 * `completed` and `failed` sessions are refused, a session marked `resumable: false` too;
 * otherwise three recovery options — [1] the last valid checkpoint (safe, recommended,
 * continue at the step after it), [2] the live auto-save `state.json` (experimental, about
 * 30 s lost, marks `recovery_type: "experimental"`), [3] a fresh start at step 1 — with the
 * recommendation of `recovery.json` (top-level `recommended` string or a per-option
 * `recommended` boolean; both exist in the wild).
 */
import type { ForeignUnit, RecoveryOption, ResumeAdvice } from '../types.js';
import type { SessionStatus } from '../../domain/state.js';
import { arr, num, obj, str } from '../util.js';
import { AUTO_SAVE_SECONDS, REVIEW_MAX_ITERATIONS, STEPS, TOTAL_STEPS } from './steps.js';

/** A checkpoint as the resume rules need it. */
export interface UsableCheckpoint {
  id: string;
  step: number;
  subStep: string | null;
  iteration: boolean;
  createdAt: string | null;
  /** Git state the checkpoint records (`git{branch, commit_hash}`), null when none. */
  git?: { branch: string | null; commit: string | null } | null;
  /** Its checksum matches no canonical form (checksum.ts). */
  unverified?: boolean;
}

/** A damaged checkpoint whose file still names its git commit: it can be rebuilt from it (`*cp-rebuild:N`). */
export interface RebuildableCheckpoint {
  id: string;
  step: number;
  commit: string;
  branch: string | null;
  problem: string;
  /** Where the commit comes from: the checkpoint's own `git.commit_hash`, or recovery.json `git_state.last_commit`. */
  commitFrom?: 'checkpoint' | 'recovery';
}

export interface ResumeInput {
  status: SessionStatus;
  rawStatus: string | null;
  resumable: boolean | null;
  /** Active with a fresh heartbeat: it is running now. */
  running: boolean;
  units: ForeignUnit[];
  /** Step the live state / manifest / registry says the session is at. */
  currentStep: number | null;
  /** Usable checkpoints (valid, not invalidated), oldest first. */
  usable: UsableCheckpoint[];
  /** Ids of checkpoints that exist but are not usable, with why. */
  unusable: Map<string, string>;
  live: Record<string, unknown> | null;
  recovery: Record<string, unknown> | null;
  /** Damaged checkpoints whose commit is known. */
  rebuildable?: RebuildableCheckpoint[];
  /** The registry's `git_branch` of the session. */
  branch?: string | null;
  /** Why `state.json` is older than the files written after it (a rollback…), null when it is not (session-status.ts `staleLive`). */
  liveStale?: string | null;
}

/** recovery.json `git_state.uncommitted_changes` as a yes/no (a count or a list of files also says yes). */
function uncommitted(v: unknown): boolean | null {
  if (typeof v === 'boolean') return v;
  if (typeof v === 'number') return v > 0;
  if (Array.isArray(v)) return v.length > 0;
  return null;
}

function uncommittedList(v: unknown): string {
  return Array.isArray(v) && v.length ? ` (${v.map(String).join(', ')})` : typeof v === 'number' ? ` (${v} files)` : '';
}

const KIND_OF: Record<string, RecoveryOption['kind']> = {
  checkpoint: 'checkpoint',
  live_state: 'live',
  live: 'live',
  'auto-save': 'live',
  autosave: 'live',
  fresh_start: 'fresh',
  fresh: 'fresh',
};

function kindOf(v: unknown): RecoveryOption['kind'] | null {
  const s = str(v);
  return s === null ? null : (KIND_OF[s.toLowerCase()] ?? null);
}

function stepLabel(n: number | null): string {
  if (n === null) return 'an unknown step';
  const def = STEPS[n - 1];
  return def ? `step ${n} (${def.name})` : `step ${n}`;
}

/** Advice fields shared by every outcome. */
type Base = Pick<
  ResumeAdvice,
  'subStep' | 'retryLimit' | 'retriesUsed' | 'lastCompleted' | 'options' | 'recommended' | 'warnings'
>;

/** Go Team's refusals (seed 001 "3. RESUME SESSION", "2. CHECK FOR RESUMABLE SESSIONS"), or null. */
function refusal(i: ResumeInput, base: Base): ResumeAdvice | null {
  const refuse = (reason: string): ResumeAdvice => ({ ...base, unitId: null, action: 'refuse', reason });
  if (i.status === 'completed')
    return refuse(
      'Session already completed (Go Team refuses to resume a completed session; start a new one with *new).',
    );
  if (i.status === 'failed')
    return refuse(
      'Session failed and cannot be resumed (Go Team never resumes a failed session; start a new one with *new).',
    );
  if (i.status === 'abandoned' || i.resumable === false)
    return refuse(
      `Session is marked not resumable (resumable: false${i.rawStatus ? `, status "${i.rawStatus}"` : ''}; *abandon sets this): Go Team lists only sessions with resumable == true.`,
    );
  return null;
}

/** The checkpoint of option [1]: recovery.json's target when usable, else the latest usable one. */
function pickCheckpoint(
  i: ResumeInput,
  wanted: string | null,
  warnings: string[],
): { cp: UsableCheckpoint | null; named: boolean } {
  const latest = i.usable.length > 0 ? (i.usable[i.usable.length - 1] as UsableCheckpoint) : null;
  if (!wanted) return { cp: latest, named: true };
  const hit = i.usable.find((c) => sameCheckpoint(c.id, wanted));
  if (hit) return { cp: hit, named: true };
  warnings.push(
    `The checkpoint ${wanted} named for recovery cannot be used (it ${i.unusable.get(wanted) ?? 'was not found'}); falling back to ${latest ? latest.id : 'no valid checkpoint (rebuild one from git with *cp-rebuild, or start fresh)'}.`,
  );
  return { cp: latest, named: false };
}

/** A checkpoint id as named (Go Team names them with and without the time suffix). */
function sameCheckpoint(id: string, wanted: string): boolean {
  return id === wanted || id.startsWith(`${wanted}-`) || wanted.startsWith(`${id}-`);
}

/**
 * The recommended option: recovery.json's (top-level string or per-option boolean), else Go
 * Team's documented default, "[1] Resume from checkpoint (RECOMMENDED) … Safe and reliable"
 * (seed 001 "3. RESUME SESSION"); an option that is not available departs from it, said why.
 */
function recommend(
  i: ResumeInput,
  rec: Record<string, unknown>,
  options: RecoveryOption[],
  warnings: string[],
): { chosen: RecoveryOption['kind']; by: 'toolkit' | 'default'; departure: string | null; said: boolean } {
  const recOptions = arr(rec.recovery_options).map(obj);
  const top = kindOf(rec.recommended);
  const perOpt = recOptions.find((o) => o.recommended === true);
  const per = perOpt ? kindOf(perOpt.type) : null;
  if (top && per && top !== per)
    warnings.push(
      `recovery.json recommends "${str(rec.recommended)}" at the top level but marks the ${str(perOpt?.type)} option recommended; the top-level value is used.`,
    );
  const wantedKind = top ?? per ?? null;
  const by: 'toolkit' | 'default' = wantedKind ? 'toolkit' : 'default';
  const chosen = wantedKind ?? 'checkpoint';
  if (options.some((o) => o.kind === chosen)) return { chosen, by, departure: null, said: wantedKind !== null };
  const why =
    chosen === 'checkpoint'
      ? `no valid checkpoint is left${(i.rebuildable ?? []).length ? '; the damaged one can be rebuilt from its commit' : ''}`
      : chosen === 'live'
        ? 'there is no readable state.json'
        : 'it is not available';
  if (by === 'toolkit')
    warnings.push(
      `The recommended recovery (${chosen}) is not available${chosen === 'checkpoint' ? ' (no valid checkpoint)' : ' (no readable state.json)'}.`,
    );
  const instead = options[0]!.kind;
  return {
    chosen: instead,
    by,
    departure: `${by === 'toolkit' ? 'recovery.json recommends' : 'Go Team recommends by default'} ${chosen}, but ${why}; baton recommends ${instead} instead.`,
    said: wantedKind !== null,
  };
}

/** Where the chosen option continues: the step after the checkpoint, the live step, or step 1. */
function positionAfter(
  i: ResumeInput,
  chosen: RecoveryOption['kind'],
  cp: UsableCheckpoint | null,
  next: ForeignUnit | null,
): Pick<ResumeAdvice, 'unitId' | 'action' | 'subStep'> {
  if (chosen === 'checkpoint' && cp)
    return {
      unitId: String(cp.iteration ? cp.step : Math.min(cp.step + 1, TOTAL_STEPS)),
      action: 'continue',
      subStep: cp.iteration ? cp.subStep : null,
    };
  if (chosen === 'rebuild') {
    const r = (i.rebuildable ?? [])[0]!;
    return { unitId: String(Math.min(r.step + 1, TOTAL_STEPS)), action: 'continue', subStep: null };
  }
  if (chosen === 'live') {
    const at = i.currentStep ?? (next ? Number(next.id) : 1);
    return { unitId: String(at), action: 'continue', subStep: i.units[at - 1]?.subStep ?? null };
  }
  return { unitId: '1', action: 'restart', subStep: null };
}

/** The reason of the advice: where the session stopped, recovery.json's last known state, the options. */
function reasonOf(i: ResumeInput, rec: Record<string, unknown>, chosen: string, said: boolean): string {
  const lks = obj(rec.last_known_state);
  const why = str(rec.interrupt_reason);
  const where =
    Object.keys(lks).length > 0
      ? ` Last known state: step ${str(lks.step) ?? '?'}${str(lks.step_name) ? ` (${str(lks.step_name)})` : ''}${str(lks.agent) ? `, agent ${str(lks.agent)}` : ''}${str(lks.action) ? `, action "${str(lks.action)}"` : ''}.`
      : '';
  return `Session ${i.status}${why ? ` (interrupt reason: ${why})` : ''} at ${stepLabel(i.currentStep)}.${where} Go Team offers [1] the last checkpoint (safe), [2] the live auto-save (experimental), [3] a fresh start; ${said ? 'recovery.json recommends' : 'the default is'} ${chosen}.`;
}

/** The advice for one session. */
export function adviseResume(i: ResumeInput): ResumeAdvice {
  const completed = i.units.filter((u) => u.status === 'completed');
  const lastCompleted = completed.length > 0 ? (completed[completed.length - 1] as ForeignUnit).id : null;
  const next = i.units.find((u) => u.status !== 'completed' && u.status !== 'skipped') ?? null;
  const base: Base = {
    subStep: null,
    retryLimit: null,
    retriesUsed: null,
    lastCompleted,
    options: [],
    recommended: null,
    warnings: [],
  };
  const refused = refusal(i, base);
  if (refused) return refused;
  const liveState = obj(i.live?.state);
  const iteration = typeof liveState.iteration_count === 'number' ? num(liveState.iteration_count) : null;
  const maxIter = typeof liveState.max_iterations === 'number' ? num(liveState.max_iterations) : REVIEW_MAX_ITERATIONS;
  const reviewLimits = (unitId: string | null) =>
    unitId === '6' ? { retryLimit: maxIter, retriesUsed: iteration } : { retryLimit: null, retriesUsed: null };
  if (i.running) {
    const unitId = next?.id ?? null;
    return {
      ...base,
      ...reviewLimits(unitId),
      unitId,
      action: 'continue',
      subStep: next?.subStep ?? null,
      reason: `Session is active and its heartbeat is fresh (auto-save every ${AUTO_SAVE_SECONDS} s): it is being worked on at ${stepLabel(i.currentStep)}. Continue it there; do not resume it from a second agent.`,
      warnings: ['The session is running; recovery options apply only once it is interrupted or paused.'],
    };
  }
  const warnings: string[] = [];
  const rec = obj(i.recovery);
  const recOptions = arr(rec.recovery_options).map(obj);
  const recOpt = (k: RecoveryOption['kind']) => recOptions.find((o) => kindOf(o.type) === k) ?? null;
  const wanted = str(recOpt('checkpoint')?.target) ?? str(obj(i.live?.recovery_point).checkpoint);
  const { cp, named } = pickCheckpoint(i, wanted, warnings);
  const options = recoveryOptions(i, cp, rec, recOpt, completed.length);
  const r = recommend(i, rec, options, warnings);
  const departure =
    r.departure ??
    (wanted && cp && r.chosen === 'checkpoint' && !named
      ? `recovery.json names checkpoint ${wanted}, which cannot be used; baton offers ${cp.id}, the last valid one before it.`
      : null);
  for (const o of options) o.recommended = o.kind === r.chosen;
  const at = positionAfter(i, r.chosen, cp, next);
  return {
    ...reviewLimits(at.unitId),
    ...at,
    lastCompleted,
    reason: reasonOf(i, rec, r.chosen, r.said),
    options,
    recommended: r.chosen,
    warnings,
    recommendedBy: r.by,
    departure,
  };
}

/**
 * The recovery options of an interrupted session: [1] the checkpoint, a rebuild of a damaged
 * checkpoint whose commit is known, [2] the live auto-save, [3] a fresh start; each with the
 * git state it goes to and what to check first.
 */
function recoveryOptions(
  i: ResumeInput,
  cp: UsableCheckpoint | null,
  rec: Record<string, unknown>,
  recOpt: (k: RecoveryOption['kind']) => Record<string, unknown> | null,
  completedCount: number,
): RecoveryOption[] {
  const live = i.live;
  const completed = { length: completedCount };
  // Recorded git state (recovery.json `git_state`, docs/formats/go-team.md "Schema"; checkpoint `git`): each
  // option says what it checks out and resets to (seed 001 "Option 1: git checkout {branch}; git
  // reset --hard {commit_hash}", "Option 2: git checkout {session.git_branch}").
  const gs = obj(rec.git_state);
  const dirty = uncommitted(gs.uncommitted_changes);
  const dirtyText = uncommittedList(gs.uncommitted_changes);
  const sessionBranch = str(gs.branch) ?? i.branch ?? null;
  const lossWarning = (what: string): string[] =>
    dirty
      ? [`The session recorded uncommitted changes${dirtyText}; ${what} discards them: commit or stash them first.`]
      : [];
  const options: RecoveryOption[] = [];
  if (cp) {
    const rp = obj(live?.recovery_point);
    const actions =
      typeof rp.actions_since_checkpoint === 'number' && str(rp.checkpoint) === cp.id
        ? rp.actions_since_checkpoint
        : null;
    const recLoss = str(recOpt('checkpoint')?.target) === cp.id ? str(recOpt('checkpoint')?.data_loss) : null;
    const continueAt = cp.iteration
      ? `continue the review loop of step 6 after ${cp.subStep}`
      : cp.step >= TOTAL_STEPS
        ? 'step 9 is done'
        : `continue at ${stepLabel(cp.step + 1)}`;
    const branch = cp.git?.branch ?? sessionBranch;
    const commit = cp.git?.commit ?? null;
    const reset = commit
      ? `check out ${branch ?? 'the session branch'} and reset it to ${commit} (git reset --hard)`
      : 'reset the git branch to its commit (not recorded in the checkpoint)';
    options.push({
      kind: 'checkpoint',
      target: cp.id,
      description: `Resume from checkpoint ${cp.id} (safe): ${reset}, restore its state and outputs, ${continueAt}.`,
      loses: actions !== null ? `${actions} actions since ${cp.id}` : (recLoss ?? `all work done after ${cp.id}`),
      recommended: false,
      git: { branch, resetTo: commit, uncommittedChanges: dirty },
      warnings: [
        ...(cp.unverified
          ? [
              `The checksum of ${cp.id} is unverified (it matches no canonical form): compare it with ${commit ? `commit ${commit}` : 'its git commit'} before relying on it.`,
            ]
          : []),
        ...(commit ? lossWarning('git reset --hard') : []),
      ],
    });
  }
  for (const r of i.rebuildable ?? []) {
    if (cp && cp.step >= r.step) continue;
    const branch = r.branch ?? sessionBranch;
    options.push({
      kind: 'rebuild',
      target: r.id,
      description: `Rebuild checkpoint ${r.id} (it ${r.problem}) from ${r.commitFrom === 'recovery' ? `${r.commit}, the last commit recovery.json records (git_state.last_commit; the file no longer shows its own)` : `its commit ${r.commit}`}${branch ? ` on ${branch}` : ''} (*cp-rebuild:${r.step}), then continue at ${stepLabel(Math.min(r.step + 1, TOTAL_STEPS))}.`,
      loses: `the work done after ${r.id}, and whatever the damaged file held beyond its commit`,
      recommended: false,
      git: { branch, resetTo: r.commit, uncommittedChanges: dirty },
      warnings: lossWarning('resetting to the commit'),
    });
  }
  if (live) {
    options.push({
      kind: 'live',
      target: 'state.json',
      description: `Resume from the last auto-save${str(live.saved_at) ? ` (${str(live.saved_at)})` : ''} (experimental: may be inconsistent with git; the session is marked recovery_type "experimental")${sessionBranch ? `; checks out ${sessionBranch}` : ''}.`,
      loses: str(recOpt('live')?.data_loss) ?? `~${AUTO_SAVE_SECONDS} seconds of work`,
      recommended: false,
      git: { branch: sessionBranch, resetTo: null, uncommittedChanges: dirty },
      warnings: [
        ...(i.liveStale
          ? [
              `${i.liveStale}: resuming from it brings back the work the newer files undid; the checkpoint is the safe choice.`,
            ]
          : []),
        ...(dirty
          ? [
              `The session recorded uncommitted changes${dirtyText}: they stay in the work tree, but git checkout may refuse or carry them across; check them first.`,
            ]
          : []),
      ],
    });
  }
  options.push({
    kind: 'fresh',
    target: null,
    description: 'Start fresh from step 1 (discard all progress).',
    loses: `all progress (${completed.length} completed step${completed.length === 1 ? '' : 's'})`,
    recommended: false,
    git: null,
    warnings: lossWarning('starting over'),
  });

  return options;
}
