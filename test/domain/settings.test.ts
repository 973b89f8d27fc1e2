/**
 * Typed session settings (src/domain/settings.ts): read from the metadata keys journals have
 * always used, so sessions written before keep their settings, and written back under the same
 * keys, one `metadata.set` event each.
 */
import { describe, expect, it } from 'vitest';
import {
  isMirrorBookkeeping,
  SETTING_KEYS,
  settingEvents,
  settingsMetadata,
  settingsOf,
} from '../../src/domain/settings.js';
import { MIRROR_ERROR_KEY, MIRROR_KEY } from '../../src/manager/toolkits/mirror.js';

const meta = (metadata: Record<string, unknown>) => ({ metadata });

describe('settingsOf', () => {
  it('reads a session without settings as the defaults', () => {
    expect(settingsOf(meta({}))).toEqual({
      autoCheckpoint: true,
      handoffFile: true,
      planFile: null,
      mirror: null,
      mirrorError: null,
      mirrorWritten: null,
    });
  });

  it('reads the keys existing journals hold', () => {
    const mirror = { format: 'maestro', out: '/w/.gemini', extra: 1 };
    const s = settingsOf(
      meta({
        autoCheckpoint: false,
        handoffFile: false,
        planFile: { path: 'plan.yaml', sha256: 'ab' },
        mirror,
        mirrorError: { message: 'm' },
        mirrorWritten: { files: {} },
      }),
    );
    expect(s).toEqual({
      autoCheckpoint: false,
      handoffFile: false,
      planFile: { path: 'plan.yaml', sha256: 'ab' },
      mirror,
      mirrorError: { message: 'm' },
      mirrorWritten: { files: {} },
    });
    expect(s.mirror).toBe(mirror);
  });

  it('only false turns a switch off; values of the wrong shape read as unset', () => {
    expect(settingsOf(meta({ autoCheckpoint: 0, handoffFile: null })).autoCheckpoint).toBe(true);
    expect(settingsOf(meta({ handoffFile: 'no' })).handoffFile).toBe(true);
    expect(settingsOf(meta({ planFile: { path: 'p' } })).planFile).toBeNull();
    expect(settingsOf(meta({ mirror: { format: 'maestro' } })).mirror).toBeNull();
    expect(settingsOf(meta({ mirror: 'maestro' })).mirror).toBeNull();
  });
});

describe('writing settings', () => {
  it('writes one metadata.set per setting under its key, which settingsOf reads back', () => {
    const events = settingEvents({ mirror: { format: 'bmit', out: '/o' }, autoCheckpoint: false });
    expect(events).toEqual([
      { type: 'metadata.set', data: { key: 'mirror', value: { format: 'bmit', out: '/o' } } },
      { type: 'metadata.set', data: { key: 'autoCheckpoint', value: false } },
    ]);
    expect(settingsMetadata({ planFile: { path: 'p', sha256: 'h' }, handoffFile: false })).toEqual({
      planFile: { path: 'p', sha256: 'h' },
      handoffFile: false,
    });
  });

  it('a null mirror turns it off again', () => {
    expect(settingEvents({ mirror: null })).toEqual([{ type: 'metadata.set', data: { key: 'mirror', value: null } }]);
  });

  it('mirror bookkeeping is the failure and the record, not the mirror itself', () => {
    expect(isMirrorBookkeeping('mirrorError')).toBe(true);
    expect(isMirrorBookkeeping('mirrorWritten')).toBe(true);
    expect(isMirrorBookkeeping('mirror')).toBe(false);
    expect(isMirrorBookkeeping(undefined)).toBe(false);
  });

  it("the key constants surfaces write are the settings' keys", () => {
    expect([MIRROR_KEY, MIRROR_ERROR_KEY]).toEqual([SETTING_KEYS.mirror, SETTING_KEYS.mirrorError]);
    expect(Object.values(SETTING_KEYS)).toEqual([
      'autoCheckpoint',
      'handoffFile',
      'planFile',
      'mirror',
      'mirrorError',
      'mirrorWritten',
    ]);
  });
});
