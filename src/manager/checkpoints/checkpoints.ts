import { settingsOf } from '../../domain/settings.js';
import { assertWritable, draft, text } from '../../domain/decide.js';
import { BatonError, isBatonError } from '../../domain/errors.js';
import { hint } from '../../domain/hints.js';
import type { StoredEvent } from '../../domain/events.js';
import { slugify, validateId } from '../../domain/ids.js';
import type { GitCopy } from '../../domain/resume/resume-plan-types.js';
import type { SessionState } from '../../domain/state.js';
import { compareCheckpointIds } from '../../store/types.js';
import type { Checkpoint, CheckpointFile, CheckpointRead } from '../../store/types.js';
import type { ChangeOptions, ChangeResult, ManagerCore as SessionManager } from '../types.js';
import { checkpointRef, gitCopiesOf, resetToCheckpoint } from './checkpoint-git.js';
import type { Workspace } from '../workspace.js';
import {
  MISSING_FILE,
  byIdOrPrefix,
  corrupt,
  infoOf,
  nextNumber,
  previousValid,
  recordedPaths,
  revisionConflict,
} from './checkpoint-lookup.js';
import type { CheckpointInfo } from './checkpoint-lookup.js';

export { checkpointRef } from './checkpoint-git.js';

/** Longest checkpoint name accepted. */
export const MAX_CHECKPOINT_NAME = 200;

/** A file of a checkpoint compared with the workspace now. */
export interface FileDrift extends CheckpointFile {
  now: { sha256: string | null; size: number | null };
  status: 'unchanged' | 'changed' | 'missing' | 'appeared';
}

/** Result of {@link Checkpoints.show}. */
export interface CheckpointDetail {
  info: CheckpointInfo;
  /** null when the checkpoint is damaged. */
  checkpoint: Checkpoint | null;
  /** The previous valid checkpoint, offered when this one is damaged. */
  fallback: CheckpointInfo | null;
  /** Its files compared with the workspace now (null without a workspace or checkpoint). */
  drift: FileDrift[] | null;
}

/** Result of {@link Checkpoints.create}. */
export interface CreateResult {
  info: CheckpointInfo;
  checkpoint: Checkpoint;
  /** Session state after the `checkpoint.created` event. */
  state: SessionState;
  /** The `checkpoint.created` event as stored. */
  events: StoredEvent[];
}

/** Options of {@link Checkpoints.restore}. */
export interface RestoreOptions extends ChangeOptions {
  /** Also reset the git work tree to the checkpoint's commit. */
  git?: boolean;
  /** With `git`: discard uncommitted changes instead of refusing. */
  force?: boolean;
}

/** Result of {@link Checkpoints.restore}. */
export interface RestoreResult {
  state: SessionState;
  checkpoint: CheckpointInfo;
  /** Checkpoints marked superseded by this restore. */
  superseded: string[];
  /**
   * The reset done with `git`: the commit HEAD is now at, the HEAD left behind, and the
   * snapshot whose tree the work tree now holds (a checkpoint taken on a dirty tree), else null.
   */
  git: { commit: string; previousHead: string | null; snapshot: string | null; saved?: string | null } | null;
}

/** What the checkpoint service needs from the manager that built it. */
export interface CheckpointDeps {
  now: () => Date;
  /** Where recorded files are hashed and git is asked; null: no git info, files unmeasured. */
  workspace: Workspace | null;
  /** Take a checkpoint whenever a phase completes (sessions may still opt out). */
  auto: boolean;
  onWarning: (message: string) => void;
}

/**
 * Checkpoints of sessions: take (by hand or when a phase completes), list, show, validate,
 * restore. A checkpoint is stored whole by the store (checksummed); the journal records
 * `checkpoint.created` and, on restore, `checkpoint.restored` carrying the checkpoint's state,
 * so history is never rewritten and the state stays a pure fold of the journal.
 */
export class Checkpoints {
  constructor(
    private readonly m: SessionManager,
    private readonly deps: CheckpointDeps,
  ) {}

  /** Every checkpoint of a session in creation order, damaged ones included. */
  async list(sessionId: string): Promise<CheckpointInfo[]> {
    return this.listOf(await this.m.get(sessionId));
  }

