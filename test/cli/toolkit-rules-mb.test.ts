/**
 * Issue 27 for Maestro and BMAD through the CLI: what `resume` (text and --json), `status`,
 * `handoff`, `complete`, `archive` and `export` say and refuse for a session imported from
 * the toolkit. Fixtures: test/formats/toolkit-mb-fixtures.ts (written from the seed specs).
 */
import fs from 'node:fs';
import { describe, expect, it } from 'vitest';
import {
  BMAD_ID,
  bmadSession,
  MAESTRO_ERR_ID,
  MAESTRO_REC_ID,
  maestroFailedWithError,
  maestroReconcile,
} from '../formats/toolkit-mb-fixtures.js';
import { expectError, workspace } from './helpers.js';
import type { Workspace } from './helpers.js';

async function imported(files: Record<string, string>, dir: string): Promise<Workspace> {
  const ws = workspace();
  for (const [rel, text] of Object.entries(files)) ws.write(rel, text);
  // Import reports the file's problems (the disagreeing totals) on stderr: exit 0 is what counts.
  expect((await ws.run(['import', dir])).code).toBe(0);
  return ws;
}

describe('Maestro through the CLI', () => {
  it('resume lists the decision on the unresolved error first; --json says so as data; status warns about the totals', async () => {
    const ws = await imported(maestroFailedWithError(), '.gemini');
    const text = (await ws.ok(['resume', '--session', MAESTRO_ERR_ID])).stdout;
    const steps = text.split('\n').filter((l) => l.startsWith('  → '));
    expect(steps[0]).toContain('Decide on error err-1 of phase 3 (Tests): unresolved validation error from tester');
    expect(steps[1]).toContain('Retry phase 3 (Tests)');
    expect(text).toContain("! Maestro's token totals (40,100 in / 9,000 out / 1,000 cached) disagree");
    const plan = await ws.json<{ next: { steps: Array<{ action: string; errorId?: string }> } }>([
      'resume',
      '--session',
      MAESTRO_ERR_ID,
    ]);
    expect(plan.next.steps[0]).toMatchObject({ action: 'decide', errorId: 'err-1' });
    const status = (await ws.ok(['status', '--session', MAESTRO_ERR_ID])).stdout;
    expect(status).toContain('written totals are kept (now 40,100 / 9,000 / 1,000)');
  });

  it('complete and archive refuse while a phase awaits reconciliation, naming --force; --force goes ahead', async () => {
    const ws = await imported(maestroReconcile('completed', 'completed'), 'docs/maestro');
    const a = expectError(await ws.run(['archive', MAESTRO_REC_ID]), 'BLOCKED');
    expect(a.message).toContain('RECONCILIATION_PENDING');
    expect(a.hint).toContain(`\`baton archive ${MAESTRO_REC_ID} --force\``);
    const e = expectError(
      await ws.run(['export', '--session', MAESTRO_REC_ID, '--format', 'maestro', '--out', 'out']),
      'BLOCKED',
    );
    expect(e.hint).toContain('--force');
    await ws.ok(['export', '--session', MAESTRO_REC_ID, '--format', 'maestro', '--out', 'out', '--force']);
    await ws.ok(['archive', MAESTRO_REC_ID, '--force']);
  });

  it('complete refuses for an in-progress session whose phase awaits reconciliation', async () => {
    const ws = await imported(maestroReconcile('in_progress', 'completed'), 'docs/maestro');
    const c = expectError(await ws.run(['complete', '--session', MAESTRO_REC_ID]), 'BLOCKED');
    expect(c.message).toContain('Maestro refuses to complete');
    expect(c.hint).toContain(`\`baton complete --force --session ${MAESTRO_REC_ID}\``);
    await ws.ok(['complete', '--force', '--session', MAESTRO_REC_ID]);
  });
});

