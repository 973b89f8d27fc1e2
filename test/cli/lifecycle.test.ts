import fs from 'node:fs';
import { describe, expect, it } from 'vitest';
import { expectError, utcDate, workspace, withSession } from './helpers.js';
import type { ListRow, StatusJson } from './helpers.js';

describe('baton init and start', () => {
  it('init creates the store once; start creates a dated session with --phases', async () => {
    const ws = workspace();
    const init = await ws.ok(['init']);
    expect(init.stdout).toBe(`Created store at ${ws.store} (private: it ignores itself in git)\n`);
    expect(fs.statSync(ws.store).isDirectory()).toBe(true);
    expect(fs.statSync(ws.store).mode & 0o777).toBe(0o700);
    expect((await ws.ok(['init'])).stdout).toBe(`Store already present at ${ws.store}\n`);
    expect(await ws.json(['init'])).toEqual({ store: ws.store, created: false, shared: false });

    const before = utcDate();
    const start = await ws.ok(['start', 'My Work', '--phases', 'Design, Build,Test', '--budget', '1000']);
    const id = start.stdout.replace(/^Started (\S+) with 3 phase\(s\)\n$/, '$1');
    expect([`${before}-my-work`, `${utcDate()}-my-work`]).toContain(id);

    const s = await ws.status();
    expect(s.id).toBe(id);
    expect(s.title).toBe('My Work');
    expect(s.status).toBe('active');
    expect(s.revision).toBe(1);
    expect(s.phases.map((p) => [p.id, p.name, p.status, p.retryCount, p.subStep])).toEqual([
      ['design', 'Design', 'pending', 0, null],
      ['build', 'Build', 'pending', 0, null],
      ['test', 'Test', 'pending', 0, null],
    ]);
    expect(s.tokens).toEqual({
      input: 0,
      output: 0,
      cached: 0,
      byAgent: {},
      byPhase: {},
      budget: { max: 1000, used: 0, percent: 0, level: 'ok' },
      cost: {
        total: { usd: 0, pricedUsd: 0, unpriced: { tokens: 0, models: [] } },
        byAgent: {},
        byPhase: {},
        byModel: {},
        budget: { maxUsd: null, usedUsd: 0, percent: null, level: 'none', complete: true },
      },
    });
    const mode = fs.statSync(ws.path('.baton', 'sessions', id, 'journal.jsonl')).mode & 0o777;
    expect(mode).toBe(0o600);
  });

  it('start needs no init, prints the status view with --json, and refuses a duplicate id', async () => {
    const ws = workspace();
    const view = await ws.json<StatusJson>(['start', 'First', '--id', 'first']);
    expect(view).toMatchObject({ id: 'first', title: 'First', status: 'active', revision: 1, phases: [] });
    expectError(await ws.run(['start', 'Again', '--id', 'first', '--switch']), 'EXISTS');
  });

  it('start --plan FILE.json keeps ids, names, blockedBy, agents and maxRetries', async () => {
    const ws = workspace();
    ws.write(
      'plan.json',
      JSON.stringify({
        title: 'ignored',
        budget: 5000,
        phases: [
          { id: 'design', name: 'Design', agents: ['architect'] },
          { id: 'build', name: 'Build', blockedBy: ['design'], maxRetries: 1 },
          { id: 'test', name: 'Test', blocked_by: ['build', 'design'] },
          'Write docs',
        ],
      }),
    );
    const r = await ws.ok(['start', 'Planned', '--id', 'planned', '--plan', 'plan.json']);
    expect(r.stdout).toBe('Started planned with 4 phase(s)\n');
    const s = await ws.status();
    expect(
      s.phases.map((p) => ({
        id: p.id,
        name: p.name,
        blockedBy: p.blockedBy,
        maxRetries: p.maxRetries,
        agents: p.agents,
      })),
    ).toEqual([
      { id: 'design', name: 'Design', blockedBy: [], maxRetries: 2, agents: ['architect'] },
      { id: 'build', name: 'Build', blockedBy: ['design'], maxRetries: 1, agents: [] },
      { id: 'test', name: 'Test', blockedBy: ['build', 'design'], maxRetries: 2, agents: [] },
      { id: 'write-docs', name: 'Write docs', blockedBy: [], maxRetries: 2, agents: [] },
    ]);
    expect(s.tokens.budget.max).toBe(5000);
    expectError(await ws.run(['phase', 'start', 'build']), 'BLOCKED');
  });

  it('start --plan sets the budgets a plan gives (cost, policy, per agent and phase); --budget overrides its tokens', async () => {
    const ws = workspace();
    ws.write(
      'plan.yaml',
      [
        'budget: {tokens: 60000, cost: 5, onExceed: stop, agents: {reviewer: {tokens: 8000, onExceed: ask}}}',
        'phases:',
        '  - {id: build, name: Build, budget: {tokens: 20000, onExceed: stop}}',
        '  - {id: test, name: Test, blockedBy: [build]}',
        '',
      ].join('\n'),
    );
    await ws.ok(['start', 'Budgeted', '--id', 'bud', '--plan', 'plan.yaml', '--budget', '70000']);
    const b = await ws.json<{ policies: unknown }>(['budget']);
    expect(b.policies).toEqual({
      session: { tokens: 70000, usd: 5, onExceed: 'stop' },
      phases: { build: { tokens: 20000, usd: null, onExceed: 'stop' } },
      agents: { reviewer: { tokens: 8000, usd: null, onExceed: 'ask' } },
    });
    expect((await ws.ok(['budget'])).stdout).toContain('Phase build: 20,000 tokens, on exceed: stop\n');
    // A bad value: refused naming the field and the values allowed; the active session is left as it was.
    ws.write('bad.yaml', 'budget: {tokens: 5000, onExceed: halt}\nphases: [a]\n');
    const e = expectError(await ws.run(['start', 'Bad', '--id', 'bad', '--plan', 'bad.yaml', '--switch']), 'BAD_INPUT');
    expect(e.message).toBe('Plan bad.yaml is not valid: budget.onExceed: must be warn, ask or stop; got "halt".');
    expect(e.hint).toContain('onExceed warn, ask or stop');
    expect((await ws.status()).id).toBe('bud');
  });

  it('start --plan FILE.yaml reads a YAML plan with blockedBy', async () => {
    const ws = workspace();
    ws.write(
      'plan.yaml',
      [
        'phases:',
        '  - id: design',
        '    name: Design',
        '  - id: build',
        '    name: Build',
        '    blockedBy: [design]',
        '',
      ].join('\n'),
    );
    expect((await ws.ok(['start', 'Yaml', '--id', 'yaml', '--plan', 'plan.yaml'])).stdout).toBe(
      'Started yaml with 2 phase(s)\n',
    );
    const s = await ws.status();
    expect(s.phases.map((p) => [p.id, p.name, p.blockedBy])).toEqual([
      ['design', 'Design', []],
      ['build', 'Build', ['design']],
    ]);
  });

  it('--id-format uuid, bmad and wfs, and an explicit --id', async () => {
    const ws = workspace();
    const uuid = (await ws.ok(['start', 'Go team', '--id-format', 'uuid'])).stdout;
    expect(uuid).toMatch(/^Started session-[0-9a-f]{8}\n$/);
    const ym = utcDate().slice(0, 7).replace('-', '');
    const bmad = (
      await ws.ok([
        'start',
        'Web',
        '--id-format',
        'bmad',
        '--bmad-client',
        'acme',
        '--bmad-project',
        'web shop',
        '--switch',
      ])
    ).stdout;
    expect(bmad).toBe(`Started SES${ym}-ACME-WEBSHOP\n`);
    const eng = (
      await ws.ok(['start', 'Eng', '--id-format', 'bmad', '--bmad-prefix', 'eng', '--bmad-client', 'c', '--switch'])
    ).stdout;
    expect(eng).toBe(`Started ENG${ym}-C-ENG\n`);
    expect((await ws.ok(['start', 'Fix the Login!', '--id-format', 'wfs', '--switch'])).stdout).toBe(
      'Started WFS-fix-the-login\n',
    );
    expect((await ws.ok(['start', 'Explicit', '--id', 'My_Id.2', '--switch'])).stdout).toBe('Started My_Id.2\n');
    const rows = await ws.json<ListRow[]>(['list']);
    expect(rows.map((r) => r.id).sort()).toEqual(
      [`ENG${ym}-C-ENG`, 'My_Id.2', `SES${ym}-ACME-WEBSHOP`, 'WFS-fix-the-login', uuid.slice(8, -1)].sort(),
    );
    expectError(await ws.run(['start', 'X', '--id-format', 'nope', '--switch']), 'BAD_INPUT');
    expectError(await ws.run(['start', 'X', '--id-format', 'bmad', '--bmad-prefix', 'XXX', '--switch']), 'BAD_INPUT');
  });

  it('start while another session is active → ACTIVE_EXISTS (12); --switch pauses it', async () => {
    const ws = await withSession('one');
    const refused = expectError(await ws.run(['start', 'Two', '--id', 'two']), 'ACTIVE_EXISTS');
    expect(refused.message).toBe('Session one ("Session one") is active.');
    expect(refused.hint).toContain('--switch');
    expect((await ws.json<ListRow[]>(['list'])).map((r) => r.id)).toEqual(['one']);

    expect((await ws.ok(['start', 'Two', '--id', 'two', '--switch'])).stdout).toBe('Started two\n');
    const one = await ws.status('one');
    expect(one.status).toBe('paused');
    expect(one.cause).toMatchObject({ cause: 'switched', detail: 'switched to two' });
    expect((await ws.status()).id).toBe('two');
  });
});

