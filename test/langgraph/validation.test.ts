/**
 * LangGraph's own checkpointer validation suite (@langchain/langgraph-checkpoint-validation,
 * pinned in package.json) run against BatonSaver on the file store and on PostgreSQL, each
 * checkpointer on a fresh store. The suite is written for vitest's globals; it runs here in
 * this vitest, and its results are summarised on stdout after each store's run.
 */
import fs from 'node:fs';
import * as vt from 'vitest';
import type { RunnerTask, RunnerTestSuite } from 'vitest';
import type { BatonSaver } from '../../src/langgraph/index.js';
import { needsRealServer } from '../store/pg-helpers.js';
import { PG_URL, destroySaver, fileStorePlace, pgStorePlace, saverOn } from './helpers.js';
import type { StorePlace } from './helpers.js';

// The suite calls describe/it/expect … as globals (it is made for `vitest --globals`).
Object.assign(globalThis, {
  describe: vt.describe,
  it: vt.it,
  test: vt.test,
  expect: vt.expect,
  beforeAll: vt.beforeAll,
  afterAll: vt.afterAll,
  beforeEach: vt.beforeEach,
  afterEach: vt.afterEach,
});
const { validate } = await import('@langchain/langgraph-checkpoint-validation');
const SUITE_VERSION = (
  JSON.parse(
    fs.readFileSync(
      new URL('../../node_modules/@langchain/langgraph-checkpoint-validation/package.json', import.meta.url),
      'utf8',
    ),
  ) as { version: string }
).version;

function count(task: RunnerTask, into = { passed: 0, failed: 0, skipped: 0, failures: [] as string[] }): typeof into {
  if (task.type === 'suite') for (const t of task.tasks) count(t, into);
  else if (task.result?.state === 'pass') into.passed++;
  else if (task.result?.state === 'fail') {
    into.failed++;
    into.failures.push(task.name);
  } else into.skipped++;
  return into;
}

function validateOn(label: string, place: () => StorePlace): void {
  const name = `BatonSaver on ${label}`;
  validate<BatonSaver>({
    checkpointerName: name,
    createCheckpointer: () => saverOn(place),
    destroyCheckpointer: (saver) => destroySaver(saver),
  });
  vt.afterAll((suite: Readonly<RunnerTestSuite>) => {
    const r = count(suite);
    console.log(
      `@langchain/langgraph-checkpoint-validation ${SUITE_VERSION}, ${name}: ${r.passed} passed, ${r.failed} failed, ${r.skipped} skipped${r.failures.length ? `\n  failed: ${r.failures.slice(0, 20).join('\n  failed: ')}` : ''}`,
    );
  });
}

vt.describe('LangGraph validation suite: file store', () => validateOn('the file store', fileStorePlace));
vt.describe.skipIf(!PG_URL)('LangGraph validation suite: PostgreSQL', () => {
  needsRealServer({
    // deleteThread deletes the session, which clears the workspace's active pointer under the workspace lock.
    'should delete thread':
      'deleting a session holds the workspace lock in a transaction on one connection and uses the store on another, which the embedded server (one shared session) cannot run at the same time',
  });
  validateOn('PostgreSQL', pgStorePlace);
});
