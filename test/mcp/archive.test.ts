/**
 * `session_archive` (issue 27): the CLI's `baton archive` over MCP, with its `force`. A session
 * imported from a toolkit that requires a step before archiving (Maestro's reconciliation) is
 * refused with BLOCKED, the toolkit's reason and a hint naming the tool and `force`; with
 * `force: true` it is archived and the override recorded. Export has no tool (docs/mcp.md).
 */
import fs from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { openManager } from '../../src/manager/open.js';
import { tmpDir } from '../formats/core-helpers.js';
import { MAESTRO_REC_ID, maestroReconcile, writeTree } from '../formats/toolkit-mb-fixtures.js';
import { connect, expectToolHint, ok, refused } from './helpers.js';
import type { Harness } from './helpers.js';

const open: Array<Pick<Harness, 'close'>> = [];
const dirs: string[] = [];
afterEach(async () => {
  for (const h of open.splice(0)) await h.close();
  for (const d of dirs.splice(0)) fs.rmSync(d, { recursive: true, force: true });
});

async function harness(o: Parameters<typeof connect>[0] = {}): Promise<Harness> {
  const h = await connect(o);
  open.push(h);
  return h;
}

describe('session_archive', () => {
  it('archives a finished session; refuses an active one (INVALID_TRANSITION) and an unknown one (NOT_FOUND)', async () => {
    const { client, manager } = await harness();
    await ok(client, 'session_start', { title: 'Ship it', id: 's1', phases: ['a'] });
    const e = await refused(client, 'session_archive', { session: 's1' }, 'INVALID_TRANSITION');
    await expectToolHint(client, e.hint!);
    await ok(client, 'session_complete', { session: 's1', force: true });
    const r = await ok(client, 'session_archive', { session: 's1' });
    expect(r).toMatchObject({ session: 's1', status: 'completed' });
    expect((await manager.get('s1')).archived).toBe(true);
    expect(await manager.store.isArchived('s1')).toBe(true);
    expect((await ok(client, 'session_list', {}))['sessions']).toEqual([]);
    expect((await ok(client, 'session_list', { all: true }))['sessions'].map((x: { id: string }) => x.id)).toEqual([
      's1',
    ]);
    await refused(client, 'session_archive', { session: 's1' }, 'INVALID_TRANSITION');
    await refused(client, 'session_archive', { session: 'nope' }, 'NOT_FOUND');
  });

  it("a toolkit's required step refuses it with BLOCKED and the toolkit's reason; force archives it and records the override", async () => {
    const ws = tmpDir('baton-mcp-archive-');
    dirs.push(ws);
    writeTree(ws, maestroReconcile('completed', 'completed'));
    const manager = openManager({ cwd: ws, create: true, dir: path.join(ws, '.baton') });
    await manager.formats.import(path.join(ws, 'docs/maestro'), 'auto', { cwd: ws });
    const { client } = await harness({ manager });
    const e = await refused(client, 'session_archive', { session: MAESTRO_REC_ID }, 'BLOCKED');
    expect(e.message).toContain('Maestro refuses to archive');
    expect(e.hint).toContain('`session_archive` with `force: true`');
    await expectToolHint(client, e.hint!);
    expect((await manager.get(MAESTRO_REC_ID)).archived).toBe(false);
    await ok(client, 'session_archive', { session: MAESTRO_REC_ID, force: true });
    const s = await manager.get(MAESTRO_REC_ID);
    expect(s.archived).toBe(true);
    expect(JSON.stringify(s.metadata['toolkitRules'])).toContain(`waived with force (to archive ${MAESTRO_REC_ID})`);
  });
});
