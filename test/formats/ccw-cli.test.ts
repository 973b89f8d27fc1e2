/**
 * The CCW layout through the built CLI (`node scripts/build.mjs` first): inspect with auto
 * detection, the CORRUPT exit of a damaged tree, and import → export → inspect.
 */
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import type { ForeignSession } from '../../src/formats/types.js';
import { EXIT_CODES, workspace } from '../cli/helpers.js';
import { facts, FIXTURES, inspect, session } from './ccw-helpers.js';

interface InspectJson {
  format: string | null;
  sessions: ForeignSession[];
  problems: Array<{ code: string; path: string | null; sessionId: string | null }>;
}

describe('baton inspect / import / export with the ccw layout (built CLI)', () => {
  it('inspect detects ccw and reports the sub-step to resume at', async () => {
    const ws = workspace();
    const r = await ws.json<InspectJson>(['inspect', path.join(FIXTURES, 'seed-mid-run')]);
    expect(r.format).toBe('ccw');
    const s = r.sessions.find((x) => x.id === 'WFS-user-profile')!;
    expect(s.resume).toMatchObject({ action: 'skip-to-substep', unitId: 'implement', subStep: 'code-review-agent' });
    expect('documents' in s).toBe(false);
    expect(r.problems.map((p) => p.code)).toEqual(['CCW_LAYOUT']);
  });

  it('a tree with a corrupt session file exits CORRUPT and names the backup', async () => {
    const ws = workspace();
    const r = await ws.run(['inspect', '--format', 'ccw', path.join(FIXTURES, 'corrupt-with-backup'), '--json']);
    expect(r.code).toBe(EXIT_CODES.CORRUPT);
    const j = JSON.parse(r.stdout) as InspectJson;
    const broken = j.sessions.find((x) => x.id === 'WFS-broken')!;
    expect(broken.problems.find((p) => p.code === 'CORRUPT_FILE')?.details).toMatchObject({
      backup: '.workflow/active/WFS-broken/.backups/session-2025-11-20-09-30.json',
    });
  });

  it('import then export --format ccw gives back the same facts, in the seed-era layout', async () => {
    const ws = workspace();
    await ws.ok(['import', '--format', 'ccw', path.join(FIXTURES, 'seed-mid-run')]);
    const out = ws.path('out');
    for (const id of ['WFS-user-profile', 'WFS-oauth-integration', 'WFS-bug-fix-123'])
      await ws.ok(['export', '--format', 'ccw', '--session', id, '--out', out]);
    const reg = fs.readFileSync(path.join(out, '.workflow/session_status.jsonl'), 'utf8').trim().split('\n');
    expect(reg.map((l) => JSON.parse(l).id)).toEqual(['WFS-user-profile', 'WFS-oauth-integration', 'WFS-bug-fix-123']);
    const before = await inspect('seed-mid-run');
    const after = await inspect(out);
    for (const s of before.sessions) expect(facts(session(after, s.id))).toEqual(facts(s));
  });
});
