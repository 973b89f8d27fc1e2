/**
 * Rare paths end in coded errors, never INTERNAL crashes, and leave no lease behind; a folder
 * that is not a store is never written to.
 */
import fs from 'node:fs';
import { describe, expect, it } from 'vitest';
import { expectError, expectJsonError, expectRunError, needBuiltCli, withSession, workspace } from './helpers.js';

/** Every file and folder under `dir`, relative, sorted. */
function tree(dir: string): string[] {
  return (fs.readdirSync(dir, { recursive: true }) as string[]).map(String).sort();
}

describe('coded errors instead of INTERNAL crashes', () => {
  it('migrate-store --to an existing file is BAD_INPUT and the file is untouched', async () => {
    const ws = await withSession('s1');
    const file = ws.write('target.txt', 'not a store\n');
    const r = await ws.run(['migrate-store', '--from', '.baton', '--to', file]);
    expectError(r, 'BAD_INPUT');
    expect(fs.readFileSync(file, 'utf8')).toBe('not a store\n');
  });

  it('--dir naming a file (/etc/passwd) is NO_STORE', async () => {
    const ws = workspace();
    for (const args of [['status'], ['list'], ['log', '--json'], ['doctor', '--fix']]) {
      const r = await ws.run([...args, '--dir', '/etc/passwd']);
      if (args.includes('--json')) expectJsonError(r, 'NO_STORE');
      else expectError(r, 'NO_STORE');
    }
  });

  it('run "" is BAD_INPUT, takes no lease, and the next run goes ahead and records its end', async () => {
    needBuiltCli();
    const ws = await withSession('s1');
    expectRunError(await ws.run(['run', '--', '']), 'BAD_INPUT');
    const status = await ws.status();
    expect(status.lease ?? null).toBeNull();
    const next = await ws.run(['run', '--ttl', '10m', '--', 'true']);
    expect(next.code, next.stderr).toBe(0);
    const types = (await ws.log()).map((e) => e.type);
    expect(types.filter((t) => t === 'run.started')).toHaveLength(1);
    expect(types.filter((t) => t === 'run.ended')).toHaveLength(1);
  });
});

describe('no byte written where no store is', () => {
  const commands: string[][] = [
    ['checkpoints'],
    ['list', '--rebuild'],
    ['list'],
    ['doctor', '--fix'],
    ['doctor'],
    ['status'],
  ];
  for (const args of commands) {
    it(`${args.join(' ')} --dir <an ordinary folder> is NO_STORE and writes nothing there`, async () => {
      const ws = workspace();
      const plain = ws.path('plain');
      fs.mkdirSync(plain);
      ws.write('plain/notes.txt', 'mine\n');
      const r = await ws.run([...args, '--dir', plain]);
      expectError(r, 'NO_STORE');
      expect(tree(plain)).toEqual(['notes.txt']);
    });
  }

  it('init and start still create a store in an empty folder', async () => {
    const ws = workspace();
    await ws.ok(['init', '--dir', ws.path('a')]);
    expect(fs.existsSync(ws.path('a', 'store.json'))).toBe(true);
    await ws.ok(['start', 'T', '--id', 'x1', '--dir', ws.path('b')]);
    expect(fs.existsSync(ws.path('b', 'sessions', 'x1', 'journal.jsonl'))).toBe(true);
  });

  it("export --out '' is BAD_INPUT and writes nothing into the current folder", async () => {
    const ws = await withSession('s1');
    const before = tree(ws.dir);
    expectError(await ws.run(['export', '--format', 'bmad', '--out', '']), 'BAD_INPUT');
    expect(tree(ws.dir)).toEqual(before);
  });
});
