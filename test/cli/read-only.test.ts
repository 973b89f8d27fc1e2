/**
 * Reading a store that cannot be written (issue 25): on a real read-only bind mount (as root;
 * skipped, saying why, otherwise) and on another user's store whose files are not writable
 * (run as `nobody` through setpriv), every reading command works through the CLI (status,
 * list, log, resume, handoff, checkpoints, export to a folder elsewhere, inspect, otel export,
 * doctor without --fix) and prints what it prints on the writable store, with nothing on
 * stderr; the dashboard serves every page; a command that must write is refused with
 * STORE_READ_ONLY (exit 18) naming the store, not a raw EROFS. A store with a torn tail and
 * a stale index.json reads too: the torn line is reported (`found[torn_tail]`), read around
 * and left on disk, the missing registry row derived and not saved.
 */
import { execFileSync, spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BATON, EXIT_CODES, Workspace, baseEnv, expectError, needBuiltCli, workspace } from './helpers.js';
import type { Result } from './helpers.js';
import { tempDir } from '../support/temp.js';
import { snapshotTree } from '../support/tree.js';
import { Receiver } from '../otel/receiver.js';
import { loadPages, startUiProcess } from '../ui/ui-process.js';

const SETPRIV = ['/usr/bin/setpriv', '/bin/setpriv'].find((p) => fs.existsSync(p));
/** setpriv arguments that run a command as nobody, with no supplementary groups. */
const AS_NOBODY = SETPRIV ? [SETPRIV, '--reuid=65534', '--regid=65534', '--clear-groups'] : [];
const isRoot = process.getuid?.() === 0;

/** Every mount this file made, unmounted after it. */
const mounts: string[] = [];
afterAll(() => {
  for (const m of mounts.splice(0).reverse()) execFileSync('umount', ['-l', m], { stdio: 'pipe' });
});

/**
 * A read-only view of `src` (a bind mount, remounted read-only) at a fresh folder, or the
 * reason it cannot be made.
 */
function readOnlyMount(src: string): { dir: string } | { why: string } {
  if (!isRoot) return { why: 'not running as root (mount needs it)' };
  const dst = tempDir('baton-ro-mnt-');
  try {
    execFileSync('mount', ['--bind', src, dst], { stdio: 'pipe' });
  } catch (e) {
    return { why: `mount --bind failed: ${String((e as { stderr?: Buffer }).stderr ?? e).trim()}` };
  }
  mounts.push(dst);
  try {
    execFileSync('mount', ['-o', 'remount,bind,ro', dst], { stdio: 'pipe' });
  } catch (e) {
    return { why: `mount -o remount,bind,ro failed: ${String((e as { stderr?: Buffer }).stderr ?? e).trim()}` };
  }
  try {
    fs.writeFileSync(path.join(dst, 'probe'), 'x');
    return { why: 'the read-only remount still takes writes' };
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code !== 'EROFS')
      return { why: `a write to the mount failed with ${(e as NodeJS.ErrnoException).code}, not EROFS` };
  }
  return { dir: dst };
}

/** The session every test reads: two phases (one done, one in progress), a file, two checkpoints, tokens, a note. */
async function script(ws: Workspace): Promise<void> {
  await ws.ok(['start', 'Read-only demo', '--id', 'ro', '--phases', 'design,build']);
  await ws.ok(['phase', 'start', 'design']);
  ws.write('src/a.ts', 'export const a = 1;\n');
  await ws.ok(['file', 'created', 'src/a.ts']);
  await ws.ok(['tokens', 'add', '--input', '1200', '--output', '300', '--agent', 'alice']);
  await ws.ok(['phase', 'complete', 'design']);
  await ws.ok(['checkpoint', 'mid']);
  await ws.ok(['phase', 'start', 'build']);
  await ws.ok(['note', 'add', 'written before the store went read-only']);
}

