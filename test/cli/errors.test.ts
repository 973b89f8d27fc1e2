import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { expectError, expectJsonError, withSession, workspace } from './helpers.js';
import type { RunOptions, Workspace } from './helpers.js';

/** Runs `args` twice, plain and with --json, and checks both error contracts. Returns the JSON error. */
async function refused(
  ws: Workspace,
  args: string[],
  code: Parameters<typeof expectError>[1],
  o: RunOptions = {},
): Promise<{ message: string; hint: string | null }> {
  const [plain, json] = await Promise.all([ws.run(args, o), ws.run([...args, '--json'], o)]);
  const human = expectError(plain, code);
  const data = expectJsonError(json, code);
  expect(data.message.split('\n')[0]).toBe(human.message);
  expect(data.hint).toBe(human.hint);
  return data;
}

describe('unknown session and phase', () => {
  it('unknown session → NOT_FOUND (3)', async () => {
    const ws = await withSession('known', 'a');
    const e = await refused(ws, ['status', '--session', 'missing'], 'NOT_FOUND');
    expect(e.message).toBe('No session "missing".');
    await refused(ws, ['note', 'add', 'x', '--session', 'missing'], 'NOT_FOUND');
    await refused(ws, ['switch', 'missing'], 'NOT_FOUND');
    await refused(ws, ['log', '--session', 'missing'], 'NOT_FOUND');
  });

  it('unknown phase → NOT_FOUND listing the phases', async () => {
    const ws = await withSession('ph', 'design,build');
    const e = await refused(ws, ['phase', 'start', 'deploy'], 'NOT_FOUND');
    expect(e.message).toBe('Session ph has no phase "deploy".');
    expect(e.hint).toBe('Phases: design, build.');
    await refused(ws, ['substep', 'deploy', 'x'], 'NOT_FOUND');
    await refused(ws, ['tokens', 'add', '--agent', 'a', '--input', '1', '--phase', 'deploy'], 'NOT_FOUND');
    await refused(ws, ['file', 'created', 'x.txt', '--phase', 'deploy'], 'NOT_FOUND');
    // Nothing was written.
    expect((await ws.status()).revision).toBe(1);
  });
});

describe('illegal transitions', () => {
  it('INVALID_TRANSITION (5), BLOCKED (7), RETRIES_EXHAUSTED (6); nothing reaches the journal', async () => {
    const ws = workspace();
    ws.write(
      'plan.json',
      JSON.stringify({
        phases: [
          { id: 'a', name: 'A', maxRetries: 0 },
          { id: 'b', name: 'B', blockedBy: ['a'] },
        ],
      }),
    );
    await ws.ok(['start', 'T', '--id', 't', '--plan', 'plan.json']);
    const done = await refused(ws, ['phase', 'complete', 'a'], 'INVALID_TRANSITION');
    expect(done.message).toBe('Phase a is pending; it cannot be completed.');
    expect(done.hint).toBe('From pending a phase may: start, skip.');
    await refused(ws, ['phase', 'fail', 'a'], 'INVALID_TRANSITION');
    await refused(ws, ['phase', 'retry', 'a'], 'INVALID_TRANSITION');
    await refused(ws, ['substep', 'a', 'x'], 'INVALID_TRANSITION');
    const blocked = await refused(ws, ['phase', 'start', 'b'], 'BLOCKED');
    expect(blocked.message).toBe('Phase b is blocked by a, not yet completed or skipped.');
    await ws.ok(['phase', 'start', 'a']);
    await refused(ws, ['phase', 'start', 'a'], 'INVALID_TRANSITION');
    await refused(ws, ['phase', 'skip', 'a'], 'INVALID_TRANSITION');
    await ws.ok(['phase', 'fail', 'a']);
    const ex = await refused(ws, ['phase', 'retry', 'a'], 'RETRIES_EXHAUSTED');
    expect(ex.message).toBe('Phase a has used 0 of 0 retries.');
    await ws.ok(['pause']);
    const paused = await refused(ws, ['phase', 'start', 'b', '--force'], 'INVALID_TRANSITION');
    expect(paused.message).toBe('Session t is paused; phases can only be started in an active session.');
    await refused(ws, ['pause'], 'INVALID_TRANSITION');
    // Completing with unfinished phases is refused, naming them; --force records them (issue 15, bug 5).
    const unfinished = await refused(ws, ['complete'], 'BLOCKED');
    expect(unfinished.message).toBe('Session t has unfinished phases: a (failed), b (pending).');
    expect((await ws.ok(['complete', '--force'])).stdout).toBe('Completed t (left unfinished: a, b)\n');
    const final = await refused(ws, ['note', 'add', 'late', '--session', 't'], 'INVALID_TRANSITION');
    expect(final.message).toBe('Session t is completed and takes no more changes.');
    await refused(ws, ['resume', 't', '--apply'], 'INVALID_TRANSITION');
    const s = await ws.status('t');
    expect(s.revision).toBe(5);
    expect((await ws.log('t')).map((e) => e.seq)).toEqual([1, 2, 3, 4, 5]);
  });
});

