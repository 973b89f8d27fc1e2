/**
 * Sessions that travel (manager.bundles, docs/storage.md "Session bundles"): a session
 * exported from a file store in one folder is imported into another file store in another
 * folder, and into PostgreSQL, with the same state (paths re-rooted), its checkpoints and a
 * large step result; a damaged or truncated bundle is refused whole; a clash is refused unless
 * asked.
 */
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { isBatonError } from '../../src/domain/errors.js';
import { SessionManager } from '../../src/manager/manager.js';
import { Workspace } from '../../src/manager/workspace.js';
import { MemoryStore } from '../../src/store/memory.js';
import { openStore } from '../../src/store/open.js';
import { tempDir } from '../support/temp.js';
import { dropSchema, freshSchema, PG_URL, urlWith } from '../store/pg-helpers.js';

async function refusal(
  p: Promise<unknown>,
): Promise<{ code: string; message: string; hint: string; hintAction?: unknown }> {
  try {
    await p;
  } catch (e) {
    if (isBatonError(e))
      return { code: e.code, message: e.message, hint: String(e.hint ?? ''), hintAction: e.hintAction };
    throw e;
  }
  throw new Error('expected a refusal');
}

const schemas: string[] = [];
afterAll(async () => {
  for (const s of schemas) await dropSchema(s);
});

/** A manager on a new workspace folder: a file store in it, or a PostgreSQL schema. */
function side(kind: 'file' | 'pg'): { m: SessionManager; root: string } {
  const root = fs.realpathSync(tempDir('baton-bundle-'));
  let store: ReturnType<typeof openStore>;
  if (kind === 'pg') {
    const s = freshSchema('bundle');
    schemas.push(s);
    store = openStore({ url: urlWith({ schema: s }), env: {} });
  } else store = openStore({ dir: path.join(root, '.baton'), create: true, env: {} });
  return {
    m: new SessionManager({
      store,
      workspace: new Workspace(root, kind === 'file' ? path.join(root, '.baton') : null),
    }),
    root,
  };
}

/** A session with paths under `root`, a checkpoint, a decision and a large step result. */
async function sample(m: SessionManager, root: string): Promise<string> {
  const s = await m.start({
    id: 'travel-1',
    title: 'travelling',
    phases: [
      { id: 'build', name: 'Build' },
      { id: 'ship', name: 'Ship' },
    ],
  });
  fs.mkdirSync(path.join(root, 'src'), { recursive: true });
  fs.writeFileSync(path.join(root, 'src', 'a.ts'), 'export const a = 1;\n');
  await m.phase(s.id, 'build', 'start');
  await m.artifact(s.id, { path: path.join(root, 'src', 'a.ts'), kind: 'code' });
  await m.decision(s.id, { title: 'keep it small', choice: 'one file' });
  await m.steps.run(s.id, 'dump', () => 'r'.repeat(70_000));
  await m.checkpoints.create(s.id, { name: 'before ship' });
  await m.phase(s.id, 'build', 'complete');
  await m.derivedFiles.settled();
  return s.id;
}

/** The state as JSON with the workspace root written as `<root>`. */
function rooted(state: unknown, root: string): unknown {
  return JSON.parse(JSON.stringify(state).split(root).join('<root>'));
}

const TARGETS: Array<['file' | 'pg', string]> = [['file', 'another file store in another folder']];
if (PG_URL) TARGETS.push(['pg', 'PostgreSQL (a fresh schema)']);

describe.each(TARGETS)('a bundle carried from a file store to %s', (kind, _name) => {
  it('restores the same state, checkpoints (valid) and step results, paths under the receiver root', async () => {
    const a = side('file');
    const id = await sample(a.m, a.root);
    const file = path.join(tempDir('baton-bundle-out-'), 'travel.baton');
    const out = await a.m.bundles.export(id, file, { cwd: a.root });
    expect(out).toMatchObject({ id, file, checkpoints: expect.any(Number), stepResults: 1 });
    expect(out.relativePaths).toBeGreaterThan(0);
    // No absolute path of the sender in the file.
    expect(fs.readFileSync(file, 'utf8')).not.toContain(a.root);

    const b = side(kind);
    try {
      const r = await b.m.bundles.import(file, { cwd: b.root });
      expect(r).toMatchObject({ id, bundledId: id, root: b.root, replaced: false, active: false });
      const original = await a.m.get(id);
      const copy = await b.m.get(id);
      expect(rooted(copy, b.root)).toEqual(rooted(original, a.root));
      expect(copy.artifacts?.[0]?.path ?? JSON.stringify(copy)).toContain(b.root);
      // Not the active session there unless asked.
      expect(await b.m.store.getActive()).toBeNull();
      // Same journal: times and actors kept.
      const la = await a.m.log(id);
      const lb = await b.m.log(id);
      expect(lb.map((e) => [e.seq, e.type, e.time, e.actor])).toEqual(la.map((e) => [e.seq, e.type, e.time, e.actor]));
      // Checkpoints listed and valid; the large step result is there, not run again.
      const cps = await b.m.checkpoints.list(id);
      expect(cps.map((c) => c.id)).toEqual((await a.m.checkpoints.list(id)).map((c) => c.id));
      expect(cps.length).toBeGreaterThan(0);
      for (const c of cps) expect((await b.m.checkpoints.validate(id, c.id)).valid).toBe(true);
      expect(await b.m.steps.run(id, 'dump', () => 'not again')).toBe('r'.repeat(70_000));
    } finally {
      await b.m.close();
      await a.m.close();
    }
  });
});

