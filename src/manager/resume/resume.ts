import fs from 'node:fs';
import { settingsOf } from '../../domain/settings.js';
import { draft } from '../../domain/decide.js';
import { BatonError } from '../../domain/errors.js';
import { hint } from '../../domain/hints.js';
import { fold } from '../../domain/apply.js';
import { renderHandoff } from '../../domain/resume/handoff.js';
import { handoffCost } from '../spend/handoff-cost.js';
import { addResumeCosts } from '../spend/resume-costs.js';
import { assertLeaseFree, decideAcquire, goneText, leaseOf, leaseTokenOf } from '../../domain/runs/lease.js';
import { Leases } from '../runs/leases.js';
import { clearOrphans } from '../runs/orphans.js';
import { Runs } from '../runs/runs.js';
import { runNotes, runsView } from '../../domain/runs/runs.js';
import { conflictNotes } from '../../domain/runs/conversation-runs.js';
import { planResume } from '../../domain/resume/plan-resume.js';
import { decideNote } from '../../domain/decide-records.js';
import { pendingRecoveryEvents } from '../../domain/toolkits/toolkit-rules.js';
import { workEventsOf } from '../../domain/resume/resume-plan-types.js';
import type { ResumePlan, WorkspaceFile } from '../../domain/resume/resume-plan-types.js';
import type { SessionState } from '../../domain/state.js';
import { recordedPaths } from '../checkpoints/checkpoint-lookup.js';
import { readMirrorRecord } from '../toolkits/mirror.js';
import { newFilesOf } from './new-files.js';
import { withResolvedPaths } from '../toolkits/foreign-paths.js';
import type { ManagerCore as SessionManager } from '../types.js';

/** Where {@link buildPlan} may take what it would otherwise read again. */
export interface PlanSources {
  /**
   * The session's events up to at least `state.revision` (later ones are ignored), from a
   * reader that keeps them (the dashboard); default: read from the store.
   */
  events?: (state: SessionState) => Promise<ReadonlyArray<{ seq: number; type: string }>>;
  /** The session's state, when the caller has just read or written it (a claim); default: loaded. */
  state?: SessionState;
}

/**
 * Builds the resume plan of a session from its state, the workspace as it is now (every
 * recorded file hashed again), its checkpoints and its plan file. Changes nothing.
 */
async function buildPlan(
  m: SessionManager,
  id: string,
  o: PlanSources = {},
): Promise<{ plan: ResumePlan; state: SessionState; view: SessionState }> {
  const stored = o.state ?? (await m.get(id));
  const ws = m.workspace;
  // An imported session's files where its toolkit keeps them (foreign-paths.ts).
  const state = ws ? withResolvedPaths(stored, ws.root, fs.existsSync) : stored;
  const workspace: WorkspaceFile[] = ws ? recordedPaths(state).map((p) => ws.hashFile(p)) : [];
  // The journal is read only when the plan needs it: for checkpoint options (the events each
  // would set aside), and for the fresh option when the state's history cannot count its
  // work events. A state that records no checkpoint asks for its checkpoint rows alone first.
  const total = (state.checkpoints ?? []).length ? null : workEventsOf(state);
  const journal = (): Promise<ReadonlyArray<{ seq: number; type: string }>> => (o.events ? o.events(state) : m.log(id));
  let [checkpoints, read] = await Promise.all([m.checkpoints.listOf(state), total === null ? journal() : null]);
  if (!read && checkpoints.length) read = await journal();
  const events = read?.filter((e) => e.seq <= state.revision).map((e) => ({ seq: e.seq, type: e.type }));
  const newFiles = ws ? newFilesOf(ws, state, await readMirrorRecord(m, id, state)) : [];
  const liveness = new Runs(m).liveness(state);
  const input = {
    state,
    now: m.time(),
    workspace,
    newFiles,
    checkpoints,
    planChanged: planChanged(m, state),
    ...(events ? { events } : { workEventsTotal: total! }),
    ...(liveness.dead ? { dead: liveness.dead } : {}),
  };
  let plan = planResume(input);
  // Where git holds recorded files is asked only when some must be put back.
  if (plan.outsideEdits && ws) {
    const gitCopies = await m.checkpoints.gitCopies(id);
    if (gitCopies.length) plan = planResume({ ...input, gitCopies });
  }
  addResumeCosts(m, plan);
  // Who works on what now, and what dead runs left (their phase, step, last files).
  if (state.runs?.length) {
    plan.runs = runsView(state, liveness);
    plan.warnings.push(...runNotes(state, liveness), ...conflictNotes(state));
  }
  // The plan is pure; whether the lease's holder still runs is a question for this machine.
  const lease = leaseOf(state);
  const gone = new Leases(m).holderGone(lease, state);
  if (gone && lease) {
    const held = `held by ${lease.owner} (pid ${lease.pid} on ${lease.host})`;
    plan.warnings = [
      `The session's lease is ${held}, but its holder is gone (${goneText(gone)}): resuming or claiming it takes it over at once, without waiting for the lease to expire at ${lease.expiresAt}.`,
      ...plan.warnings.filter((w) => !w.includes(held)),
    ];
  }
  return { plan, state: stored, view: state };
}

