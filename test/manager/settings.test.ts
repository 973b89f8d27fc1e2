/** SessionManager.setSettings: the one write of session settings, as metadata.set events a journal has always held. */
import { describe, expect, it } from 'vitest';
import { isBatonError } from '../../src/domain/errors.js';
import { settingsOf } from '../../src/domain/settings.js';
import { SessionManager } from '../../src/manager/manager.js';
import { MemoryStore } from '../../src/store/memory.js';

describe('SessionManager.setSettings', () => {
  it('writes each setting as a metadata.set event and settingsOf reads it back', async () => {
    const m = new SessionManager({ store: new MemoryStore(), agent: 'a', derivedFiles: { mirrors: false } });
    await m.start({ title: 'S', id: 's1', metadata: { planFile: { path: 'plan.yaml', sha256: 'ab' } } });
    const r = await m.setSettings('s1', { autoCheckpoint: false, mirror: { format: 'maestro', out: '/w/.gemini' } });
    expect(settingsOf(r.state)).toMatchObject({
      autoCheckpoint: false,
      handoffFile: true,
      planFile: { path: 'plan.yaml', sha256: 'ab' },
      mirror: { format: 'maestro', out: '/w/.gemini' },
    });
    const events = (await m.store.readEvents('s1')).filter((e) => e.type === 'metadata.set').map((e) => e.data);
    expect(events).toEqual([
      { key: 'autoCheckpoint', value: false },
      { key: 'mirror', value: { format: 'maestro', out: '/w/.gemini' } },
    ]);
  });

  it('a function of the state may refuse; nothing is written then', async () => {
    const m = new SessionManager({ store: new MemoryStore(), agent: 'a', derivedFiles: { mirrors: false } });
    const s = await m.start({ title: 'S', id: 's1' });
    const e = await m
      .setSettings('s1', () => {
        throw new Error('no');
      })
      .catch((x: unknown) => x);
    expect((e as Error).message).toBe('no');
    expect(isBatonError(e)).toBe(false);
    expect((await m.get('s1')).revision).toBe(s.revision);
  });
});
