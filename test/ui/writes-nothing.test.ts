/**
 * The dashboard writes nothing to the store it shows, writable or not (issue 25): `baton ui`
 * over a writable store whose registry cache is stale (index.json gone, the list view
 * gone) and one of whose sessions ends in a torn line, every page and API route loaded:
 * every file and folder of `.baton/` has the same bytes, mode and mtime afterwards (no
 * index.json, no list view, no lock file, no cut tail), and the pages show the sessions as
 * the CLI does. The next ordinary command then repairs and caches as always.
 */
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { workspace } from '../cli/helpers.js';
import { snapshotTree } from '../support/tree.js';
import { loadPages, startUiProcess } from './ui-process.js';

describe('baton ui on a writable store', () => {
  it('loads every page and changes no file or folder of .baton/', async () => {
    const ws = workspace();
    await ws.ok(['start', 'First', '--id', 'one', '--phases', 'a,b']);
    await ws.ok(['phase', 'start', 'a']);
    await ws.ok(['pause']);
    await ws.ok(['start', 'Second', '--id', 'two', '--phases', 'x']);
    await ws.ok(['note', 'add', 'acknowledged']);
    const two = await ws.status('two');
    const listed = await ws.json<Array<{ id: string; revision: number }>>(['list']);
    // A stale cache, which a reader that may write rebuilds, and an append cut short.
    fs.rmSync(path.join(ws.store, 'index.json'), { force: true });
    for (const f of fs.readdirSync(ws.store)) if (f.endsWith('.view')) fs.rmSync(path.join(ws.store, f));
    const journal = path.join(ws.store, 'sessions', 'two', 'journal.jsonl');
    fs.appendFileSync(journal, `{"v":1,"seq":${two.revision + 1},"type":"note.added","da`);
    const before = snapshotTree(ws.store);

    const ui = await startUiProcess(ws.dir);
    try {
      for (const id of ['one', 'two']) {
        const pages = await loadPages(ui, id);
        for (const [p, page] of Object.entries(pages)) expect({ p, status: page.status }).toEqual({ p, status: 200 });
        const rows = (JSON.parse(pages['/api/sessions']!.body) as { rows: Array<{ id: string; revision: number }> })
          .rows;
        expect(rows.map((r) => [r.id, r.revision])).toEqual(listed.map((r) => [r.id, r.revision]));
      }
      // Reloads, as a browser does: still nothing written.
      await loadPages(ui, 'two');
    } finally {
      expect(await ui.stop()).toBe(0);
    }
    expect(snapshotTree(ws.store)).toEqual(before);
    // The torn line was read around, and reported on the dashboard's stderr; not cut.
    expect(ui.stderr().match(/found\[torn_tail\]: Session two: the journal ends in an incomplete line/g)).toHaveLength(
      1,
    );

    // A command that may write repairs and caches as usual.
    const status = await ws.run(['status', '--session', 'two', '--json']);
    expect(status.stderr).toMatch(/^repaired\[torn_tail\]: /);
    expect(JSON.parse(status.stdout)).toMatchObject({ revision: two.revision + 1 });
  }, 60_000);
});