  /** {@link list} for a state the caller already read (no second load of the session). */
  async listOf(state: SessionState): Promise<CheckpointInfo[]> {
    return this.merge(state, await this.m.store.listCheckpoints(state.id));
  }

  /**
   * Takes a checkpoint of the session as it is now: its state, git branch/HEAD/dirty flag,
   * and the sha256 of every file it recorded, measured now. Records `checkpoint.created`.
   */
  async create(sessionId: string, input: { name?: string | null } = {}, o: ChangeOptions = {}): Promise<CreateResult> {
    const state = await this.m.get(sessionId);
    if (o.expectedRevision !== undefined && o.expectedRevision !== state.revision)
      throw revisionConflict(sessionId, o.expectedRevision, state.revision);
    return this.take(state, { name: input.name ?? null, trigger: 'manual', phaseId: null }, o);
  }

  /**
   * Commits of this repository that hold files as checkpoints measured them (a dirty tree's
   * copy, or HEAD of a clean one), newest first: where the resume plan tells how to put a file
   * back as recorded (checkpoint-git.ts). Empty outside git.
   */
  async gitCopies(sessionId: string): Promise<GitCopy[]> {
    return this.deps.workspace ? gitCopiesOf(this.deps.workspace, await this.m.store.listCheckpoints(sessionId)) : [];
  }

  /** One checkpoint with its files compared to the workspace; a damaged one comes with a fallback. */
  async show(sessionId: string, checkpointId: string): Promise<CheckpointDetail> {
    return (await this.detail(sessionId, checkpointId)).detail;
  }

  /** Checks one checkpoint; `valid: false` names the problem and offers the previous valid one. */
  async validate(
    sessionId: string,
    checkpointId: string,
  ): Promise<{ info: CheckpointInfo; valid: boolean; problem: string | null; fallback: CheckpointInfo | null }> {
    const { detail: d } = await this.detail(sessionId, checkpointId);
    return { info: d.info, valid: d.info.valid, problem: d.info.problem ?? null, fallback: d.fallback };
  }

  /** The checkpoint, or `CORRUPT` naming the problem and the previous valid one. */
  async require(
    sessionId: string,
    checkpointId: string,
  ): Promise<{ checkpoint: Checkpoint; info: CheckpointInfo; all: CheckpointInfo[] }> {
    const { detail: d, all } = await this.detail(sessionId, checkpointId, false);
    if (!d.checkpoint) throw corrupt(sessionId, d.info, d.fallback);
    return { checkpoint: d.checkpoint, info: d.info, all };
  }

  private async detail(
    sessionId: string,
    checkpointId: string,
    withDrift = true,
  ): Promise<{ detail: CheckpointDetail; all: CheckpointInfo[]; reads: CheckpointRead[] }> {
    validateId(checkpointId, 'checkpoint id');
    const state = await this.m.get(sessionId);
    const reads = await this.m.store.listCheckpoints(sessionId);
    const all = this.merge(state, reads);
    const info = byIdOrPrefix(sessionId, checkpointId, all);
    const read = reads.find((r) => r.id === info.id);
    const checkpoint = info.valid && read?.valid ? read.checkpoint : null;
    const detail: CheckpointDetail = {
      info,
      checkpoint,
      fallback: info.valid ? null : previousValid(all, info.id),
      drift: withDrift && checkpoint && this.deps.workspace ? this.drift(checkpoint) : null,
    };
    return { detail, all, reads };
  }

