import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import { describe, expect, it } from 'vitest';
import { expectError, phaseOf, sha256, withSession, workspace } from './helpers.js';
import type { EventJson, StatusJson, TokensJson } from './helpers.js';

/** The cost of tokens recorded without a model: unknown, never guessed. */
function unpriced(tokens: number): Record<string, unknown> {
  return { usd: null, pricedUsd: 0, unpriced: { tokens, models: ['(no model)'] } };
}

describe('phases', () => {
  it('start, done, fail, skip, retry, with BLOCKED and RETRIES_EXHAUSTED overridden by --force', async () => {
    const ws = workspace();
    ws.write(
      'plan.json',
      JSON.stringify({
        phases: [
          { id: 'design', name: 'Design' },
          { id: 'build', name: 'Build', blockedBy: ['design'], maxRetries: 1 },
          { id: 'docs', name: 'Docs' },
        ],
      }),
    );
    await ws.ok(['start', 'Phases', '--id', 'ph', '--plan', 'plan.json']);

    const blocked = expectError(await ws.run(['phase', 'start', 'build']), 'BLOCKED');
    expect(blocked.message).toBe('Phase build is blocked by design, not yet completed or skipped.');
    expect(blocked.hint).toContain('--force');

    expect((await ws.ok(['phase', 'start', 'Design', '--agent', 'architect'])).stdout).toBe('Started phase design\n');
    expect((await ws.ok(['substep', 'design', 'drafting'])).stdout).toBe('Phase design: reached drafting\n');
    let s = await ws.status();
    expect(phaseOf(s, 'design')).toMatchObject({ status: 'in_progress', subStep: 'drafting', agents: ['architect'] });
    expect((await ws.ok(['phase', 'complete', 'design'])).stdout).toBe('Completed phase design\n');

    await ws.ok(['phase', 'start', 'build']);
    expect((await ws.ok(['phase', 'fail', 'build', '--reason', 'compile error'])).stdout).toBe('Failed phase build\n');
    expect((await ws.ok(['phase', 'retry', 'build'])).stdout).toBe('Retrying phase build (retry 1/1)\n');
    await ws.ok(['phase', 'fail', 'build']);
    const exhausted = expectError(await ws.run(['phase', 'retry', 'build']), 'RETRIES_EXHAUSTED');
    expect(exhausted.message).toBe('Phase build has used 1 of 1 retries.');
    expect(exhausted.hint).toContain('--force');
    // `phase start` on a failed phase is a retry too, and refused the same way.
    expectError(await ws.run(['phase', 'start', 'build']), 'RETRIES_EXHAUSTED');
    const forced = await ws.json<{ phase: { status: string; retryCount: number } }>([
      'phase',
      'retry',
      'build',
      '--force',
    ]);
    expect(forced.phase).toMatchObject({ status: 'in_progress', retryCount: 2 });

    expect((await ws.ok(['phase', 'skip', 'docs', '--reason', 'not needed'])).stdout).toBe('Skipped phase docs\n');
    expectError(await ws.run(['phase', 'skip', 'docs']), 'INVALID_TRANSITION');
    expectError(await ws.run(['phase', 'complete', 'design']), 'INVALID_TRANSITION');
    await ws.ok(['phase', 'complete', 'build']);

    s = await ws.status();
    expect(s.phases.map((p) => [p.id, p.status, p.retryCount])).toEqual([
      ['design', 'completed', 0],
      ['build', 'completed', 2],
      ['docs', 'skipped', 0],
    ]);
    const types = (await ws.log()).map((e) => e.type);
    expect(types).toEqual([
      'session.created',
      'phase.started',
      'substep.reached',
      'phase.completed',
      'checkpoint.created', // taken automatically when a phase completes
      'phase.started',
      'phase.failed',
      'phase.retried',
      'phase.failed',
      'phase.retried',
      'phase.skipped',
      'phase.completed',
      'checkpoint.created',
    ]);
  });

  it('phase start --force starts a BLOCKED phase', async () => {
    const ws = workspace();
    ws.write(
      'plan.json',
      JSON.stringify({
        phases: [
          { id: 'a', name: 'A' },
          { id: 'b', name: 'B', blockedBy: ['a'] },
        ],
      }),
    );
    await ws.ok(['start', 'F', '--id', 'f', '--plan', 'plan.json']);
    expect((await ws.ok(['phase', 'start', 'b', '--force'])).stdout).toBe('Started phase b\n');
    expect(phaseOf(await ws.status(), 'b').status).toBe('in_progress');
    const log = await ws.log();
    expect(log[1]).toMatchObject({ seq: 2, type: 'phase.started', data: { phaseId: 'b', forced: true } });
  });
});

