/**
 * Issue 15, "Bugs": the five a new user hit on the first day, each pinned by the commands
 * that showed it.
 */
import { spawnSync } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { BATON, baseEnv, EXIT_CODES, expectError, needBuiltCli, phaseOf, withSession, workspace } from './helpers.js';

describe('bug 1: the agents of a phase are everyone who worked on it', () => {
  it('an agent that records files, sub-steps, tokens, errors or completion is listed in status, handoff and status --json', async () => {
    const ws = await withSession('ag', 'a,b');
    await ws.ok(['phase', 'start', 'a', '--agent', 'alice']);
    await ws.ok(['file', 'created', 'f', '--agent', 'bob']);
    await ws.ok(['substep', 'a', 's', '--agent', 'carol']);
    await ws.ok(['tokens', 'add', '--agent', 'dave', '--phase', 'a', '--input', '10']);
    await ws.ok(['error', 'add', '--phase', 'a', '--agent', 'erin', '--type', 'lint', '--message', 'm']);
    await ws.ok(['phase', 'complete', 'a', '--agent', 'frank']);
    // Work on no phase, or on another one, makes nobody an agent of `a`.
    await ws.ok(['tokens', 'add', '--agent', 'gus', '--input', '5']);
    await ws.ok(['phase', 'start', 'b', '--agent', 'hal']);
    await ws.ok(['file', 'created', 'g', '--agent', 'alice']);

    const s = await ws.status();
    expect(phaseOf(s, 'a').agents).toEqual(['alice', 'bob', 'carol', 'dave', 'erin', 'frank']);
    expect(phaseOf(s, 'b').agents).toEqual(['hal', 'alice']);
    expect((await ws.ok(['status'])).stdout).toContain('agents: alice, bob, carol, dave, erin, frank');
    expect((await ws.ok(['handoff'])).stdout).toMatch(/\| a \| a \| [^|]+ \| alice, bob, carol, dave, erin, frank \|/);
  });
});

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

describe('bug 2: resume after a file of a completed phase was edited outside baton', () => {
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
        '100ms',
        '--ttl',
        '300ms',
        '--',
        process.execPath,
        '-e',
        "process.kill(process.ppid, 'SIGKILL')",
      ],
      { cwd: ws.dir, env: baseEnv() },
    );
    expect(killed.signal).toBe('SIGKILL');
    await new Promise((r) => setTimeout(r, 500));
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

describe('bug 4: an empty phase list and a plan file that is not UTF-8 are BAD_INPUT, nothing written', () => {
  it('start --phases "" is refused with the way out', async () => {
    const ws = workspace();
    const e = expectError(await ws.run(['start', 'Empty', '--id', 'em', '--phases', '']), 'BAD_INPUT');
    expect(e.message).toBe('The phase list is empty.');
    expect(e.hint).toBe('Pass --phases a,b,c.');
    expectError(await ws.run(['status', '--session', 'em']), 'NO_STORE');
  });

  it('a plan file with bytes that are not UTF-8 is refused, naming the file', async () => {
    const ws = workspace();
    ws.write(
      'plan.yaml',
      Buffer.concat([Buffer.from('phases:\n  - id: a\n    name: caf'), Buffer.from([0xe9]), Buffer.from('\n')]),
    );
    const e = expectError(await ws.run(['start', 'Latin', '--id', 'la', '--plan', 'plan.yaml']), 'BAD_INPUT');
    expect(e.message).toMatch(/^Plan plan\.yaml is not UTF-8 text/);
    expect(e.hint).toMatch(/UTF-8.*nothing was written/);
    expectError(await ws.run(['status', '--session', 'la']), 'NO_STORE');
  });
});

describe('bug 4: argv bytes that are not UTF-8', () => {
  it('a note whose bytes are not UTF-8 is refused before anything is written', async () => {
    needBuiltCli();
    const ws = await withSession('nb');
    const before = (await ws.log('nb')).length;
    // Real bytes on the command line: "caf" then 0xE9 (Latin-1 é), which is not UTF-8.
    const r = spawnSync('sh', ['-c', `"${process.execPath}" "${BATON}" note add "$(printf 'caf\\351')"`], {
      cwd: ws.dir,
      env: baseEnv(),
      encoding: 'utf8',
    });
    expect(r.status, r.stderr).toBe(EXIT_CODES.BAD_INPUT);
    expect(r.stderr).toMatch(/^error\[BAD_INPUT\]: Argument 3 \(.*\) is not UTF-8 text/);
    expect(r.stderr).toMatch(/hint: Pass the text in UTF-8/);
    expect((await ws.log('nb')).length).toBe(before);
  });
});

describe('bug 5: checkpoint id prefixes, and `done` in the library', () => {
  it('restore, checkpoint show and resume --from take a unique prefix of a checkpoint id; an ambiguous one is BAD_INPUT listing the matches', async () => {
    const ws = await withSession('px', 'a');
    for (let i = 1; i <= 11; i++) await ws.ok(['checkpoint', `step ${i}`]);
    const ids = (await ws.json<Array<{ id: string }>>(['checkpoints'])).map((c) => c.id);
    expect(ids[2]).toBe('cp-3-step-3');
    expect((await ws.ok(['restore', 'cp-3'])).stdout).toContain('cp-3-step-3');
    // `cp-1` ends where cp-1-step-1's number ends, so cp-10 and cp-11 do not make it ambiguous.
    expect(await ws.json(['checkpoint', 'show', 'cp-1'])).toMatchObject({ id: 'cp-1-step-1' });
    const e = expectError(await ws.run(['restore', 'cp-']), 'BAD_INPUT');
    expect(e.message).toBe(`Checkpoint "cp-" of session px is ambiguous: it matches ${ids.join(', ')}.`);
    expectError(await ws.run(['restore', 'cp-99']), 'NOT_FOUND');
  });

  it("the library speaks its own verbs: phase(id, p, 'complete') completes the phase; 'done' is refused naming them", async () => {
    const { openManager } = await import('../../src/index.js');
    const m = openManager({ url: 'memory:', cwd: process.cwd(), now: () => new Date('2026-01-01T00:00:00Z') });
    await m.start({ title: 'Lib', id: 'lib', phases: [{ id: 'a', name: 'A' }] });
    await m.phase('lib', 'a', 'start');
    // A JavaScript caller is not held to the type; the word of another surface is refused by name.
    const refused = await m.phase('lib', 'a', 'done' as never).catch((e: unknown) => e);
    expect(refused).toMatchObject({ code: 'BAD_INPUT', message: 'Unknown phase action "done".' });
    expect((refused as { hint?: unknown }).hint).toBe('Use one of: start, complete, fail, skip, retry.');
    const r = await m.phase('lib', 'a', 'complete');
    expect(r.state.phases[0]!.status).toBe('completed');
  });
});