describe('no active session and no store', () => {
  it('NO_ACTIVE_SESSION (11) lists the candidates in the hint and in --json', async () => {
    const ws = workspace();
    await ws.ok(['start', 'One', '--id', 'one']);
    await ws.ok(['start', 'Two', '--id', 'two', '--switch']);
    await ws.ok(['complete']);
    // `status` shows the session just finished (see cli.md); a change needs a session named.
    const e = await refused(ws, ['note', 'add', 'x'], 'NO_ACTIVE_SESSION');
    expect(e.hint).toBe('Pass --session with one of: one (or `baton switch <id>`).');
    const r = JSON.parse((await ws.run(['note', 'add', 'x', '--json'])).stdout) as {
      error: { details: { candidates: string[] } };
    };
    expect(r.error.details.candidates).toEqual(['one']);
  });

  it('NO_STORE (14) when there is no .baton for a read command', async () => {
    const ws = workspace();
    const nowhere = ws.path('no-such-store');
    for (const args of [['status'], ['list'], ['log'], ['tokens'], ['note', 'add', 'x']]) {
      const e = await refused(ws, args, 'NO_STORE', { env: { BATON_DIR: nowhere } });
      expect(e.message).toBe(`No baton store at ${nowhere}.`);
      // Found by walking up: only checked when no parent of the temp dir has a .baton of its own.
      if (!hasStoreAbove(ws.dir)) {
        const r = await ws.run(args);
        if (!hasStoreAbove(ws.dir))
          expect(expectError(r, 'NO_STORE').message).toBe(`No .baton directory in ${ws.dir} or any parent.`);
      }
    }
    expect(fs.existsSync(ws.store)).toBe(false);
    expect(fs.existsSync(nowhere)).toBe(false);
  });
});

function hasStoreAbove(dir: string): boolean {
  for (let d = path.dirname(dir); ; d = path.dirname(d)) {
    if (fs.existsSync(path.join(d, '.baton'))) return true;
    if (path.dirname(d) === d) return false;
  }
}

const LONG = 'x'.repeat(2000);

describe('malformed ids', () => {
  it.each([
    { label: '../x', id: '../x', message: 'The session id "../x" is not valid.' },
    { label: 'empty', id: '', message: 'The session id is empty.' },
    {
      label: '2,000 characters',
      id: LONG,
      message: 'The session id is 2000 characters long; at most 128 are allowed.',
    },
    { label: 'a/b', id: 'a/b', message: 'The session id "a/b" is not valid.' },
    { label: '-rf', id: '-rf', message: 'The session id "-rf" is not valid.' },
    { label: '.hidden', id: '.hidden', message: 'The session id ".hidden" is not valid.' },
  ])('start --id $label → BAD_INPUT (2)', async ({ id, message }) => {
    const ws = workspace();
    await ws.ok(['init']);
    const e = await refused(ws, ['start', 'T', `--id=${id}`], 'BAD_INPUT');
    expect(e.message).toBe(message);
    expect(fs.readdirSync(ws.path('.baton', 'sessions'))).toEqual([]);
  });

  it.each([
    { label: '../x', id: '../x' },
    { label: '2,000 characters', id: LONG },
  ])('--session $label → BAD_INPUT', async ({ id }) => {
    const ws = await withSession('ok');
    await refused(ws, ['status', `--session=${id}`], 'BAD_INPUT');
    await refused(ws, ['note', 'add', 'x', `--session=${id}`], 'BAD_INPUT');
    await refused(ws, ['switch', id], 'BAD_INPUT');
    await refused(ws, ['archive', id], 'BAD_INPUT');
    expect((await ws.status('ok')).revision).toBe(1);
  });

  it('an empty session id → BAD_INPUT for switch', async () => {
    const ws = await withSession('ok');
    await refused(ws, ['switch', ''], 'BAD_INPUT');
  });

  it('an empty --session or id argument → BAD_INPUT, never the active session', async () => {
    const ws = await withSession('ok');
    const before = (await ws.status('ok')).revision;
    await refused(ws, ['note', 'add', 'x', '--session', ''], 'BAD_INPUT');
    await refused(ws, ['status', '--session='], 'BAD_INPUT');
    await refused(ws, ['archive', ''], 'BAD_INPUT');
    await refused(ws, ['resume', ''], 'BAD_INPUT');
    expect((await ws.status('ok')).revision).toBe(before);
  });

  it('a malformed BATON_SESSION → BAD_INPUT', async () => {
    const ws = await withSession('ok');
    expectError(await ws.run(['status'], { env: { BATON_SESSION: '../../etc' } }), 'BAD_INPUT');
  });
});