describe('session lifecycle', () => {
  it('list, list --json, --status, --all; switch, pause, resume, complete, fail, abandon, archive', async () => {
    const ws = workspace();
    await ws.ok(['start', 'Alpha', '--id', 'alpha', '--phases', 'a,b']);
    await ws.ok(['start', 'Beta', '--id', 'beta', '--switch']);
    await ws.ok(['start', 'Gamma', '--id', 'gamma', '--switch']);

    const human = (await ws.ok(['list'])).stdout.split('\n');
    expect(human).toHaveLength(5);
    expect(human[4]).toBe('');
    expect(human[0]).toMatch(/^ {2}ID\s+STATUS\s+PHASES\s+UPDATED\s+TITLE$/);
    expect(human[1]).toMatch(/^\* gamma\s+active\s+-\s+\d+s ago\s+Gamma$/);
    expect(human.find((l) => l.includes('alpha'))).toMatch(
      /^ {2}alpha\s+paused\s+0\/2\s+\d+s ago\s+Alpha \(switched\)$/,
    );

    let rows = await ws.json<ListRow[]>(['list']);
    expect(rows.map((r) => [r.id, r.status, r.archived])).toEqual([
      ['gamma', 'active', false],
      ['beta', 'paused', false],
      ['alpha', 'paused', false],
    ]);
    expect(rows.find((r) => r.id === 'alpha')).toMatchObject({
      title: 'Alpha',
      phasesTotal: 2,
      phasesDone: 0,
      revision: 2,
    });

    // switch: the target becomes active, the current one is paused.
    expect((await ws.ok(['switch', 'alpha'])).stdout).toBe('Switched to alpha\n');
    expect((await ws.status()).id).toBe('alpha');
    expect((await ws.status('gamma')).status).toBe('paused');

    expect((await ws.ok(['pause'])).stdout).toBe('Paused alpha\n');
    expect((await ws.status('alpha')).status).toBe('paused');
    expectError(await ws.run(['pause']), 'INVALID_TRANSITION');
    // `resume` alone only shows the plan; --apply resumes (and fences off the old run's
    // writers: a lease is taken over and released, two events).
    expect((await ws.ok(['resume'])).stdout).toContain('Resume plan');
    expect((await ws.status('alpha')).status).toBe('paused');
    expect((await ws.ok(['resume', '--apply'])).stdout).toBe('Resumed alpha from live; it is active.\n');
    expect((await ws.status()).status).toBe('active');
    // Applying it again is not an error: it is active, there is nothing to do (issue 15, bug 2).
    expect((await ws.ok(['resume', '--apply'])).stdout).toBe(
      'Session alpha is already active: nothing to resume; go on working in it.\n',
    );

    expect(await ws.json(['complete', '--force'])).toEqual({ session: 'alpha', revision: 8, status: 'completed' });
    // A finished session stops being the active one: a change needs a session named, while
    // `status` shows the one just finished, saying that none is active (issue 25).
    expectError(await ws.run(['note', 'add', 'x']), 'NO_ACTIVE_SESSION');
    expect((await ws.ok(['status'])).stdout).toContain('No session is active: alpha has completed.');

    expect((await ws.ok(['fail', '--session', 'beta', '--reason', 'broke'])).stdout).toBe('Failed beta\n');
    expect((await ws.status('beta')).cause).toMatchObject({ detail: 'broke' });
    // A failed session can be reopened (failed → active), which pauses the active one.
    expect((await ws.ok(['resume', 'beta', '--apply'])).stdout).toBe('Resumed beta from live; it is active.\n');
    expect((await ws.status('beta')).status).toBe('active');
    expect((await ws.ok(['fail', '--session', 'beta'])).stdout).toBe('Failed beta\n');
    expect((await ws.ok(['abandon', '--session', 'beta'])).stdout).toBe('Abandoned beta\n');
    expectError(await ws.run(['resume', 'beta', '--apply']), 'INVALID_TRANSITION');

    rows = await ws.json<ListRow[]>(['list', '--status', 'paused']);
    expect(rows.map((r) => r.id)).toEqual(['gamma']);
    expect((await ws.json<ListRow[]>(['list', '--status', 'abandoned'])).map((r) => r.id)).toEqual(['beta']);
    expect((await ws.json<ListRow[]>(['list', '--status', 'completed'])).map((r) => r.id)).toEqual(['alpha']);
    expect((await ws.ok(['list', '--status', 'failed'])).stdout).toBe('No sessions.\n');

    expect((await ws.ok(['archive', 'alpha'])).stdout).toBe('Archived alpha\n');
    expect(fs.existsSync(ws.path('.baton', 'archive', 'alpha'))).toBe(true);
    expect((await ws.json<ListRow[]>(['list'])).map((r) => r.id)).toEqual(['gamma', 'beta']);
    const all = await ws.json<ListRow[]>(['list', '--all']);
    expect(all.map((r) => [r.id, r.archived])).toEqual([
      ['gamma', false],
      ['beta', false],
      ['alpha', true],
    ]);
    expect((await ws.ok(['list', '--all'])).stdout).toMatch(/alpha\s+completed archived/);
    const archived = await ws.status('alpha');
    expect(archived).toMatchObject({ status: 'completed', archived: true });
    expectError(await ws.run(['note', 'add', 'late', '--session', 'alpha']), 'INVALID_TRANSITION');
    expectError(await ws.run(['archive', 'alpha']), 'INVALID_TRANSITION');

    // The archived session's events are still readable.
    const log = await ws.log('alpha');
    expect(log.map((e) => e.type)).toEqual([
      'session.created',
      'session.paused',
      'session.resumed',
      'session.paused',
      // resume --apply: reopen, then take the lease over and release it (fences the old run)
      'session.resumed',
      'lease.acquired',
      'lease.released',
      'session.completed',
      'session.archived',
    ]);
  });

  it('archive refuses an active session', async () => {
    const ws = await withSession('live');
    expectError(await ws.run(['archive']), 'INVALID_TRANSITION');
    await ws.ok(['pause']);
    expect((await ws.ok(['archive'])).stdout).toBe('Archived live\n');
  });
});

