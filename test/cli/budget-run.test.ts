/**
 * `baton run` and a budget with policy stop, with real processes: a command that spends past
 * the budget (its own `baton tokens add`, as an agent's hooks would) and would go on working
 * for half a minute is stopped within a check or two, `baton run` exits BUDGET_EXCEEDED (19),
 * and the run's end records why (cause `budget-exceeded`, naming the budget and the spend).
 * Over budget already, a run does not start; raising the budget lets it.
 */
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { EXIT_CODES } from '../../src/cli/exit.js';
import { BATON, expectRunError, withSession } from './helpers.js';

interface RunsJson {
  status: string;
  cause: { cause: string; detail: string | null } | null;
  runs: Array<{ kind: string; ended: { cause: string; detail: string | null } | null }>;
}

/** A command that records 2,100 tokens through baton, then works for 30 s and leaves late.txt. */
const SPENDER = [
  process.execPath,
  '-e',
  `require('child_process').execFileSync(process.execPath, [${JSON.stringify(BATON)}, 'tokens', 'add', '--agent', 'w', '--input', '2000', '--output', '100'], { stdio: 'inherit' });
   setTimeout(() => require('fs').writeFileSync('late.txt', 'x'), 30000);`,
];

describe('baton run over a budget with policy stop', () => {
  it('stops the command as a lost lease does, exits 19, and the run records cause budget-exceeded', async () => {
    const ws = await withSession('b1', 'build');
    await ws.ok(['phase', 'start', 'build']);
    await ws.ok(['budget', 'set', '1000', '--on-exceed', 'stop']);
    const started = Date.now();
    const r = await ws.run(['run', '--agent', 'w', '--', ...SPENDER], { env: { BATON_BUDGET_CHECK: '200ms' } });
    const took = Date.now() - started;
    expect(r.code, r.stderr).toBe(EXIT_CODES.BUDGET_EXCEEDED);
    expect(took).toBeLessThan(20_000);
    expect(r.stderr).toContain("the session's token budget is exceeded (2,100 of 1,000 tokens (210%))");
    expect(r.stderr).toMatch(/stopped: over budget; recorded in session b1 \(cause budget-exceeded\)/);
    expect(fs.existsSync(path.join(ws.dir, 'late.txt'))).toBe(false);
    const s = await ws.json<RunsJson>(['status']);
    const run = s.runs.find((x) => x.kind === 'command');
    expect(run?.ended?.cause).toBe('budget-exceeded');
    expect(run?.ended?.detail).toContain('policy is stop');
    expect(s.status).toBe('paused');
  }, 60_000);

  it('over budget already: the run is refused before its command starts; raised, it runs', async () => {
    const ws = await withSession('b2', 'build');
    await ws.ok(['budget', 'set', '1000', '--on-exceed', 'stop']);
    expect((await ws.run(['tokens', 'add', '--agent', 'w', '--input', '1500'])).stderr).toContain('budget[exceeded]');
    const refused = await ws.run(['run', '--', process.execPath, '-e', "require('fs').writeFileSync('ran.txt', 'x')"]);
    const e = expectRunError(refused, 'BUDGET_EXCEEDED');
    expect(e.hint).toBe(
      'Raise it with `baton budget set 3000 --session b2` (or `--on-exceed warn` to only be warned).',
    );
    expect(fs.existsSync(path.join(ws.dir, 'ran.txt'))).toBe(false);
    await ws.ok(['budget', 'set', '3000']);
    const ok = await ws.run(['run', '--', process.execPath, '-e', "require('fs').writeFileSync('ran.txt', 'x')"]);
    expect(ok.code, ok.stderr).toBe(0);
    expect(fs.existsSync(path.join(ws.dir, 'ran.txt'))).toBe(true);
  }, 60_000);
});
