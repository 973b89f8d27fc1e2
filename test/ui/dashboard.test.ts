/**
 * The dashboard in a real browser (Debian's Chromium through playwright-core), on the file
 * store and on PostgreSQL: the sessions page lists a scripted workflow's sessions with the
 * statuses `baton list` gives; a phase failed then retried shows two bars; the token chart
 * ends where `baton tokens --json` does; an interrupted session shows its cause and the
 * recommended resume; a change made by another process appears within 2 s without a reload.
 * The README's screenshots are taken here (file store run): into docs/images/ when one is
 * missing or with UPDATE_SCREENSHOTS=1 (as UPDATE_GOLDEN for the goldens), else into a temp
 * folder, so a test run leaves the checkout as it was.
 */
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import type { BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BATON, ROOT, baseEnv, needBuiltCli } from '../cli/helpers.js';
import { tempDir } from '../support/temp.js';
import { HAVE_BROWSER, launch } from './browser.js';
import { scriptedWorkflow, serve, storeCases } from './fixture.js';
import type { StoreWorkspace } from './fixture.js';

type Served = Awaited<ReturnType<typeof serve>>;
const DOC_IMAGES = path.join(ROOT, 'docs', 'images');

/** Where a screenshot goes: the README's pictures when asked for or missing, else a temp folder. */
function shot(name: string): string {
  const doc = path.join(DOC_IMAGES, name);
  if (process.env['UPDATE_SCREENSHOTS'] === '1' || !fs.existsSync(doc)) return doc;
  return path.join(tempDir('baton-shots-'), name);
}

/** Runs the built CLI as a process of its own (another process than the dashboard's) and waits for its exit. */
function otherProcess(w: StoreWorkspace, args: string[]): Promise<{ code: number | null; stderr: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [BATON, ...args], {
      cwd: w.ws.dir,
      env: baseEnv(w.storeEnv),
      stdio: ['ignore', 'ignore', 'pipe'],
    });
    let stderr = '';
    child.stderr.on('data', (b: Buffer) => (stderr += b.toString()));
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, stderr }));
  });
}

async function rowsShown(page: Page): Promise<Array<{ id: string; status: string }>> {
  return page.$$eval('tr[data-session-id]', (rows) =>
    rows.map((r) => ({ id: r.getAttribute('data-session-id')!, status: r.getAttribute('data-status')! })),
  );
}