/**
 * A fixed clock, so that the same command prints the same text on the writable and the read-only store.
 * 90 s ahead, so that "updated 1m ago" stays the same while the script runs and the clock runs on
 * (60 s ahead sat on the 59s/1m edge and flipped under load).
 */
const NOW = new Date(Date.now() + 90_000).toISOString();

/** `text` with the time a resume plan was made (the clock of BATON_NOW runs on) set to NOW. */
function sameClock(text: string): string {
  return text
    .replace(/"generatedAt": "[^"]+"/g, `"generatedAt": "${NOW}"`)
    .replace(/generated \d{4}-\d\d-\d\dT[\d:.]+Z/g, `generated ${NOW}`);
}

/** The reading commands whose output must equal the writable store's, byte for byte. */
const SAME_AS_WRITABLE: string[][] = [
  ['status'],
  ['status', '--json'],
  ['list'],
  ['list', '--json'],
  ['log'],
  ['log', '--json'],
  ['resume'],
  ['resume', '--json'],
  ['handoff'],
  ['checkpoints', '--json'],
  ['checkpoint', 'show', 'cp-2-mid', '--json'],
  ['tokens', '--json'],
];

/** Commands that must write, refused on a read-only store. */
const WRITERS: string[][] = [
  ['note', 'add', 'one more'],
  ['phase', 'complete', 'build'],
  ['checkpoint', 'late'],
  ['start', 'Another session', '--switch'],
  ['pause'],
  ['doctor', '--fix'],
  ['repair'],
  // Sends nothing: it could not remember how far it got.
  ['otel', 'follow', '--endpoint', 'http://127.0.0.1:9'],
];