  /**
   * Restores a checkpoint: appends `checkpoint.restored` (history is never rewritten), after
   * which the session's work is the checkpoint's; later checkpoints are marked superseded.
   * With `git`, first resets the work tree to the checkpoint's commit, refusing a dirty tree
   * unless `force`.
   */
  async restore(sessionId: string, checkpointId: string, o: RestoreOptions = {}): Promise<RestoreResult> {
    const state = await this.m.get(sessionId);
    assertWritable(state);
    if (o.expectedRevision !== undefined && o.expectedRevision !== state.revision)
      throw revisionConflict(sessionId, o.expectedRevision, state.revision);
    const { detail: d, all, reads } = await this.detail(sessionId, checkpointId, false);
    if (!d.checkpoint) throw corrupt(sessionId, d.info, d.fallback);
    const cp = d.checkpoint;
    if (cp.revision > state.revision) {
      throw new BatonError(
        'CORRUPT',
        `Checkpoint ${cp.id} is at revision ${cp.revision}, past session ${sessionId}'s journal end (${state.revision}).`,
        {
          hint: hint('checkpoint.inspect-log'),
          details: { sessionId, checkpointId: cp.id, revision: cp.revision, journalRevision: state.revision },
        },
      );
    }
    let git: RestoreResult['git'] = null;
    if (o.git) git = resetToCheckpoint(this.deps.workspace, cp, o.force === true);
    const fileIds = all.map((c) => c.id);
    let r: ChangeResult<string[]>;
    try {
      r = await this.m.change(
        sessionId,
        (s) => {
          assertWritable(s);
          const ids = new Set([...fileIds, ...(s.checkpoints ?? []).map((c) => c.id)]);
          const supersedes = [...ids].filter((id) => compareCheckpointIds(id, cp.id) > 0).sort(compareCheckpointIds);
          const events = [
            draft('checkpoint.restored', {
              checkpointId: cp.id,
              name: cp.name,
              revision: cp.revision,
              state: cp.state,
              supersedes,
              git,
            }),
          ];
          return { events, result: supersedes };
        },
        o,
      );
    } catch (e) {
      if (git && isBatonError(e)) {
        throw new BatonError(
          e.code,
          `${e.message} The work tree was already reset to ${git.commit}, but the session was not restored.`,
          {
            hint: hint('restore.record-after-git', { checkpoint: cp.id, session: sessionId }),
            details: { ...e.details, gitCommit: git.commit, previousHead: git.previousHead },
            cause: e,
          },
        );
      }
      throw e;
    }
    const after = this.merge(r.state, reads);
    return { state: r.state, checkpoint: after.find((c) => c.id === cp.id) ?? d.info, superseded: r.result, git };
  }

  /**
   * Called by the manager after a phase completed: takes an automatic checkpoint of the state
   * right after the completion, unless turned off (manager option or session metadata).
   * Never fails the phase change: a problem is passed to `onWarning`. Returns the checkpoint
   * taken, or null.
   */
  async afterPhase(r: ChangeResult<unknown>, o: ChangeOptions = {}): Promise<CreateResult | null> {
    const done = r.events.find((e) => e.type === 'phase.completed');
    if (done?.type !== 'phase.completed' || !this.autoEnabled(r.state)) return null;
    const phase = r.state.phases.find((p) => p.id === done.data.phaseId);
    try {
      const { expectedRevision: _strict, ...rest } = o;
      return await this.take(
        r.state,
        { name: `${phase?.name ?? done.data.phaseId} done`, trigger: 'phase', phaseId: done.data.phaseId },
        rest,
      );
    } catch (e) {
      if (!isBatonError(e)) throw e;
      this.deps.onWarning(`Automatic checkpoint after phase ${done.data.phaseId} was not taken: ${e.message}`);
      return null;
    }
  }

  /** True when completing a phase of this session takes a checkpoint. */
  autoEnabled(state: SessionState): boolean {
    return this.deps.auto && settingsOf(state).autoCheckpoint;
  }