/** Whether the plan file the session started from changed since; null when unknown. */
function planChanged(m: SessionManager, s: SessionState): boolean | null {
  const rec = settingsOf(s).planFile;
  if (!rec || !m.workspace) return null;
  return m.workspace.hashFile(rec.path).sha256 !== rec.sha256;
}

/** Options of {@link applyOption}. */
export interface ApplyOptions {
  /** `checkpoint:<id>`, `live` or `fresh`; default: the plan's recommendation. */
  from?: string | null;
  /** With a checkpoint: also reset the git work tree to its commit. */
  git?: boolean;
  /** Reset a dirty work tree; take a lease another run still holds. */
  force?: boolean;
  /** End the command of a dead `baton run` still running here first (else LOCKED naming it). */
  endOrphans?: boolean;
  agent?: string | null;
}

/** What {@link applyOption} did. */
export interface AppliedResume {
  /** The plan the option was chosen from (computed before anything changed). */
  plan: ResumePlan;
  /** The option applied: `live`, `fresh` or `checkpoint:<id>`. */
  from: string;
  state: SessionState;
  /** False when the session was already active and nothing was written (`live` on an active session). */
  changed: boolean;
}

/**
 * Applies a recovery option and makes the session the active one. The session's lease is
 * taken over and released in the same append: the fencing token goes up, so a writer of the
 * crashed run that is still alive is refused (`FENCED`), and no lease is left to expire
 * behind this command. Use `baton run` to hold a lease while working.
 *
 * On a session that is already active, `live` (what the plan recommends for it) writes
 * nothing (but the toolkit's recovery events not logged yet) and returns `changed: false`,
 * so following the plan twice never fails; a live
 * lease of another run is `LOCKED` unless `force` (which takes it over); restoring a
 * checkpoint or starting fresh is refused (`INVALID_TRANSITION`): someone may be working in it.
 */
