/**
 * A 60-column terminal (issue 25): the built `baton` runs in a real pseudo-terminal (util-linux
 * `script`, `stty cols 60`), so it sees a TTY of that width. Sessions whose ids share their
 * date prefix, long titles, CJK and emoji titles: `list` and `checkpoints` print one line per
 * row, no line wider than 60 display columns, every cut id still names one id; `log` wraps at
 * word boundaries under a hanging indent, directly and through a pager, losing nothing.
 */
import { spawn, spawnSync } from 'node:child_process';
import type { ChildProcess } from 'node:child_process';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { displayWidth } from '../../src/cli/width.js';
import { openManager } from '../../src/manager/open.js';
import { BATON, baseEnv, needBuiltCli, workspace } from './helpers.js';
import type { Workspace } from './helpers.js';

const hasScript = spawnSync('script', ['--version']).status === 0;
if (!hasScript) console.warn('SKIPPED: the 60-column tests need util-linux `script` to make a pseudo-terminal');

const ANSI = /\u001b\[[0-9;?]*[A-Za-z]/g;
const COLS = 60;
const env = { LANG: 'C.UTF-8', LC_ALL: undefined, LC_CTYPE: undefined };

function quote(a: string): string {
  return `'${a.replace(/'/g, `'\\''`)}'`;
}

/** stdout+stderr of `baton …args` in a pseudo-terminal COLS wide and `rows` high, colour codes and CRs removed. */
function inTerminal(ws: Workspace, args: string[], o: { rows?: number; env?: Record<string, string> } = {}): string {
  const command = `stty cols ${COLS} rows ${o.rows ?? 200}; ${quote(process.execPath)} ${quote(BATON)} ${args.map(quote).join(' ')}`;
  const r = spawnSync('script', ['-qfec', command, '/dev/null'], {
    cwd: ws.dir,
    env: baseEnv({ ...env, NO_COLOR: undefined, TERM: 'xterm-256color', ...o.env }),
    encoding: 'utf8',
  });
  expect(r.error).toBeUndefined();
  expect(r.status, r.stdout).toBe(0);
  return r.stdout.replace(ANSI, '').replace(/\r/g, '');
}

/** The same command into a pipe: nothing is cut or wrapped there. */
function inPipe(ws: Workspace, args: string[]): string {
  const r = spawnSync(process.execPath, [BATON, ...args], { cwd: ws.dir, env: baseEnv(env), encoding: 'utf8' });
  expect(r.status, r.stderr).toBe(0);
  return r.stdout;
}

function lines(text: string): string[] {
  return text.split('\n').filter((l) => l !== '');
}

function expectFits(text: string): void {
  for (const line of lines(text))
    expect(displayWidth(line), `wider than ${COLS}: ${JSON.stringify(line)}\n${text}`).toBeLessThanOrEqual(COLS);
}

/** The id each shown (possibly cut) id stands for: the one id whose start and end it shows. */
function idsShown(rows: string[], ids: string[]): string[] {
  return rows.map((row) => {
    const shown = row.replace(/^[* ] /, '').split(/\s+/)[0]!;
    const [head, tail = null] = shown.split('…') as [string, string?];
    const matches = ids.filter((id) =>
      tail === null ? id === head : id.startsWith(head) && id.endsWith(tail!) && id.length > head.length + tail!.length,
    );
    expect(matches, `${JSON.stringify(shown)} must name exactly one of ${ids.join(', ')}`).toHaveLength(1);
    return matches[0]!;
  });
}

const TITLES = [
  'Migrate the authentication store to the new schema with zero downtime for every tenant',
  '数据库迁移和用户认证模块的重构工作计划以及回滚方案',
  '🚀 Launch preparation 🎉 with emoji 🧪 in the title of the session',
  'Migrate the billing store as well',
];
const IDS = [
  '2026-11-27-migrate-auth-store-a3f1',
  '2026-11-27-migrate-auth-store-b7c2',
  '2026-11-27-launch-preparation',
  '2026-11-27-migrate-billing-store',
];

describe.runIf(hasScript)('a 60-column terminal', () => {
  let ws: Workspace;
  beforeAll(async () => {
    needBuiltCli();
    ws = workspace();
    for (const [i, title] of TITLES.entries())
      await ws.ok(['start', title, '--id', IDS[i]!, '--switch', '--phases', 'design,build']);
    await ws.ok(['switch', IDS[0]!]);
    await ws.ok(['checkpoint', 'before the risky change to the middleware that everything else depends on']);
    await ws.ok(['checkpoint', '第二个检查点：数据库迁移之前的状态和所有用户数据']);
    await ws.ok(['checkpoint', '🚀 ready to launch 🎉 after the review']);
    await ws.ok([
      'note',
      'add',
      'A note that is rather long, so that the log view must wrap it at word boundaries when it is shown sixty columns wide',
    ]);
    await ws.ok([
      'note',
      'add',
      '数据库迁移和用户认证模块的重构工作计划 then 🚀 launch with the 🎉 team and everyone else who helped',
    ]);
  });

  it('list: one line per session, none wider than 60 columns, every id still tells which session it is', async () => {
    const out = inTerminal(ws, ['list']);
    expectFits(out);
    const [header, ...rows] = lines(out);
    expect(header).toMatch(/^ {2}ID +STATUS +PHASES +UPDATED +TITLE$/);
    // One line per session: a row is never wrapped.
    expect(rows).toHaveLength(IDS.length);
    for (const row of rows) expect(row).toMatch(/ (active|paused) /);
    // Cut in the middle, the ids keep their distinguishing ends, and no two read the same.
    const named = idsShown(rows, IDS);
    expect(new Set(named).size).toBe(IDS.length);
    expect(rows.some((r) => /…\S*a3f1 /.test(r)) && rows.some((r) => /…\S*b7c2 /.test(r))).toBe(true);
    // The CJK and emoji titles are cut to their columns too, and the columns stay aligned:
    // each row's STATUS starts at the header's column, counted in display columns.
    const statusAt = header!.indexOf('STATUS');
    for (const row of rows) expect(displayWidth(row.slice(0, row.search(/ (active|paused) /) + 1))).toBe(statusAt);
    expect(rows.find((r) => r.includes('…') && /[数🚀]/u.test(r))).toBeDefined();
  });

  it('checkpoints: one line per checkpoint, none wider than 60 columns, ids distinguishable', async () => {
    const ids = (await ws.json<Array<{ id: string }>>(['checkpoints'])).map((c) => c.id);
    const out = inTerminal(ws, ['checkpoints']);
    expectFits(out);
    const [header, ...rows] = lines(out);
    expect(header).toMatch(/^ID +REV +WHEN +GIT +STATE +NAME$/);
    expect(rows).toHaveLength(ids.length);
    expect(new Set(idsShown(rows, ids)).size).toBe(ids.length);
    const nameAt = header!.indexOf('NAME');
    for (const row of rows) {
      const state = / ok +/.exec(row)!;
      expect(displayWidth(row.slice(0, state.index + state[0].length))).toBe(nameAt);
    }
  });

  const checkLog = (out: string, full: string): void => {
    expectFits(out);
    const shown = lines(out);
    // Each event starts a line with its seq; the lines after it are indented under it.
    const events = lines(full).length;
    expect(shown.filter((l) => /^ +#\d+ /.test(l))).toHaveLength(events);
    expect(shown.length).toBeGreaterThan(events);
    for (const l of shown.filter((x) => !/^ +#\d+ /.test(x))) expect(l).toMatch(/^ {7}\S/);
    // Wrapped at word boundaries, nothing lost: the words of the wide output, in order, and
    // every ASCII word of the narrow one is whole.
    expect(out.replace(/\s+/g, '')).toBe(full.replace(/\s+/g, ''));
    const words = new Set(full.split(/\s+/));
    for (const w of out.split(/\s+/).filter((x) => x && /^[\x21-\x7e]+$/.test(x)))
      expect(words.has(w), `${JSON.stringify(w)} was cut\n${out}`).toBe(true);
  };

  it('log wraps at word boundaries with a hanging indent', async () => {
    checkLog(inTerminal(ws, ['log', '--no-pager']), inPipe(ws, ['log']));
  });

  it('log through a pager gets the same wrapped lines (the pager would break words)', async () => {
    // Fewer rows than lines: the text goes through the pager (`cat -` stands in for less).
    const out = inTerminal(ws, ['log'], { rows: 5, env: { BATON_PAGER: 'cat -' } });
    checkLog(out, inPipe(ws, ['log']));
  });
});

describe.skipIf(!hasScript)('status in a 60-column terminal with runs', () => {
  const procs: ChildProcess[] = [];
  afterAll(() => {
    for (const p of procs) if (p.exitCode === null && p.signalCode === null) p.kill('SIGTERM');
  });

  it('the Runs line (live, orphaned and dead runs, CJK and long agent names) wraps at words within 60 columns, nothing lost', async () => {
    needBuiltCli();
    const ws = workspace();
    await ws.ok(['start', '並行作業 parallel work', '--id', 'rw', '--phases', 'build,docs,test,ship']);
    const bg = (phase: string, agent: string, cmd: string[]): ChildProcess => {
      const p = spawn(process.execPath, [BATON, 'run', '--phase', phase, '--agent', agent, '--', ...cmd], {
        cwd: ws.dir,
        env: baseEnv(),
        stdio: 'ignore',
      });
      procs.push(p);
      return p;
    };
    bg('build', '設計者アリス', ['sleep', '60']);
    bg('docs', 'bob-with-a-rather-long-agent-name-for-docs', ['sleep', '60']);
    const orphan = bg('test', 'carol', ['sleep', '60']);
    const dead = bg('ship', 'dave', ['sleep', '60']);
    type Ev = { type: string; data: { runId?: string; pgid?: number; leasedPhase?: string } };
    let groups: Record<string, number> = {};
    for (let i = 0; i < 400 && Object.keys(groups).length < 4; i++) {
      const log = await ws.json<Ev[]>(['log']);
      const runOf = Object.fromEntries(
        log.filter((e) => e.type === 'run.started').map((e) => [e.data.runId!, e.data.leasedPhase!]),
      );
      groups = Object.fromEntries(
        log.filter((e) => e.type === 'run.renewed' && e.data.pgid).map((e) => [runOf[e.data.runId!]!, e.data.pgid!]),
      );
      await new Promise((r) => setTimeout(r, 50));
    }
    // carol's baton dies, its command runs on (orphaned); dave's baton and command die (dead).
    orphan.kill('SIGKILL');
    dead.kill('SIGKILL');
    process.kill(-groups['ship']!, 'SIGKILL');
    await new Promise((r) => setTimeout(r, 300));
    const runsBlock = (text: string): string => {
      const ls = text.split('\n');
      const at = ls.findIndex((l) => l.startsWith('Runs: '));
      const end = ls.findIndex((l, i) => i > at && !/^ {2}\S/.test(l));
      return ls.slice(at, end).join('\n');
    };
    const full = runsBlock(inPipe(ws, ['status']));
    expect(full).toMatch(
      /^Runs: live .*設計者アリス on build.* · orphaned: command pid \d+ still running \(run-\d, command carol on test\) · dead run-\d \(command dave on ship\)$/,
    );

    const out = inTerminal(ws, ['status']);
    expectFits(out);
    const shown = runsBlock(out);
    expect(shown.split('\n').length).toBeGreaterThan(1);
    for (const l of shown.split('\n').slice(1)) expect(l).toMatch(/^ {2}\S/);
    expect(shown.replace(/\s+/g, '')).toBe(full.replace(/\s+/g, ''));
    process.kill(-groups['test']!, 'SIGKILL');
    const live = procs.filter((p) => p.exitCode === null && p.signalCode === null);
    for (const p of live) p.kill('SIGTERM');
    await Promise.all(live.map((p) => new Promise((r) => p.once('exit', r))));
  }, 60_000);
});

describe.skipIf(!hasScript)('status in a 60-column terminal with durable steps', () => {
  it('each step wraps at words within 60 columns, its continuation indented under it, nothing lost', async () => {
    needBuiltCli();
    const ws = workspace();
    await ws.ok(['start', 'Steps', '--id', 'st', '--phases', 'build']);
    const m = openManager({ cwd: ws.dir });
    try {
      await m.steps
        .run('st', 'send-the-release-notes-by-mail', async () => {
          throw new Error('smtp server refused the connection: 550 mailbox unavailable for the release list');
        })
        .catch(() => undefined);
    } finally {
      await m.close();
    }
    const out = inTerminal(ws, ['status', '--session', 'st']);
    expectFits(out);
    const plain = lines(out.replace(/\x1b\[[0-9;]*m/g, ''));
    const at = plain.findIndex((l) => l.startsWith('  send-the-release-notes-by-mail: failed'));
    expect(at, out).toBeGreaterThan(0);
    expect(plain[at + 1]).toMatch(/^ {4}\S/);
    expect(
      plain
        .slice(at, at + 4)
        .join(' ')
        .replace(/\s+/g, ' '),
    ).toContain('smtp server refused the connection: 550 mailbox unavailable for the release list');
  });
});
