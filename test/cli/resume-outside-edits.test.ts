/**
 * Resuming after a file of a completed phase was edited outside baton.
 */
import { spawnSync } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { BATON, baseEnv, needBuiltCli, phaseOf, workspace } from './helpers.js';

interface Plan {
  status: string;
  recovery: {
    recommended: { kind: string; from: string; reason: string } | null;
    options: Array<{ kind: string; available: boolean; notes: string[] }>;
  };
  outsideEdits: {
    phases: Array<{ phaseId: string; files: Array<{ path: string; kind: string }> }>;
    choices: Array<{ kind: string; hints: Array<{ action: string }> }>;
  } | null;
  files: { outsideChanges: boolean };
}

describe('resume after a file of a completed phase was edited outside baton', () => {
  it('recommends keeping the in-flight work, explains the choices, and never loops into INVALID_TRANSITION', async () => {
    needBuiltCli();
    const ws = workspace();
    await ws.ok(['start', 'Edited outside', '--id', 'eo', '--phases', 'a,b']);
    await ws.ok(['phase', 'start', 'a']);
    ws.write('f.txt', 'as recorded');
    await ws.ok(['file', 'created', 'f.txt']);
    await ws.ok(['phase', 'complete', 'a']); // takes a checkpoint
    await ws.ok(['phase', 'start', 'b']);
    await ws.ok(['substep', 'b', 's']);
    // The run holding the session dies (SIGKILL, no chance to record anything); its lease runs out.
    const killed = spawnSync(
      process.execPath,
      [
        BATON,
        'run',
        '--heartbeat',
        '200ms',
        // Long enough that a loaded machine starting the command does not lose the lease first.
        '--ttl',
        '2s',
        '--',
        process.execPath,
        '-e',
        "process.kill(process.ppid, 'SIGKILL')",
      ],
      { cwd: ws.dir, env: baseEnv() },
    );
    expect(killed.signal, killed.stderr?.toString()).toBe('SIGKILL');
    await new Promise((r) => setTimeout(r, 2_200));
    ws.write('f.txt', 'edited by hand');

    const plan = await ws.json<Plan>(['resume']);
    expect(plan.status).toBe('interrupted');
    expect(plan.recovery.recommended).toMatchObject({ kind: 'live', from: 'live' });
    expect(plan.recovery.recommended!.reason).toMatch(/Restoring a checkpoint would not undo that/);
    const cp = plan.recovery.options.find((o) => o.kind === 'checkpoint')!;
    expect(cp.available).toBe(true);
    expect(cp.notes.join(' ')).toMatch(/not the files/);
    expect(plan.outsideEdits?.phases).toEqual([{ phaseId: 'a', files: [{ path: 'f.txt', kind: 'changed' }] }]);
    expect(plan.outsideEdits?.choices.map((c) => c.kind)).toEqual(['accept', 'restore-files', 'keep-going']);
    const human = (await ws.ok(['resume'])).stdout;
    expect(human).toContain('`baton file modified f.txt --phase a --session eo`');
    expect(human).toContain('`git checkout -- f.txt`');
    expect(human).toMatch(/Recommended: live/);

    // Following the recommendation keeps the in-flight sub-step.
    expect((await ws.ok(['resume', '--apply'])).stdout).toBe('Resumed eo from live; it is active.\n');
    let s = await ws.status();
    expect(phaseOf(s, 'b')).toMatchObject({ status: 'in_progress', subStep: 's' });
    // The same advice again, and applying it again is not an error: there is nothing to do.
    expect((await ws.json<Plan>(['resume'])).recovery.recommended?.kind).toBe('live');
    const revision = s.revision;
    expect((await ws.ok(['resume', '--apply'])).stdout).toBe(
      'Session eo is already active: nothing to resume; go on working in it.\n',
    );
    expect(await ws.json(['resume', '--apply'])).toMatchObject({
      session: 'eo',
      appliedFrom: 'live',
      changed: false,
      status: 'active',
      revision,
    });
    s = await ws.status();
    expect(s.revision).toBe(revision);

    // Accepting the edit, as the plan words it, changes the plan: nothing is reported any more.
    await ws.ok(['file', 'modified', 'f.txt', '--phase', 'a', '--session', 'eo']);
    const after = await ws.json<Plan>(['resume']);
    expect(after.outsideEdits).toBeNull();
    expect(after.files.outsideChanges).toBe(false);
  }, 30_000);
});
