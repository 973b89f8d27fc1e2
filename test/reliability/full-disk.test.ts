/**
 * The file store on a full disk (issues 16 and 25, fault injection): a small tmpfs mounted by
 * the test (as root; skipped, saying why, otherwise). Once a filler file has taken every free
 * byte, `note add` fails with STORE_UNAVAILABLE (exit 15) and writes nothing that is read
 * back and no lock is left behind; reads still show exactly the acknowledged notes; once space
 * returns the session loads and takes appends again, numbering straight on. The library (a
 * SessionManager over a FileStore) and the MCP server get the same BatonError, with
 * `details.reason: 'disk_full'` and a hint, never a bare ENOSPC.
 */
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { tempDir } from '../support/temp.js';
import { EXIT_CODES, Workspace } from '../cli/helpers.js';
import type { EventJson, StatusJson } from '../cli/helpers.js';
import { BatonError } from '../../src/domain/errors.js';
import { SessionManager } from '../../src/manager/manager.js';
import { FileStore } from '../../src/store/file/store.js';
import { expectContiguous } from '../../src/testing/conformance.js';
import { connect, refused } from '../mcp/helpers.js';

let mnt: string | null = null;
let why = '';

beforeAll(() => {
  if (process.getuid?.() !== 0) {
    why = 'not running as root (mounting a tmpfs needs it)';
    return;
  }
  const dir = tempDir('baton-full-');
  try {
    execFileSync('mount', ['-t', 'tmpfs', '-o', 'size=320k,mode=0700', 'tmpfs', dir], { stdio: 'pipe' });
    mnt = dir;
  } catch (e) {
    why = `mount -t tmpfs failed: ${String((e as { stderr?: Buffer }).stderr ?? e).trim()}`;
  }
});

afterAll(() => {
  if (mnt) execFileSync('umount', ['-l', mnt], { stdio: 'pipe' });
});

/** Fills the file system of `file` to the last byte; returns how many bytes it took. */
function fill(file: string): number {
  const fd = fs.openSync(file, 'w');
  const chunk = Buffer.alloc(4096, 0x61);
  let n = 0;
  try {
    for (;;) {
      try {
        n += fs.writeSync(fd, chunk);
      } catch (e) {
        if ((e as NodeJS.ErrnoException).code !== 'ENOSPC') throw e;
        // Then byte by byte, so that no page is left with room in it.
        try {
          for (;;) n += fs.writeSync(fd, chunk, 0, 1);
        } catch {
          return n;
        }
      }
    }
  } finally {
    fs.closeSync(fd);
  }
}

