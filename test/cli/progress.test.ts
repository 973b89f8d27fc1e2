/**
 * Progress of long operations: the manager reports counts as data (doctor, cleanup, import),
 * the CLI words them: one updating line on a terminal (cli-progress), a plain line now and
 * then elsewhere, nothing with --json or --quiet, nothing at all for a quick operation.
 */
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { Ctx } from '../../src/cli/context.js';
import type { CliIO } from '../../src/cli/io.js';
import { PLAIN_EVERY_MS, SHOW_AFTER_MS, plainLine, progressReporter } from '../../src/cli/progress.js';
import type { Progress } from '../../src/manager/index.js';
import { SessionManager } from '../../src/manager/manager.js';
import { MemoryStore } from '../../src/store/memory.js';
import { ROOT, expectError, workspace } from './helpers.js';

function ctxFor(o: { tty: boolean; json?: boolean; quiet?: boolean; env?: NodeJS.ProcessEnv }): {
  ctx: Ctx;
  err: () => string;
} {
  let err = '';
  const io: CliIO = {
    argv: [],
    env: o.env ?? { LANG: 'C.UTF-8' },
    cwd: '/',
    stdout: () => undefined,
    stderr: (s) => void (err += s),
    isTTY: o.tty,
    stderrIsTTY: o.tty,
    columns: 100,
    now: () => new Date(0),
  };
  return { ctx: new Ctx(io, { json: o.json, quiet: o.quiet }), err: () => err };
}