describe.skipIf(!HAVE_BROWSER).each(storeCases())('the dashboard in Chromium on the $name store', (store) => {
  let w: StoreWorkspace;
  let s: Served;
  let browser: BrowserContext;
  let page: Page;
  const problems: string[] = [];

  beforeAll(async () => {
    needBuiltCli();
    w = await scriptedWorkflow(store);
    s = await serve(w);
    browser = await launch();
    page = await browser.newPage();
    page.on('pageerror', (e) => problems.push(`page error: ${e.message}`));
    page.on('console', (m) => m.type() === 'error' && problems.push(`console: ${m.text()}`));
    await page.goto(s.url);
  });
  afterAll(async () => {
    await browser?.close();
    await s?.close();
    await w?.drop();
  });

  it('lists the sessions of the workflow with the statuses `baton list` gives, interrupted and active first', async () => {
    await page.waitForSelector('tr[data-session-id="api"]');
    const listed = await w.json<Array<{ id: string; status: string }>>(['list']);
    const shown = await rowsShown(page);
    expect(shown.map((r) => r.id).sort()).toEqual(listed.map((r) => r.id).sort());
    for (const r of listed) expect(shown.find((x) => x.id === r.id)?.status, r.id).toBe(r.status);
    expect(Object.fromEntries(shown.map((r) => [r.id, r.status]))).toEqual({
      api: 'active',
      crash: 'interrupted',
      done: 'completed',
      gone: 'failed',
      later: 'paused',
    });
    expect(shown.slice(0, 2).map((r) => r.id)).toEqual(['crash', 'api']);
    expect(await page.textContent('tr[data-session-id="crash"] [data-cause]')).toContain('exit-3');
    // Filter by status, then search by title.
    await page.click('button[data-filter="interrupted"]');
    await page.waitForFunction(() => document.querySelectorAll('tr[data-session-id]').length === 1);
    expect((await rowsShown(page)).map((r) => r.id)).toEqual(['crash']);
    await page.click('button[data-filter="interrupted"]');
    await page.waitForFunction(() => document.querySelectorAll('tr[data-session-id]').length === 5);
    await page.fill('input[type="search"]', 'finished');
    await page.waitForFunction(() => document.querySelectorAll('tr[data-session-id]').length === 1);
    expect((await rowsShown(page)).map((r) => r.id)).toEqual(['done']);
    await page.fill('input[type="search"]', '');
    await page.waitForFunction(() => document.querySelectorAll('tr[data-session-id]').length === 5);
    if (store.name === 'file') await page.screenshot({ path: shot('sessions.png'), fullPage: true });
  });

  it('draws one timeline bar per attempt (a failed, retried phase has two) and ends the token chart at `baton tokens --json`', async () => {
    await page.click('a.session-link[href="#/s/api"]');
    await page.click('[role="tab"][data-tab="phases"]');
    await page.waitForSelector('.attempt');
    const bars = await page.$$eval('.attempt', (els) =>
      els.map((e) => ({
        phase: e.getAttribute('data-phase'),
        attempt: e.getAttribute('data-attempt'),
        outcome: e.getAttribute('data-outcome'),
      })),
    );
    expect(bars).toEqual([
      { phase: 'design', attempt: '1', outcome: 'completed' },
      { phase: 'build', attempt: '1', outcome: 'failed' },
      { phase: 'build', attempt: '2', outcome: 'running' },
    ]);
    expect(await page.$$eval('.lane[data-phase="build"] .tick', (t) => t.length)).toBe(1);
    // The attempt in flight grows with the clock while the session is active.
    const width = (): Promise<number> =>
      page.$eval('.attempt[data-outcome="running"]', (e) => e.getBoundingClientRect().width);
    const w0 = await width();
    await page.waitForFunction(
      (w) => document.querySelector('.attempt[data-outcome="running"]')!.getBoundingClientRect().width > w + 1,
      w0,
      { timeout: 5000 },
    );
    const tokens = await w.json<{
      input: number;
      output: number;
      byAgent: Record<string, { input: number; output: number }>;
    }>(['tokens', '--session', 'api']);
    await page.click('[role="tab"][data-tab="tokens"]');
    await page.waitForSelector('.chart canvas');
    expect(Number(await page.getAttribute('.chart', 'data-last-total'))).toBe(tokens.input + tokens.output);
    const lastBy = JSON.parse((await page.getAttribute('.chart', 'data-last-by'))!) as Record<string, number>;
    expect(lastBy).toEqual(Object.fromEntries(Object.entries(tokens.byAgent).map(([a, c]) => [a, c.input + c.output])));
    // Records: the error with its resolution, the decision with its rationale, the file with its hash.
    await page.click('[role="tab"][data-tab="overview"]');
    expect(await page.textContent('tr[data-error="err-1"]')).toContain('fixed the import');
    expect(await page.textContent('#overview')).toContain('many workers share it');
    await page.click('[role="tab"][data-tab="files"]');
    expect(await page.textContent('tr[data-file="src/app.ts"]')).toMatch(/[0-9a-f]{12}/);
    await page.click('[role="tab"][data-tab="resume"]');
    await page.waitForSelector('#resume .markdown h1');
    if (store.name === 'file') await page.screenshot({ path: shot('session.png'), fullPage: true });
  });

  it('flags a file changed outside the session, as the resume plan sees it', async () => {
    w.ws.write('src/app.ts', 'export const x = 2; // edited by hand\n');
    await page.goto(`${s.url.split('?')[0]}#/s/api/files`);
    await page.reload();
    await page.waitForSelector('tr[data-file="src/app.ts"][data-outside="changed"]');
  });

  it("shows an interrupted session's cause and the recommended resume", async () => {
    await page.goto(`${s.url.split('?')[0]}#/s/crash`);
    await page.waitForSelector('[data-banner="interrupted"] [data-recommended]');
    const plan = await w.json<{ recovery: { recommended: { from: string } }; statusCause: { cause: string } }>([
      'resume',
      '--session',
      'crash',
    ]);
    expect(await page.getAttribute('[data-banner] [data-cause]', 'data-cause')).toBe(plan.statusCause.cause);
    const banner = await page.textContent('[data-banner="interrupted"]');
    expect(banner).toContain('exit-3');
    expect(banner).toContain(`baton resume --apply --from ${plan.recovery.recommended.from}`);
  });

  it('filters the event log by type and agent, a page at a time', async () => {
    await page.goto(`${s.url.split('?')[0]}#/s/api/events`);
    await page.waitForSelector('.log li');
    const all = await w.json<Array<{ seq: number; type: string; actor: { agent: string | null } }>>([
      'log',
      '--session',
      'api',
    ]);
    expect(await page.$$eval('.log li', (l) => l.length)).toBe(all.length);
    await page.selectOption('select[name="type"]', 'tokens.recorded');
    await page.waitForFunction(
      (n) => document.querySelectorAll('.log li').length === n,
      all.filter((e) => e.type === 'tokens.recorded').length,
    );
    await page.selectOption('select[name="agent"]', 'bob');
    await page.waitForFunction(() => document.querySelectorAll('.log li').length === 2);
    expect(await page.$$eval('.log li', (l) => l.map((e) => e.getAttribute('data-type')))).toEqual([
      'tokens.recorded',
      'tokens.recorded',
    ]);
  });

  it('shows a change made by another process within 2 s, without a reload', async () => {
    await page.goto(`${s.url.split('?')[0]}#/s/api/tokens`);
    await page.waitForSelector('.chart canvas');
    await page.waitForSelector('[data-live="on"]');
    await page.evaluate(() => ((window as unknown as { marker: number }).marker = 42));
    const before = Number(await page.getAttribute('.chart', 'data-last-total'));
    const r = await otherProcess(w, [
      'tokens',
      'add',
      '--session',
      'api',
      '--agent',
      'zed',
      '--input',
      '70',
      '--output',
      '7',
    ]);
    expect(r.code, r.stderr).toBe(0);
    const t0 = Date.now();
    await page.waitForFunction(
      (n) => document.querySelector('.chart')?.getAttribute('data-last-total') === String(n),
      before + 77,
      { timeout: 5000 },
    );
    const elapsed = Date.now() - t0;
    expect(elapsed).toBeLessThan(2000);
    expect(await page.evaluate(() => (window as unknown as { marker?: number }).marker)).toBe(42);
    // The sessions page too: token use recorded elsewhere (which leaves the registry row as it
    // was), then a session started elsewhere.
    await page.click('a.back');
    await page.waitForSelector('tr[data-session-id="api"]');
    const used = async (): Promise<string> => (await page.textContent('tr[data-session-id="api"] .tokens-cell span'))!;
    expect(await used()).toBe((before + 77).toLocaleString('en-US'));
    const r2 = await otherProcess(w, ['tokens', 'add', '--session', 'api', '--agent', 'zed', '--input', '1000']);
    expect(r2.code, r2.stderr).toBe(0);
    await page.waitForFunction(
      (n) => document.querySelector('tr[data-session-id="api"] .tokens-cell span')?.textContent === n,
      (before + 1077).toLocaleString('en-US'),
      { timeout: 2000 },
    );
    await page.click('a.session-link[href="#/s/api"]');
    await page.click('[role="tab"][data-tab="tokens"]');
    await page.waitForSelector('.chart canvas');
    await page.click('a.back');
    await page.waitForSelector('tr[data-session-id="api"]');
    const s0 = await otherProcess(w, ['start', 'Started elsewhere', '--id', 'fresh', '--switch']);
    expect(s0.code, s0.stderr).toBe(0);
    const t1 = Date.now();
    await page.waitForSelector('tr[data-session-id="fresh"][data-status="active"]', { timeout: 5000 });
    expect(Date.now() - t1).toBeLessThan(2000);
    expect(await page.getAttribute('tr[data-session-id="api"]', 'data-status')).toBe('paused');
    expect(await page.evaluate(() => (window as unknown as { marker?: number }).marker)).toBe(42);
  });

  it('reads with a keyboard, at phone width, and in the dark theme; the page logged no error', async () => {
    await page.goto(`${s.url.split('?')[0]}#/s/api/phases`);
    await page.waitForSelector('.attempt');
    let reached = false;
    for (let i = 0; i < 40 && !reached; i++) {
      await page.keyboard.press('Tab');
      reached = await page.evaluate(() => document.activeElement?.classList.contains('attempt') ?? false);
    }
    expect(reached, 'a timeline bar takes the keyboard focus').toBe(true);
    expect(await page.evaluate(() => document.activeElement?.getAttribute('aria-label'))).toMatch(
      /attempt 1; completed/,
    );
    await page.emulateMedia({ colorScheme: 'dark' });
    const dark = await page.evaluate(() => getComputedStyle(document.body).backgroundColor);
    await page.emulateMedia({ colorScheme: 'light' });
    const light = await page.evaluate(() => getComputedStyle(document.body).backgroundColor);
    expect(dark).not.toBe(light);
    await page.setViewportSize({ width: 390, height: 844 });
    // Nothing wider than the screen once the chart has followed its box (a ResizeObserver, so not at once).
    await page.waitForFunction(() => document.documentElement.scrollWidth <= 390, undefined, { timeout: 3000 });
    if (store.name === 'file') {
      await page.emulateMedia({ colorScheme: 'dark' });
      await page.screenshot({ path: shot('session-phone-dark.png') });
      await page.emulateMedia({ colorScheme: 'light' });
    }
    await page.setViewportSize({ width: 1280, height: 900 });
    expect(problems).toEqual([]);
  });
});

fs.mkdirSync(DOC_IMAGES, { recursive: true });
