/**
 * Issue 15, "`log`": --since takes a seq, a duration or a time; -n/--tail; --follow from the
 * store's feed, stopped cleanly by SIGINT; local times for people, ISO-8601 in --json; a
 * pager on a terminal for long output (BATON_PAGER/PAGER, --no-pager, never without a TTY).
 */
import { execFileSync, spawn } from 'node:child_process';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BATON, baseEnv, expectError, needBuiltCli, workspace } from './helpers.js';
import type { Workspace } from './helpers.js';

const T0 = Date.parse('2026-05-01T10:00:00.000Z');
const at = (min: number): { env: Record<string, string> } => ({
  env: { BATON_NOW: new Date(T0 + min * 60_000).toISOString() },
});

let savedTz: string | undefined;
beforeAll(() => {
  savedTz = process.env['TZ'];
  process.env['TZ'] = 'Asia/Kolkata'; // UTC+05:30 all year: local times differ visibly from UTC
});
afterAll(() => {
  if (savedTz === undefined) delete process.env['TZ'];
  else process.env['TZ'] = savedTz;
});

/** A session whose events are at minutes 0 (created), 5, 20 and 30. */
async function timed(): Promise<Workspace> {
  const ws = workspace();
  await ws.ok(['start', 'Timed', '--id', 'lg'], at(0));
  for (const [min, text] of [
    [5, 'five'],
    [20, 'twenty'],
    [30, 'thirty'],
  ] as const)
    await ws.ok(['note', 'add', text], at(min));
  return ws;
}
const seqs = (events: Array<{ seq: number }>): number[] => events.map((e) => e.seq);

describe('log --since and --tail', () => {
  it('--since N: the events after seq N', async () => {
    const ws = await timed();
    expect(seqs(await ws.json(['log', '--since', '2']))).toEqual([3, 4]);
  });

  it('--since 10m: the events of the last ten minutes (s, m, h, d, w)', async () => {
    const ws = await timed();
    expect(seqs(await ws.json(['log', '--since', '10m'], at(25)))).toEqual([3, 4]);
    expect(seqs(await ws.json(['log', '--since', '30s'], at(30)))).toEqual([4]);
    expect(seqs(await ws.json(['log', '--since', '1h'], at(30)))).toEqual([1, 2, 3, 4]);
    expect(seqs(await ws.json(['log', '--since', '1d'], at(60 * 24 + 10)))).toEqual([3, 4]);
  });

  it('--since TIME: the events at or after it, with a zone or in local time', async () => {
    const ws = await timed();
    expect(seqs(await ws.json(['log', '--since', '2026-05-01T10:20:00Z']))).toEqual([3, 4]);
    // 15:50 in Kolkata is 10:20 UTC.
    expect(seqs(await ws.json(['log', '--since', '2026-05-01 15:50']))).toEqual([3, 4]);
  });

  it('-n/--tail N: the last N of those kept', async () => {
    const ws = await timed();
    expect(seqs(await ws.json(['log', '-n', '2']))).toEqual([3, 4]);
    expect(seqs(await ws.json(['log', '--tail', '1', '--since', '1']))).toEqual([4]);
    expect(seqs(await ws.json(['log', '--tail', '10']))).toEqual([1, 2, 3, 4]);
    expect(await ws.json(['log', '-n', '0'])).toEqual([]);
  });

  it('anything else is BAD_INPUT naming the forms', async () => {
    const ws = await timed();
    expect(expectError(await ws.run(['log', '--since', 'yesterday']), 'BAD_INPUT').hint).toMatch(
      /--since 120.*--since 10m.*--since 2026-11-24T09:00/,
    );
    expectError(await ws.run(['log', '--since', '-3']), 'BAD_INPUT');
    expectError(await ws.run(['log', '--tail', 'all']), 'BAD_INPUT');
  });
});

