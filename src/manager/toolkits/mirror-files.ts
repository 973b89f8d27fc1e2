/**
 * Rewriting the mirrors of changed sessions (`baton mirror`); the settings and records are
 * in mirror.ts.
 */
import type { StoredEvent } from '../../domain/events.js';
import { isBatonError } from '../../domain/errors.js';
import type { Hint } from '../../domain/hints.js';
import type { SessionState } from '../../domain/state.js';
import type { FormatsOptions } from './formats.js';
import { isMirrorBookkeeping, settingsOf } from '../../domain/settings.js';
import { mirrorOf } from './mirror.js';
import type { ManagerCore as SessionManager } from '../types.js';

/*
 * Every manager holds a MirrorFiles, so this file stays light: the export code (formats.ts,
 * the registry and its adapters) is loaded by flush(), only when a session that changed has a
 * mirror. The dynamic import is bundled as a lazily initialised module.
 */

/** Mirror bookkeeping events: they never trigger a rewrite of their own. */
function onlyBookkeeping(events: readonly StoredEvent[]): boolean {
  return events.every((e) => {
    const key = e.type === 'metadata.set' ? (e.data as { key?: string }).key : undefined;
    return isMirrorBookkeeping(key);
  });
}

/** One mirror rewrite, as {@link MirrorFiles.flush} reports it. */
export interface MirrorOutcome {
  id: string;
  format: string;
  out: string;
  ok: boolean;
  written: string[];
  error: string | null;
  /** Stable code of the failure (`CONFLICT`: a mirrored file was changed by someone else), else null. */
  code: string | null;
  /** The way out of the failure as plain text, else null (also null when it is {@link hintAction}). */
  hint: string | null;
  /** The way out as an action (the error's `hintAction`), for the surface to word; else null. */
  hintAction: Hint | null;
  /** What the writer had to change to write the session (e.g. `UNSAFE_PATH: … written as …`). */
  warnings: string[];
}

/**
 * Keeps the mirrored files of changed sessions current (`baton mirror`): a surface tells it
 * about every change (ManagerOptions.onChanged) and calls {@link flush} once at the end of a
 * command or request, which re-exports each changed session that has a mirror. A failed
 * rewrite never fails the change it follows: it is returned as a problem and recorded in the
 * session (metadata `mirrorError`, cleared by the next rewrite that works).
 *
 * It never overwrites a toolkit's write: baton remembers the hash of every file it wrote
 * ({@link MirrorRecord}), and a rewrite that would replace or remove a file changed since
 * fails with `CONFLICT` and writes nothing, until the changes are imported (`importPath`
 * forgets the record of the sessions it read from their mirror folder) or the mirror is set
 * again with `force`.
 *
 * A SessionManager holds one (see derived-files.ts) and flushes it after each change, or when
 * asked (ManagerOptions.derivedFiles); a caller that keeps its own notes it through onChanged:
 * ```ts
 * const mirror = new MirrorFiles();
 * const m = openManager({ cwd, derivedFiles: { mirrors: false }, onChanged: (id, events, state) => mirror.note(id, events, state) });
 * // … changes through m …
 * for (const r of await mirror.flush(m, { cwd })) if (!r.ok) console.warn(r.error, r.hint);
 * ```
 */
export class MirrorFiles {
  private readonly dirty = new Set<string>();

  /** Records that a session changed; only sessions with a mirror (or one just turned on) are kept. */
  note(id: string, events: readonly StoredEvent[], state: SessionState): void {
    if (onlyBookkeeping(events)) return;
    if (mirrorOf(state)) this.dirty.add(id);
  }

  /** True when a flush has work to do. */
  get pending(): boolean {
    return this.dirty.size > 0;
  }

  /** Rewrites the mirror of every changed session; never throws for a mirror's own failure. */
  async flush(m: SessionManager, o: FormatsOptions): Promise<MirrorOutcome[]> {
    const out: MirrorOutcome[] = [];
    for (const id of [...this.dirty]) {
      this.dirty.delete(id);
      let state: SessionState;
      try {
        state = await m.get(id);
      } catch (e) {
        if (!isBatonError(e)) throw e;
        continue; // deleted meanwhile: nothing to mirror
      }
      const setting = mirrorOf(state);
      if (!setting) continue;
      let result: MirrorOutcome;
      try {
        // node:crypto and the export code load here, only when a mirrored session changed.
        const { rewriteOnce } = await import('./formats.js');
        const r = await rewriteOnce(m, id, state, setting, o);
        const warnings = r.problems.map((p) => `${p.code}: ${p.message}`);
        result = {
          id,
          format: setting.format,
          out: setting.out,
          ok: true,
          written: r.written,
          error: null,
          code: null,
          hint: null,
          hintAction: null,
          warnings,
        };
      } catch (e) {
        const code = isBatonError(e) ? e.code : null;
        const hint = isBatonError(e) ? (e.hint ?? null) : null;
        const hintAction = isBatonError(e) ? (e.hintAction ?? null) : null;
        result = {
          id,
          format: setting.format,
          out: setting.out,
          ok: false,
          written: [],
          error: (e as Error)?.message ?? String(e),
          code,
          hint,
          hintAction,
          warnings: [],
        };
      }
      out.push(result);
      await this.record(m, id, await m.get(id).catch(() => state), result);
    }
    return out;
  }

  private async record(m: SessionManager, id: string, state: SessionState, r: MirrorOutcome): Promise<void> {
    const had = settingsOf(state).mirrorError;
    // hintAction only when there is one, so a record without one reads as it always did.
    const value = r.ok
      ? null
      : {
          at: m.time(),
          format: r.format,
          out: r.out,
          message: r.error,
          code: r.code,
          hint: r.hint,
          ...(r.hintAction ? { hintAction: r.hintAction } : {}),
        };
    if (had === null && value === null) return;
    if (had !== null && value !== null && (had as { message?: string }).message === value.message) return;
    try {
      await m.setSettings(id, { mirrorError: value });
    } catch (e) {
      if (!isBatonError(e)) throw e;
      // Recording is best effort: the failure was already reported.
    }
  }
}