describe('which session a command acts on', () => {
  it('--session beats BATON_SESSION beats the active pointer', async () => {
    const ws = workspace();
    await ws.ok(['start', 'A', '--id', 'a']);
    await ws.ok(['start', 'B', '--id', 'b', '--switch']);
    await ws.ok(['start', 'C', '--id', 'c', '--switch']);
    const title = async (args: string[], env?: Record<string, string>): Promise<string> =>
      (await ws.json<StatusJson>(['status', ...args], env ? { env } : {})).id;
    expect(await title([])).toBe('c');
    expect(await title([], { BATON_SESSION: 'b' })).toBe('b');
    expect(await title(['--session', 'a'], { BATON_SESSION: 'b' })).toBe('a');
    expect(await title(['--session', 'a'])).toBe('a');

    // Changes follow the same rule.
    await ws.ok(['note', 'add', 'to-b'], { env: { BATON_SESSION: 'b' } });
    await ws.ok(['note', 'add', 'to-a', '--session', 'a'], { env: { BATON_SESSION: 'b' } });
    await ws.ok(['note', 'add', 'to-c']);
    expect((await ws.status('a')).notes.map((n) => n['text'])).toEqual(['to-a']);
    expect((await ws.status('b')).notes.map((n) => n['text'])).toEqual(['to-b']);
    expect((await ws.status('c')).notes.map((n) => n['text'])).toEqual(['to-c']);

    const unknown = expectError(await ws.run(['status'], { env: { BATON_SESSION: 'zzz' } }), 'NOT_FOUND');
    expect(unknown.message).toContain('zzz');
  });

  it('finds .baton walking up from a subdirectory, and honours --dir and BATON_DIR', async () => {
    const ws = workspace();
    await ws.ok(['init']);
    fs.mkdirSync(ws.path('a', 'b'), { recursive: true });
    await ws.ok(['start', 'Deep', '--id', 'deep'], { cwd: ws.path('a', 'b') });
    expect(fs.existsSync(ws.path('a', 'b', '.baton'))).toBe(false);
    expect((await ws.status()).id).toBe('deep');

    await ws.ok(['start', 'Other', '--id', 'other', '--dir', 'elsewhere']);
    expect(fs.existsSync(ws.path('elsewhere', 'sessions', 'other'))).toBe(true);
    expect((await ws.json<ListRow[]>(['list', '--dir', 'elsewhere'])).map((r) => r.id)).toEqual(['other']);
    expect((await ws.json<ListRow[]>(['list'], { env: { BATON_DIR: ws.path('elsewhere') } })).map((r) => r.id)).toEqual(
      ['other'],
    );
    expect((await ws.json<ListRow[]>(['list'])).map((r) => r.id)).toEqual(['deep']);
  });

  it('without an active session: NO_ACTIVE_SESSION (11) and the hint lists the candidates', async () => {
    const ws = workspace();
    await ws.ok(['init']);
    const none = expectError(await ws.run(['status']), 'NO_ACTIVE_SESSION');
    expect(none.hint).toContain('baton start');
    await ws.ok(['start', 'P', '--id', 'p1']);
    await ws.ok(['start', 'Q', '--id', 'q1', '--switch']);
    await ws.ok(['pause']);
    await ws.ok(['start', 'R', '--id', 'r1', '--switch']);
    await ws.ok(['complete']);
    const e = expectError(await ws.run(['note', 'add', 'x']), 'NO_ACTIVE_SESSION');
    expect(e.message).toBe('No active session.');
    expect(e.hint).toContain('p1');
    expect(e.hint).toContain('q1');
    expect(e.hint).not.toContain('r1');
  });
});
