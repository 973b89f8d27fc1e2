/**
 * A session of 100,000 events renders without 100,000 DOM nodes: the page gets aggregates (a
 * token series of at most 400 points, the attempts), one page of 100 events at a time, and
 * moves through the log by pages.
 */
import os from 'node:os';
import type { BrowserContext } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { newEvent } from '../../src/domain/events.js';
import type { NewEvent } from '../../src/domain/events.js';
import { SessionManager } from '../../src/manager/index.js';
import { FileStore } from '../../src/store/file/store.js';
import { startUiServer } from '../../src/ui/index.js';
import type { UiServer } from '../../src/ui/index.js';
import { tempDir } from '../support/temp.js';
import { HAVE_BROWSER, launch } from './browser.js';

const EVENTS = 100_000;
const actor = { agent: null, pid: process.pid, host: os.hostname() };

describe.skipIf(!HAVE_BROWSER)('a session of 100,000 events in the browser', () => {
  let m: SessionManager;
  let s: UiServer;
  let browser: BrowserContext;
  beforeAll(async () => {
    const dir = `${tempDir('baton-ui-large-')}/.baton`;
    FileStore.init(dir);
    const store = new FileStore({ root: dir });
    m = new SessionManager({ store });
    const at = (): string => new Date().toISOString();
    await m.createFrom('big', [
      newEvent(
        'session.created',
        { title: 'Big', idFormat: 'custom', phases: [{ id: 'build', name: 'Build' }], budgetMax: 2_000_000 },
        at(),
        actor,
      ),
      newEvent('phase.started', { phaseId: 'build', agent: 'a0', forced: false }, at(), actor),
    ]);
    let rev = 2;
    while (rev < EVENTS) {
      const k = Math.min(2000, EVENTS - rev);
      const batch: NewEvent[] = Array.from({ length: k }, (_, j) =>
        (rev + j) % 10_000 === 0
          ? newEvent('substep.reached', { phaseId: 'build', name: `step ${rev + j}` }, at(), actor)
          : newEvent(
              'tokens.recorded',
              { agent: `a${(rev + j) % 3}`, phaseId: 'build', input: 10, output: 2, cached: 0 },
              at(),
              actor,
            ),
      );
      rev = (await store.append('big', rev, batch)).revision;
    }
    // As the manager keeps it: a snapshot near the end, so loading the state is not the subject.
    await store.writeSnapshot('big', { revision: rev, state: await m.get('big') });
    s = await startUiServer({ manager: m });
    browser = await launch();
  });
  afterAll(async () => {
    await browser?.close();
    await s?.close();
    await m?.store.close();
  });

  it('draws the page with a bounded number of DOM nodes and chart points, and pages through the log', async () => {
    const page = await browser.newPage();
    await page.goto(s.url); // trades the token for the cookie
    await page.goto(`${new URL(s.url).origin}/#/s/big/tokens`);
    await page.waitForSelector('.chart canvas');
    expect(await page.evaluate(() => document.getElementsByTagName('*').length)).toBeLessThan(3000);
    expect(Number(await page.getAttribute('.chart', 'data-points'))).toBeLessThanOrEqual(400);
    const tokens = (await m.get('big')).tokens;
    expect(Number(await page.getAttribute('.chart', 'data-last-total'))).toBe(tokens.input + tokens.output);
    await page.click('[role="tab"][data-tab="events"]');
    await page.waitForSelector('.log li');
    const nodes = await page.evaluate(() => document.getElementsByTagName('*').length);
    expect(nodes).toBeLessThan(3000);
    expect(await page.$$eval('.log li', (l) => l.length)).toBe(100);
    expect(await page.getAttribute('.log li', 'data-seq')).toBe(String(EVENTS));
    await page.click('.events .pager button:has-text("Next")');
    await page.waitForSelector(`.log li[data-seq="${EVENTS - 100}"]`);
    expect(await page.$$eval('.log li', (l) => l.length)).toBe(100);
    expect(await page.textContent('.events .pager-pos')).toContain('101–200 of 100,000');
  });
});
