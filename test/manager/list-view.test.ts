/**
 * `list --json` through a list view: the text printed last is printed again while nothing it
 * was made of changed, and never once something did (a row, a folder, a lease running out),
 * or when the view file is damaged.
 */
import fs from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { SessionManager } from '../../src/manager/manager.js';
import { FileStore } from '../../src/store/file/store.js';
import { tempStoreDir } from '../store/helpers.js';

const dirs: Array<{ remove: () => void }> = [];
const managers: SessionManager[] = [];
afterEach(async () => {
  for (const m of managers.splice(0)) await m.close();
  for (const d of dirs.splice(0)) d.remove();
});

let clock = Date.parse('2026-06-01T10:00:00.000Z');

/** A manager whose store counts the registry reads (listRows). */
function open(root?: string): { m: SessionManager; reads: () => number; root: string } {
  if (!root) {
    const d = tempStoreDir('baton-listview-');
    dirs.push(d);
    root = d.root;
  }
  const store = new FileStore({ root });
  let n = 0;
  const inner = store.listRows.bind(store);
  store.listRows = (o) => {
    n += 1;
    return inner(o);
  };
  const m = new SessionManager({
    store,
    agent: 'a',
    now: () => new Date(clock),
    derivedFiles: { handoff: false, mirrors: false },
  });
  managers.push(m);
  return { m, reads: () => n, root };
}

const ids = (json: string): string[] => (JSON.parse(json) as Array<{ id: string }>).map((r) => r.id);

describe('list views', () => {
  it('a narrowed list (workspace, status) neither uses nor leaves a view', async () => {
    const { m } = open();
    for (let i = 0; i < 3; i++) {
      clock += 1000;
      await m.start({ title: `s${i}`, id: `s${i}`, switch: true });
    }
    // Sessions of a file store have no workspace: none of them is listed for one.
    for (let round = 0; round < 2; round++) expect(ids(await m.listJson({ workspace: 'elsewhere' }))).toEqual([]);
    expect(ids(await m.listJson())).toEqual(['s2', 's1', 's0']);
    expect(ids(await m.listJson({ status: 'paused' }))).toEqual(['s1', 's0']);
    expect(ids(await m.listJson())).toEqual(['s2', 's1', 's0']);
    for (let round = 0; round < 2; round++) expect(ids(await m.listJson({ workspace: 'elsewhere' }))).toEqual([]);
  });

  it('the second list prints the view without reading the registry; any change is seen at once', async () => {
    const { m, reads, root } = open();
    for (let i = 0; i < 5; i++) {
      clock += 1000;
      await m.start({ title: `s${i}`, id: `s${i}`, switch: true });
    }
    const first = await m.listJson();
    await m.listJson(); // the first read may have rewritten index.json: this one saves the view
    const before = reads();
    expect(await m.listJson()).toBe(first);
    expect(reads()).toBe(before);
    expect(ids(first)).toEqual(['s4', 's3', 's2', 's1', 's0']);

    // Another process changes a row: seen by the next list.
    const other = open(root).m;
    await other.lifecycle('s1', 'abandon');
    const after = await m.listJson();
    expect(reads()).toBe(before + 1);
    expect((JSON.parse(after) as Array<{ id: string; status: string }>).find((r) => r.id === 's1')!.status).toBe(
      'abandoned',
    );

    // A new session folder, an archived one: seen.
    clock += 1000;
    await other.start({ title: 'new', id: 's5', switch: true });
    expect(ids(await m.listJson())[0]).toBe('s5');
    await other.lifecycle('s0', 'abandon');
    await other.archive('s0');
    expect(ids(await m.listJson())).not.toContain('s0');
    expect(ids(await m.listJson({ all: true }))).toContain('s0');
  });

  it('a lease running out is seen: the view is not used past the earliest lease end', async () => {
    const { m } = open();
    await m.start({ title: 'leased', id: 'l1' });
    await m.leases.acquire('l1', { owner: 'run', ttlMs: 60_000 });
    await m.listJson();
    const active = await m.listJson();
    expect((JSON.parse(active) as Array<{ status: string }>)[0]!.status).toBe('active');
    clock += 120_000;
    const later = JSON.parse(await m.listJson()) as Array<{ status: string; cause: { cause: string } | null }>;
    expect(later[0]).toMatchObject({ status: 'interrupted', cause: { cause: 'lease-expired' } });
  });

  it('a damaged view file is not used', async () => {
    const { m, reads, root } = open();
    await m.start({ title: 'x', id: 'x1' });
    await m.listJson();
    const good = await m.listJson();
    const file = path.join(root, 'list-live.view');
    expect(fs.existsSync(file)).toBe(true);
    fs.writeFileSync(file, fs.readFileSync(file, 'utf8').slice(0, -10));
    const before = reads();
    expect(await m.listJson()).toBe(good);
    expect(reads()).toBe(before + 1);
  });
});
