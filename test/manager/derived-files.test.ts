/**
 * The manager keeps the files derived from a session (handoff.md, mirrors) current itself, so a
 * library user of the manager (openManager) gets what the CLI and the MCP server get: after every change
 * by default (right after the change is acknowledged, once per burst: `derivedFiles.settled()`
 * waits for it), or once per unit of work when it asks to flush.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { openManager } from '../../src/index.js';
import type { OpenManagerOptions, SessionManager } from '../../src/index.js';

const dirs: string[] = [];
const managers: SessionManager[] = [];
afterEach(async () => {
  for (const m of managers.splice(0)) await m.store.close();
  for (const d of dirs.splice(0)) fs.rmSync(d, { recursive: true, force: true });
});

const NOW = new Date('2026-01-02T03:04:05.000Z');

function open(o: Partial<OpenManagerOptions> = {}): { m: SessionManager; ws: string } {
  const ws = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'baton-derived-')));
  dirs.push(ws);
  const m = openManager({ cwd: ws, create: true, dir: path.join(ws, '.baton'), now: () => NOW, ...o });
  managers.push(m);
  return { m, ws };
}

function handoffOf(m: SessionManager, id: string): string | null {
  const file = path.join(m.store.sessionFolder!(id)!, 'handoff.md');
  return fs.existsSync(file) ? fs.readFileSync(file, 'utf8') : null;
}

describe('derived files kept by the manager', () => {
  it('handoff.md is rewritten after every change, with no surface wiring', async () => {
    const { m } = open();
    await m.start({
      title: 'library work',
      id: 'lib-1',
      phases: [
        { id: 'plan', name: 'plan' },
        { id: 'build', name: 'build' },
      ],
    });
    await m.derivedFiles.settled();
    expect(handoffOf(m, 'lib-1')).toBe((await m.recovery.handoff('lib-1')).markdown);
    const before = handoffOf(m, 'lib-1');
    await m.phase('lib-1', 'plan', 'start');
    await m.derivedFiles.settled();
    expect(handoffOf(m, 'lib-1')).not.toBe(before);
    expect(handoffOf(m, 'lib-1')).toBe((await m.recovery.handoff('lib-1')).markdown);
  });

  it("refresh 'flush' writes only when asked; handoff: false never", async () => {
    const { m } = open({ derivedFiles: { refresh: 'flush' } });
    await m.start({ title: 'batched', id: 'b-1' });
    expect(handoffOf(m, 'b-1')).toBeNull();
    expect(await m.derivedFiles.flush()).toEqual([]);
    expect(handoffOf(m, 'b-1')).toBe((await m.recovery.handoff('b-1')).markdown);

    const off = open({ derivedFiles: { handoff: false } }).m;
    await off.start({ title: 'no file', id: 'n-1' });
    await off.note('n-1', { text: 'hello' });
    expect(await off.derivedFiles.flush()).toEqual([]);
    expect(handoffOf(off, 'n-1')).toBeNull();
  });

  it('a mirrored session has its foreign files rewritten by the change itself', async () => {
    const { m, ws } = open();
    await m.start({
      title: 'mirrored',
      id: 'mir-1',
      phases: [
        { id: 'plan', name: 'plan' },
        { id: 'build', name: 'build' },
      ],
    });
    await m.formats.setMirror('mir-1', { format: 'maestro', out: '.gemini' }, { cwd: ws });
    await m.derivedFiles.settled();
    const units = async (): Promise<string[]> =>
      (await m.formats.inspect(path.join(ws, '.gemini'), 'maestro', { cwd: ws })).sessions
        .find((s) => s.id === 'mir-1')!
        .units.map((u) => u.status);
    expect(await units()).toEqual(['pending', 'pending']);
    await m.phase('mir-1', 'plan', 'start');
    await m.derivedFiles.settled();
    expect(await units()).toEqual(['in_progress', 'pending']);
  });

  it('a mirror that cannot be written is a warning, not a failed change', async () => {
    const warnings: string[] = [];
    const { m, ws } = open({ onWarning: (w) => warnings.push(w) });
    await m.start({ title: 'blocked', id: 'blk-1', phases: [{ id: 'plan', name: 'plan' }] });
    await m.formats.setMirror('blk-1', { format: 'maestro', out: 'out' }, { cwd: ws });
    await m.derivedFiles.settled();
    warnings.length = 0;
    // The mirror folder becomes a file: the next rewrite fails, the change still happens.
    fs.rmSync(path.join(ws, 'out'), { recursive: true, force: true });
    fs.writeFileSync(path.join(ws, 'out'), 'not a folder');
    const r = await m.phase('blk-1', 'plan', 'start');
    expect(r.state.phases[0]!.status).toBe('in_progress');
    await m.derivedFiles.settled();
    expect(warnings.length).toBe(1);
    expect(warnings[0]).toMatch(/^mirror of blk-1 \(maestro in .*out\) not updated: /);
  });
});

describe('what does not rewrite handoff.md', () => {
  it('heartbeats of a run and of a lease, token counts and transcript reads leave the handoff alone; a phase change does not', async () => {
    const { HandoffFiles } = await import('../../src/manager/resume/handoff-file.js');
    const ev = (type: string) => ({ type }) as Parameters<InstanceType<typeof HandoffFiles>['note']>[1][number];
    const h = new HandoffFiles(true);
    h.note('s', ['run.renewed', 'lease.renewed', 'tokens.recorded', 'transcript.read'].map(ev));
    expect(h.pending).toBe(false);
    h.note('s', [ev('phase.started')]);
    expect(h.pending).toBe(true);
  });
});
