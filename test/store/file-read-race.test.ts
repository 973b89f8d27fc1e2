/**
 * A reader that takes no lock (`readEvents`: `log`, `watch`, `otel follow`, the dashboard)
 * races a writer in another process. The writer appends, then writes the registry row and,
 * every so often, a snapshot: both prove a revision. A reader that looked at the proof after
 * reading a shorter journal must read again, not report acknowledged events as lost.
 */
import { spawn } from 'node:child_process';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';
import { SessionManager } from '../../src/manager/manager.js';
import { FileStore } from '../../src/store/file/store.js';
import { tempStoreDir } from './helpers.js';

const REPO = fileURLToPath(new URL('../..', import.meta.url));
let dir: ReturnType<typeof tempStoreDir> | null = null;

afterEach(() => {
  dir?.remove();
  dir = null;
});

describe('an unlocked reader racing a writer in another process', () => {
  it('never reports events as lost while the journal grows under it', async () => {
    dir = tempStoreDir('baton-read-race-');
    const root = dir.root;
    const setup = new SessionManager({
      store: new FileStore({ root }),
      agent: 't',
      derivedFiles: { handoff: false, mirrors: false },
    });
    await setup.start({ title: 'race', id: 'crash' });
    await setup.store.close();

    const child = spawn(
      process.execPath,
      ['--import', 'tsx', path.join(REPO, 'test/fixtures/group-writer.ts'), root, 'crash', 'race'],
      { cwd: REPO, stdio: ['ignore', 'pipe', 'pipe'] },
    );
    let out = '';
    child.stdout.on('data', (b: Buffer) => (out += b.toString()));
    const exited = new Promise<void>((resolve) => child.on('exit', () => resolve()));
    try {
      const start = Date.now();
      while (!out.includes('ready')) {
        if (Date.now() - start > 30_000) throw new Error('the writer did not start');
        await new Promise((r) => setTimeout(r, 20));
      }
      const reader = new FileStore({ root });
      const failures: string[] = [];
      let reads = 0;
      let last = 0;
      // At least 4 s, and on a loaded machine until the race was real (see below), at most 60 s.
      const until = Date.now() + 4_000;
      const latest = Date.now() + 60_000;
      while ((Date.now() < until || reads <= 20 || last <= 200) && Date.now() < latest) {
        try {
          const events = await reader.readEvents('crash');
          reads++;
          expect(events.at(-1)!.seq).toBeGreaterThanOrEqual(last);
          last = events.at(-1)!.seq;
        } catch (e) {
          failures.push(String(e));
        }
        await new Promise((r) => setImmediate(r));
      }
      await reader.close();
      expect(failures.slice(0, 3)).toEqual([]);
      // The race was real: the reader saw the journal move many times.
      expect(reads).toBeGreaterThan(20);
      expect(last).toBeGreaterThan(200);
    } finally {
      child.kill('SIGKILL');
      await exited;
    }
  });
});
