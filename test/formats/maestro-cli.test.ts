import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import type { ForeignSession } from '../../src/formats/types.js';
import { EXIT_CODES, workspace } from '../cli/helpers.js';
import { facts, FIXTURES, inspect, only } from './maestro-helpers.js';

interface InspectJson {
  format: string | null;
  sessions: ForeignSession[];
  problems: Array<{ code: string; path: string | null }>;
}

describe('baton inspect / import / export with the maestro layout (built CLI)', () => {
  it('inspect --format maestro --json reports the facts of an interrupted session', async () => {
    const ws = workspace();
    const r = await ws.json<InspectJson>(['inspect', '--format', 'maestro', path.join(FIXTURES, 'interrupted-retry2')]);
    expect(r.format).toBe('maestro');
    const s = r.sessions[0]!;
    expect(s.id).toBe('2026-02-14-search-index');
    expect(s.units.map((u) => `${u.id}:${u.status}:${u.retries}`)).toEqual([
      '1:completed:0',
      '2:failed:2',
      '3:pending:0',
    ]);
    expect(s.resume).toMatchObject({ action: 'escalate', unitId: '2', retriesUsed: 2, retryLimit: 2 });
    expect(s.unresolvedErrors.map((e) => e.type)).toEqual(['timeout']);
    expect(s.tokens?.agrees).toBe(true);
    expect('documents' in s).toBe(false);
  });

  it('inspect with auto detection finds maestro; a damaged tree exits CORRUPT with each problem listed', async () => {
    const ws = workspace();
    const r = await ws.run(['inspect', path.join(FIXTURES, 'damaged-frontmatter'), '--json']);
    expect(r.code).toBe(EXIT_CODES.CORRUPT);
    const j = JSON.parse(r.stdout) as InspectJson;
    expect(j.format).toBe('maestro');
    expect(j.sessions.map((s) => s.id)).toEqual(['2026-05-04-fine']);
    expect(j.problems.map((p) => `${p.code}@${p.path}`).sort()).toEqual([
      'CORRUPT_FILE@.gemini/state/active-session.md',
      'CORRUPT_FILE@.gemini/state/archive/2026-05-01-no-fence.md',
      'CORRUPT_FILE@.gemini/state/archive/2026-05-02-bad-json.md',
      'CORRUPT_FILE@.gemini/state/archive/2026-05-03-unclosed.md',
      'EMPTY_FILE@.gemini/state/archive/2026-05-05-empty.md',
    ]);
  });

  it('import then export --format maestro gives back the same facts', async () => {
    const ws = workspace();
    await ws.ok(['import', '--format', 'maestro', path.join(FIXTURES, 'mid-run-json')]);
    const out = ws.path('out');
    await ws.ok(['export', '--format', 'maestro', '--session', '2026-04-10-billing-export', '--out', out]);
    expect(fs.existsSync(path.join(out, 'state/active-session.md'))).toBe(true);
    const text = fs.readFileSync(path.join(out, 'state/active-session.md'), 'utf8');
    expect(text.startsWith('---\n{\n')).toBe(true); // JSON frontmatter, as the v1.6 original
    const before = only(await inspect('mid-run-json'));
    const after = only(await inspect(out));
    expect(facts(after)).toEqual(facts(before));
  });

  it('mirror maestro: every command rewrites the Maestro file, which Maestro rules read back', async () => {
    const ws = workspace();
    await ws.ok([
      'start',
      'Rate limiter',
      '--id',
      '2026-11-22-rate-limiter',
      '--phases',
      'design,build,docs',
      '--mirror',
      'maestro',
      '--mirror-out',
      '.gemini',
    ]);
    const file = ws.path('.gemini/state/active-session.md');
    expect(only(await inspect(ws.path('.gemini'))).resume).toMatchObject({ action: 'start', unitId: 'design' });
    await ws.ok(['phase', 'start', 'design', '--agent', 'architect']);
    await ws.ok(['phase', 'complete', 'design', '--agent', 'architect']);
    await ws.ok(['phase', 'start', 'build', '--agent', 'coder']);
    await ws.ok([
      'error',
      'add',
      '--phase',
      'build',
      '--type',
      'runtime',
      '--message',
      'redis not reachable',
      '--agent',
      'coder',
    ]);
    await ws.ok(['phase', 'fail', 'build', '--agent', 'coder']);
    let s = only(await inspect(ws.path('.gemini')));
    expect(s.units.map((u) => `${u.id}:${u.status}`)).toEqual(['design:completed', 'build:failed', 'docs:pending']);
    expect(s.resume).toMatchObject({ action: 'retry', unitId: 'build', retriesUsed: 0, retryLimit: 2 });
    expect(s.unresolvedErrors.map((e) => e.message)).toEqual(['redis not reachable']);
    // The completed design phase recorded no files: EMPTY_MANIFEST, info only (issue 27).
    expect(s.problems.filter((p) => p.code === 'EMPTY_MANIFEST').map((p) => [p.severity, p.details?.phase])).toEqual([
      ['info', 'design'],
    ]);
    expect(s.problems.filter((p) => p.code !== 'MISSING_PLAN' && p.code !== 'EMPTY_MANIFEST')).toEqual([]);
    // The log got one section per phase change, the frontmatter and the log agree.
    expect(fs.readFileSync(file, 'utf8').match(/^## Phase .*$/gm)).toEqual([
      '## Phase design: design ○',
      '## Phase design: design ✓',
      '## Phase build: build ○',
      '## Phase build: build ✗',
    ]);
    await ws.ok(['phase', 'retry', 'build', '--agent', 'coder']);
    s = only(await inspect(ws.path('.gemini')));
    expect(s.units[1]).toMatchObject({ status: 'in_progress', retries: 1 });
  });
});