describe('file store on a full disk (tmpfs)', () => {
  it('appends fail with STORE_UNAVAILABLE, nothing half-written is read back, the session carries on once space returns', async (ctx) => {
    if (!mnt) {
      console.warn(`SKIPPED full-disk test: ${why}`);
      ctx.skip();
      return;
    }
    const ws = new Workspace(mnt);
    await ws.ok(['start', 'Full disk', '--id', 'full']);
    const acked: string[] = [];
    for (let i = 1; i <= 5; i++) {
      await ws.ok(['note', 'add', `before ${i}`]);
      acked.push(`before ${i}`);
    }
    const filler = ws.path('filler');
    expect(fill(filler)).toBeGreaterThan(0);
    const failed: string[] = [];
    for (let i = 1; i <= 30; i++) {
      const text = `full ${i} ${'x'.repeat(200 * i)}`;
      const r = await ws.run(['note', 'add', text, '--json']);
      if (r.code === 0) {
        acked.push(text); // a page of the journal still had room: acknowledged, so it must stay
        continue;
      }
      expect(r.code, r.stdout + r.stderr).toBe(EXIT_CODES.STORE_UNAVAILABLE);
      expect(JSON.parse(r.stdout).error).toMatchObject({
        code: 'STORE_UNAVAILABLE',
        message: expect.stringMatching(/disk is full \(ENOSPC/),
        details: { errno: 'ENOSPC', reason: 'disk_full' },
        hint: expect.stringMatching(/Free disk space/),
      });
      failed.push(text);
    }
    expect(failed.length).toBeGreaterThan(20);
    // A failed command leaves no lock behind for the next one to wait on.
    expect(fs.existsSync(ws.path('.baton', 'sessions', 'full', 'lock'))).toBe(false);
    expect(fs.existsSync(ws.path('.baton', 'workspace.lock'))).toBe(false);
    // Still full: the reads see exactly what was acknowledged.
    const during = await ws.json<StatusJson & { notes?: Array<{ text: string }> }>(['status']);
    expect(during.revision).toBe(1 + acked.length);

    fs.rmSync(filler);
    await ws.ok(['note', 'add', 'after']);
    acked.push('after');
    const log = await ws.log();
    expect(log.map((e: EventJson) => e.seq)).toEqual(log.map((_, i) => i + 1));
    const notes = log.filter((e) => e.type === 'note.added').map((e) => (e.data as { text: string }).text);
    expect(notes).toEqual(acked);
    const raw = fs.readFileSync(ws.path('.baton', 'sessions', 'full', 'journal.jsonl'), 'utf8');
    for (const t of failed) expect(raw).not.toContain(`${t.slice(0, 12)} `);
    expect((await ws.run(['doctor'])).code).toBe(0);
  });
});

describe('the library and MCP on a full disk (tmpfs)', () => {
  it('a full disk is a BatonError STORE_UNAVAILABLE (disk_full) with a hint; every acknowledged note is there once space returns', async (ctx) => {
    if (!mnt) {
      console.warn(`SKIPPED full-disk library test: ${why}`);
      ctx.skip();
      return;
    }
    const root = `${mnt}/lib/.baton`;
    FileStore.init(root);
    const store = new FileStore({ root });
    const m = new SessionManager({ store, agent: 'lib', snapshotEvery: 4 });
    await m.start({ title: 'Full disk, library', id: 'lib', switch: true });
    const acked: string[] = [];
    for (let i = 1; i <= 3; i++) {
      await m.note('lib', { text: `before ${i}` });
      acked.push(`before ${i}`);
    }
    const filler = `${mnt}/lib/filler`;
    expect(fill(filler)).toBeGreaterThan(0);
    const errors: unknown[] = [];
    for (let i = 1; i <= 30; i++) {
      const text = `full ${i} ${'y'.repeat(150 * i)}`;
      try {
        await m.note('lib', { text });
        acked.push(text); // a page of the journal still had room: acknowledged, so it must stay
      } catch (e) {
        errors.push(e);
      }
    }
    expect(errors.length).toBeGreaterThan(20);
    for (const e of errors) {
      expect(e).toBeInstanceOf(BatonError);
      const b = e as BatonError;
      expect(b.code, b.stack).toBe('STORE_UNAVAILABLE');
      expect(b.details).toMatchObject({ errno: 'ENOSPC', reason: 'disk_full', retryable: true });
      expect(b.message).toMatch(/disk is full/);
      expect(b.hint).toMatch(/Free disk space/);
    }
    // The MCP server over the same manager: an isError result with the code and a hint a model can act on.
    const mcp = await connect({ manager: m });
    try {
      const body = await refused(
        mcp.client,
        'note_add',
        { session: 'lib', text: `mcp ${'z'.repeat(4000)}` },
        'STORE_UNAVAILABLE',
      );
      expect(body.details).toMatchObject({ errno: 'ENOSPC', reason: 'disk_full' });
    } finally {
      await mcp.close();
    }

    fs.rmSync(filler);
    await m.note('lib', { text: 'after' });
    acked.push('after');
    await store.close();
    // A fresh store loads the session (no CORRUPT) with exactly the acknowledged notes.
    const again = new FileStore({ root });
    try {
      const state = await new SessionManager({ store: again, agent: 'check' }).get('lib');
      expect(state.notes.map((n) => n.text)).toEqual(acked);
      expectContiguous(await again.readEvents('lib'));
    } finally {
      await again.close();
    }
  });
});