describe('malformed plan files', () => {
  const cases: Array<[string, string, string, boolean]> = [
    // [case, file name, content, (unused)]
    ['bad JSON', 'plan.json', '{"phases": [', true],
    ['bad YAML', 'plan.yaml', 'phases:\n  - id: a\n   name: [x\n', true],
    ['no phases', 'plan.json', '{"phases": []}', true],
    ['a phase without a name', 'plan.json', '{"phases": [{"id": "a"}]}', true],
    [
      'a cycle',
      'plan.json',
      JSON.stringify({
        phases: [
          { id: 'a', name: 'A', blockedBy: ['b'] },
          { id: 'b', name: 'B', blockedBy: ['a'] },
        ],
      }),
      false,
    ],
    ['an unknown blocker', 'plan.json', JSON.stringify({ phases: [{ id: 'a', name: 'A', blockedBy: ['zz'] }] }), false],
    [
      'duplicate ids',
      'plan.json',
      JSON.stringify({
        phases: [
          { id: 'a', name: 'A' },
          { id: 'a', name: 'B' },
        ],
      }),
      false,
    ],
    ['a malformed phase id', 'plan.json', JSON.stringify({ phases: [{ id: '../a', name: 'A' }] }), false],
  ];
  it.each(cases)('%s → BAD_INPUT naming the file', async (_case, file, content) => {
    const ws = workspace();
    await ws.ok(['init']);
    ws.write(file, content);
    const e = await refused(ws, ['start', 'T', '--id', 't', '--plan', file], 'BAD_INPUT');
    expect(e.message).toContain(file);
    expect(fs.readdirSync(ws.path('.baton', 'sessions'))).toEqual([]);
  });

  it('a missing plan file → BAD_INPUT naming it; --phases with --plan → BAD_INPUT', async () => {
    const ws = workspace();
    const e = await refused(ws, ['start', 'T', '--plan', 'missing.json'], 'BAD_INPUT');
    expect(e.message).toContain('missing.json');
    ws.write('p.json', '{"phases": ["a"]}');
    await refused(ws, ['start', 'T', '--plan', 'p.json', '--phases', 'a,b'], 'BAD_INPUT');
    await refused(ws, ['start', 'T', '--phases', ' , '], 'BAD_INPUT');
    await refused(ws, ['start', 'T', '--phases', 'a,a'], 'BAD_INPUT');
  });
});

describe('bad numbers and options', () => {
  it.each([['-1'], ['abc'], ['1.5'], ['1e3'], ['0x10'], ['99999999999999999999'], ['']])(
    'tokens add --input %j → BAD_INPUT',
    async (value) => {
      const ws = await withSession('num');
      await refused(ws, ['tokens', 'add', '--agent', 'a', `--input=${value}`], 'BAD_INPUT');
      expect((await ws.status()).tokens.input).toBe(0);
      expect((await ws.status()).revision).toBe(1);
    },
  );

  it('negative or non-numeric --output/--cached, a missing agent, and bad budgets → BAD_INPUT', async () => {
    const ws = await withSession('num2');
    await refused(ws, ['tokens', 'add', '--agent', 'a', '--output=-5'], 'BAD_INPUT');
    await refused(ws, ['tokens', 'add', '--agent', 'a', '--cached', 'lots'], 'BAD_INPUT');
    const noAgent = await refused(ws, ['tokens', 'add', '--input', '1'], 'BAD_INPUT');
    expect(noAgent.hint).toContain('--agent');
    await refused(ws, ['budget', 'set', '0'], 'BAD_INPUT');
    await refused(ws, ['budget', 'set', '-10'], 'BAD_INPUT');
    await refused(ws, ['start', 'B', '--id', 'b2', '--budget', 'many', '--switch'], 'BAD_INPUT');
    await refused(ws, ['log', '--since', '-1'], 'BAD_INPUT');
    await refused(ws, ['list', '--status', 'running'], 'BAD_INPUT');
    expect((await ws.status('num2')).revision).toBe(1);
  });

  it('unknown command, unknown option, missing argument → BAD_INPUT', async () => {
    const ws = await withSession('cmd');
    const cmd = await refused(ws, ['frobnicate'], 'BAD_INPUT');
    expect(cmd.message).toContain("'frobnicate'");
    const opt = await refused(ws, ['status', '--frobnicate'], 'BAD_INPUT');
    expect(opt.message).toContain("'--frobnicate'");
    await refused(ws, ['phase', 'start'], 'BAD_INPUT');
    await refused(ws, ['phase', 'launch', 'a'], 'BAD_INPUT');
    await refused(ws, ['error', 'add', '--phase', 'a'], 'BAD_INPUT');
  });
});
