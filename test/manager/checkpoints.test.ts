import fs from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { fold } from '../../src/domain/apply.js';
import { RESTORED_FIELDS } from '../../src/domain/apply-restore.js';
import { isBatonError } from '../../src/domain/errors.js';
import { SessionManager } from '../../src/manager/manager.js';
import type { ManagerOptions } from '../../src/manager/manager.js';
import { Workspace } from '../../src/manager/workspace.js';
import type { GitResult } from '../../src/manager/git.js';
import { MemoryStore } from '../../src/store/memory.js';
import { expectCode } from '../../src/testing/conformance.js';
import { cliHint } from '../../src/cli/hint-words.js';
import { tickingClock } from '../support/clock.js';
import { removeTempDirs, tempDir as sharedTempDir } from '../support/temp.js';

const T0 = Date.parse('2026-05-01T10:00:00.000Z');

function manager(o: Partial<ManagerOptions> = {}): SessionManager {
  return new SessionManager({
    store: new MemoryStore(),
    now: tickingClock(T0),
    agent: 'tester',
    pid: 1,
    host: 'h',
    ...o,
  });
}

afterEach(removeTempDirs);
const tempDir = (): string => sharedTempDir('baton-cp-');

/** A git runner that answers like a clean repository on `main` at commit `c1`, with overrides. */
function fakeGit(over: Partial<Record<string, Partial<GitResult>>> = {}, calls: string[][] = []) {
  return (args: string[]): GitResult => {
    calls.push(args);
    const key = args[0] === 'rev-parse' ? `rev-parse ${args[1]}` : args[0]!;
    const base: Record<string, Partial<GitResult>> = {
      'rev-parse --is-inside-work-tree': { stdout: 'true\n' },
      'rev-parse --show-toplevel': { stdout: '/repo\n' },
      'rev-parse --verify': { stdout: 'c1\n' },
      'symbolic-ref': { stdout: 'main\n' },
      status: { stdout: '' },
      'ls-files': { stdout: '' },
      'cat-file': { stdout: '' },
      reset: { stdout: '' },
      checkout: { stdout: '' },
    };
    const r = { ...(base[key] ?? { ok: false }), ...(over[key] ?? {}) };
    return { ok: r.ok ?? true, stdout: r.stdout ?? '', stderr: r.stderr ?? '', missing: r.missing ?? false };
  };
}

async function session(m: SessionManager, phases = ['design', 'build', 'test']): Promise<string> {
  const s = await m.start({
    title: 'Work',
    id: 'w',
    phases: phases.map((p) => ({ id: p, name: p[0]!.toUpperCase() + p.slice(1) })),
  });
  return s.id;
}

