/**
 * Debian's Chromium driven by playwright-core for the dashboard tests. Without a browser the
 * tests are skipped, and say so (`.ci/run` installs the `chromium` package when it is missing).
 */
import fs from 'node:fs';
import { chromium } from 'playwright-core';
import type { BrowserContext } from 'playwright-core';
import { tempDir } from '../support/temp.js';

/** The browser the tests drive: $BATON_TEST_CHROMIUM, else Debian's. */
export const CHROMIUM = process.env['BATON_TEST_CHROMIUM'] || '/usr/bin/chromium';

/** Whether there is a browser to drive. */
export const HAVE_BROWSER = fs.existsSync(CHROMIUM);

if (!HAVE_BROWSER) {
  console.warn(
    `SKIPPED: the dashboard's browser tests (test/ui): no Chromium at ${CHROMIUM}. Install Debian's chromium package (apt-get install -y chromium; .ci/run does) or set BATON_TEST_CHROMIUM.`,
  );
}

/** A fresh headless Chromium with a profile of its own. */
export function launch(viewport = { width: 1280, height: 900 }): Promise<BrowserContext> {
  return chromium.launchPersistentContext(tempDir('baton-chromium-'), {
    executablePath: CHROMIUM,
    headless: true,
    viewport,
    args: [
      '--headless',
      '--no-sandbox',
      '--disable-gpu',
      '--disable-background-networking',
      '--disable-component-update',
      '--no-first-run',
    ],
  });
}
