/**
 * The file store writes a session's registry row after the journal append it summarizes. A
 * process SIGKILLed between the two (for real, from inside its own write path) must not
 * leave a row that looks right and is not: a `baton run` killed just after its lease reached
 * the journal left an active row without the lease, which `claim` never took over. The writer
 * logs an in-doubt marker first; readers derive that row from the journal and store it once
 * no writer can still be between its marker and its row.
 */
import { spawn, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { SessionManager } from '../../src/manager/manager.js';
import { FileStore } from '../../src/store/file/store.js';
import { RowText } from '../../src/store/row.js';
import type { SessionSummary } from '../../src/domain/summary.js';
import { runFixture, tempStoreDir } from './helpers.js';

const dirs: Array<{ remove: () => void }> = [];
const children: Array<ReturnType<typeof spawn>> = [];
afterEach(() => {
  for (const c of children.splice(0)) c.kill('SIGKILL');
  for (const d of dirs.splice(0)) d.remove();
});

/** A store holding session `id`, active with a phase running, as `baton start` leaves it. */
async function storeWithSession(id: string): Promise<string> {
  const dir = tempStoreDir('baton-doubt-');
  dirs.push(dir);
  const m = new SessionManager({ store: new FileStore({ root: dir.root }), agent: 'starter' });
  await m.start({ title: id, id, switch: false, phases: [{ id: 'build', name: 'build' }] });
  await m.close();
  return dir.root;
}

/** Logs session `id`'s in-doubt marker at revision 1, as a writer does before a row-changing append. */
async function markInDoubt(root: string, id: string): Promise<void> {
  const writer = new FileStore({ root });
  (writer as unknown as { registry: { markInDoubt(id: string, revision: number): void } }).registry.markInDoubt(id, 1);
  await writer.close();
}

/** A fresh manager on the store, as the next `baton` command would open it. */
function next(root: string): SessionManager {
  return new SessionManager({ store: new FileStore({ root }), agent: 'worker' });
}

/** The rows index.log holds for `id`, in order, as written. */
function loggedRows(root: string, id: string): RowText[] {
  const text = fs.readFileSync(path.join(root, 'index.log'), 'utf8');
  return text
    .split('\n')
    .filter(Boolean)
    .map((l) => new RowText(l))
    .filter((r) => r.id === id);
}

describe('a writer killed between its journal append and its registry row', () => {
  it('after the lease is durable: list shows the lease, the row is stored again, and claim takes the session over at once', async () => {
    const root = await storeWithSession('dc');
    const run = await runFixture('test/fixtures/die-before-row.ts', [root, 'dc', 'after-sync']);
    expect(run.stdout, run.stderr).toBe('taking\n');
    expect(run.code).toBeNull(); // SIGKILLed

    const m = next(root);
    // Checked before any list: doctor names the marker the killed writer left.
    const report = await m.maintenance.doctor();
    expect(report.problems.filter((p) => p.code === 'INDEX_STALE')).toEqual([
      expect.objectContaining({
        sessionId: 'dc',
        message: expect.stringMatching(
          /registry row of dc is in doubt: a writer stopped between an append and its row/,
        ),
      }),
    ]);
    const journalLease = (await m.get('dc')).lease;
    expect(journalLease).not.toBeNull();
    const [row] = await m.list({ status: 'active', recheck: false });
    expect(row).toMatchObject({ id: 'dc', leaseToken: journalLease!.token });
    // Derived once and stored: the registry holds the row again, and no marker is left.
    expect(loggedRows(root, 'dc').at(-1)!.inDoubt).toBe(false);
    expect(loggedRows(root, 'dc').at(-1)!.summary).toMatchObject({ leaseToken: journalLease!.token });

    const claim = await next(root).claims.claim({ owner: 'claim:worker', ttlMs: 60_000 });
    expect(claim).toMatchObject({ sessionId: 'dc', cause: { cause: 'holder-gone' } });
    await m.close();
  }, 30_000);

  it('before the journal write: the row is derived from the journal as it was, without the lease', async () => {
    const root = await storeWithSession('db');
    const run = await runFixture('test/fixtures/die-before-row.ts', [root, 'db', 'before-write']);
    expect(run.stdout, run.stderr).toBe('taking\n');
    expect(run.code).toBeNull();
    expect(loggedRows(root, 'db').at(-1)!.inDoubt).toBe(true);

    const m = next(root);
    const s = await m.get('db');
    expect(s.lease ?? null).toBeNull();
    const [row] = await m.list();
    expect(row).toMatchObject({ id: 'db', status: 'active', revision: s.revision, leaseToken: null });
    expect(loggedRows(root, 'db').at(-1)!.inDoubt).toBe(false);
    await m.close();
  }, 30_000);

  it('a row a reader derives is written under the session lock: a writer killed right after cannot have its marker hidden by it', async () => {
    const root = await storeWithSession('dh');
    await markInDoubt(root, 'dh');

    // The reader stores the row it derived; at that moment a `baton run` (another process)
    // takes the lease and is SIGKILLed just after it is durable, before its row. Before the
    // row went in under the lock, the run slipped in between the reader's check and its row,
    // and that older row, later in the log, hid the run's marker for good.
    const store = new FileStore({ root });
    const registry = (store as unknown as { registry: { record(row: SessionSummary): void } }).registry;
    const record = registry.record.bind(registry);
    let during: ReturnType<typeof spawnSync> | null = null;
    registry.record = (row) => {
      if (row.id === 'dh' && !during) {
        during = spawnSync(
          process.execPath,
          ['--import', 'tsx', path.resolve('test/fixtures/die-before-row.ts'), root, 'dh', 'after-sync', '500'],
          { encoding: 'utf8' },
        );
      }
      record(row);
    };
    const m = new SessionManager({ store, agent: 'reader' });
    expect((await m.list())[0]).toMatchObject({ id: 'dh', leaseToken: null });
    await m.close();
    const first = during as ReturnType<typeof spawnSync> | null;
    const waited = first?.stdout === 'taking\nrefused LOCKED\n';
    if (waited) {
      // Once the row is in, the run goes ahead and is killed between its journal and its row.
      const run = await runFixture('test/fixtures/die-before-row.ts', [root, 'dh', 'after-sync']);
      expect(run.stdout, run.stderr).toBe('taking\n');
      expect(run.code).toBeNull();
    }
    const after = next(root);
    const lease = (await after.get('dh')).lease;
    expect(lease).not.toBeNull();
    expect((await after.list({ recheck: false }))[0]).toMatchObject({ id: 'dh', leaseToken: lease!.token });
    expect(await next(root).claims.claim({ owner: 'claim:worker', ttlMs: 60_000 })).toMatchObject({
      sessionId: 'dh',
      cause: { cause: 'holder-gone' },
    });
    await after.close();
    // The run could not get between the reader's check and its row.
    expect(first?.stdout, String(first?.stderr)).toBe('taking\nrefused LOCKED\n');
  }, 60_000);

  it('while another process holds the session lock (a writer between marker and row), a reader derives the row but does not store it', async () => {
    const root = await storeWithSession('dl');
    // The marker as a writer logs it, then that writer's lock held by a live process.
    await markInDoubt(root, 'dl');
    const holder = spawn(
      process.execPath,
      ['--import', 'tsx', path.resolve('test/fixtures/hold-lock.ts'), path.join(root, 'sessions', 'dl', 'lock')],
      { stdio: ['ignore', 'pipe', 'inherit'] },
    );
    children.push(holder);
    await new Promise<void>((resolve, reject) => {
      holder.stdout!.on('data', (b: Buffer) => (String(b).includes('held') ? resolve() : undefined));
      holder.on('exit', (code) => reject(new Error(`lock holder exited ${code}`)));
    });

    const m = next(root);
    const [row] = await m.list();
    expect(row).toMatchObject({ id: 'dl', status: 'active' });
    expect(loggedRows(root, 'dl').at(-1)!.inDoubt).toBe(true);

    holder.kill('SIGKILL');
    await new Promise((r) => holder.once('exit', r));
    await next(root).list();
    expect(loggedRows(root, 'dl').at(-1)!.inDoubt).toBe(false);
    await m.close();
  }, 30_000);
});
