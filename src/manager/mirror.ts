/**
 * `--mirror`: a session whose metadata names a mirror (format + folder) has its files in that
 * toolkit's layout rewritten after every change, so an agent that still reads its own file
 * keeps working while the others use baton.
 */
import { isMirrorBookkeeping, SETTING_KEYS, settingsOf } from '../domain/settings.js';
import type { StoredEvent } from '../domain/events.js';
import { isBatonError } from '../domain/errors.js';
import type { SessionState } from '../domain/state.js';
import type { FormatName } from '../formats/types.js';
import { sessionFilesOf } from '../store/capabilities.js';
import type { StoreSessionFiles } from '../store/types.js';
import type { FormatsOptions } from './formats.js';
import type { SessionManager } from './manager.js';

/*
 * Every command's context holds a MirrorFiles, so this file stays light: the export code
 * (formats.ts, the registry and its adapters) is loaded by flush(), only when a session that
 * changed has a mirror. The dynamic import is bundled as a lazily initialised module.
 */

/** @deprecated Read the mirror with `settingsOf(state).mirror` (domain/settings.ts); the metadata key of the mirror setting. */
export const MIRROR_KEY = SETTING_KEYS.mirror;
/** @deprecated Read it with `settingsOf(state).mirrorError`; the metadata key of the last mirror failure (null once a rewrite succeeds again). */
export const MIRROR_ERROR_KEY = SETTING_KEYS.mirrorError;
/**
 * @deprecated Read it with `settingsOf(state).mirrorWritten`; the metadata key of
 * {@link MirrorRecord}, used only by stores that keep no session folder (memory, PostgreSQL);
 * a file store keeps it in {@link MIRROR_RECORD_FILE}.
 */
export const MIRROR_WRITTEN_KEY = SETTING_KEYS.mirrorWritten;
/** Name of the file, in a file store's session folder, holding {@link MirrorRecord}. */
export const MIRROR_RECORD_FILE = 'mirror-written.json';

/**
 * What baton last wrote for a session's mirror: the sha256 (hex) of each file, by path
 * relative to `out`. A mirrored file whose bytes no longer have that hash was changed by
 * someone else (the toolkit, a person), and the mirror does not overwrite it.
 */
export interface MirrorRecord {
  format: string;
  out: string;
  files: Record<string, string>;
}

/*
 * Where the record lives. A file store has a folder per session (handoff.md is there too):
 * a small side file costs nothing in the journal, whereas a metadata event per rewrite would
 * add a revision to every mirrored change and show in every history. Stores without folders
 * get the metadata event; it is bookkeeping, like mirrorError, and never triggers a rewrite.
 */

function isRecord(v: unknown): v is MirrorRecord {
  const r = v as Partial<MirrorRecord> | null;
  return !!r && typeof r === 'object' && typeof r.format === 'string' && typeof r.out === 'string' && !!r.files && typeof r.files === 'object';
}

/** The store's files beside session `id`, or null when it keeps none for it (the record goes in metadata then). */
function filesOf(m: SessionManager, id: string): StoreSessionFiles | null {
  const files = sessionFilesOf(m.store);
  return files && files.sessionFolder(id) !== null ? files : null;
}

/** The mirror record of session `id` (null when none: nothing written yet, or forgotten). */
export async function readMirrorRecord(m: SessionManager, id: string, state: SessionState): Promise<MirrorRecord | null> {
  const files = filesOf(m, id);
  if (files === null) {
    const v = settingsOf(state).mirrorWritten;
    return isRecord(v) ? v : null;
  }
  try {
    const text = await files.readSessionFile(id, MIRROR_RECORD_FILE);
    const v: unknown = text === null ? null : JSON.parse(text);
    return isRecord(v) ? v : null;
  } catch {
    // Missing or damaged: no record, so the next rewrite is a first one (as `baton export`).
    return null;
  }
}

/** Replaces (null: forgets) the mirror record of session `id`. */
export async function writeMirrorRecord(m: SessionManager, id: string, state: SessionState, record: MirrorRecord | null): Promise<void> {
  const files = filesOf(m, id);
  if (files === null) {
    const had = settingsOf(state).mirrorWritten;
    if (had === null && record === null) return;
    if (had !== null && record !== null && JSON.stringify(had) === JSON.stringify(record)) return;
    await m.setSettings(id, { mirrorWritten: record });
    return;
  }
  if (record === null) await files.removeSessionFile(id, MIRROR_RECORD_FILE);
  else await files.writeSessionFile(id, MIRROR_RECORD_FILE, `${JSON.stringify(record, null, 2)}\n`);
}

/** A session's mirror: after every change, its files are rewritten in `format` under `out`. */
export interface MirrorSetting {
  format: FormatName;
  /** Absolute output folder. */
  out: string;
}

/** The mirror setting of a session, or null. */
export function mirrorOf(state: SessionState): MirrorSetting | null {
  return settingsOf(state).mirror as MirrorSetting | null;
}

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
  /** The way out of the failure, else null. */
  hint: string | null;
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
 * A library user wires it like the CLI does:
 * ```ts
 * const mirror = new MirrorFiles();
 * const m = openManager({ cwd, onChanged: (id, events, state) => mirror.note(id, events, state) });
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
        const { rewriteMirror } = await import('./formats.js');
        const r = await rewriteMirror(m, id, state, setting, o);
        const warnings = r.problems.map((p) => `${p.code}: ${p.message}`);
        result = { id, format: setting.format, out: setting.out, ok: true, written: r.written, error: null, code: null, hint: null, warnings };
      } catch (e) {
        const code = isBatonError(e) ? e.code : null;
        const hint = isBatonError(e) ? (e.hint ?? null) : null;
        result = { id, format: setting.format, out: setting.out, ok: false, written: [], error: (e as Error)?.message ?? String(e), code, hint, warnings: [] };
      }
      out.push(result);
      await this.record(m, id, await m.get(id).catch(() => state), result);
    }
    return out;
  }

  private async record(m: SessionManager, id: string, state: SessionState, r: MirrorOutcome): Promise<void> {
    const had = settingsOf(state).mirrorError;
    const value = r.ok ? null : { at: m.time(), format: r.format, out: r.out, message: r.error, code: r.code, hint: r.hint };
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

