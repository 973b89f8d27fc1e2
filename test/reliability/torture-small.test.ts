/**
 * The torture trials of `npm run torture` (bench/torture.ts) at small size on every test run:
 * the same code, a few seconds each, on the file store and on PostgreSQL (the test server of
 * BATON_TEST_PG_URL when it is a real one, else a private server; skipped saying why when
 * neither can be had). Each must keep every guarantee at the size it was given.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SMALL, fileTarget, pgTarget } from '../../bench/torture/common.js';
import type { Target } from '../../bench/torture/common.js';
import { PrivatePg } from '../support/private-pg.js';
import { TRIALS } from '../../bench/torture/trials.js';
import { EMBEDDED, PG_URL } from '../store/pg-helpers.js';
import { needBuiltCli } from '../cli/helpers.js';

const targets: Record<'file' | 'postgres', Target | null> = { file: fileTarget(), postgres: null };
let server: PrivatePg | null = null;
let why = '';

beforeAll(async () => {
  // The crash and concurrency writers run on the built library (dist/index.js).
  needBuiltCli();
  if (PG_URL && !EMBEDDED) targets.postgres = pgTarget(PG_URL);
  else {
    const s = await PrivatePg.tryStart({ conf: ['fsync = off', 'max_connections = 200'] });
    if (typeof s === 'string') why = s;
    else {
      server = s;
      targets.postgres = pgTarget(s.url());
    }
  }
}, 180_000);

afterAll(async () => {
  for (const t of Object.values(targets)) await t?.cleanup();
  server?.stop();
});

for (const kind of ['file', 'postgres'] as const) {
  describe(`torture trials, small size: ${kind} store`, () => {
    for (const [name, trial] of Object.entries(TRIALS)) {
      it(name, async (ctx) => {
        const target = targets[kind];
        if (!target) {
          console.warn(
            `SKIPPED torture trial ${name} on PostgreSQL: ${why} (BATON_TEST_PG_URL is ${PG_URL ? 'the embedded server' : 'not set'})`,
          );
          return ctx.skip();
        }
        const r = await trial(target, SMALL, Date.now() + 120_000);
        expect(r.problems).toEqual([]);
        expect(r.done, r.detail).toBe(r.planned);
      });
    }
  });
}
