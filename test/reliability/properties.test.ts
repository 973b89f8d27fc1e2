/**
 * Property tests (fast-check) of the journal's guarantees, on the file store through the
 * manager: any sequence of commands, accepted or refused, with snapshots every few events,
 * folds to the same state from the snapshot plus the tail as from a full replay; a refused
 * command leaves the journal byte for byte as it was; random damage to a journal is read
 * intact, repaired with nothing acknowledged lost, or reported. Runs are few by default
 * (BATON_PROPERTY_RUNS raises them; `npm run torture` runs the damage property 300 times).
 */
import fs from 'node:fs';
import path from 'node:path';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { fold } from '../../src/domain/apply.js';
import { isBatonError } from '../../src/domain/errors.js';
import { SessionManager } from '../../src/manager/manager.js';
import { FileStore } from '../../src/store/file/store.js';
import { fileTarget } from '../../bench/torture/common.js';
import { randomDamage } from '../../bench/torture/random-damage.js';
import { tempDir } from '../support/temp.js';

const RUNS = Number(process.env['BATON_PROPERTY_RUNS'] ?? 12);
const ID = 'prop';
const PHASES = ['plan', 'build', 'test'];

/** A command a user or agent may send, valid or not in the state it meets. */
type Cmd = (m: SessionManager) => Promise<unknown>;

const phase = fc.constantFrom(...PHASES, 'nope');
const word = fc.string({ minLength: 0, maxLength: 12 });
const command: fc.Arbitrary<{ name: string; run: Cmd }> = fc.oneof(
  word.map((t) => ({ name: `note ${t}`, run: (m: SessionManager) => m.note(ID, { text: t }) })),
  fc
    .tuple(
      phase,
      fc.constantFrom('start', 'complete', 'fail', 'skip', 'retry') as fc.Arbitrary<
        'start' | 'complete' | 'fail' | 'skip' | 'retry'
      >,
    )
    .map(([p, v]) => ({ name: `phase ${v} ${p}`, run: (m: SessionManager) => m.phase(ID, p, v) })),
  fc
    .tuple(phase, word)
    .map(([p, s]) => ({ name: `substep ${p} ${s}`, run: (m: SessionManager) => m.substep(ID, p, s) })),
  fc.tuple(phase, word).map(([p, msg]) => ({
    name: `error ${p}`,
    run: (m: SessionManager) => m.error(ID, { phase: p, type: 'test', message: msg }),
  })),
  fc.tuple(fc.integer({ min: -5, max: 5000 }), fc.integer({ min: 0, max: 5000 })).map(([i, o]) => ({
    name: `tokens ${i} ${o}`,
    run: (m: SessionManager) => m.tokens(ID, { agent: 'a', input: i, output: o }),
  })),
  fc
    .tuple(word, word)
    .map(([t, c]) => ({ name: `decision ${t}`, run: (m: SessionManager) => m.decision(ID, { title: t, choice: c }) })),
  word.map((t) => ({ name: `finding ${t}`, run: (m: SessionManager) => m.finding(ID, { text: t }) })),
  word.map((t) => ({ name: `milestone ${t}`, run: (m: SessionManager) => m.milestone(ID, { title: t }) })),
  word.map((t) => ({ name: `context ${t}`, run: (m: SessionManager) => m.context(ID, t) })),
  fc
    .integer({ min: -10, max: 100_000 })
    .map((n) => ({ name: `budget ${n}`, run: (m: SessionManager) => m.budgets.set(ID, { tokens: n }) })),
  fc
    .constantFrom('pause', 'complete', 'fail', 'abandon', 'interrupt')
    .map((a) => ({ name: `lifecycle ${a}`, run: (m: SessionManager) => m.lifecycle(ID, a as 'pause') })),
  fc.constant({ name: 'resume', run: (m: SessionManager) => m.resume(ID) }),
);

/** The files of the session whose bytes a refused command must not change. */
function bytes(root: string): string {
  const dir = path.join(root, 'sessions', ID);
  return ['journal.jsonl', 'snapshot.json', 'snapshot.json.bak']
    .map((f) => (fs.existsSync(path.join(dir, f)) ? fs.readFileSync(path.join(dir, f), 'hex') : '-'))
    .join('|');
}

describe('properties of the journal (fast-check)', () => {
  it('any command sequence: snapshot + tail folds to the full replay; a refused command changes no byte', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.array(command, { minLength: 1, maxLength: 30 }),
        fc.integer({ min: 1, max: 6 }),
        async (cmds, every) => {
          const root = path.join(tempDir('baton-prop-'), '.baton');
          FileStore.init(root);
          const store = new FileStore({ root });
          const m = new SessionManager({ store, agent: 'prop', snapshotEvery: every });
          try {
            await m.start({ title: 'prop', id: ID, phases: PHASES.map((p) => ({ id: p, name: p })) });
            for (const c of cmds) {
              const before = bytes(root);
              try {
                await c.run(m);
              } catch (e) {
                expect(isBatonError(e), `${c.name}: ${String(e)}`).toBe(true);
                expect(bytes(root), `${c.name} was refused (${(e as Error).message}) but changed the journal`).toBe(
                  before,
                );
              }
            }
            const fresh = new FileStore({ root });
            try {
              const loaded = await fresh.load(ID);
              const all = await fresh.readEvents(ID);
              const viaSnapshot = fold(loaded.snapshot?.state ?? null, loaded.events, ID);
              const viaReplay = fold(null, all, ID);
              expect(viaSnapshot).toEqual(viaReplay);
              expect(viaReplay!.revision).toBe(all.length);
            } finally {
              await fresh.close();
            }
          } finally {
            await store.close();
          }
        },
      ),
      { numRuns: RUNS },
    );
  });

  it('random damage to a journal is read intact, repaired with nothing acknowledged lost, or reported', async () => {
    const target = fileTarget();
    try {
      const r = await randomDamage(target, RUNS);
      expect(r.failure).toBeNull();
      expect(r.ran).toBe(RUNS);
    } finally {
      await target.cleanup();
    }
  });
});