describe('a bundle refused', () => {
  async function exported(): Promise<{ a: { m: SessionManager; root: string }; file: string; id: string }> {
    const a = side('file');
    const id = await sample(a.m, a.root);
    const file = path.join(tempDir('baton-bundle-out-'), 'travel.baton');
    await a.m.bundles.export(id, file, { cwd: a.root });
    return { a, file, id };
  }

  it('damaged (one byte changed, or cut short) is CORRUPT and creates nothing', async () => {
    const { a, file, id } = await exported();
    const bytes = fs.readFileSync(file);
    const b = side('file');
    try {
      // One byte inside the journal: a letter of the decision's text.
      const changed = Buffer.from(bytes);
      const at = changed.indexOf('keep it small');
      changed[at] = 'K'.charCodeAt(0);
      const bad = file.replace(/\.baton$/, '-changed.baton');
      fs.writeFileSync(bad, changed);
      const r1 = await refusal(b.m.bundles.import(bad, { cwd: b.root }));
      expect(r1.code).toBe('CORRUPT');
      expect(r1.message).toContain('does not match its sha256');
      expect(r1.hint).toContain('again');
      const cut = file.replace(/\.baton$/, '-cut.baton');
      fs.writeFileSync(cut, bytes.subarray(0, Math.floor(bytes.length / 2)));
      expect((await refusal(b.m.bundles.import(cut, { cwd: b.root }))).code).toBe('CORRUPT');
      expect(await b.m.store.exists(id)).toBe(false);
      expect(await b.m.list({ all: true })).toEqual([]);
      // The untouched file imports.
      expect((await b.m.bundles.import(file, { cwd: b.root })).id).toBe(id);
    } finally {
      await b.m.close();
      await a.m.close();
    }
  });

  it('from a newer baton is UNSUPPORTED_VERSION', async () => {
    const { a, file } = await exported();
    const crypto = await import('node:crypto');
    const body = JSON.parse(fs.readFileSync(file, 'utf8').split('\n')[0]!) as Record<string, unknown>;
    const line = `${JSON.stringify({ ...body, v: 99 })}\n`;
    const newer = file.replace(/\.baton$/, '-v99.baton');
    fs.writeFileSync(
      newer,
      `${line}${JSON.stringify({ sha256: crypto.createHash('sha256').update(line).digest('hex') })}\n`,
    );
    const b = side('file');
    try {
      expect((await refusal(b.m.bundles.import(newer, { cwd: b.root }))).code).toBe('UNSUPPORTED_VERSION');
    } finally {
      await b.m.close();
      await a.m.close();
    }
  });

  it('clashing with an existing session is EXISTS, unless --as or --replace', async () => {
    const { a, file, id } = await exported();
    try {
      const r = await refusal(a.m.bundles.import(file, { cwd: a.root }));
      expect(r.code).toBe('EXISTS');
      expect(r.hintAction).toEqual({ action: 'bundle.import-as', args: { file: expect.any(String) } });
      const before = await a.m.get(id);
      const as = await a.m.bundles.import(file, { cwd: a.root, as: 'travel-2' });
      expect(as).toMatchObject({ id: 'travel-2', bundledId: id });
      const copy = await a.m.get('travel-2');
      expect({ ...copy, id: before.id }).toEqual(before);
      expect((await a.m.checkpoints.list('travel-2')).length).toBeGreaterThan(0);
      for (const c of await a.m.checkpoints.list('travel-2'))
        expect((await a.m.checkpoints.validate('travel-2', c.id)).valid).toBe(true);
      await a.m.lifecycle(id, 'pause');
      const rep = await a.m.bundles.import(file, { cwd: a.root, replace: true, switch: true });
      expect(rep).toMatchObject({ id, replaced: true, active: true });
      expect(await a.m.store.getActive()).toBe(id);
    } finally {
      await a.m.close();
    }
  });

  it('into a store that keeps no large step results (memory) is BAD_INPUT and creates nothing', async () => {
    const { a, file, id } = await exported();
    const b = new SessionManager({ store: new MemoryStore() });
    try {
      const r = await refusal(b.bundles.import(file, { cwd: a.root }));
      expect(r.code).toBe('BAD_INPUT');
      expect(r.message).toContain('holds 1 large step result(s), which this store does not keep');
      expect(r.hintAction).toEqual({ action: 'bundle.store-keeps-steps', args: {} });
      expect(await b.store.exists(id)).toBe(false);
    } finally {
      await b.close();
      await a.m.close();
    }
  });
});

describe('a bundle of a session whose large step result is damaged in the store', () => {
  it('leaves the result out and names the step; the receiver, as the sender, gets CORRUPT for it', async () => {
    const a = side('file');
    const b = side('file');
    try {
      const id = await sample(a.m, a.root);
      const folder = path.join(a.root, '.baton', 'sessions', id);
      const result = fs.readdirSync(folder).find((f) => f.startsWith('step-'))!;
      fs.writeFileSync(path.join(folder, result), JSON.stringify('x'.repeat(70_000)));
      const file = path.join(tempDir('baton-bundle-out-'), 'travel.baton');
      const out = await a.m.bundles.export(id, file, { cwd: a.root });
      expect(out).toMatchObject({ stepResults: 0, skippedStepResults: ['dump'] });
      await b.m.bundles.import(file, { cwd: b.root });
      expect((await refusal(b.m.steps.run(id, 'dump', () => 'not again'))).code).toBe('CORRUPT');
    } finally {
      await b.m.close();
      await a.m.close();
    }
  });
});