async function applyOption(m: SessionManager, id: string, o: ApplyOptions = {}): Promise<AppliedResume> {
  // No takeover while an orphaned command of a dead run still works in this tree.
  await clearOrphans(await m.get(id), m.origin, { endOrphans: o.endOrphans === true });
  // A run that died on this machine is not waited for: its lease ends now, and the session
  // reads as interrupted (holder-gone), so it is taken over below like any interrupted one.
  await new Leases(m).endGoneHolder(id, o.agent ?? null);
  // Runs found dead on this host are written down, so the session reads as its live runs say.
  await new Runs(m).sweep(id);
  const { plan } = await buildPlan(m, id);
  if (!plan.resumable) {
    throw new BatonError('INVALID_TRANSITION', `Session ${id} cannot be resumed: ${plan.warnings[0] ?? plan.status}.`, {
      hint: hint('session.start-new'),
      details: { sessionId: id, status: plan.status },
    });
  }
  const { pid, host } = m.origin;
  const taker = (): Parameters<typeof decideAcquire>[1] => ({
    owner: o.agent ?? 'resume',
    pid,
    host,
    ttlMs: 1000,
    now: m.time(),
  });
  const from = o.from ?? plan.recovery.recommended?.from ?? 'live';
  if (plan.status === 'active') {
    if (from !== 'live') {
      throw new BatonError('INVALID_TRANSITION', `Session ${id} is already active.`, {
        hint: hint('run.hold-lease'),
        details: { sessionId: id },
      });
    }
    const current = await m.get(id);
    // A live lease of another run is LOCKED, unless forced: then it is taken over below.
    assertLeaseFree(current, taker(), o.force === true);
    if (!leaseOf(current)) {
      // Following the plan is resuming by the toolkit's rules: its recovery events are logged.
      const logged = await logRecoveryEvents(m, id, o.agent ?? null, current);
      return { plan, from, state: logged, changed: logged.revision !== current.revision };
    }
  }
  // Refuse a lease held by a live run before changing anything: a LOCKED resume must not
  // leave the session restored or reopened behind it.
  assertLeaseFree(await m.get(id), taker(), o.force === true);
  if (from.startsWith('checkpoint:')) {
    await m.checkpoints.restore(id, from.slice('checkpoint:'.length), {
      git: o.git === true,
      force: o.force === true,
      agent: o.agent ?? null,
    });
  } else if (from === 'fresh') {
    // Back to the state `session.created` made: the work is undone, the journal keeps it all.
    const [created] = await m.log(id, 0);
    const initial = created ? fold(null, [created], id) : null;
    if (!initial)
      throw new BatonError('CORRUPT', `Session ${id} has no session.created event to start again from.`, {
        hint: 'Start a new session.',
      });
    await m.change(
      id,
      (s) => ({
        events: [
          draft('checkpoint.restored', {
            checkpointId: 'fresh',
            name: 'fresh start',
            revision: initial.revision,
            state: initial,
            supersedes: (s.checkpoints ?? []).map((c) => c.id),
            git: null,
          }),
        ],
        result: undefined,
      }),
      { agent: o.agent ?? null },
    );
  } else if (from !== 'live') {
    throw new BatonError('BAD_INPUT', `Unknown recovery option ${JSON.stringify(from)}.`, {
      hint: hint('resume.from-options'),
    });
  }
  // A paused, interrupted or failed session is reopened first (a lease cannot be taken on a
  // failed one). One that still says active had a lease expire: the takeover writes that
  // down (it becomes interrupted), and it is reopened after.
  if ((await m.get(id)).status !== 'active') await m.resume(id, o.agent ?? null);
  await m.change(
    id,
    (s) => {
      const acquire = decideAcquire(s, taker(), o.force === true);
      const token = leaseTokenOf(s) + 1;
      return { events: [...acquire, draft('lease.released', { token })], result: undefined };
    },
    { agent: o.agent ?? null },
  );
  let state = await m.get(id);
  if (state.status !== 'active') state = await m.resume(id, o.agent ?? null);
  state = await logRecoveryEvents(m, id, o.agent ?? null, state);
  return { plan, from, state, changed: true };
}

/**
 * Records, once, the recovery events the session's toolkit logs on resume (bmit's after a
 * fresh start from the template; toolkit-rules.ts `recoveryEvents`) as notes in its journal.
 */
async function logRecoveryEvents(
  m: SessionManager,
  id: string,
  agent: string | null,
  state: SessionState,
): Promise<SessionState> {
  const pending = pendingRecoveryEvents(state);
  if (pending.length === 0) return state;
  // One append each (note ids are numbered from the state), each checked again under the append.
  for (const text of pending)
    await m.change(
      id,
      (s) => ({
        events: pendingRecoveryEvents(s).includes(text) ? decideNote(s, { text, agent }).events : [],
        result: undefined,
      }),
      { agent },
    );
  return m.get(id);
}

/**
 * The handoff briefing of a session (Markdown, built from its resume plan), with the plan and
 * state it was built from: what `baton handoff` prints and the MCP `handoff` tool returns.
 */
async function briefing(
  m: SessionManager,
  id: string,
  o: PlanSources = {},
): Promise<{ markdown: string; plan: ResumePlan; state: SessionState }> {
  const { plan, state, view } = await buildPlan(m, id, o);
  return { markdown: renderHandoff({ state: view, plan, now: m.time(), cost: handoffCost(m, state) }), plan, state };
}

/**
 * Recovering a session after an interruption (`manager.recovery`): its resume plan, the
 * handoff briefing built from it, and applying one of its options. Each method's contract is
 * the function it names.
 */
export class Recovery {
  constructor(private readonly m: SessionManager) {}

  /** See {@link buildPlan}. */
  plan(id: string, o: PlanSources = {}): Promise<{ plan: ResumePlan; state: SessionState }> {
    return buildPlan(this.m, id, o);
  }

  /** See {@link briefing}. */
  handoff(id: string, o: PlanSources = {}): Promise<{ markdown: string; plan: ResumePlan; state: SessionState }> {
    return briefing(this.m, id, o);
  }

  /** See {@link applyOption}. */
  apply(id: string, o: ApplyOptions = {}): Promise<AppliedResume> {
    return applyOption(this.m, id, o);
  }
}
