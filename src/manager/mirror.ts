/**
 * `--mirror`: a session whose metadata names a mirror (format + folder) has its files in that
 * toolkit's layout rewritten after every change, so an agent that still reads its own file
 * keeps working while the others use baton.
 */
import fs from 'node:fs';
import path from 'node:path';
import type { SessionState } from '../domain/state.js';
import type { FormatName } from '../formats/types.js';
import { tempName } from '../store/file/fsutil.js';
import type { ManagerCore as SessionManager } from './types.js';

/*
 * The settings and the record of what a mirror wrote; rewriting mirrors after changes is
 * mirror-files.ts.
 */

/** Session metadata key of the mirror setting. */
export const MIRROR_KEY = 'mirror';
/** Session metadata key of the last mirror failure (null once a rewrite succeeds again). */
export const MIRROR_ERROR_KEY = 'mirrorError';
/**
 * Session metadata key of {@link MirrorRecord}, used only by stores that keep no session
 * folder (memory, PostgreSQL); a file store keeps it in {@link MIRROR_RECORD_FILE}.
 */
export const MIRROR_WRITTEN_KEY = 'mirrorWritten';
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

/** The mirror record of session `id` (null when none: nothing written yet, or forgotten). */
export function readMirrorRecord(m: SessionManager, id: string, state: SessionState): MirrorRecord | null {
  const folder = m.store.sessionFolder?.(id) ?? null;
  if (folder === null) {
    const v = state.metadata[MIRROR_WRITTEN_KEY];
    return isRecord(v) ? v : null;
  }
  try {
    const v: unknown = JSON.parse(fs.readFileSync(path.join(folder, MIRROR_RECORD_FILE), 'utf8'));
    return isRecord(v) ? v : null;
  } catch {
    // Missing or damaged: no record, so the next rewrite is a first one (as `baton export`).
    return null;
  }
}

/** Replaces (null: forgets) the mirror record of session `id`. */
export async function writeMirrorRecord(m: SessionManager, id: string, state: SessionState, record: MirrorRecord | null): Promise<void> {
  const folder = m.store.sessionFolder?.(id) ?? null;
  if (folder === null) {
    const had = state.metadata[MIRROR_WRITTEN_KEY] ?? null;
    if (had === null && record === null) return;
    if (had !== null && record !== null && JSON.stringify(had) === JSON.stringify(record)) return;
    await m.change(id, () => ({ events: [{ type: 'metadata.set', data: { key: MIRROR_WRITTEN_KEY, value: record } }], result: undefined }));
    return;
  }
  const file = path.join(folder, MIRROR_RECORD_FILE);
  if (record === null) {
    fs.rmSync(file, { force: true });
    return;
  }
  const tmp = tempName(file);
  fs.writeFileSync(tmp, `${JSON.stringify(record, null, 2)}\n`, { mode: 0o600 });
  fs.renameSync(tmp, file);
}

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