/** Runs the CLI as `nobody` (spawned through setpriv) in `cwd`. */
function runAsNobody(args: string[], cwd: string, env: Record<string, string> = {}): Promise<Result> {
  needBuiltCli();
  return new Promise((resolve, reject) => {
    const child = spawn(AS_NOBODY[0]!, [...AS_NOBODY.slice(1), process.execPath, BATON, ...args], {
      cwd,
      env: baseEnv(env),
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (b: Buffer) => (stdout += b.toString()));
    child.stderr.on('data', (b: Buffer) => (stderr += b.toString()));
    child.on('error', reject);
    child.on('close', (code) => resolve({ code: code ?? -1, stdout, stderr }));
  });
}

type Runner = (args: string[], env?: Record<string, string>) => Promise<Result>;

let src: Workspace;
let receiver: Receiver;

/**
 * What each command of SAME_AS_WRITABLE prints on the writable store of `ws`. A copy of a
 * store prints what its original prints after its first read, which derives the registry
 * rows again (the copy's files are other inodes than its index.json names).
 */
async function writableOutput(ws: Workspace): Promise<Map<string, string>> {
  const out = new Map<string, string>();
  for (const args of SAME_AS_WRITABLE) {
    const r = await ws.run(args, { env: { BATON_NOW: NOW } });
    expect(r.code).toBe(0);
    out.set(args.join(' '), sameClock(r.stdout));
  }
  return out;
}

beforeAll(async () => {
  needBuiltCli(); // the dashboard runs as its own process
  src = workspace();
  await script(src);
  receiver = await new Receiver().start();
}, 60_000);

afterAll(async () => {
  await receiver?.stop();
});

/**
 * Every reading command through `run` (the store found from the workspace it runs in,
 * `store` being its `.baton`), then the writing ones, refused. `out`: a writable folder
 * elsewhere for `export`.
 */
async function readsWithoutWriting(
  run: Runner,
  store: string,
  out: string,
  expected: Map<string, string>,
): Promise<void> {
  for (const args of SAME_AS_WRITABLE) {
    const r = await run(args, { BATON_NOW: NOW });
    expect({ args, code: r.code, stderr: r.stderr }).toEqual({ args, code: 0, stderr: '' });
    expect(sameClock(r.stdout), args.join(' ')).toBe(expected.get(args.join(' ')));
  }
  // handoff printed, and a look at what the plain commands say.
  expect((await run(['handoff'])).stdout).toContain('Read-only demo');
  expect((await run(['status'])).stdout).toMatch(/design\s+completed/);

  const exported = await run(['export', '--format', 'bmad', '--out', out, '--json']);
  expect({ code: exported.code, stderr: exported.stderr }).toEqual({ code: 0, stderr: '' });
  expect(fs.readdirSync(out, { recursive: true }).length).toBeGreaterThan(0);
  const inspected = await run(['inspect', out, '--format', 'bmad', '--json']);
  expect({ code: inspected.code, stderr: inspected.stderr }).toEqual({ code: 0, stderr: '' });
  expect(
    (JSON.parse(inspected.stdout) as { sessions: Array<{ id: string; units: unknown[] }> }).sessions,
  ).toMatchObject([{ id: 'ro', units: [{ id: 'design' }, { id: 'build' }] }]);

  receiver.spans.length = 0;
  const sent = await run(['otel', 'export', '--session', 'ro', '--endpoint', receiver.url, '--json'], {
    OTEL_EXPORTER_OTLP_TIMEOUT: '5000',
  });
  expect({ code: sent.code, stderr: sent.stderr }).toEqual({ code: 0, stderr: '' });
  expect(receiver.spans.map((s) => s.name)).toEqual(expect.arrayContaining([expect.stringContaining('design')]));

  const doctor = await run(['doctor', '--json']);
  expect({ code: doctor.code, stderr: doctor.stderr }).toEqual({ code: 0, stderr: '' });
  expect(JSON.parse(doctor.stdout)).toEqual({ ok: true, problems: [] });
  const told = await run(['doctor']);
  expect({ code: told.code, stderr: told.stderr }).toEqual({ code: 0, stderr: '' });
  expect(told.stdout).toContain(`Store ${store}: 1 session(s)\nNo problems`);

  for (const args of WRITERS) {
    const r = await run(args);
    const { message, hint } = expectError(r, 'STORE_READ_ONLY');
    expect(message).toContain(`The store at ${store} cannot be written`);
    expect(r.stderr).not.toContain('EROFS');
    expect(hint).toContain('Reading works as usual');
  }
}

/** Loads every dashboard page of session `id` through a `baton ui` started in `cwd`; all answer 200. */
async function dashboardReads(cwd: string, id: string, expected: Map<string, string>, wrap?: string[]): Promise<void> {
  const ui = await startUiProcess(cwd, wrap ? { wrap } : {});
  try {
    const pages = await loadPages(ui, id);
    for (const [p, page] of Object.entries(pages)) expect({ p, status: page.status }).toEqual({ p, status: 200 });
    const sessions = JSON.parse(pages['/api/sessions']!.body) as { rows: Array<{ id: string; revision: number }> };
    const listed = JSON.parse(expected.get('list --json')!) as Array<{ id: string; revision: number }>;
    const status = JSON.parse(expected.get('status --json')!) as { revision: number };
    expect(sessions.rows.map((r) => [r.id, r.revision])).toEqual(listed.map((r) => [r.id, r.revision]));
    expect(JSON.parse(pages[`/api/sessions/${id}/events`]!.body)).toMatchObject({ total: status.revision });
    expect(ui.stderr()).not.toMatch(/error|warning/);
  } finally {
    expect(await ui.stop()).toBe(0);
  }
}

describe('a store on a read-only bind mount', () => {
  let mnt: { dir: string } | { why: string };
  let expected: Map<string, string>;
  beforeAll(async () => {
    expected = await writableOutput(src);
    mnt = readOnlyMount(src.dir);
  });

  it("every reading command succeeds with the writable store's output; writing ones fail with STORE_READ_ONLY", async (ctx) => {
    if ('why' in mnt) {
      console.warn(`SKIPPED read-only mount test: ${mnt.why}`);
      return ctx.skip();
    }
    const ro = new Workspace(mnt.dir);
    await readsWithoutWriting(
      (args, env) => ro.run(args, { env: env ?? {} }),
      ro.store,
      tempDir('baton-ro-out-'),
      expected,
    );
  }, 60_000);

  it('the dashboard (baton ui) serves every page of it', async (ctx) => {
    if ('why' in mnt) {
      console.warn(`SKIPPED read-only mount dashboard test: ${mnt.why}`);
      return ctx.skip();
    }
    await dashboardReads(mnt.dir, 'ro', expected);
  }, 30_000);
});

describe("another user's store, not writable (chmod -R a-w), read as nobody", () => {
  let dir: string | null = null;
  let why = '';
  let expected: Map<string, string>;
  beforeAll(async () => {
    if (!isRoot || !SETPRIV) {
      why = !isRoot ? 'not running as root (setpriv to nobody needs it)' : 'no setpriv (util-linux) to run as nobody';
      return;
    }
    // The store belongs to root; nobody may read it, and write nothing in it.
    dir = path.join(tempDir('baton-other-'), 'project');
    fs.chmodSync(path.dirname(dir), 0o755);
    fs.cpSync(src.dir, dir, { recursive: true });
    execFileSync('chmod', ['-R', 'a+rX,a-w', dir]);
    const twin = path.join(tempDir('baton-other-twin-'), 'project');
    fs.cpSync(src.dir, twin, { recursive: true });
    expected = await writableOutput(new Workspace(twin));
  });

  it("every reading command succeeds with the writable store's output; writing ones fail with STORE_READ_ONLY", async (ctx) => {
    if (!dir) {
      console.warn(`SKIPPED other-user store test: ${why}`);
      return ctx.skip();
    }
    const before = snapshotTree(dir);
    const out = tempDir('baton-other-out-');
    fs.chmodSync(out, 0o777);
    await readsWithoutWriting((args, env) => runAsNobody(args, dir!, env), path.join(dir, '.baton'), out, expected);
    expect(snapshotTree(dir)).toEqual(before);
  }, 90_000);

  it('the dashboard (baton ui run by nobody) serves every page of it', async (ctx) => {
    if (!dir) {
      console.warn(`SKIPPED other-user store dashboard test: ${why}`);
      return ctx.skip();
    }
    await dashboardReads(dir, 'ro', expected, AS_NOBODY);
  }, 30_000);
});

describe('a read-only store with a torn tail and a stale index.json', () => {
  it('reads: the torn line reported and left, the missing row derived and not saved; a writable open then cuts it', async (ctx) => {
    const ws = workspace();
    await ws.ok(['start', 'Old session', '--id', 'old', '--phases', 'a']);
    await ws.ok(['note', 'add', 'old note']);
    await ws.ok(['pause']);
    await ws.ok(['list']); // index.json is written by the first list
    // The registry as it was before session `new` existed: put back later, it lacks its row.
    const saved = {
      index: fs.readFileSync(path.join(ws.store, 'index.json')),
      log: fs.readFileSync(path.join(ws.store, 'index.log')),
    };
    await ws.ok(['start', 'New session', '--id', 'new', '--phases', 'x,y']);
    await ws.ok(['phase', 'start', 'x']);
    await ws.ok(['note', 'add', 'acknowledged']);
    const acked = await ws.status('new');
    const oldRow = (await ws.json<Array<{ id: string; revision: number }>>(['list'])).find((r) => r.id === 'old')!;
    fs.writeFileSync(path.join(ws.store, 'index.json'), saved.index);
    fs.writeFileSync(path.join(ws.store, 'index.log'), saved.log);
    fs.rmSync(path.join(ws.store, 'list-live.view'), { force: true });
    // An append cut short by a crash: the last line has no newline.
    const journal = path.join(ws.store, 'sessions', 'new', 'journal.jsonl');
    fs.appendFileSync(journal, `{"v":1,"seq":${acked.revision + 1},"type":"note.added","data":{"text":"never acknow`);

    const mnt = readOnlyMount(ws.dir);
    if ('why' in mnt) {
      console.warn(`SKIPPED torn-tail read-only test: ${mnt.why}`);
      return ctx.skip();
    }
    const before = snapshotTree(ws.store);
    const ro = new Workspace(mnt.dir);

    const status = await ro.run(['status', '--session', 'new', '--json']);
    expect(status.code).toBe(0);
    expect(JSON.parse(status.stdout)).toMatchObject({ id: 'new', revision: acked.revision });
    expect(status.stderr).toMatch(
      /^found\[torn_tail\]: Session new: the journal ends in an incomplete line .* left as it is, as the store cannot be written \(a read-only file system\)\.\n$/,
    );

    const list = await ro.run(['list', '--all', '--json']);
    expect(list.code).toBe(0);
    const rows = JSON.parse(list.stdout) as Array<{ id: string; revision: number; status: string }>;
    expect(rows.map((r) => [r.id, r.revision, r.status])).toEqual([
      ['new', acked.revision, 'active'],
      ['old', oldRow.revision, 'paused'],
    ]);

    const log = await ro.run(['log', '--session', 'new', '--json']);
    expect(log.code).toBe(0);
    expect((JSON.parse(log.stdout) as unknown[]).length).toBe(acked.revision);
    for (const args of [
      ['resume', '--session', 'new'],
      ['handoff', '--session', 'new'],
      ['checkpoints', '--session', 'new'],
    ]) {
      const r = await ro.run(args);
      expect({ args, code: r.code }).toEqual({ args, code: 0 });
    }

    // doctor reports both, fixes nothing, and says it as on a writable store (problems found: exit 10).
    const doctor = await ro.run(['doctor', '--json']);
    expect(doctor.code).toBe(EXIT_CODES.CORRUPT);
    const problems = (
      JSON.parse(doctor.stdout) as { problems: Array<{ code: string; sessionId: string | null; fixed: boolean }> }
    ).problems;
    expect(problems.filter((p) => p.sessionId === 'new').map((p) => p.code)).toEqual(
      expect.arrayContaining(['TORN_TAIL', 'INDEX_STALE']),
    );
    expect(problems.every((p) => !p.fixed)).toBe(true);
    expect((await ro.run(['doctor'])).stdout).toContain(
      'fixable with `baton doctor --fix` once the store can be written (it cannot now: a read-only file system).',
    );

    const ui = await startUiProcess(mnt.dir);
    try {
      const pages = await loadPages(ui, 'new');
      for (const [p, page] of Object.entries(pages)) expect({ p, status: page.status }).toEqual({ p, status: 200 });
      expect(JSON.parse(pages['/api/sessions/new']!.body)).toMatchObject({
        view: { id: 'new', revision: acked.revision },
      });
    } finally {
      expect(await ui.stop()).toBe(0);
    }

    const refused = await ro.run(['note', 'add', 'more', '--session', 'new']);
    expect(refused.code).toBe(EXIT_CODES.STORE_READ_ONLY);
    expect(refused.stderr).toMatch(
      /^found\[torn_tail\]: .*\nerror\[STORE_READ_ONLY\]: The store at .* cannot be written/,
    );
    // Nothing was cut, moved or rebuilt: the files are as they were put there.
    expect(snapshotTree(ws.store)).toEqual(before);
    expect(fs.readFileSync(journal, 'utf8').endsWith('never acknow')).toBe(true);

    // The same store, writable: the first read cuts the tail, as always.
    const writable = await ws.run(['status', '--session', 'new', '--json']);
    expect(writable.code).toBe(0);
    expect(writable.stderr).toMatch(/^repaired\[torn_tail\]: /);
    expect(fs.readFileSync(journal, 'utf8').endsWith('\n')).toBe(true);
  }, 60_000);
});
