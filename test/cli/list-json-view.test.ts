/**
 * The built command prints a current list view of `list --json` as the bytes it read
 * (store/file/list-view.ts, commands/session.ts): the same text, to the byte, as the list
 * computed from the registry, non-ASCII titles included.
 */
import fs from 'node:fs';
import { describe, expect, it } from 'vitest';
import { workspace } from './helpers.js';

describe('list --json from the kept view', () => {
  it('prints what the computed list prints, byte for byte, and a changed registry at once', async () => {
    const ws = workspace();
    await ws.ok(['start', 'Première étape ✓', '--id', 'one']);
    await ws.ok(['start', 'Zweite 🎉', '--id', 'two', '--switch']);
    await ws.ok(['archive', 'one']);
    for (const flags of [[], ['--all']]) {
      const computed = await ws.ok(['list', '--json', ...flags]); // in-process: computed, then kept
      const spawned1 = await ws.ok(['list', '--json', ...flags], { spawn: true });
      const spawned2 = await ws.ok(['list', '--json', ...flags], { spawn: true });
      expect(spawned1.stdout).toBe(computed.stdout);
      expect(spawned2.stdout).toBe(computed.stdout);
    }
    expect(fs.existsSync(ws.path('.baton', 'list-all.view'))).toBe(true);
    const all = (await ws.ok(['list', '--json', '--all'], { spawn: true })).stdout;
    expect((JSON.parse(all) as Array<{ id: string; title: string }>).map((r) => r.title)).toEqual([
      'Zweite 🎉',
      'Première étape ✓',
    ]);
    await ws.ok(['tokens', 'add', '--agent', 'a', '--input', '3']); // changes the row of two
    await ws.ok(['start', 'Third', '--id', 'three', '--switch'], { spawn: true });
    const after = JSON.parse((await ws.ok(['list', '--json', '--all'], { spawn: true })).stdout) as Array<{
      id: string;
    }>;
    expect(after.map((r) => r.id)).toEqual(['three', 'two', 'one']);
  });
});