describe('import of a session its toolkit archived', () => {
  it("is never refused by the session's own rules: baton archive is BLOCKED, the re-import of Maestro's archive is not", async () => {
    const ws = await imported(maestroReconcile('completed', 'completed'), 'docs/maestro');
    expectError(await ws.run(['archive', MAESTRO_REC_ID]), 'BLOCKED');
    const text = fs.readFileSync(ws.path('docs/maestro/state/active-session.md'), 'utf8');
    fs.rmSync(ws.path('docs/maestro/state/active-session.md'));
    ws.write(`docs/maestro/state/archive/${MAESTRO_REC_ID}.md`, text);
    const r = await ws.run(['import', 'docs/maestro']);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toContain(`updated   ${MAESTRO_REC_ID}`);
    expect(r.stdout).toContain('[archived]');
    expect(r.stdout).not.toContain('IMPORT_FAILED');
    const all = await ws.json<Array<{ id: string; archived: boolean }>>(['list', '--all']);
    expect(all.find((x) => x.id === MAESTRO_REC_ID)?.archived).toBe(true);
  });
});

describe('BMAD through the CLI', () => {
  it('status, resume and handoff show the main session apart from its agents, and the savings; 80 % exactly is ok', async () => {
    const ws = await imported(bmadSession(80000), '_bmad-output');
    await ws.ok([
      'tokens',
      'add',
      '--session',
      BMAD_ID,
      '--agent',
      'dev',
      '--phase',
      'agent-d2',
      '--input',
      '9000',
      '--output',
      '1000',
    ]);
    const status = (await ws.ok(['status', '--session', BMAD_ID])).stdout;
    expect(status).toContain('budget 80,000/100,000 (80%) ok');
    expect(status).toContain(
      'Main session (BMAD current): 80,000 tokens; agents, isolated (not counted in it): agent-a1 30,000, agent-d2 30,000',
    );
    expect(status).toContain('Savings from isolation: 60,000 tokens (43%)');
    const resume = (await ws.ok(['resume', '--session', BMAD_ID])).stdout;
    expect(resume).toContain('Savings from isolation: 60,000 tokens (43%)');
    const handoff = (await ws.ok(['handoff', '--session', BMAD_ID])).stdout;
    expect(handoff).toContain('Savings from isolation: 60,000 tokens (43%)');
  });

  it('a re-run and tokens against agents, exported into the folder and imported again: no warning, saved and tokens_used agree', async () => {
    const ws = await imported(bmadSession(40000), '_bmad-output');
    const tokens = (phase: string, input: string) =>
      ws.ok([
        'tokens',
        'add',
        '--session',
        BMAD_ID,
        '--agent',
        'dev',
        '--phase',
        phase,
        '--input',
        input,
        '--output',
        '0',
      ]);
    await tokens('agent-a1', '5000');
    await ws.ok(['phase', 'retry', 'agent-d2', '--session', BMAD_ID]);
    await tokens('agent-d2', '7000');
    await ws.ok(['phase', 'complete', 'agent-d2', '--session', BMAD_ID]);
    await ws.ok(['export', '--session', BMAD_ID, '--format', 'bmad', '--out', '.']);
    const inspect = async () => {
      const r = await ws.json<{
        problems: Array<{ code: string }>;
        sessions: Array<{
          id: string;
          units: Array<{ id: string; status: string }>;
          problems: Array<{ code: string }>;
        }>;
      }>(['inspect', '--format', 'bmad', '_bmad-output']);
      const s = r.sessions.find((x) => x.id === BMAD_ID)!;
      return { s, codes: [...r.problems, ...s.problems].map((p) => p.code) };
    };
    const first = await inspect();
    expect(first.codes).not.toContain('TOKENS_DISAGREE');
    expect(first.s.units.map((u) => [u.id, u.status])).toEqual([
      ['agent-a1', 'completed'],
      ['agent-d2', 'completed'],
    ]);
    const r = await ws.run(['import', '_bmad-output']);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toContain(`updated   ${BMAD_ID}`);
    expect(r.stdout).not.toMatch(/warning|error/);
    const status = (await ws.ok(['status', '--session', BMAD_ID])).stdout;
    expect(status).toContain('agents, isolated (not counted in it): agent-a1 35,000, agent-d2 27,000');
    await ws.ok(['export', '--session', BMAD_ID, '--format', 'bmad', '--out', '.']);
    expect((await inspect()).codes).not.toContain('TOKENS_DISAGREE');
    const yaml = fs.readFileSync(ws.path(`_bmad-output/sessions/${BMAD_ID}.yaml`), 'utf8');
    expect(yaml.match(/id: "?agent-d2-rerun-1"?/g)).toHaveLength(1);
    expect(yaml).toContain('saved: 62000');
  });
});