describe('checkpoints through the manager', () => {
  it('takes a named checkpoint: stored whole, recorded in the journal, listed valid', async () => {
    const m = manager({ autoCheckpoint: false });
    const id = await session(m);
    await m.note(id, { text: 'first' });
    const before = await m.get(id);
    const r = await m.checkpoints.create(id, { name: 'Before the build' });
    expect(r.checkpoint).toMatchObject({
      id: 'cp-1-before-the-build',
      sessionId: id,
      name: 'Before the build',
      revision: before.revision,
      trigger: 'manual',
      phaseId: null,
      git: null,
      files: [],
    });
    expect(r.checkpoint.state).toEqual(before);
    expect(r.state.revision).toBe(before.revision + 1);
    const log = await m.log(id);
    expect(log.at(-1)).toMatchObject({
      type: 'checkpoint.created',
      data: {
        checkpointId: 'cp-1-before-the-build',
        name: 'Before the build',
        revision: before.revision,
        trigger: 'manual',
        phaseId: null,
        git: null,
      },
    });
    const list = await m.checkpoints.list(id);
    expect(list).toEqual([
      {
        id: 'cp-1-before-the-build',
        name: 'Before the build',
        revision: before.revision,
        createdAt: r.checkpoint.createdAt,
        valid: true,
        superseded: false,
        trigger: 'manual',
        phaseId: null,
        git: null,
        files: 0,
        recorded: true,
        completedPhases: [],
      },
    ]);
    // Unnamed: named after its revision; numbers go on.
    const second = await m.checkpoints.create(id);
    expect(second.checkpoint.id).toBe(`cp-2-revision-${before.revision + 1}`);
    expect(second.checkpoint.name).toBe(`revision ${before.revision + 1}`);
  });

  it('refuses bad names, strict revisions, ended sessions; answers NOT_FOUND and BAD_INPUT for ids', async () => {
    const m = manager({ autoCheckpoint: false });
    const id = await session(m);
    await expectCode(m.checkpoints.create(id, { name: '' }), 'BAD_INPUT');
    await expectCode(m.checkpoints.create(id, { name: 'two\nlines' }), 'BAD_INPUT');
    await expectCode(m.checkpoints.create(id, { name: 'x'.repeat(201) }), 'BAD_INPUT');
    await expectCode(m.checkpoints.create(id, { name: 'x' }, { expectedRevision: 99 }), 'CONFLICT');
    await expectCode(m.checkpoints.show(id, 'cp-1'), 'NOT_FOUND');
    await expectCode(m.checkpoints.restore(id, 'cp-1'), 'NOT_FOUND');
    for (const bad of ['../x', '', 'a/b', '.x']) {
      await expectCode(m.checkpoints.show(id, bad), 'BAD_INPUT');
      await expectCode(m.checkpoints.restore(id, bad), 'BAD_INPUT');
    }
    await expectCode(m.checkpoints.list('nope'), 'NOT_FOUND');
    await m.checkpoints.create(id, { name: 'ok' });
    await m.lifecycle(id, 'complete', null, { force: true });
    await expectCode(m.checkpoints.create(id, { name: 'late' }), 'INVALID_TRANSITION');
    await expectCode(m.checkpoints.restore(id, 'cp-1-ok'), 'INVALID_TRANSITION');
    expect((await m.log(id)).filter((e) => e.type.startsWith('checkpoint.'))).toHaveLength(1);
  });

  it('takes a checkpoint automatically when a phase completes, unless turned off', async () => {
    const m = manager();
    const id = await session(m);
    await m.phase(id, 'design', 'start');
    const done = await m.phase(id, 'design', 'complete');
    // The result includes the checkpoint's event, so its revision is the session's.
    expect(done.events.map((e) => e.type)).toEqual(['phase.completed', 'checkpoint.created']);
    expect(done.state.revision).toBe((await m.get(id)).revision);
    const [cp] = await m.checkpoints.list(id);
    expect(cp).toMatchObject({
      id: 'cp-1-design-done',
      name: 'Design done',
      trigger: 'phase',
      phaseId: 'design',
      valid: true,
      revision: done.state.revision - 1,
      completedPhases: ['design'],
    });
    // Other phase verbs take none.
    await m.phase(id, 'build', 'start');
    await m.phase(id, 'build', 'fail');
    await m.phase(id, 'test', 'skip');
    expect(await m.checkpoints.list(id)).toHaveLength(1);

    // Off for one session (what `start --no-auto-checkpoint` stores) …
    const m2 = manager();
    const s2 = await m2.start({
      title: 'Quiet',
      id: 'q',
      phases: [{ id: 'a', name: 'A' }],
      metadata: { autoCheckpoint: false },
    });
    await m2.phase(s2.id, 'a', 'start');
    expect((await m2.phase(s2.id, 'a', 'complete')).events.map((e) => e.type)).toEqual(['phase.completed']);
    expect(await m2.checkpoints.list(s2.id)).toEqual([]);
    // … or for a whole manager.
    const m3 = manager({ autoCheckpoint: false });
    const s3 = await session(m3);
    await m3.phase(s3, 'design', 'start');
    await m3.phase(s3, 'design', 'complete');
    expect(await m3.checkpoints.list(s3)).toEqual([]);
  });

  it('an automatic checkpoint that cannot be taken warns and leaves the phase completed', async () => {
    const warnings: string[] = [];
    const store = new MemoryStore();
    store.saveCheckpoint = async () => {
      throw new (await import('../../src/domain/errors.js')).BatonError('STORE_UNAVAILABLE', 'disk full');
    };
    const m = manager({ store, onWarning: (w) => warnings.push(w) });
    const id = await session(m);
    await m.phase(id, 'design', 'start');
    const r = await m.phase(id, 'design', 'complete');
    expect(r.state.phases[0]!.status).toBe('completed');
    expect(warnings).toHaveLength(1);
    expect(warnings[0]).toContain('Automatic checkpoint after phase design was not taken');
    // The journal recorded it first, so it is listed, as invalid: its file is missing.
    const [cp] = await m.checkpoints.list(id);
    expect(cp).toMatchObject({
      id: 'cp-1-design-done',
      valid: false,
      recorded: true,
      problem: 'its file is missing (the journal recorded it)',
    });
  });

  it('restore appends checkpoint.restored: the work is the checkpoint’s again, the run carries on, later ones are superseded', async () => {
    const m = manager({ autoCheckpoint: false });
    const id = await session(m);
    await m.phase(id, 'design', 'start');
    await m.decision(id, { title: 'DB', choice: 'pg' });
    await m.tokens(id, { agent: 'a', input: 100, output: 10 });
    const cp1 = await m.checkpoints.create(id, { name: 'one' });
    await m.phase(id, 'design', 'complete');
    await m.note(id, { text: 'after one' });
    await m.finding(id, { text: 'later finding' });
    await m.tokens(id, { agent: 'a', input: 50, output: 5 });
    const cp2 = await m.checkpoints.create(id, { name: 'two' });
    await m.phase(id, 'build', 'start');
    const cp3 = await m.checkpoints.create(id, { name: 'three' });
    const before = await m.get(id);
    const history = await m.log(id);

    const r = await m.checkpoints.restore(id, cp1.checkpoint.id);
    expect(r.superseded).toEqual([cp2.checkpoint.id, cp3.checkpoint.id]);
    expect(r.git).toBeNull();
    expect(r.state.revision).toBe(before.revision + 1);
    for (const k of RESTORED_FIELDS) expect(r.state[k], k).toEqual(cp1.checkpoint.state[k]);
    expect(r.state.phases.map((p) => p.status)).toEqual(['in_progress', 'pending', 'pending']);
    expect(r.state.notes).toEqual([]);
    // What the run did stays: tokens spent, id counters, lifecycle.
    expect(r.state.tokens.input).toBe(150);
    expect(r.state.counters).toEqual(before.counters);
    expect(r.state.status).toBe('active');
    expect(r.state.restores).toEqual([
      {
        checkpointId: cp1.checkpoint.id,
        revision: cp1.checkpoint.revision,
        at: r.state.updatedAt,
        seq: r.state.revision,
        gitCommit: null,
      },
    ]);
    // History is never rewritten: the old events are all there, one event was appended.
    const after = await m.log(id);
    expect(after.slice(0, history.length)).toEqual(history);
    expect(after.slice(history.length).map((e) => e.type)).toEqual(['checkpoint.restored']);
    // The fold of the whole journal gives the same state.
    expect(fold(null, after, id)).toEqual(await m.get(id));

    const list = await m.checkpoints.list(id);
    expect(list.map((c) => [c.id, c.valid, c.superseded])).toEqual([
      [cp1.checkpoint.id, true, false],
      [cp2.checkpoint.id, true, true],
      [cp3.checkpoint.id, true, true],
    ]);
    // Ids handed out before the restore are not handed out again.
    const note = await m.note(id, { text: 'new line of work' });
    expect(note.result).toBe('note-2');
    // New checkpoints continue the numbering and are not superseded.
    const cp4 = await m.checkpoints.create(id, { name: 'four' });
    expect(cp4.checkpoint.id).toBe('cp-4-four');
    // Restoring a superseded one brings it back and supersedes what came after it.
    const again = await m.checkpoints.restore(id, cp2.checkpoint.id);
    expect(again.superseded).toEqual([cp3.checkpoint.id, cp4.checkpoint.id]);
    expect((await m.checkpoints.list(id)).map((c) => [c.id, c.superseded])).toEqual([
      [cp1.checkpoint.id, false],
      [cp2.checkpoint.id, false],
      [cp3.checkpoint.id, true],
      [cp4.checkpoint.id, true],
    ]);
    expect((await m.get(id)).notes.map((n) => n.text)).toEqual(['after one']);
  });

  it('restore honours --if-revision and the session lifecycle', async () => {
    const m = manager({ autoCheckpoint: false });
    const id = await session(m);
    const cp = await m.checkpoints.create(id, { name: 'x' });
    await expectCode(m.checkpoints.restore(id, cp.checkpoint.id, { expectedRevision: 1 }), 'CONFLICT');
    await m.lifecycle(id, 'pause');
    const r = await m.checkpoints.restore(id, cp.checkpoint.id, { expectedRevision: cp.state.revision + 1 });
    expect(r.state.status).toBe('paused');
  });

  it('numbers checkpoints once even when two managers race', async () => {
    const store = new MemoryStore();
    const a = manager({ store, autoCheckpoint: false });
    const b = manager({ store, autoCheckpoint: false });
    const id = await session(a);
    await Promise.all([
      a.checkpoints.create(id, { name: 'a1' }),
      b.checkpoints.create(id, { name: 'b1' }),
      a.checkpoints.create(id, { name: 'a2' }),
      b.checkpoints.create(id, { name: 'b2' }),
    ]);
    const list = await a.checkpoints.list(id);
    expect(list.map((c) => Number(/^cp-(\d+)-/.exec(c.id)![1]))).toEqual([1, 2, 3, 4]);
    expect(list.every((c) => c.valid && c.recorded)).toBe(true);
  });

  it('hashes every recorded file in the workspace now and shows what changed since', async () => {
    const dir = tempDir();
    fs.writeFileSync(path.join(dir, 'a.txt'), 'alpha');
    fs.mkdirSync(path.join(dir, 'src'));
    fs.writeFileSync(path.join(dir, 'src', 'b.ts'), 'beta');
    const ws = new Workspace(dir, null, fakeGit({ 'rev-parse --is-inside-work-tree': { ok: false } }));
    const m = manager({ autoCheckpoint: false, workspace: ws, measure: (p) => ws.hashFile(p) });
    const id = await session(m);
    await m.phase(id, 'design', 'start');
    await m.files(id, 'created', ['a.txt', 'src/b.ts'], null);
    await m.files(id, 'deleted', ['old.txt'], null);
    fs.writeFileSync(path.join(dir, 'a.txt'), 'alpha, edited after recording');
    const cp = await m.checkpoints.create(id, { name: 'files' });
    expect(cp.checkpoint.git).toBeNull();
    expect(cp.checkpoint.files).toEqual([
      { path: 'a.txt', sha256: ws.hashFile('a.txt').sha256, size: 29 },
      { path: 'old.txt', sha256: null, size: null },
      { path: 'src/b.ts', sha256: ws.hashFile('src/b.ts').sha256, size: 4 },
    ]);
    fs.writeFileSync(path.join(dir, 'src', 'b.ts'), 'beta 2');
    fs.writeFileSync(path.join(dir, 'old.txt'), 'back');
    fs.rmSync(path.join(dir, 'a.txt'));
    const d = await m.checkpoints.show(id, cp.checkpoint.id);
    expect(d.drift?.map((f) => [f.path, f.status])).toEqual([
      ['a.txt', 'missing'],
      ['old.txt', 'appeared'],
      ['src/b.ts', 'changed'],
    ]);
  });

  it('records git branch, HEAD and dirty flag; restore --git resets through git with every refusal coded', async () => {
    const calls: string[][] = [];
    let over: Parameters<typeof fakeGit>[0] = {};
    const runner = (args: string[], _cwd: string) => fakeGit(over, calls)(args);
    const ws = new Workspace('/repo', '/repo/.baton', (a, c) => runner(a, c));
    const m = manager({ autoCheckpoint: false, workspace: ws });
    const id = await session(m);
    over = { status: { stdout: ' M src/x.ts\0' } };
    const cp = await m.checkpoints.create(id, { name: 'g' });
    // This fake git makes no copy of the dirty tree: the checkpoint says so (restore --git refuses it, below).
    expect(cp.checkpoint.git).toEqual({ branch: 'main', head: 'c1', dirty: true, snapshot: null });
    // The store is left out of what counts as a change.
    expect(calls.find((a) => a[0] === 'status')).toEqual([
      'status',
      '--porcelain=v1',
      '-z',
      '--untracked-files=all',
      '--',
      ':/',
      ':(top,literal,exclude).baton',
    ]);

    over = {};
    const clean = await m.checkpoints.create(id, { name: 'clean' });
    over = { status: { stdout: ' M src/x.ts\0?? new.txt\0' } };
    const dirty = await m.checkpoints.restore(id, clean.checkpoint.id, { git: true }).catch((e: unknown) => e);
    expect(isBatonError(dirty, 'CONFLICT') && cliHint(dirty)).toContain('--force');
    expect(isBatonError(dirty) && dirty.details['dirty']).toEqual(['src/x.ts', 'new.txt']);
    over = { status: { stdout: '' }, 'symbolic-ref': { stdout: 'feature\n' } };
    const branch = await m.checkpoints.restore(id, clean.checkpoint.id, { git: true }).catch((e: unknown) => e);
    expect(isBatonError(branch, 'CONFLICT') && cliHint(branch)).toContain('git switch main');
    over = { 'ls-files': { stdout: '.baton/sessions/w/journal.jsonl\0' } };
    await expectCode(m.checkpoints.restore(id, clean.checkpoint.id, { git: true }), 'BAD_INPUT');
    over = { 'cat-file': { ok: false } };
    await expectCode(m.checkpoints.restore(id, clean.checkpoint.id, { git: true }), 'NOT_FOUND');
    over = { 'rev-parse --is-inside-work-tree': { ok: false } };
    await expectCode(m.checkpoints.restore(id, clean.checkpoint.id, { git: true }), 'BAD_INPUT');
    expect(calls.some((a) => a[0] === 'reset' || a[0] === 'checkout')).toBe(false);
    expect((await m.log(id)).some((e) => e.type === 'checkpoint.restored')).toBe(false);

    over = { status: { stdout: ' M src/x.ts\0' }, 'rev-parse --verify': { stdout: 'c9\n' } };
    // Taken on a dirty tree without a copy of it: resetting would lose that work, so it is refused even with force.
    const lost = await m.checkpoints.restore(id, cp.checkpoint.id, { git: true, force: true }).catch((e: unknown) => e);
    expect(isBatonError(lost, 'BAD_INPUT') && lost.message).toContain('holds no copy of them');
    expect(isBatonError(lost) && cliHint(lost)).toBe(`Run \`baton restore ${cp.checkpoint.id}\` without --git.`);
    const r = await m.checkpoints.restore(id, clean.checkpoint.id, { git: true, force: true });
    expect(calls.at(-1)).toEqual(['reset', '--hard', '--quiet', 'c1']);
    expect(r.git).toEqual({ commit: 'c1', previousHead: 'c9', snapshot: null });
    expect((await m.log(id)).at(-1)).toMatchObject({
      type: 'checkpoint.restored',
      data: { git: { commit: 'c1', previousHead: 'c9' } },
    });
    expect((await m.get(id)).restores?.at(-1)?.gitCommit).toBe('c1');

    // Taken outside git: nothing to reset to.
    over = { 'rev-parse --is-inside-work-tree': { ok: false } };
    const plain = await m.checkpoints.create(id, { name: 'no git' });
    expect(plain.checkpoint.git).toBeNull();
    over = {};
    await expectCode(m.checkpoints.restore(id, plain.checkpoint.id, { git: true }), 'BAD_INPUT');
    // Git not installed: no git info, no failure.
    over = { 'rev-parse --is-inside-work-tree': { ok: false, missing: true } };
    expect((await m.checkpoints.create(id, { name: 'no git binary' })).checkpoint.git).toBeNull();
  });
});