  /*
   * The journal comes first: `checkpoint.created` is appended with the usual compare-and-set,
   * which hands out the number `n` of `cp-<n>-…` exactly once even when processes race, and
   * the checkpoint holds the very state that event follows. The file is written next; a crash
   * in between leaves a checkpoint the journal knows but whose file is missing, which the
   * listing reports as invalid (never a silent gap).
   */
  private async take(
    base: SessionState,
    what: { name: string | null; trigger: 'manual' | 'phase'; phaseId: string | null },
    o: ChangeOptions,
  ): Promise<CreateResult> {
    assertWritable(base);
    const name =
      what.name === null
        ? `revision ${base.revision}`
        : text(what.name, 'checkpoint name', { max: MAX_CHECKPOINT_NAME });
    if (/[\r\n]/.test(name))
      throw new BatonError('BAD_INPUT', 'A checkpoint name is one line.', {
        hint: 'Drop the line breaks from the name.',
      });
    const ws = this.deps.workspace;
    const git = ws
      ? ws.gitState(`baton checkpoint of session ${base.id}: ${name}`, (e) =>
          this.deps.onWarning(
            `The work tree could not be copied for the checkpoint (restore --git will refuse it): ${isBatonError(e) ? e.message : String(e)}`,
          ),
        )
      : null;
    const hashes = new Map<string, CheckpointFile>();
    const measure = (p: string): CheckpointFile => {
      let f = hashes.get(p);
      if (!f) hashes.set(p, (f = ws ? ws.hashFile(p) : { path: p, sha256: null, size: null }));
      return f;
    };
    const slug = slugify(name, 40);
    const createdAt = this.deps.now().toISOString();
    let cp: Checkpoint | null = null;
    const r = await this.m.change(
      base.id,
      (s) => {
        assertWritable(s);
        const id = validateId(`cp-${nextNumber((s.checkpoints ?? []).map((c) => c.id))}-${slug}`, 'checkpoint id');
        cp = {
          id,
          sessionId: s.id,
          name,
          createdAt,
          revision: s.revision,
          state: s,
          git,
          files: recordedPaths(s).map(measure),
          trigger: what.trigger,
          phaseId: what.phaseId,
        };
        return {
          events: [
            draft('checkpoint.created', {
              checkpointId: id,
              name,
              revision: s.revision,
              trigger: what.trigger,
              phaseId: what.phaseId,
              git,
            }),
          ],
          result: undefined,
        };
      },
      o,
    );
    const checkpoint = cp as unknown as Checkpoint;
    if (ws && git?.snapshot) {
      try {
        ws.git.keepRef(checkpointRef(base.id, checkpoint.id), git.snapshot);
      } catch (e) {
        // Still restorable while git keeps the unreferenced commit (two weeks by default).
        this.deps.onWarning(
          `The copy of the work tree of checkpoint ${checkpoint.id} (${git.snapshot}) is not kept under a ref: ${isBatonError(e) ? e.message : String(e)}`,
        );
      }
    }
    try {
      await this.m.store.saveCheckpoint(base.id, checkpoint);
    } catch (e) {
      if (!isBatonError(e)) throw e;
      throw new BatonError(
        e.code,
        `Checkpoint ${checkpoint.id} was recorded in the journal, but its file could not be saved: ${e.message}`,
        {
          hint: 'It is listed as invalid; fix the cause and take a new checkpoint.',
          details: { ...e.details, checkpointId: checkpoint.id },
          cause: e,
        },
      );
    }
    const ref = (r.state.checkpoints ?? []).find((c) => c.id === checkpoint.id);
    return {
      info: infoOf({ id: checkpoint.id, valid: true, checkpoint }, ref),
      checkpoint,
      state: r.state,
      events: r.events,
    };
  }

  private drift(cp: Checkpoint): FileDrift[] {
    const ws = this.deps.workspace!;
    return cp.files.map((f) => {
      const now = ws.hashFile(f.path);
      const status: FileDrift['status'] =
        f.sha256 === now.sha256
          ? 'unchanged'
          : f.sha256 === null
            ? 'appeared'
            : now.sha256 === null
              ? 'missing'
              : 'changed';
      return { ...f, now: { sha256: now.sha256, size: now.size }, status };
    });
  }

  /** Store listing + journal refs, in creation order. */
  private merge(state: SessionState, reads: CheckpointRead[]): CheckpointInfo[] {
    const refs = new Map((state.checkpoints ?? []).map((c) => [c.id, c]));
    const out = reads.map((r) => infoOf(r, refs.get(r.id)));
    const seen = new Set(reads.map((r) => r.id));
    for (const ref of refs.values()) {
      if (!seen.has(ref.id))
        out.push(infoOf({ id: ref.id, valid: false, problem: MISSING_FILE, modifiedAt: null }, ref));
    }
    return out.sort((a, b) => compareCheckpointIds(a.id, b.id));
  }
}
