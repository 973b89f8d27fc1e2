/**
 * `--mirror`: a session whose metadata names a mirror (format + folder) has its files in that
 * toolkit's layout rewritten after every change, so an agent that still reads its own file
 * keeps working while the others use baton.
 */
import { SETTING_KEYS, settingsOf } from '../../domain/settings.js';
import type { SessionState } from '../../domain/state.js';
import type { FormatName } from '../../formats/types.js';
import { sessionFilesOf } from '../../store/capabilities.js';
import type { StoreSessionFiles } from '../../store/types.js';
import type { ManagerCore as SessionManager } from '../types.js';

/*
 * The settings and the record of what a mirror wrote; rewriting mirrors after changes is
 * mirror-files.ts.
 */

/** The metadata key of the mirror setting (surfaces write it at `start --mirror`; readers use `settingsOf(state).mirror`, domain/settings.ts). */
export const MIRROR_KEY = SETTING_KEYS.mirror;
/** The metadata key of the last mirror failure, null once a rewrite succeeds again (readers use `settingsOf(state).mirrorError`). */
export const MIRROR_ERROR_KEY = SETTING_KEYS.mirrorError;
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
  return (
    !!r &&
    typeof r === 'object' &&
    typeof r.format === 'string' &&
    typeof r.out === 'string' &&
    !!r.files &&
    typeof r.files === 'object'
  );
}

/** The store's files beside session `id`, or null when it keeps none for it (the record goes in metadata then). */
function filesOf(m: SessionManager, id: string): StoreSessionFiles | null {
  const files = sessionFilesOf(m.store);
  return files && files.sessionFolder(id) !== null ? files : null;
}

/** The mirror record of session `id` (null when none: nothing written yet, or forgotten). */
export async function readMirrorRecord(
  m: SessionManager,
  id: string,
  state: SessionState,
): Promise<MirrorRecord | null> {
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
export async function writeMirrorRecord(
  m: SessionManager,
  id: string,
  state: SessionState,
  record: MirrorRecord | null,
): Promise<void> {
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
