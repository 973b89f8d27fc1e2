/**
 * I/O errors on the file store's write paths (issue 16, fault injection): open, write, fsync
 * and rename failing with EIO or ENOSPC on the Nth call, once or until healed, while a manager
 * starts a session and appends to it (with a snapshot every few events). Every failing call
 * is reported as STORE_UNAVAILABLE, never acknowledged; afterwards a fresh store on the real
 * file system loads the session with exactly the acknowledged events, nothing that failed is
 * anywhere in the journal, and the same store carries on once the disk is healthy.
 */
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { SessionManager } from '../../src/manager/manager.js';
import { BatonError } from '../../src/domain/errors.js';
import { toBatonError } from '../../src/manager/index.js';
import { FileStore } from '../../src/store/file/store.js';
import { expectContiguous } from '../../src/testing/conformance.js';
import { tempDir } from '../support/temp.js';
import { FaultyFs } from './faulty-fs.js';
import type { Fault, FaultOp } from './faulty-fs.js';

const ID = 'io';
const NOTES = 10;

interface Outcome {
  acked: string[];
  failed: string[];
  codes: string[];
  faulty: FaultyFs;
  root: string;
  /** The note the store took once healed. */
  after: string | null;
  /** Calls of each operation before the disk was healed. */
  before: Record<FaultOp, number>;
}

/** Starts the session and appends NOTES notes through a store on `faulty`; never throws. */
async function script(fault: Fault | null): Promise<Outcome> {
  const root = path.join(tempDir('baton-io-'), '.baton');
  FileStore.init(root);
  const faulty = new FaultyFs();
  faulty.arm(fault);
  const store = new FileStore({ root, fs: faulty.fs });
  const m = new SessionManager({ store, agent: 't', snapshotEvery: 3 });
  const out: Outcome = { acked: [], failed: [], codes: [], faulty, root, after: null, before: { ...faulty.calls } };
  const attempt = async (text: string, call: () => Promise<unknown>): Promise<void> => {
    try {
      await call();
      out.acked.push(text);
    } catch (e) {
      out.failed.push(text);
      // The library's own error, not the surfaces' mapping of it (issue 25): a BatonError with the cause.
      const reason = (e as BatonError).details?.['reason'];
      out.codes.push(
        e instanceof BatonError && (reason === 'io_error' || reason === 'disk_full')
          ? e.code
          : `not mapped: ${toBatonError(e, 'bug').code} ${String(e)}`,
      );
    }
  };
  let started = false;
  for (let tries = 0; tries < 3 && !started; tries++) {
    await attempt('start', () => m.start({ title: 'io', id: ID, switch: true }));
    started = out.acked.includes('start');
  }
  for (let i = 1; started && i <= NOTES; i++) await attempt(`note ${i}`, () => m.note(ID, { text: `note ${i}` }));
  faulty.heal();
  out.before = { ...faulty.calls };
  if (!started) await attempt('start', () => m.start({ title: 'io', id: ID, switch: true }));
  await m.note(ID, { text: 'after' });
  out.after = 'after';
  await store.close();
  return out;
}

/** A fresh store on the real file system: the session holds exactly what was acknowledged. */
async function verify(o: Outcome): Promise<void> {
  const store = new FileStore({ root: o.root });
  try {
    const m = new SessionManager({ store, agent: 'check' });
    const state = await m.get(ID);
    const want = [...o.acked.filter((t) => t !== 'start'), o.after];
    expect(state.notes.map((n) => n.text)).toEqual(want);
    const events = await store.readEvents(ID);
    expectContiguous(events);
    expect(events.filter((e) => e.type === 'session.created')).toHaveLength(1);
    // Nothing of a failed append was left behind to be read back later.
    const raw = fs.readFileSync(path.join(o.root, 'sessions', ID, 'journal.jsonl'), 'utf8');
    for (const text of o.failed.filter((t) => t !== 'start')) expect(raw).not.toContain(`"${text}"`);
  } finally {
    await store.close();
  }
}

describe('file store: injected I/O errors on open, write, fsync and rename', () => {
  it('a healthy run makes calls of every operation (so each fault below is really hit)', async () => {
    const o = await script(null);
    expect(o.failed).toEqual([]);
    for (const op of ['open', 'write', 'fsync', 'rename'] as FaultOp[]) expect(o.before[op], op).toBeGreaterThan(2);
    await verify(o);
  });

  const ops: FaultOp[] = ['open', 'write', 'fsync', 'rename'];
  for (const op of ops) {
    for (const errno of ['EIO', 'ENOSPC'] as const) {
      it(`${op} fails with ${errno} on the Nth call (each N, once and until healed): reported, loadable, nothing failed read back`, async () => {
        const healthy = (await script(null)).before[op];
        const ns = [...new Set([1, 2, Math.ceil(healthy / 2), healthy])].filter((n) => n >= 1 && n <= healthy);
        for (const nth of ns) {
          for (const times of [1, 4]) {
            // A full disk may take half a write before it refuses the rest.
            const o = await script({ op, errno, nth, times, partial: op === 'write' && errno === 'ENOSPC' });
            expect(o.faulty.failures, `${op} #${nth}`).toBeGreaterThan(0);
            expect(new Set(o.codes), JSON.stringify(o)).toEqual(
              o.codes.length ? new Set(['STORE_UNAVAILABLE']) : new Set(),
            );
            await verify(o);
          }
        }
      });
    }
  }
});
