/**
 * A real Claude Code conversation and a real Codex conversation at once on one session, with
 * baton's hooks installed for both, each on its own phase (BATON_PHASE: `build` for Claude,
 * `docs` for Codex), each against its own mock model API. Claude writes notes.md and then its
 * model stops answering; while it waits, Codex writes guide.txt, makes faq.txt with a shell
 * command and ends. Then: every file lands on its own conversation's phase and in its own run,
 * each CLI's tokens under its own agent; Codex ending leaves the session active (Claude is
 * live); Claude SIGKILLed is found dead and the session reads interrupted naming it.
 */
import { execFileSync, spawn } from 'node:child_process';
import type { ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { baseEnv, runBaton, withBatonOnPath } from '../cli/helpers.js';
import { openManager } from '../../src/manager/index.js';
import type { SessionState } from '../../src/manager/index.js';
import { CLAUDE, CODEX, cliBin, runCli } from './agent-clis.js';
import type { Handler } from './model-mocks.js';
import { ModelMock, defaultScript } from './model-mocks.js';

async function until<T>(
  what: string,
  fn: () => Promise<T | null | undefined | false>,
  ms: number,
  explain = (): string => '',
): Promise<T> {
  const end = Date.now() + ms;
  for (;;) {
    const v = await fn();
    if (v) return v;
    if (Date.now() > end) throw new Error(`${what}: not within ${ms} ms${explain()}`);
    await new Promise((r) => setTimeout(r, 250));
  }
}

beforeAll(() => {
  const setup = inject('testClis');
  if (!setup.ok) throw new Error(`The real agent CLIs are not all installed:\n${setup.lines.join('\n')}`);
});

describe('a real Claude Code and a real Codex conversation at once on one session', () => {
  let work = '';
  const homes: string[] = [];
  let claudeMock: ModelMock;
  let codexMock: ModelMock;
  let claude: ChildProcess | null = null;
  let hung = false;
  const state = async (): Promise<SessionState> => {
    const m = openManager({ url: null, dir: path.join(work, '.baton'), cwd: work });
    try {
      return await m.get('mix');
    } finally {
      await m.close();
    }
  };
  const explain = (): string => {
    const log = path.join(work, '.baton', 'hooks', 'hook.log');
    return `\n--- hook log ---\n${fs.existsSync(log) ? fs.readFileSync(log, 'utf8').slice(-4000) : '(none)'}`;
  };

  beforeAll(async () => {
    work = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'baton-e2e-mix-')));
    for (const n of ['claude', 'codex'])
      homes.push(fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), `baton-e2e-mix-${n}-`))));
    // Claude: the usual script, except that its turn after the write is never answered.
    const hangAfterWrite: Handler = (req, m) => {
      const out = CLAUDE.handler(req, m);
      const last = m.replies.at(-1);
      if (!hung && out && last?.role === 'main' && last.step === 'edit') {
        hung = true;
        m.replies.pop();
        return { type: 'hang' };
      }
      return out;
    };
    claudeMock = await new ModelMock(
      defaultScript(work, false),
      hangAfterWrite,
      path.join(homes[0]!, 'requests.ndjson'),
    ).start();
    codexMock = await new ModelMock(
      {
        main: [
          { kind: 'write', file: path.join(work, 'guide.txt'), content: 'guide\n' },
          { kind: 'shell', command: 'printf "faq\\n" > faq.txt' },
          { kind: 'text', text: 'Docs done.' },
        ],
        sub: [],
        subMarker: 'none',
      },
      CODEX.handler,
      path.join(homes[1]!, 'requests.ndjson'),
    ).start();
    execFileSync('git', ['init', '-q'], { cwd: work });
    execFileSync('git', ['-c', 'user.email=t@t', '-c', 'user.name=t', 'commit', '-q', '--allow-empty', '-m', 'start'], {
      cwd: work,
    });
    const e = withBatonOnPath(baseEnv());
    for (const args of [
      ['init'],
      ['start', 'Mixed', '--id', 'mix', '--phases', 'build,docs'],
      ['hooks', 'install', 'claude'],
      ['hooks', 'install', 'codex'],
    ]) {
      const r = await runBaton(args, work, e);
      if (r.code !== 0) throw new Error(`baton ${args.join(' ')}: ${r.stderr}`);
    }
  }, 120_000);

  afterAll(async () => {
    if (claude && claude.exitCode === null && claude.signalCode === null) claude.kill('SIGKILL');
    const k = path.join(work, '.baton', 'hooks', 'keepers');
    if (fs.existsSync(k))
      for (const f of fs.readdirSync(k)) {
        const pid = Number(fs.readFileSync(path.join(k, f), 'utf8'));
        try {
          if (pid > 0) process.kill(pid, 'SIGKILL');
        } catch {
          // gone
        }
      }
    await claudeMock?.close();
    await codexMock?.close();
    for (const d of [work, ...homes]) if (d) fs.rmSync(d, { recursive: true, force: true });
  });

  it('each records on its own phase in its own run; Codex ending leaves the session active; Claude killed: interrupted naming it', async () => {
    const claudeEnv = withBatonOnPath(
      baseEnv({ ...CLAUDE.prepare(homes[0]!, work, claudeMock.url), BATON_PHASE: 'build' }),
    );
    const codexEnv = withBatonOnPath(
      baseEnv({ ...CODEX.prepare(homes[1]!, work, codexMock.url), BATON_PHASE: 'docs' }),
    );
    claude = spawn(await cliBin('claude'), CLAUDE.first('Write the notes.'), {
      cwd: work,
      env: claudeEnv,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    const files = (s: SessionState, phase: string): string[] =>
      s.phases
        .find((p) => p.id === phase)!
        .files.map((f) => f.path)
        .sort();
    await until(
      'Claude to write notes.md and wait for its model',
      async () => claudeMock.hangs > 0 && files(await state(), 'build').includes('notes.md'),
      180_000,
      explain,
    );
    // Codex works on docs while Claude is live, and ends.
    const r = await runCli(await cliBin('codex'), CODEX.first('Write the docs.'), work, codexEnv);
    expect(r.code, `${r.stdout}\n${r.stderr}${explain()}`).toBe(0);
    const s1 = await until(
      "Codex's files on docs",
      async () => {
        const s = await state();
        return files(s, 'docs').length === 2 && s;
      },
      30_000,
      explain,
    );
    expect(files(s1, 'build')).toEqual(['notes.md']);
    expect(files(s1, 'docs')).toEqual(['faq.txt', 'guide.txt']);
    const convs = (s1.runs ?? []).filter((x) => x.kind === 'conversation');
    const runClaude = convs.find((x) => x.cli === 'claude')!;
    const runCodex = convs.find((x) => x.cli === 'codex')!;
    expect([runClaude.phases, runCodex.phases]).toEqual([['build'], ['docs']]);
    expect(runClaude.ended).toBeNull();
    // Codex is done; Claude is live: the session stays active.
    expect(s1.status).toBe('active');
    const m = openManager({ url: null, dir: path.join(work, '.baton'), cwd: work });
    const log = await m.log('mix');
    await m.close();
    const runOf = Object.fromEntries(
      log.filter((e) => e.type === 'file.recorded').map((e) => [(e.data as { path: string }).path, e.actor?.run]),
    );
    expect(runOf).toMatchObject({ 'notes.md': runClaude.id, 'guide.txt': runCodex.id, 'faq.txt': runCodex.id });
    expect(s1.tokens.byAgent['codex']?.input).toBe(codexMock.total('main').input);

    // Claude killed mid-task: found dead, and with no run left live the session is interrupted naming it.
    process.kill(runClaude.process.pid, 'SIGKILL');
    const s2 = await until(
      'the session to read interrupted',
      async () => {
        const s = JSON.parse((await runBaton(['status', '--json'], work, claudeEnv)).stdout) as {
          status: string;
          cause?: { detail?: string };
        };
        return s.status === 'interrupted' && s;
      },
      60_000,
      explain,
    );
    expect(s2.cause?.detail).toContain(`claude conversation ${runClaude.agentSessionId!.slice(0, 8)}`);
    expect(s2.cause?.detail).toContain('build');
  }, 400_000);
});
