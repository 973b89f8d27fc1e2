/**
 * One active session per workspace, not per store (issue 17): on a shared PostgreSQL store
 * each named workspace (default: this host and project folder; BATON_WORKSPACE / --workspace
 * to share one on purpose) has its own active pointer, `switch`/`pause` act within it, `list
 * --workspace` filters by it, and sixteen worker processes starting sessions at once all
 * succeed. A file store keeps its behaviour: its folder is its one workspace.
 */
import os from 'node:os';
import path from 'node:path';
import fs from 'node:fs';
import { afterEach, describe, expect, it } from 'vitest';
import { PG_URL, dropSchema, freshSchema, needsRealServer, urlWith } from '../store/pg-helpers.js';
import { expectError, runBaton, baseEnv, workspace } from '../cli/helpers.js';
import type { ListRow, Workspace } from '../cli/helpers.js';

const LOCK =
  "`baton start` takes the workspace lock: a transaction held on one connection while the store writes through another, which the embedded server's one session cannot run at once";
const WORKERS = 16;

describe.skipIf(!PG_URL)('workspaces on a shared PostgreSQL store', () => {
  needsRealServer({
    'workers in two project folders each start and keep their own active session; list --workspace filters; rows name the workspace':
      LOCK,
    "one workspace shared on purpose: the second start is ACTIVE_EXISTS; --switch pauses only that workspace's session":
      LOCK,
    [`${WORKERS} worker processes in ${WORKERS} project folders start sessions at once: all succeed, each active in its own workspace`]:
      LOCK,
    'an unusable workspace name is BAD_INPUT and writes nothing': LOCK,
  });
  const schemas: string[] = [];
  afterEach(async () => {
    for (const s of schemas.splice(0)) await dropSchema(s);
  });
  function store(): string {
    const schema = freshSchema('ws');
    schemas.push(schema);
    return urlWith({ schema });
  }
  const rows = async (w: Workspace, env: Record<string, string>, extra: string[] = []): Promise<ListRow[]> =>
    w.json<ListRow[]>(['list', ...extra], { env });

  it('workers in two project folders each start and keep their own active session; list --workspace filters; rows name the workspace', async () => {
    const url = store();
    const a = workspace();
    const b = workspace();
    const env = { BATON_STORE: url };
    await a.ok(['start', 'Work of A', '--id', 'wa'], { env });
    // Before workspaces this was ACTIVE_EXISTS: one active session per store.
    await b.ok(['start', 'Work of B', '--id', 'wb'], { env });
    expect((await a.status(undefined, { env })).id).toBe('wa');
    expect((await b.status(undefined, { env })).id).toBe('wb');
    const nameA = `${os.hostname()}:${a.dir}`;
    const all = await rows(a, env);
    expect(all.map((r) => [r.id, (r as ListRow & { workspace?: string }).workspace]).sort()).toEqual([
      ['wa', nameA],
      ['wb', `${os.hostname()}:${b.dir}`],
    ]);
    expect((await rows(b, env, ['--workspace', nameA])).map((r) => r.id)).toEqual(['wa']);
    expect(await rows(b, env, ['--workspace', 'nobody'])).toEqual([]);
    // A sub-folder of a checkout is the same project: the nearest folder holding .git.
    fs.mkdirSync(a.path('.git'));
    fs.mkdirSync(a.path('src', 'deep'), { recursive: true });
    const inSub = await a.status(undefined, { env, cwd: a.path('src', 'deep') });
    expect(inSub.id).toBe('wa');
    // pause acts on this workspace's session and leaves the other one active.
    await a.ok(['pause'], { env });
    expect((await b.status(undefined, { env })).status).toBe('active');
    expect((await a.status('wa', { env })).status).toBe('paused');
  });

  it("one workspace shared on purpose: the second start is ACTIVE_EXISTS; --switch pauses only that workspace's session", async () => {
    const url = store();
    const a = workspace();
    const b = workspace();
    const other = workspace();
    const shared = { BATON_STORE: url, BATON_WORKSPACE: 'team-red' };
    await a.ok(['start', 'First', '--id', 'first'], { env: shared });
    await other.ok(['start', 'Elsewhere', '--id', 'elsewhere'], { env: { BATON_STORE: url } });
    const refused = await b.run(['start', 'Second', '--id', 'second'], { env: shared });
    expect(expectError(refused, 'ACTIVE_EXISTS').message).toContain('first');
    expect((await b.run(['status', '--session', 'second'], { env: shared })).code).not.toBe(0);
    // --workspace names the same workspace as BATON_WORKSPACE.
    await b.ok(['start', 'Second', '--id', 'second', '--switch', '--workspace', 'team-red'], {
      env: { BATON_STORE: url },
    });
    expect((await a.status('first', { env: shared })).status).toBe('paused');
    expect((await a.status(undefined, { env: shared })).id).toBe('second');
    expect((await other.status(undefined, { env: { BATON_STORE: url } })).id).toBe('elsewhere');
    expect((await other.status('elsewhere', { env: { BATON_STORE: url } })).status).toBe('active');
    // switch within the workspace: back to first, second paused; elsewhere untouched.
    await b.ok(['switch', 'first'], { env: shared });
    expect((await a.status('second', { env: shared })).status).toBe('paused');
    expect((await other.status('elsewhere', { env: { BATON_STORE: url } })).status).toBe('active');
    expect((await rows(a, shared, ['--workspace', 'team-red'])).map((r) => r.id).sort()).toEqual(['first', 'second']);
  });

  it(`${WORKERS} worker processes in ${WORKERS} project folders start sessions at once: all succeed, each active in its own workspace`, async () => {
    const url = store();
    const folders = Array.from({ length: WORKERS }, () => workspace());
    // Real processes, all started before any finishes: they race for the schema's migration too.
    const results = await Promise.all(
      folders.map((w, i) => runBaton(['start', `Worker ${i}`, '--id', `w${i}`], w.dir, baseEnv({ BATON_STORE: url }))),
    );
    results.forEach((r, i) => expect(r.code, `worker ${i}: ${r.stderr}`).toBe(0));
    for (const [i, w] of folders.entries()) {
      const s = await w.status(undefined, { env: { BATON_STORE: url } });
      expect([s.id, s.status]).toEqual([`w${i}`, 'active']);
    }
    // And the same race inside ONE workspace still lets exactly one start (the lock holds).
    const shared = { BATON_STORE: url, BATON_WORKSPACE: 'one-for-all' };
    const same = await Promise.all(
      folders.slice(0, 8).map((w, i) => runBaton(['start', `Shared ${i}`, '--id', `s${i}`], w.dir, baseEnv(shared))),
    );
    expect(same.filter((r) => r.code === 0)).toHaveLength(1);
    for (const r of same.filter((x) => x.code !== 0)) expect(r.stderr).toContain('ACTIVE_EXISTS');
  });

  it('an unusable workspace name is BAD_INPUT and writes nothing', async () => {
    const url = store();
    const w = workspace();
    for (const bad of ['   ', 'tab\there', 'x'.repeat(301)]) {
      const r = await w.run(['start', 'Nope', '--id', 'nope'], { env: { BATON_STORE: url, BATON_WORKSPACE: bad } });
      expect(expectError(r, 'BAD_INPUT').hint).toContain('--workspace');
    }
    expect(await rows(w, { BATON_STORE: url })).toEqual([]);
  });
});

describe('workspaces on a file store', () => {
  it('keep their behaviour: the folder is the workspace, BATON_WORKSPACE changes nothing, rows name no workspace', async () => {
    const w = workspace();
    await w.ok(['start', 'One', '--id', 'one'], { env: { BATON_WORKSPACE: 'a' } });
    const r = await w.run(['start', 'Two', '--id', 'two'], { env: { BATON_WORKSPACE: 'b' } });
    expectError(r, 'ACTIVE_EXISTS');
    const list = await w.json<Array<Record<string, unknown>>>(['list']);
    expect(list.map((x) => x['id'])).toEqual(['one']);
    expect(list[0]).not.toHaveProperty('workspace');
    expect(fs.existsSync(path.join(w.store, 'active'))).toBe(true);
  });
});
