/**
 * The dashboard's views in Chromium (file store): the session page's tabs show one section at
 * a time; the event log reads as sentences with the raw JSON behind a toggle; the token chart's
 * axes start at zero, its legend shows values (never "--") and the cost budget is a line; the
 * sessions list has cost, workspace and holder columns and shows archived sessions on demand;
 * money reads as `baton status` prints it; "flagged below" appears only over a flagged row; the
 * overview lists the durable steps.
 */
import { execFileSync, spawn } from 'node:child_process';
import type { ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { needBuiltCli } from '../cli/helpers.js';
import { HAVE_BROWSER, launch } from './browser.js';
import { scriptedWorkflow, serve } from './fixture.js';
import type { StoreWorkspace } from './fixture.js';

type Served = Awaited<ReturnType<typeof serve>>;

describe.skipIf(!HAVE_BROWSER)('the dashboard views in Chromium', () => {
  let w: StoreWorkspace;
  let s: Served;
  let browser: BrowserContext;
  let page: Page;
  const problems: string[] = [];
  const workers: ChildProcess[] = [];
  const base = (): string => s.url.split('?')[0]!;

  beforeAll(async () => {
    needBuiltCli();
    w = await scriptedWorkflow({ name: 'file', url: undefined, schema: null });
    // A session whose cost is $1.0009 (333,633 input tokens at $3 per million): the CLI prints $1.00.
    await w.ok(['start', 'Costly', '--id', 'money', '--phases', 'one', '--switch']);
    await w.ok(['budget', 'set', '--cost', '2']);
    await w.ok([
      'tokens',
      'add',
      '--agent',
      'eve',
      '--input',
      '333633',
      '--output',
      '0',
      '--model',
      'claude-sonnet-4-5',
    ]);
    // An archived session.
    await w.ok(['start', 'Old and archived', '--id', 'attic', '--switch']);
    await w.ok(['complete']);
    await w.ok(['archive', 'attic']);
    // Runs: in 'crew' one worker lives (a sleeping process) and one died (its process killed);
    // in 'lost' the only worker died with its phase in flight.
    const m = w.manager();
    await w.ok(['start', 'Crew', '--id', 'crew', '--phases', 'api,ui', '--switch']);
    await w.ok(['start', 'Lost', '--id', 'lost', '--phases', 'one', '--switch']);
    const run = async (id: string, agent: string, phase: string): Promise<ChildProcess> => {
      const p = spawn('sleep', ['600']);
      workers.push(p);
      const r = (
        await m.runs.start(id, {
          kind: 'conversation',
          ttlMs: null,
          pid: p.pid!,
          agent,
          cli: 'claude',
          agentSessionId: `${agent}-conversation`,
        })
      ).result;
      await m.runs.claimPhase(id, r.id, phase, { agent });
      return p;
    };
    // Durable steps: one done, one that failed.
    await w.ok(['start', 'Steps', '--id', 'steps', '--phases', 'one', '--switch']);
    await m.steps.run('steps', 'fetch-issues', async () => ({ issues: 3 }));
    await m.steps
      .run('steps', 'send-mail', async () => {
        throw new Error('smtp refused');
      })
      .catch(() => undefined);
    await run('crew', 'alice', 'api');
    const bob = await run('crew', 'bob', 'ui');
    const carol = await run('lost', 'carol', 'one');
    for (const p of [bob, carol]) {
      p.kill('SIGKILL');
      await once(p, 'exit');
    }
    await m.store.close();
    s = await serve(w);
    browser = await launch();
    page = await browser.newPage();
    page.on('pageerror', (e) => problems.push(`page error: ${e.message}`));
    page.on('console', (m) => m.type() === 'error' && problems.push(`console: ${m.text()}`));
    await page.goto(s.url);
  });
  afterAll(async () => {
    for (const p of workers) p.kill('SIGKILL');
    await browser?.close();
    await s?.close();
    await w?.drop();
  });

  it('the Phases tab draws each run as a bar with its agent, and a mark where one died', async () => {
    await page.goto(`${base()}#/s/crew/phases`);
    await page.waitForSelector('.lanes.runs li.attempt.run');
    const bars = await page.$$eval('.lanes.runs li.attempt.run', (l) =>
      l.map((e) => [e.getAttribute('data-run'), e.getAttribute('data-outcome'), e.textContent]),
    );
    expect(bars).toEqual([
      ['run-1', 'live', 'alice'],
      ['run-2', 'died', '✝ bob'],
    ]);
    // One worker still lives: the session is active.
    expect(await page.$eval('.meta', (e) => e.textContent ?? '')).toContain('active');
    // The only worker of 'lost' died with its phase in flight: interrupted, as `baton status` reports it.
    await page.goto(`${base()}#/s/lost/phases`);
    await page.waitForSelector('.lanes.runs li.attempt.run[data-outcome="died"]');
    expect(await page.$eval('.meta', (e) => e.textContent ?? '')).toContain('interrupted');
  });

  it("the overview lists the session's durable steps and how each stands", async () => {
    await page.goto(`${base()}#/s/steps`);
    await page.waitForSelector('[data-testid="durable-steps"]');
    const rows = await page.$$eval('[data-testid="durable-steps"] tbody tr', (l) =>
      l.map((e) => [e.getAttribute('data-step'), e.getAttribute('data-status'), e.textContent ?? '']),
    );
    expect(rows.map(([k, st]) => [k, st]).sort()).toEqual([
      ['fetch-issues', 'completed'],
      ['send-mail', 'failed'],
    ]);
    expect(rows.find(([k]) => k === 'send-mail')?.[2]).toContain('smtp refused');
    // A session without durable steps shows no such table.
    await page.goto(`${base()}#/s/money`);
    await page.waitForSelector('.meta');
    expect(await page.$('[data-testid="durable-steps"]')).toBeNull();
  });

  it('tabs switch the section shown, one at a time, and the address keeps the tab', async () => {
    await page.goto(`${base()}#/s/api`);
    await page.waitForSelector('[role="tab"][data-tab="overview"][aria-selected="true"]');
    expect(await page.$$eval('[role="tabpanel"]', (p) => p.map((x) => x.getAttribute('data-panel')))).toEqual([
      'overview',
    ]);
    expect(await page.$('.attempt')).toBeNull();
    await page.click('[role="tab"][data-tab="phases"]');
    await page.waitForSelector('.attempt');
    expect(await page.$('#overview')).toBeNull();
    expect(page.url()).toMatch(/#\/s\/api\/phases$/);
    // The keyboard moves between tabs too.
    await page.focus('[role="tab"][data-tab="phases"]');
    await page.keyboard.press('ArrowRight');
    await page.waitForSelector('[role="tab"][data-tab="files"][aria-selected="true"]');
    await page.waitForSelector('tr[data-file="src/app.ts"]');
    // A reload opens the tab of the address.
    await page.reload();
    await page.waitForSelector('[role="tab"][data-tab="files"][aria-selected="true"]');
    expect(await page.$$eval('[role="tabpanel"]', (p) => p.map((x) => x.getAttribute('data-panel')))).toEqual([
      'files',
    ]);
  });

  it('the event log shows sentences, the raw JSON behind a toggle', async () => {
    await page.goto(`${base()}#/s/api/events`);
    await page.waitForSelector('.log li');
    const sentence = (type: string): Promise<string[]> =>
      page.$$eval(`.log li[data-type="${type}"] .sentence`, (l) => l.map((e) => e.textContent ?? ''));
    expect(await sentence('phase.retried')).toEqual(['bob retried phase build (retry 1).']);
    expect(await sentence('decision.recorded')).toEqual([
      'Someone decided "Storage": PostgreSQL, because many workers share it.',
    ]);
    expect(await sentence('tokens.recorded')).toContain(
      'alice used 1,200 input and 300 output tokens on claude-sonnet-4-5 in phase design.',
    );
    // No JSON in sight until asked for.
    const row = '.log li[data-type="phase.retried"]';
    expect(await page.isVisible(`${row} pre`)).toBe(false);
    expect(await page.textContent(`${row} .event-line`)).not.toContain('{');
    await page.click(`${row} details.raw > summary`);
    const raw = JSON.parse((await page.textContent(`${row} pre`))!) as {
      type: string;
      data: { phaseId: string; attempt: number };
      text?: string;
    };
    expect(raw).toMatchObject({ type: 'phase.retried', data: { phaseId: 'build', attempt: 1 } });
    expect(raw.text).toBeUndefined();
  });

  it('the token chart starts both axes at 0, draws the cost budget, and its legend shows values', async () => {
    await page.goto(`${base()}#/s/money/tokens`);
    await page.waitForSelector('.chart canvas');
    expect(await page.getAttribute('.chart', 'data-usd-min')).toBe('0');
    expect(await page.getAttribute('.chart', 'data-y-min')).toBe('0');
    const legend = async (): Promise<Record<string, string>> =>
      page.$$eval('.u-legend .u-series', (rows) =>
        Object.fromEntries(
          rows.map((r) => [
            r.querySelector('.u-label')?.textContent ?? '',
            r.querySelector('.u-value')?.textContent ?? '',
          ]),
        ),
      );
    const shown = await legend();
    expect(Object.keys(shown)).toEqual(expect.arrayContaining(['time', 'total', 'eve', 'cost (USD)', 'cost budget']));
    expect(Object.values(shown)).not.toContain('--');
    expect(shown['total']).toBe('333,633');
    expect(shown['cost budget']).toBe('$2.00');
    expect(shown['cost (USD)']).toBe('$1.00');
    // Hovering and leaving the chart keeps numbers in the legend.
    const box = (await page.$('.chart .u-over'))!;
    await box.hover();
    await page.mouse.move(5, 5);
    expect(Object.values(await legend())).not.toContain('--');
    // The token budget is a line too (the api session has one).
    await page.goto(`${base()}#/s/api/tokens`);
    await page.waitForSelector('.chart canvas');
    expect(Object.keys(await legend())).toEqual(expect.arrayContaining(['budget', '95 %', '80 %']));
  });

  it('money reads as `baton status` prints it', async () => {
    const status = (await w.ok(['status', '--session', 'money'])).stdout;
    const cli = /Cost \(estimate\): (\S+) · cost budget (\S+ \(\S+\))/.exec(status);
    expect(cli, status).not.toBeNull();
    expect(cli![1]).toBe('$1.00');
    await page.goto(`${base()}#/s/money/tokens`);
    await page.waitForSelector('[data-testid="cost"]');
    expect(await page.textContent('[data-testid="cost"]')).toBe(cli![1]);
    expect(await page.textContent('[data-testid="cost-budget"]')).toBe(cli![2]);
    expect(await page.textContent('tr[data-key="eve"] td[data-label="cost"]')).toBe(cli![1]);
    await page.goto(base());
    await page.waitForSelector('tr[data-session-id="money"]');
    expect(await page.textContent('tr[data-session-id="money"] .cost-cell')).toBe(cli![1]);
  });

  it('the sessions list has workspace and holder columns, and shows archived sessions on demand', async () => {
    await page.goto(base());
    await page.waitForSelector('tr[data-session-id="api"]');
    const headers = await page.$$eval('table.sessions th', (h) => h.map((x) => x.textContent));
    expect(headers).toEqual(expect.arrayContaining(['Cost', 'Workspace', 'Held by']));
    // A file store's sessions are all of its folder's workspace.
    expect(await page.getAttribute('tr[data-session-id="api"] .workspace-cell span', 'title')).toMatch(
      new RegExp(`${path.basename(w.ws.dir)}$`),
    );
    expect(await page.textContent('tr[data-session-id="api"] .workspace-cell')).toBe(path.basename(w.ws.dir));
    expect(await page.textContent('tr[data-session-id="api"] .holder-cell')).toBe('—');
    expect(await page.$('tr[data-session-id="attic"]')).toBeNull();
    await page.check('input[name="archived"]');
    await page.waitForSelector('tr[data-session-id="attic"][data-archived="true"]');
    expect(await page.textContent('tr[data-session-id="attic"]')).toContain('archived');
    await page.uncheck('input[name="archived"]');
    await page.waitForFunction(() => !document.querySelector('tr[data-session-id="attic"]'));
  });

  it('shows who holds a lease: a run in progress', async () => {
    const script = path.join(os.tmpdir(), `baton-ui-hold-${process.pid}`);
    fs.rmSync(script, { force: true });
    const { spawn } = await import('node:child_process');
    const { BATON, baseEnv } = await import('../cli/helpers.js');
    const child = spawn(
      process.execPath,
      [BATON, 'run', '--session', 'money', '--', 'sh', '-c', `touch ${script}; exec sleep 30`],
      { cwd: w.ws.dir, env: baseEnv({}), stdio: 'ignore' },
    );
    try {
      for (let i = 0; i < 200 && !fs.existsSync(script); i++) await new Promise((r) => setTimeout(r, 50));
      await page.goto(base());
      await page.waitForFunction(
        () => (document.querySelector('tr[data-session-id="money"] .holder-cell')?.textContent ?? '—') !== '—',
        undefined,
        { timeout: 10_000 },
      );
      expect(await page.textContent('tr[data-session-id="money"] .holder-cell')).toMatch(/pid \d+/);
    } finally {
      child.kill('SIGINT');
      await new Promise((r) => child.once('close', r));
      fs.rmSync(script, { force: true });
    }
  });

  it('says "flagged below" only when a row below is flagged', async () => {
    await page.goto(`${base()}#/s/api/files`);
    await page.waitForSelector('tr[data-file="src/app.ts"]');
    // A new file nobody recorded (git has no such file): the plan reports it, but no row is flagged.
    execFileSync('git', ['init', '-q'], { cwd: w.ws.dir });
    w.ws.write('stray.txt', 'not recorded\n');
    await page.reload();
    await page.waitForSelector('[data-new-files]');
    expect(await page.textContent('[data-new-files]')).toContain('stray.txt');
    expect(await page.textContent('#files')).not.toContain('flagged below');
    // A recorded file edited by hand: its row is flagged, and the note says so.
    w.ws.write('src/app.ts', 'export const x = 3; // by hand\n');
    await page.reload();
    await page.waitForSelector('tr[data-file="src/app.ts"][data-outside="changed"]');
    expect(await page.textContent('[data-flagged]')).toContain('flagged below');
    expect(problems).toEqual([]);
  });
});