describe('log times', () => {
  it('human output in local time, --json in ISO-8601 UTC', async () => {
    const ws = await timed();
    const human = (await ws.ok(['log'])).stdout.split('\n');
    expect(human[1]).toMatch(/^ {4}#2 2026-05-01 15:35:00 /);
    const json = await ws.json<Array<{ time: string }>>(['log']);
    expect(json[1]!.time).toMatch(/^2026-05-01T10:05:00\.\d{3}Z$/);
  });
});

describe('log --follow', () => {
  it('prints the kept events, then each new one once, and stops cleanly on SIGINT', async () => {
    needBuiltCli();
    const ws = await timed();
    const child = spawn(process.execPath, [BATON, 'log', '--follow', '--json', '-n', '1'], {
      cwd: ws.dir,
      env: baseEnv(),
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let out = '';
    child.stdout.setEncoding('utf8').on('data', (c: string) => (out += c));
    const lines = (): Array<{ seq: number; type: string }> =>
      out
        .split('\n')
        .filter(Boolean)
        .map((l) => JSON.parse(l) as { seq: number; type: string });
    const until = async (n: number): Promise<void> => {
      const end = Date.now() + 15_000;
      while (lines().length < n) {
        if (Date.now() > end) throw new Error(`only ${lines().length} lines: ${out}`);
        await new Promise((r) => setTimeout(r, 50));
      }
    };
    await until(1);
    expect(seqs(lines())).toEqual([4]);
    await ws.ok(['note', 'add', 'live one']);
    await ws.ok(['note', 'add', 'live two']);
    await until(3);
    const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((r) =>
      child.on('exit', (code, signal) => r({ code, signal })),
    );
    child.kill('SIGINT');
    expect(await exited).toEqual({ code: 0, signal: null });
    expect(seqs(lines())).toEqual([4, 5, 6]);
    expect(lines().map((l) => l.type)).toEqual(['note.added', 'note.added', 'note.added']);
  }, 30_000);
});

describe('log through a pager on a terminal', () => {
  /** Runs `baton log …` in a pseudo-terminal of 5 rows (script(1)); returns what the terminal got. */
  function onTerminal(ws: Workspace, args: string, env: Record<string, string | undefined>): string {
    needBuiltCli();
    const cmd = `stty rows 5 cols 200; "${process.execPath}" "${BATON}" log ${args}`;
    return execFileSync('script', ['-q', '-e', '-c', cmd, '/dev/null'], {
      cwd: ws.dir,
      env: baseEnv(env),
      encoding: 'utf8',
    }).replace(/\r/g, '');
  }

  it('long output goes through BATON_PAGER (else PAGER), with LESS=FRX; --no-pager, a pager of cat, or no terminal prints it directly', async () => {
    const ws = await timed();
    for (let i = 0; i < 6; i++) await ws.ok(['note', 'add', `more ${i}`]);
    const paged = onTerminal(ws, '', { BATON_PAGER: 'sed "s/^/PAGED $LESS: /"', PAGER: 'false' });
    expect(paged.split('\n').filter((l) => /^PAGED FRX: +#\d+ /.test(l)).length).toBe(10);
    expect(onTerminal(ws, '', { BATON_PAGER: undefined, PAGER: 'sed "s/^/VIA-PAGER: /"' })).toMatch(
      /^VIA-PAGER: +#1 /m,
    );
    expect(onTerminal(ws, '--no-pager', { BATON_PAGER: 'sed "s/^/PAGED: /"' })).not.toContain('PAGED');
    expect(onTerminal(ws, '', { BATON_PAGER: 'cat' })).toMatch(/^ +#10 /m);
    // Output that fits on the screen is not paged.
    expect(onTerminal(ws, '-n 2', { BATON_PAGER: 'sed "s/^/PAGED: /"' })).not.toContain('PAGED');
    // Not a terminal: never paged.
    expect((await ws.ok(['log'], { env: { BATON_PAGER: 'sed "s/^/PAGED: /"' } })).stdout).not.toContain('PAGED');
  }, 30_000);
});