describe('the progress reporter', () => {
  it('on a terminal: nothing for the first second, then one line redrawn in place with the count and an ETA, cleared at the end', async () => {
    let t = 0;
    const { ctx, err } = ctxFor({ tty: true });
    const r = progressReporter(ctx, 'doctor', 'sessions', () => t);
    r.update({ done: 0, total: 10, item: null });
    t = SHOW_AFTER_MS - 1;
    r.update({ done: 2, total: 10, item: 's2' });
    expect(err()).toBe('');
    t = SHOW_AFTER_MS;
    r.update({ done: 3, total: 10, item: 's3' });
    t += 200;
    r.update({ done: 7, total: 10, item: 's7' });
    r.stop();
    const out = err();
    expect(out).toMatch(/doctor \[█+░+\] 3\/10 sessions · ETA \S+ · s3/);
    // Redrawn in place: carriage return / cursor moves, no newline between two states.
    expect(out).not.toMatch(/s3\n/);
    expect(out).toContain('\u001b[?25l'); // cursor hidden while drawing, shown again at the end
    expect(out).toContain('\u001b[?25h');
  });

  it('in ASCII locales the bar is # and -', async () => {
    let t = 0;
    const { ctx, err } = ctxFor({ tty: true, env: { LANG: 'C' } });
    const r = progressReporter(ctx, 'import', 'sessions', () => t);
    t = SHOW_AFTER_MS;
    r.update({ done: 1, total: 4, item: 'a' });
    r.stop();
    expect(err()).toMatch(/import \[#+-+\] 1\/4 sessions - ETA/);
  });

  it('elsewhere: a plain line once the operation has run a second, then every few seconds, with what is left', async () => {
    let t = 0;
    const { ctx, err } = ctxFor({ tty: false });
    const r = progressReporter(ctx, 'cleanup', 'sessions', () => t);
    const at = (ms: number, p: Progress): void => {
      t = ms;
      r.update(p);
    };
    at(0, { done: 0, total: 100, item: null });
    at(500, { done: 5, total: 100, item: 'x' });
    at(SHOW_AFTER_MS, { done: 10, total: 100, item: 'y' });
    at(SHOW_AFTER_MS + 1000, { done: 20, total: 100, item: 'z' });
    at(SHOW_AFTER_MS + PLAIN_EVERY_MS, { done: 60, total: 100, item: 'w' });
    r.stop();
    expect(err()).toBe(
      'baton: cleanup: 10/100 sessions (10%), about 9s left\nbaton: cleanup: 60/100 sessions (60%), about 4s left\n',
    );
    expect(plainLine('doctor', 'sessions', { done: 3, total: 3, item: null }, 1234)).toBe(
      'baton: doctor: 3/3 sessions (100%)',
    );
  });

  it('nothing with --json or --quiet, on a terminal or not', async () => {
    for (const o of [
      { tty: true, json: true },
      { tty: true, quiet: true },
      { tty: false, json: true },
      { tty: false, quiet: true },
    ]) {
      let t = 0;
      const { ctx, err } = ctxFor(o);
      const r = progressReporter(ctx, 'doctor', 'sessions', () => t);
      for (let i = 0; i <= 10; i++) {
        t = i * 2000;
        r.update({ done: i, total: 10, item: `s${i}` });
      }
      r.stop();
      expect(err(), JSON.stringify(o)).toBe('');
    }
  });
});

async function manager(n: number): Promise<SessionManager> {
  let clock = Date.parse('2026-01-01T00:00:00.000Z');
  const m = new SessionManager({ store: new MemoryStore(), now: () => new Date(clock), agent: 't' });
  for (let i = 0; i < n; i++) {
    await m.start({ title: `S${i}`, id: `s${i}`, switch: true });
    await m.lifecycle(`s${i}`, 'complete');
  }
  clock += 40 * 86_400_000;
  return m;
}

describe('the manager reports progress as data', () => {
  it('doctor: once before the first session and after each one, up to the total', async () => {
    const m = await manager(3);
    const seen: Progress[] = [];
    await m.maintenance.doctor({ onProgress: (p) => seen.push(p) });
    expect(seen.map((p) => [p.done, p.total])).toEqual([
      [0, 3],
      [1, 3],
      [2, 3],
      [3, 3],
    ]);
    expect(seen.slice(1).map((p) => p.item)).toEqual(['s0', 's1', 's2']);
  });

  it('cleanup: counts the sessions it reads and then those it acts on, ending at the total', async () => {
    const m = await manager(3);
    const seen: Progress[] = [];
    const r = await m.cleanup({ onProgress: (p) => seen.push(p) });
    expect(r.actions).toHaveLength(3);
    expect(seen[0]).toEqual({ done: 0, total: 3, item: null });
    expect(seen.at(-1)).toMatchObject({ done: 6, total: 6 });
    expect(seen.map((p) => p.done)).toEqual([0, 1, 2, 3, 4, 5, 6]);
  });

  it('import: once before the first session and after each one', async () => {
    const ws = workspace();
    const r = await ws.run(['import', path.join(ROOT, 'test/fixtures/formats/maestro/mid-run-yaml'), '--json']);
    expect(r.stderr).toBe(''); // quick and --json: no progress
    const m = await manager(0);
    const seen: Progress[] = [];
    await m.formats.import(path.join(ROOT, 'test/fixtures/formats/maestro/mid-run-yaml'), 'auto', {
      cwd: ws.dir,
      onProgress: (p) => seen.push(p),
    });
    expect(seen[0]).toMatchObject({ done: 0, item: null });
    expect(seen.at(-1)!.done).toBe(seen.at(-1)!.total);
    expect(seen.at(-1)!.total).toBeGreaterThan(0);
  });
});

describe('export --all', () => {
  it('writes every live session, reports progress as data, and refuses --session with it', async () => {
    const ws = workspace();
    // Phases named after bmit's steps: bmit refuses a plan with none of them.
    await ws.ok(['start', 'One', '--id', 'one', '--phases', 'requirements']);
    await ws.ok(['start', 'Two', '--id', 'two', '--phases', 'design', '--switch']);
    const out = await ws.json<Array<{ id: string; format: string }>>([
      'export',
      '--all',
      '--format',
      'bmit',
      '--out',
      'exported',
    ]);
    expect(out.map((r) => r.id).sort()).toEqual(['one', 'two']);
    const human = await ws.ok(['export', '--all', '--format', 'bmit', '--out', 'exported']);
    expect(human.stdout).toMatch(/^Exported (one|two) as bmit/m);
    expectError(
      await ws.run(['export', '--all', '--session', 'one', '--format', 'maestro', '--out', 'x']),
      'BAD_INPUT',
    );
    const m = await manager(2);
    const seen: Progress[] = [];
    await m.formats.exportAll('bmit', ws.path('again'), { cwd: ws.dir, onProgress: (p) => seen.push(p) });
    expect(seen.map((p) => p.done)).toEqual([0, 1, 2]);
  });
});
