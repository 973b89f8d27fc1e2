/**
 * A session's settings, typed. They are kept in the session's metadata (one `metadata.set`
 * event per change, under the keys of {@link SETTING_KEYS}), so journals written before this
 * module keep working and a setting's history is in the journal; this module is the one place
 * that knows those keys and how to read their values. Pure.
 */
import type { EventDraft } from './decide.js';
import { draft } from './decide.js';
import type { SessionState } from './state.js';

/** The metadata key of each setting: names on disk, never to be changed. */
export const SETTING_KEYS = {
  /** `false` turns automatic checkpoints (on phase completion) off for the session. */
  autoCheckpoint: 'autoCheckpoint',
  /** `false` turns the handoff file kept in the session's folder off. */
  handoffFile: 'handoffFile',
  /** The plan file the session was started from: `{ path, sha256 }`. */
  planFile: 'planFile',
  /** The session's mirror: `{ format, out }`, or null. */
  mirror: 'mirror',
  /** The last mirror failure (`{ at, format, out, message, code, hint, hintAction? }`), null once a rewrite succeeds again. */
  mirrorError: 'mirrorError',
  /** What the mirror last wrote, for stores without a session folder (memory, PostgreSQL). */
  mirrorWritten: 'mirrorWritten',
} as const;

/** The name of a setting. */
export type SettingName = keyof typeof SETTING_KEYS;

/** The plan file a session was started from. */
export interface PlanFileSetting {
  path: string;
  sha256: string;
}

/** A session's mirror as stored (the manager checks the format name). */
export interface MirrorSettingValue {
  format: string;
  /** Absolute output folder. */
  out: string;
}

/** A session's settings, read from its state by {@link settingsOf}. */
export interface SessionSettings {
  /** Automatic checkpoints on phase completion (on unless turned off). */
  autoCheckpoint: boolean;
  /** The handoff file kept in the session's folder (on unless turned off). */
  handoffFile: boolean;
  /** The plan file the session was started from, when it has a usable record. */
  planFile: PlanFileSetting | null;
  /** The session's mirror, when set (the stored object itself). */
  mirror: MirrorSettingValue | null;
  /** The last mirror failure as recorded, or null. */
  mirrorError: unknown;
  /** What the mirror last wrote, as recorded (memory and PostgreSQL stores), or null. */
  mirrorWritten: unknown;
}

/** The values a settings change writes, as stored. */
export interface SettingValues {
  autoCheckpoint: boolean;
  handoffFile: boolean;
  planFile: PlanFileSetting | null;
  mirror: MirrorSettingValue | null;
  mirrorError: Record<string, unknown> | null;
  mirrorWritten: unknown;
}

/** The settings of a session. Values of the wrong shape read as unset. */
export function settingsOf(state: Pick<SessionState, 'metadata'>): SessionSettings {
  const m = state.metadata;
  const plan = m[SETTING_KEYS.planFile] as { path?: unknown; sha256?: unknown } | null | undefined;
  const mirror = m[SETTING_KEYS.mirror] as Partial<MirrorSettingValue> | null | undefined;
  return {
    autoCheckpoint: m[SETTING_KEYS.autoCheckpoint] !== false,
    handoffFile: m[SETTING_KEYS.handoffFile] !== false,
    planFile:
      plan && typeof plan.path === 'string' && typeof plan.sha256 === 'string' ? (plan as PlanFileSetting) : null,
    mirror:
      mirror && typeof mirror === 'object' && typeof mirror.format === 'string' && typeof mirror.out === 'string'
        ? (mirror as MirrorSettingValue)
        : null,
    mirrorError: m[SETTING_KEYS.mirrorError] ?? null,
    mirrorWritten: m[SETTING_KEYS.mirrorWritten] ?? null,
  };
}

/** The events that write `values` (one `metadata.set` per setting, in the order given). */
export function settingEvents(values: Partial<SettingValues>): EventDraft[] {
  return (Object.keys(values) as SettingName[]).map((name) =>
    draft('metadata.set', { key: SETTING_KEYS[name], value: values[name] }),
  );
}

/** `values` as session metadata (for the metadata a session starts with). */
export function settingsMetadata(values: Partial<SettingValues>): Record<string, unknown> {
  return Object.fromEntries((Object.keys(values) as SettingName[]).map((name) => [SETTING_KEYS[name], values[name]]));
}

/** True when a `metadata.set` of `key` is mirror bookkeeping (a failure or a record), which never triggers a mirror rewrite. */
export function isMirrorBookkeeping(key: string | undefined): boolean {
  return key === SETTING_KEYS.mirrorError || key === SETTING_KEYS.mirrorWritten;
}
