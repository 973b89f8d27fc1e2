/**
 * `--mirror`: a session whose metadata names a mirror (format + folder) has its files in that
 * toolkit's layout rewritten after every change, so an agent that still reads its own file
 * keeps working while the others use baton.
 */
import type { StoredEvent } from '../domain/events.js';
import { isBatonError } from '../domain/errors.js';
import type { SessionState } from '../domain/state.js';
import type { FormatName } from '../formats/types.js';
import type { FormatsOptions } from './formats.js';
import type { SessionManager } from './manager.js';

/*
 * Every command's context holds a MirrorFiles, so this file stays light: the export code
 * (formats.ts, the registry and its adapters) is loaded by flush(), only when a session that
 * changed has a mirror. The dynamic import is bundled as a lazily initialised module.
 */

/** Session metadata key of the mirror setting. */
export const MIRROR_KEY = 'mirror';
/** Session metadata key of the last mirror failure (null once a rewrite succeeds again). */
export const MIRROR_ERROR_KEY = 'mirrorError';

/** A session's mirror: after every change, its files are rewritten in `format` under `out`. */
export interface MirrorSetting {
  format: FormatName;
  /** Absolute output folder. */
  out: string;
}

/** The mirror setting of a session, or null. */
export function mirrorOf(state: SessionState): MirrorSetting | null {
  const v = state.metadata[MIRROR_KEY] as Partial<MirrorSetting> | null | undefined;
  return v && typeof v === 'object' && typeof v.format === 'string' && typeof v.out === 'string' ? (v as MirrorSetting) : null;
}

/** Mirror bookkeeping events: they never trigger a rewrite of their own. */
function onlyBookkeeping(events: readonly StoredEvent[]): boolean {
  return events.every((e) => e.type === 'metadata.set' && (e.data as { key?: string }).key === MIRROR_ERROR_KEY);
}

/** One mirror rewrite, as {@link MirrorFiles.flush} reports it. */
export interface MirrorOutcome {
  id: string;
  format: string;
  out: string;
  ok: boolean;
  written: string[];
  error: string | null;
}

/**
 * Keeps the mirrored files of changed sessions current (`baton mirror`): a surface tells it
 * about every change (ManagerOptions.onChanged) and calls {@link flush} once at the end of a
 * command or request, which re-exports each changed session that has a mirror. A failed
 * rewrite never fails the change it follows: it is returned as a problem and recorded in the
 * session (metadata `mirrorError`, cleared by the next rewrite that works).
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
        const { exportSession } = await import('./formats.js');
        const r = await exportSession(m, id, setting.format, setting.out, o);
        result = { id, format: setting.format, out: setting.out, ok: true, written: r.written, error: null };
      } catch (e) {
        result = { id, format: setting.format, out: setting.out, ok: false, written: [], error: (e as Error)?.message ?? String(e) };
      }
      out.push(result);
      await this.record(m, id, state, result);
    }
    return out;
  }

  private async record(m: SessionManager, id: string, state: SessionState, r: MirrorOutcome): Promise<void> {
    const had = state.metadata[MIRROR_ERROR_KEY] ?? null;
    const value = r.ok ? null : { at: m.time(), format: r.format, out: r.out, message: r.error };
    if (had === null && value === null) return;
    if (had !== null && value !== null && (had as { message?: string }).message === value.message) return;
    try {
      await m.change(id, () => ({ events: [{ type: 'metadata.set', data: { key: MIRROR_ERROR_KEY, value } }], result: undefined }));
    } catch (e) {
      if (!isBatonError(e)) throw e;
      // Recording is best effort: the failure was already reported.
    }
  }
}

