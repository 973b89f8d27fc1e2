/**
 * Never in the agent's way: the real `baton hook` (spawned) exits 0 with valid output, soon,
 * whatever is wrong, logs why, and loses nothing from the journal.
 */
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { ROOT, fixture, hookLog, hookSpawned, tempDir, workspace } from './helpers.js';

const children: Array<ReturnType<typeof spawn>> = [];
afterEach(() => {
  for (const c of children.splice(0)) c.kill('SIGKILL');
});

/** Starts a process that holds `lock` and resolves once it does. */
function holdLock(lock: string): Promise<void> {
  const child = spawn(
    process.execPath,
    ['--import', 'tsx', path.join(ROOT, 'test', 'fixtures', 'hold-lock.ts'), lock],
    { cwd: ROOT, stdio: ['ignore', 'pipe', 'inherit'] },
  );
  children.push(child);
  return new Promise((resolve, reject) => {
    child.stdout!.on('data', (b: Buffer) => (String(b).includes('held') ? resolve() : undefined));
    child.on('exit', (code) => reject(new Error(`lock holder exited ${code}`)));
  });
}

const journal = (dir: string): string =>
  fs.readFileSync(path.join(dir, '.baton', 'sessions', 'hooked', 'journal.jsonl'), 'utf8');

describe('baton hook under faults', () => {
  it('a session locked by another process: exit 0 within the lock wait, logged, kept, and recorded by the next hook', async () => {
    const w = await workspace();
    fs.writeFileSync(path.join(w.dir, 'src', 'greet.txt'), 'hello\n');
    await holdLock(path.join(w.dir, '.baton', 'sessions', 'hooked', 'lock'));
    const before = journal(w.dir);
    const r = await hookSpawned('claude', JSON.stringify(fixture('claude', 'PostToolUse-Write', w.dir)), w.dir);
    expect([r.code, r.stdout]).toEqual([0, '']);
    expect(r.ms).toBeLessThan(8000);
    expect(journal(w.dir)).toBe(before);
    const logged = hookLog(w.dir);
    expect(logged.map((l) => [l.level, l.code])).toEqual([['error', 'LOCKED']]);
    expect(logged[0]!.message).toContain('kept: the next hook records it');
    for (const c of children.splice(0)) c.kill('SIGKILL');
    // The next event that reaches the store records the kept one first.
    const r2 = await hookSpawned('claude', JSON.stringify(fixture('claude', 'PostToolUseFailure', w.dir)), w.dir);
    expect(r2.code).toBe(0);
    const s = await w.m().get('hooked');
    expect(s.phases[0]!.files.map((f) => f.path)).toEqual(['src/greet.txt']);
    expect(s.phases[0]!.errors).toHaveLength(1);
    expect(journal(w.dir).startsWith(before)).toBe(true);
  });

  it('a corrupt journal: exit 0, logged as CORRUPT, the journal left as it was, and doctor reports the hook problem', async () => {
    const w = await workspace();
    const m = w.m();
    await m.note('hooked', { text: 'a line after the damaged one' });
    await m.store.close();
    const file = path.join(w.dir, '.baton', 'sessions', 'hooked', 'journal.jsonl');
    const lines = journal(w.dir).split('\n');
    lines[1] = lines[1]!.replace('"phase', '"phaze');
    fs.writeFileSync(file, lines.join('\n'));
    const damaged = journal(w.dir);
    fs.writeFileSync(path.join(w.dir, 'src', 'greet.txt'), 'hello\n');
    const r = await hookSpawned('gemini', JSON.stringify(fixture('gemini', 'AfterTool-write_file', w.dir)), w.dir);
    expect([r.code, r.stdout]).toEqual([0, '{}\n']);
    expect(journal(w.dir)).toBe(damaged);
    expect(hookLog(w.dir).map((l) => l.code)).toContain('CORRUPT');
    const doctor = await runCli(['doctor', '--json'], w.dir);
    const report = JSON.parse(doctor) as { problems: Array<{ code: string; message: string }> };
    expect(report.problems.find((p) => p.code === 'HOOK_PROBLEMS')?.message).toContain('CORRUPT from gemini');
  });

  it('no store anywhere: exit 0 with valid output, logged in the fallback folder', async () => {
    const dir = tempDir();
    const state = tempDir();
    const r = await hookSpawned('claude', JSON.stringify(fixture('claude', 'SessionStart', dir)), dir, {
      XDG_STATE_HOME: state,
    });
    expect([r.code, r.stdout]).toEqual([0, '']);
    const log = fs.readFileSync(path.join(state, 'baton', 'hooks', 'hook.log'), 'utf8');
    expect(JSON.parse(log.trim().split('\n')[0]!)).toEqual(
      expect.objectContaining({ level: 'warn', code: 'NO_STORE', cli: 'claude', event: 'SessionStart' }),
    );
  });

  it('garbage on stdin: exit 0, valid output for each CLI, logged as BAD_PAYLOAD', async () => {
    const w = await workspace();
    const before = journal(w.dir);
    for (const [cli, out] of [
      ['claude', ''],
      ['codex', ''],
      ['gemini', '{}\n'],
    ] as const) {
      const r = await hookSpawned(cli, 'not json {{{', w.dir);
      expect([r.code, r.stdout]).toEqual([0, out]);
    }
    const r = await hookSpawned('claude', '', w.dir);
    expect(r.code).toBe(0);
    expect(hookLog(w.dir).map((l) => l.code)).toEqual(['BAD_PAYLOAD', 'BAD_PAYLOAD', 'BAD_PAYLOAD', 'BAD_PAYLOAD']);
    expect(journal(w.dir)).toBe(before);
  });

  it('a 20 MB payload: drained unparsed, exit 0 quickly, logged as PAYLOAD_TOO_LARGE', async () => {
    const w = await workspace();
    const before = journal(w.dir);
    const big = JSON.stringify({
      ...fixture('claude', 'PostToolUse-Write', w.dir),
      tool_input: { file_path: `${w.dir}/big.txt`, content: 'x'.repeat(20 * 1024 * 1024) },
    });
    const small = await hookSpawned('claude', JSON.stringify(fixture('claude', 'PostToolUse-Bash', w.dir)), w.dir);
    const r = await hookSpawned('claude', big, w.dir);
    expect([r.code, r.stdout]).toEqual([0, '']);
    // Reading 20 MB from a pipe costs little; parsing it would cost far more. Generous bound for a busy machine.
    expect(r.ms).toBeLessThan(small.ms + 3000);
    expect(hookLog(w.dir).map((l) => [l.level, l.code])).toEqual([['warn', 'PAYLOAD_TOO_LARGE']]);
    expect(journal(w.dir)).toBe(before);
  });

  it('an unknown CLI name exits 0 and is logged', async () => {
    const w = await workspace();
    const r = await hookSpawned('cursor', '{}', w.dir);
    expect(r.code).toBe(0);
    expect(hookLog(w.dir).map((l) => l.code)).toEqual(['BAD_INPUT']);
  });
});

function runCli(args: string[], cwd: string): Promise<string> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [path.join(ROOT, 'dist', 'baton.cjs'), ...args], {
      cwd,
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    const out: Buffer[] = [];
    child.stdout.on('data', (b: Buffer) => out.push(b));
    child.on('close', () => resolve(Buffer.concat(out).toString()));
  });
}
