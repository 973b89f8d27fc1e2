/**
 * The recording verbs of the manager (phases, files, errors, tokens, decisions,
 * findings, notes, milestones, artifacts, context): each one decides its events from the state
 * and commits them through the core's one write path. SessionManager adds the sub-objects.
 */
import * as decide from '../domain/decide.js';
import * as records from '../domain/decide-records.js';
import type { MeasuredFile, PhaseActionOptions } from '../domain/decide.js';
import { BatonError } from '../domain/errors.js';
import { hint } from '../domain/hints.js';
import type { FileAction } from '../domain/state.js';
import { PHASE_ACTIONS } from '../domain/transitions.js';
import type { PhaseAction } from '../domain/transitions.js';
import type { Checkpoints } from './checkpoints/checkpoints.js';
import { type Runs, startedIn } from './runs/runs.js';
import { SessionCore } from './session-core.js';
import type { ChangeOptions, ChangeResult } from './types.js';

/** The manager's recording verbs over {@link SessionCore}'s write path. */
export abstract class SessionRecords extends SessionCore {
  /** Runs decide which phase a record that names none goes to. */
  abstract readonly runs: Runs;
  /** Completing a phase may take an automatic checkpoint. */
  abstract readonly checkpoints: Checkpoints;

  // ---- phases and records ---------------------------------------------------------------

  /** start | complete | fail | skip | retry a phase; any other action is BAD_INPUT naming these. */
  async phase(
    id: string,
    ref: string,
    action: PhaseAction,
    o: PhaseActionOptions & ChangeOptions = {},
  ): Promise<ChangeResult<undefined>> {
    // A JavaScript caller is not held to the type: refuse a word of another surface by name.
    if (!PHASE_ACTIONS.includes(action))
      throw new BatonError('BAD_INPUT', `Unknown phase action "${String(action)}".`, {
        hint: `Use one of: ${PHASE_ACTIONS.join(', ')}.`,
        details: { action, allowed: [...PHASE_ACTIONS] },
      });
    const agent = o.agent ?? this.agent;
    const r = await this.simple(id, (s) => startedIn(decide.decidePhase(s, ref, action, { ...o, agent }), o.run), o);
    // The automatic checkpoint's event is part of the result, so the revision returned is current.
    const cp = action === 'complete' ? await this.checkpoints.afterPhase(r, o) : null;
    return cp ? { ...r, state: cp.state, events: [...r.events, ...cp.events] } : r;
  }

  /** Records reaching a sub-step of an in-progress phase. */
  substep(id: string, ref: string, name: string, o: ChangeOptions = {}): Promise<ChangeResult<undefined>> {
    return this.simple(id, (s) => decide.decideSubstep(s, ref, name), o);
  }

  /** Records files, hashing each one now (sha256 and size; null for a deleted file). */
  files(
    id: string,
    action: FileAction,
    paths: string[],
    phase: string | null,
    o: ChangeOptions = {},
  ): Promise<ChangeResult<undefined>> {
    const measured = paths.map(
      (p): MeasuredFile =>
        action === 'deleted' || !this.measure ? { path: p, sha256: null, size: null } : this.measure(p),
    );
    const agent = o.agent ?? this.agent;
    return this.simple(
      id,
      (s) => decide.decideFiles(s, action, measured, phase ?? this.runs.phaseOfRun(s, o.run, agent), agent),
      o,
    );
  }

  /** Records an error; the result is its id. */
  error(id: string, input: decide.ErrorInput, o: ChangeOptions = {}): Promise<ChangeResult<string>> {
    const agent = input.agent ?? o.agent ?? this.agent;
    return this.change(
      id,
      (s) => {
        const r = decide.decideError(s, { ...input, agent });
        return { events: r.events, result: r.errorId };
      },
      o,
    );
  }

  /** Resolves an error. */
  resolveError(
    id: string,
    errorId: string,
    resolution: string,
    o: ChangeOptions = {},
  ): Promise<ChangeResult<undefined>> {
    return this.simple(id, (s) => decide.decideResolve(s, errorId, resolution), o);
  }

  /** Records token use. */
  tokens(
    id: string,
    input: Omit<decide.TokensInput, 'agent'> & { agent?: string | null },
    o: ChangeOptions = {},
  ): Promise<ChangeResult<undefined>> {
    const agent = input.agent ?? o.agent ?? this.agent;
    if (!agent)
      throw new BatonError('BAD_INPUT', 'Token use must name the agent.', { hint: hint('tokens.name-agent') });
    return this.simple(id, (s) => decide.decideTokens(s, { ...input, agent }), o);
  }

  /** Records a decision; the result is its id. */
  decision(id: string, input: records.DecisionInput, o: ChangeOptions = {}): Promise<ChangeResult<string>> {
    const agent = input.agent ?? o.agent ?? this.agent;
    return this.withId(id, (s) => records.decideDecision(s, { ...input, agent }), o);
  }

  /** Adds a finding; the result is its id. */
  finding(
    id: string,
    input: { text: string; severity?: string | null; phase?: string | null },
    o: ChangeOptions = {},
  ): Promise<ChangeResult<string>> {
    const agent = o.agent ?? this.agent;
    return this.withId(id, (s) => records.decideFinding(s, { ...input, agent }), o);
  }

  /** Removes a finding. */
  removeFinding(id: string, findingId: string, o: ChangeOptions = {}): Promise<ChangeResult<undefined>> {
    return this.simple(id, (s) => records.decideFindingRemove(s, findingId), o);
  }

  /** Adds a note; the result is its id. */
  note(
    id: string,
    input: { text: string; phase?: string | null },
    o: ChangeOptions = {},
  ): Promise<ChangeResult<string>> {
    const agent = o.agent ?? this.agent;
    return this.withId(id, (s) => records.decideNote(s, { ...input, agent }), o);
  }

  /** Adds a milestone; the result is its id. */
  milestone(
    id: string,
    input: { title: string; targetDate?: string | null },
    o: ChangeOptions = {},
  ): Promise<ChangeResult<string>> {
    return this.withId(id, (s) => records.decideMilestone(s, input), o);
  }

  /** Marks a milestone done. */
  milestoneDone(id: string, ref: string, o: ChangeOptions = {}): Promise<ChangeResult<undefined>> {
    return this.simple(id, (s) => records.decideMilestoneDone(s, ref), o);
  }

  /** Records an artifact; the result is its id. */
  artifact(
    id: string,
    input: { path: string; kind?: string | null; description?: string | null; phase?: string | null },
    o: ChangeOptions = {},
  ): Promise<ChangeResult<string>> {
    const agent = o.agent ?? this.agent;
    return this.withId(id, (s) => records.decideArtifact(s, { ...input, agent }), o);
  }

  /** Replaces the context summary. */
  context(id: string, summary: string, o: ChangeOptions = {}): Promise<ChangeResult<undefined>> {
    return this.simple(id, (s) => records.decideContext(s, summary), o);
  }
}