describe('human status', () => {
  it('shows every indicator, the progress bar, tokens against the budget and unresolved errors', async () => {
    const ws = await withSession('hs', 'design,build,test,docs,deploy');
    await ws.ok(['phase', 'start', 'design']);
    await ws.ok(['phase', 'complete', 'design']);
    await ws.ok(['phase', 'start', 'build', '--agent', 'coder']);
    await ws.ok(['substep', 'build', 'linking']);
    await ws.ok(['phase', 'start', 'test']);
    await ws.ok(['phase', 'fail', 'test']);
    await ws.ok(['phase', 'skip', 'docs']);
    expect(
      (
        await ws.ok([
          'error',
          'add',
          '--phase',
          'test',
          '--type',
          'timeout',
          '--message',
          'took too long',
          '--agent',
          'tester',
        ])
      ).stdout,
    ).toBe('err-1\n');
    await ws.ok(['error', 'add', '--phase', 'build', '--type', 'runtime', '--message', 'resolved later']);
    await ws.ok(['error', 'resolve', 'err-2', '--resolution', 'fixed']);
    await ws.ok(['budget', 'set', '2000']);
    await ws.ok(['tokens', 'add', '--agent', 'coder', '--input', '1200', '--output', '34', '--cached', '5000']);

    const out = (await ws.ok(['status'])).stdout;
    expect(out).not.toMatch(/\u001b\[/);
    const lines = out.split('\n');
    expect(lines[0]).toBe('Session hs  hs');
    // 13 changes, and the checkpoint taken automatically when design completed.
    expect(lines[1]).toMatch(/^Status: active · revision 14 · updated \d+s ago$/);
    expect(lines[2]).toBe('Progress: [████████░░░░░░░░░░░░] 2/5 phases (40%)');
    expect(lines).toContain('Tokens: 1,200 in / 34 out / 5,000 cached · budget 1,234/2,000 (61.7%) ok');
    expect(lines).toContain('  by agent: coder 1,200/34/5,000');
    const phaseLine = (id: string): string => lines.find((l) => new RegExp(`^  \\S ${id} `).test(l)) ?? '';
    expect(phaseLine('design')).toMatch(/^ {2}✓ design\s+completed$/);
    expect(phaseLine('build')).toMatch(/^ {2}○ build\s+in progress · sub-step: linking · agents: coder$/);
    // tester recorded an error on test: one of its agents (issue 15, bug 1).
    expect(phaseLine('test')).toMatch(/^ {2}✗ test\s+failed · retries 0\/2 · agents: tester · 1 unresolved error$/);
    expect(phaseLine('docs')).toMatch(/^ {2}– docs\s+skipped$/);
    expect(phaseLine('deploy')).toMatch(/^ {2}□ deploy\s+pending$/);
    const at = lines.indexOf('Unresolved errors (1):');
    expect(at).toBeGreaterThan(0);
    expect(lines[at + 1]).toMatch(/^ {2}err-1 \[test\] timeout: took too long \(tester, \d+s ago\)$/);
    expect(out).not.toContain('resolved later');
  });

  it('prints no colour codes when stdout is not a terminal, even without NO_COLOR', async () => {
    const ws = await withSession('nc', 'a');
    const r = await ws.run(['status'], { env: { NO_COLOR: undefined } });
    expect(r.code).toBe(0);
    expect(r.stdout).not.toMatch(/\u001b\[/);
    expect(r.stdout).toContain('□ a');
  });
});

describe('status --json', () => {
  it('holds the documented fields with exact values', async () => {
    const ws = await withSession('sj', 'design,build');
    ws.write('src/app.ts', 'export const x = 1;\n');
    await ws.ok(['phase', 'start', 'design', '--agent', 'arch']);
    await ws.ok(['substep', 'design', 'review']);
    await ws.ok(['file', 'created', 'src/app.ts']);
    await ws.ok(['error', 'add', '--phase', 'design', '--type', 'validation', '--message', 'schema mismatch']);
    await ws.ok([
      'tokens',
      'add',
      '--agent',
      'arch',
      '--phase',
      'design',
      '--input',
      '10',
      '--output',
      '20',
      '--cached',
      '30',
    ]);
    await ws.ok(['budget', 'set', '100']);

    const s = await ws.status();
    expect(s).toMatchObject({ id: 'sj', title: 'Session sj', status: 'active', revision: 7 });
    const design = phaseOf(s, 'design');
    expect(design).toMatchObject({
      id: 'design',
      name: 'design',
      status: 'in_progress',
      retryCount: 0,
      subStep: 'review',
    });
    expect(design.errors).toHaveLength(1);
    expect(design.errors[0]).toMatchObject({
      id: 'err-1',
      type: 'validation',
      message: 'schema mismatch',
      resolved: false,
    });
    expect(design.files).toHaveLength(1);
    expect(design.files[0]).toMatchObject({
      path: 'src/app.ts',
      action: 'created',
      sha256: sha256(ws.path('src/app.ts')),
      size: 20,
    });
    expect(phaseOf(s, 'build')).toMatchObject({
      status: 'pending',
      retryCount: 0,
      subStep: null,
      errors: [],
      files: [],
    });
    expect(s.tokens).toEqual({
      input: 10,
      output: 20,
      cached: 30,
      byAgent: { arch: { input: 10, output: 20, cached: 30 } },
      byPhase: { design: { input: 10, output: 20, cached: 30 } },
      budget: { max: 100, used: 30, percent: 30, level: 'ok' },
      // Recorded without a model: its cost is unknown, and says why.
      cost: {
        total: unpriced(60),
        byAgent: { arch: unpriced(60) },
        byPhase: { design: unpriced(60) },
        byModel: {},
        budget: { maxUsd: null, usedUsd: 0, percent: null, level: 'none', complete: false },
      },
    });
    expect(s.unresolvedErrors).toEqual([
      expect.objectContaining({ id: 'err-1', phaseId: 'design', type: 'validation', message: 'schema mismatch' }),
    ]);
  });
});

describe('files', () => {
  it('a named pipe, a folder or a device is recorded without a hash, and nothing waits on the pipe', async () => {
    const ws = await withSession('odd', 'build');
    await ws.ok(['phase', 'start', 'build']);
    // No process ever opens the pipe for writing: reading it the plain way would block forever.
    execFileSync('mkfifo', [ws.path('pipe')]);
    fs.mkdirSync(ws.path('folder'));
    await ws.ok(['file', 'modified', 'pipe', 'folder', '/dev/null']);
    await ws.ok(['checkpoint', 'with-odd-files']);
    const s = await ws.status();
    expect(phaseOf(s, 'build').files.map((f) => [f.path, f.sha256, f.size])).toEqual([
      ['pipe', null, null],
      ['folder', null, null],
      ['/dev/null', null, null],
    ]);
  }, 60_000);

  it('file created|modified|deleted records sha256 and size taken when recorded', async () => {
    const ws = await withSession('fs', 'build,test');
    await ws.ok(['phase', 'start', 'build']);
    const a = ws.write('a.txt', 'alpha\n');
    const b = ws.write('dir/b.bin', Buffer.from([0, 1, 2, 3, 255]));
    expect((await ws.ok(['file', 'created', 'a.txt', 'dir/b.bin'])).stdout).toBe('Recorded 2 created file(s)\n');
    const hashA1 = sha256(a);
    const hashB = sha256(b);

    fs.writeFileSync(a, 'alpha, changed\n');
    const hashA2 = sha256(a);
    expect(hashA2).not.toBe(hashA1);
    const mod = await ws.json<{
      session: string;
      files: Array<{ path: string; sha256: string; size: number; phaseId: string }>;
    }>(['file', 'modified', 'a.txt', '--phase', 'test']);
    expect(mod.files).toEqual([expect.objectContaining({ path: 'a.txt', sha256: hashA2, size: 15, phaseId: 'test' })]);

    fs.rmSync(b);
    await ws.ok(['file', 'deleted', 'dir/b.bin']);

    // From a subdirectory, paths are resolved there and recorded relative to the workspace.
    const c = ws.write('sub/c.txt', 'see');
    await ws.ok(['file', 'created', 'c.txt'], { cwd: ws.path('sub') });

    const s = await ws.status();
    expect(phaseOf(s, 'build').files.map((f) => [f.path, f.action, f.sha256, f.size])).toEqual([
      ['a.txt', 'created', hashA1, 6],
      ['dir/b.bin', 'deleted', null, null],
      ['sub/c.txt', 'created', sha256(c), 3],
    ]);
    expect(phaseOf(s, 'test').files.map((f) => [f.path, f.action, f.sha256, f.size])).toEqual([
      ['a.txt', 'modified', hashA2, 15],
    ]);
    const recorded = (await ws.log()).filter((e) => e.type === 'file.recorded').map((e) => e.data['sha256']);
    expect(recorded).toEqual([hashA1, hashB, hashA2, null, sha256(c)]);
  });
});

describe('errors, tokens and budget', () => {
  it('error add prints the id; error resolve marks it resolved', async () => {
    const ws = await withSession('er', 'a,b');
    expect((await ws.ok(['error', 'add', '--phase', 'a', '--type', 'runtime', '--message', 'one'])).stdout).toBe(
      'err-1\n',
    );
    expect(
      await ws.json(['error', 'add', '--phase', 'b', '--type', 'quota', '--message', 'two', '--agent', 'w1']),
    ).toEqual({ session: 'er', revision: 3, status: 'active', errorId: 'err-2' });
    expect((await ws.ok(['error', 'resolve', 'err-1', '--resolution', 'restarted'])).stdout).toBe('Resolved err-1\n');
    expectError(await ws.run(['error', 'resolve', 'err-1', '--resolution', 'again']), 'INVALID_TRANSITION');
    const missing = expectError(await ws.run(['error', 'resolve', 'err-9', '--resolution', 'x']), 'NOT_FOUND');
    expect(missing.hint).toBe('Unresolved errors: err-2.');
    expectError(await ws.run(['error', 'add', '--phase', 'nope', '--type', 't', '--message', 'm']), 'NOT_FOUND');
    expectError(await ws.run(['error', 'add', '--phase', 'a', '--type', 't']), 'BAD_INPUT');

    const s = await ws.status();
    expect(phaseOf(s, 'a').errors).toEqual([
      expect.objectContaining({
        id: 'err-1',
        type: 'runtime',
        message: 'one',
        resolved: true,
        resolution: 'restarted',
      }),
    ]);
    expect(phaseOf(s, 'b').errors).toEqual([
      expect.objectContaining({ id: 'err-2', type: 'quota', message: 'two', resolved: false, agent: 'w1' }),
    ]);
    expect(s.unresolvedErrors.map((e) => e.id)).toEqual(['err-2']);
  });

  it('tokens add accumulates by agent and phase; tokens --by agent|phase', async () => {
    const ws = await withSession('tk', 'plan,code');
    expect(
      (await ws.ok(['tokens', 'add', '--agent', 'alice', '--phase', 'plan', '--input', '100', '--output', '50']))
        .stdout,
    ).toBe('Recorded 100 in / 50 out / 0 cached for alice on phase plan\nSession total: 100 in / 50 out / 0 cached\n');
    await ws.ok(['tokens', 'add', '--phase', 'code', '--input', '1000', '--output', '2000', '--cached', '300'], {
      env: { BATON_AGENT: 'bob' },
    });
    await ws.ok(['tokens', 'add', '--agent', 'alice', '--input', '1']);

    const byAgent = await ws.json<TokensJson>(['tokens', '--by', 'agent']);
    expect(byAgent).toEqual({
      input: 1101,
      output: 2050,
      cached: 300,
      lowerBound: null,
      byAgent: { alice: { input: 101, output: 50, cached: 0 }, bob: { input: 1000, output: 2000, cached: 300 } },
      byPhase: { plan: { input: 100, output: 50, cached: 0 }, code: { input: 1000, output: 2000, cached: 300 } },
      byModel: {},
      // Every record was made on this machine.
      byHost: { [os.hostname()]: { input: 1101, output: 2050, cached: 300 } },
      budget: { max: null, used: 3151, percent: null, level: 'none' },
      cost: {
        total: unpriced(3451),
        byAgent: { alice: unpriced(151), bob: unpriced(3300) },
        byPhase: { plan: unpriced(150), code: unpriced(3300) },
        byModel: {},
        byHost: { [os.hostname()]: unpriced(3451) },
        budget: { maxUsd: null, usedUsd: 0, percent: null, level: 'none', complete: false },
      },
    });
    expect(await ws.json<TokensJson>(['tokens', '--by', 'phase'])).toEqual(byAgent);

    const human = (await ws.ok(['tokens', '--by', 'phase'])).stdout.split('\n');
    expect(human[0]).toBe('Total: 1,101 in / 2,050 out / 300 cached');
    expect(human[1]).toBe('By phase:');
    // A table with a header, numbers right-aligned under it.
    expect(human[2]).toBe('  PHASE  INPUT  OUTPUT  CACHED');
    expect(human[3]).toBe('  plan     100      50       0');
    expect(human[4]).toBe('  code   1,000   2,000     300');
    const agents = (await ws.ok(['tokens', '--by', 'agent'])).stdout;
    expect(agents).toMatch(/^ {2}AGENT\s+INPUT\s+OUTPUT\s+CACHED$/m);
    expect(agents).toMatch(/^ {2}alice\s+101\s+50\s+0$/m);
    expectError(await ws.run(['tokens', '--by', 'colour']), 'BAD_INPUT');

    const log = (await ws.log()).filter((e) => e.type === 'tokens.recorded');
    expect(log.map((e) => e.data)).toEqual([
      { agent: 'alice', phaseId: 'plan', input: 100, output: 50, cached: 0 },
      { agent: 'bob', phaseId: 'code', input: 1000, output: 2000, cached: 300 },
      { agent: 'alice', phaseId: null, input: 1, output: 0, cached: 0 },
    ]);
  });

  it('budget: warning from 80% and critical from 95% on stderr, stdout unchanged', async () => {
    const ws = workspace();
    await ws.ok(['start', 'Budget', '--id', 'bd', '--budget', '1000']);
    const below = await ws.ok(['tokens', 'add', '--agent', 'a', '--input', '799']);
    expect(below.stdout).toMatch(/\nSession total: 799 in \/ 0 out \/ 0 cached\n$/);

    const warn = await ws.run(['tokens', 'add', '--agent', 'a', '--output', '1']);
    expect(warn.code).toBe(0);
    expect(warn.stdout).toMatch(
      /^Recorded 0 in \/ 1 out \/ 0 cached for .*\nSession total: 799 in \/ 1 out \/ 0 cached\n$/,
    );
    expect(warn.stderr).toBe('budget[warning]: 800 of 1,000 tokens used (80%).\n');

    const stillWarn = await ws.run(['tokens', 'add', '--agent', 'a', '--input', '149']);
    expect(stillWarn.stderr).toBe('budget[warning]: 949 of 1,000 tokens used (94.9%).\n');

    const crit = await ws.run(['tokens', 'add', '--agent', 'a', '--input', '1', '--json']);
    expect(crit.code).toBe(0);
    expect(crit.stderr).toBe('budget[critical]: 950 of 1,000 tokens used (95%).\n');
    expect(JSON.parse(crit.stdout)).toEqual({
      session: 'bd',
      revision: 5,
      status: 'active',
      recorded: { agent: 'a', phaseId: null, model: null, input: 1, output: 0, cached: 0 },
      tokens: {
        input: 949,
        output: 1,
        cached: 0,
        budget: { max: 1000, used: 950, percent: 95, level: 'critical' },
        cost: unpriced(950),
        costBudget: { maxUsd: null, usedUsd: 0, percent: null, level: 'none', complete: false },
      },
    });
    const s = await ws.status();
    expect(s.tokens.budget).toEqual({ max: 1000, used: 950, percent: 95, level: 'critical' });
    expect((await ws.ok(['status'])).stdout).toContain(
      'Tokens: 949 in / 1 out / 0 cached · budget 950/1,000 (95%) critical\n',
    );
  });
});

describe('decisions, findings, notes, milestones, artifacts, context', () => {
  it('records each and shows them in status --json', async () => {
    const ws = await withSession('rec', 'design');
    expect(
      (
        await ws.ok([
          'decision',
          'add',
          '--title',
          'Database',
          '--choice',
          'postgres',
          '--rationale',
          'multi-machine',
          '--alternative',
          'sqlite',
          '--alternative',
          'files',
          '--phase',
          'design',
          '--agent',
          'arch',
        ])
      ).stdout,
    ).toBe('dec-1\n');
    expect((await ws.ok(['finding', 'add', 'memory leak', '--severity', 'high'])).stdout).toBe('fnd-1\n');
    expect(await ws.json(['finding', 'add', 'typo'])).toEqual({
      session: 'rec',
      revision: 4,
      status: 'active',
      findingId: 'fnd-2',
    });
    expect((await ws.ok(['finding', 'remove', 'fnd-1'])).stdout).toBe('Removed fnd-1\n');
    expectError(await ws.run(['finding', 'remove', 'fnd-1']), 'NOT_FOUND');
    expect((await ws.ok(['note', 'add', 'remember the cache', '--phase', 'design'])).stdout).toBe('note-1\n');
    expect((await ws.ok(['milestone', 'add', 'Beta', '--target', '2030-01-31'])).stdout).toBe('ms-1\n');
    expect((await ws.ok(['milestone', 'done', 'Beta'])).stdout).toBe('Milestone Beta done\n');
    expectError(await ws.run(['milestone', 'done', 'ms-1']), 'INVALID_TRANSITION');
    expectError(await ws.run(['milestone', 'done', 'nope']), 'NOT_FOUND');
    expectError(await ws.run(['milestone', 'add', 'Bad', '--target', 'someday']), 'BAD_INPUT');
    expect(
      (await ws.ok(['artifact', 'add', 'docs/design.md', '--kind', 'design-doc', '--description', 'the design']))
        .stdout,
    ).toBe('art-1\n');
    expect((await ws.ok(['context', 'set', 'Design done; start with the cache.'])).stdout).toBe(
      'Context summary updated\n',
    );

    const s = await ws.status();
    expect(s.decisions).toEqual([
      expect.objectContaining({
        id: 'dec-1',
        title: 'Database',
        choice: 'postgres',
        rationale: 'multi-machine',
        alternatives: ['sqlite', 'files'],
        agent: 'arch',
        phaseId: 'design',
      }),
    ]);
    expect(s.findings).toEqual([expect.objectContaining({ id: 'fnd-2', text: 'typo', removed: false })]);
    expect(s.notes).toEqual([expect.objectContaining({ id: 'note-1', text: 'remember the cache', phaseId: 'design' })]);
    expect(s.milestones).toEqual([
      expect.objectContaining({ id: 'ms-1', title: 'Beta', targetDate: '2030-01-31', done: true }),
    ]);
    expect(s.artifacts).toEqual([
      expect.objectContaining({ id: 'art-1', path: 'docs/design.md', kind: 'design-doc', description: 'the design' }),
    ]);
    expect(s.contextSummary).toBe('Design done; start with the cache.');
    expect((await ws.ok(['status'])).stdout).toContain('Open findings: 1');
  });
});

describe('log', () => {
  it('log shows every event; log --since N --json only the later ones', async () => {
    const ws = await withSession('lg', 'a');
    await ws.ok(['phase', 'start', 'a', '--agent', 'w1']);
    await ws.ok(['note', 'add', 'n1']);
    await ws.ok(['tokens', 'add', '--agent', 'w2', '--input', '5']);
    await ws.ok(['phase', 'complete', 'a']);

    const all = await ws.log();
    expect(all.map((e) => [e.seq, e.type])).toEqual([
      [1, 'session.created'],
      [2, 'phase.started'],
      [3, 'note.added'],
      [4, 'tokens.recorded'],
      [5, 'phase.completed'],
      [6, 'checkpoint.created'],
    ]);
    for (const e of all) {
      expect(new Date(e.time).toISOString()).toBe(e.time);
      expect(typeof e.actor.pid).toBe('number');
    }
    expect(all[1]!.actor.agent).toBe('w1');
    expect(all[3]!.actor.agent).toBe('w2');

    const since = await ws.json<EventJson[]>(['log', '--since', '3']);
    expect(since.map((e) => e.seq)).toEqual([4, 5, 6]);
    expect(since).toEqual(all.slice(3));
    expect(await ws.json<EventJson[]>(['log', '--since', '6'])).toEqual([]);

    const human = (await ws.ok(['log'])).stdout.split('\n');
    expect(human).toHaveLength(7);
    // Times in local time for people (log.test.ts checks the zone).
    expect(human[0]).toMatch(/^ {4}#1 \d{4}-\d\d-\d\d \d\d:\d\d:\d\d .*session\.created\s+"Session lg"$/);
    // Recorded on the phase in progress (tokens add defaults to it, as file does).
    expect(human[3]).toMatch(
      /^ {4}#4 \d{4}-\d\d-\d\d \d\d:\d\d:\d\d w2\s+tokens\.recorded\s+w2 \+5 in \+0 out \+0 cached \[a\]$/,
    );
    expect((await ws.ok(['log', '--since', '4'])).stdout.split('\n').filter(Boolean)).toHaveLength(2);
    expectError(await ws.run(['log', '--since', 'x']), 'BAD_INPUT');
  });

  it('--if-revision applies a change only at that revision, else CONFLICT (4)', async () => {
    const ws = await withSession('cas');
    const s: StatusJson = await ws.status();
    expect(s.revision).toBe(1);
    await ws.ok(['context', 'set', 'first', '--if-revision', '1']);
    const c = expectError(await ws.run(['context', 'set', 'second', '--if-revision', '1']), 'CONFLICT');
    expect(c.message).toBe('Session cas is at revision 2, not 1.');
    expect((await ws.status()).contextSummary).toBe('first');
  });
});
