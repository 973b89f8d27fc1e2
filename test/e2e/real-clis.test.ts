/**
 * End to end with the real agent CLIs: Claude Code, Codex CLI and Gemini CLI (installed from
 * the npm registry into a cache folder by the test setup) run offline against mocks of their
 * model APIs, with baton's hooks installed by `baton hooks install`. One session each:
 * prompt → a sub-agent → file writes and edits → a shell edit → stop → session end; then a
 * session that resumes the conversation and whose model request carries baton's briefing.
 * Afterwards baton holds the files (hashed, in the phase), the agents, the tokens by agent as
 * the mock reported them, and the handoff names the command that resumes the conversation.
 * Compaction, which these runs cannot trigger, is played by running the installed hook
 * command with the documented payload, as the CLI would.
 */
import { execFileSync } from 'node:child_process';
import crypto from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { baseEnv, runBaton, withBatonOnPath } from '../cli/helpers.js';
import type { AgentCli, CliResult } from './agent-clis.js';
import { CLAUDE, CODEX, GEMINI, cliBin, runCli, runHookCommand } from './agent-clis.js';
import type { Usage } from './model-mocks.js';
import { ModelMock, defaultScript } from './model-mocks.js';

const BRIEFING = '[baton] This conversation works on baton session e2e';

beforeAll(() => {
  const setup = inject('testClis');
  // A CLI the registry would not give us is a failure, said plainly, never a skip.
  if (!setup.ok) throw new Error(`The real agent CLIs are not all installed:\n${setup.lines.join('\n')}`);
});

const sha = (file: string): string => crypto.createHash('sha256').update(fs.readFileSync(file)).digest('hex');

interface FileRow {
  path: string;
  sha256: string | null;
  agent?: string | null;
}
interface Status {
  id: string;
  status: string;
  cause: { cause: string; detail: string | null } | null;
  phases: Array<{ id: string; status: string; files: FileRow[]; agents?: string[] }>;
  agentSessions?: Array<{ cli: string; agentSessionId: string; command: string | null }>;
  subagents?: Array<{ agent: string; phaseId: string | null; stoppedAt: string | null }>;
  tokens: { byAgent: Record<string, { input: number; output: number; cached?: number; cacheWrite?: number }> } & Record<
    string,
    unknown
  >;
  [k: string]: unknown;
}

describe.each([CLAUDE, CODEX, GEMINI])('the real $cli CLI with baton hooks installed', (agent: AgentCli) => {
  let work = '';
  let home = '';
  let mock: ModelMock;
  let env: NodeJS.ProcessEnv = {};
  let first: CliResult;
  let conversation = '';
  const baton = async (args: string[]) => {
    const r = await runBaton(args, work, env);
    if (r.code !== 0) throw new Error(`baton ${args.join(' ')} → ${r.code}\n${r.stdout}${r.stderr}`);
    return r.stdout;
  };
  const explain = (): string => {
    const log = path.join(work, '.baton', 'hooks', 'hook.log');
    return `\n--- hook log ---\n${fs.existsSync(log) ? fs.readFileSync(log, 'utf8').slice(-6000) : '(none)'}\n--- mock replies ---\n${mock.replies.map((r) => `${r.role}:${r.step}`).join(' ')}\n--- cli stderr ---\n${first?.stderr.slice(-3000)}`;
  };

  beforeAll(async () => {
    work = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), `baton-e2e-${agent.cli}-`)));
    home = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), `baton-e2e-home-${agent.cli}-`)));
    mock = await new ModelMock(
      defaultScript(work, true),
      agent.handler,
      path.join(home, 'mock-requests.ndjson'),
    ).start();
    // `baton hooks install` writes `baton hook <cli>`, which the CLI's shell finds on the PATH:
    // here a link to the build, as `npm install -g` would make one.
    env = withBatonOnPath(baseEnv(agent.prepare(home, work, mock.url)));
    // A git work tree, so a file changed by a shell command is found at Stop.
    execFileSync('git', ['init', '-q'], { cwd: work });
    execFileSync('git', ['-c', 'user.email=t@t', '-c', 'user.name=t', 'commit', '-q', '--allow-empty', '-m', 'start'], {
      cwd: work,
    });
    await baton(['init']);
    await baton(['start', `E2E ${agent.cli}`, '--id', 'e2e', '--phases', 'build,verify']);
    await baton(['phase', 'start', 'build']);
    await baton(['hooks', 'install', agent.cli]);
    first = await runCli(
      await cliBin(agent.cli),
      agent.first('Do the task: write notes.md, edit it, and make shell-out.txt.'),
      work,
      env,
    );
    conversation = agent.sessionId(first);
  }, 300_000);

  afterAll(async () => {
    await mock?.close();
    for (const d of [work, home]) if (d) fs.rmSync(d, { recursive: true, force: true });
  });

  it('the session ran: the CLI succeeded and the mock played every step', () => {
    expect(first.code, `${first.stdout}\n${first.stderr}`).toBe(0);
    expect(conversation).not.toBe('');
    expect(mock.replies.filter((r) => r.role === 'main').map((r) => r.step)).toEqual([
      'subagent',
      'write',
      'edit',
      'shell',
      'text',
    ]);
    expect(mock.replies.some((r) => r.role === 'sub' && r.step === 'write')).toBe(true);
    expect(fs.readFileSync(path.join(work, 'notes.md'), 'utf8')).toContain('first line, edited');
  });

  it('status --json holds the files with their hashes in the phase, the agents and the tokens by agent the mock reported', async () => {
    const s = JSON.parse(await baton(['status', '--json'])) as Status;
    const build = s.phases.find((p) => p.id === 'build' || p.id.includes('build'));
    const files = new Map((build?.files ?? []).map((f) => [f.path, f]));
    for (const f of ['notes.md', 'from-subagent.txt', 'shell-out.txt']) {
      expect(files.get(f), `${f} in ${JSON.stringify(build?.files)}${explain()}`).toBeDefined();
      expect(files.get(f)?.sha256).toBe(sha(path.join(work, f)));
    }
    const byAgent = s.tokens.byAgent;
    const main = byAgent[agent.cli];
    const subName = Object.keys(byAgent).find((a) => a.startsWith(`${agent.cli}/`));
    const expectTokens = (got: (typeof byAgent)[string] | undefined, want: Usage) => {
      expect(
        { input: got?.input, output: got?.output, cacheRead: got?.cached ?? 0, cacheWrite: got?.cacheWrite ?? 0 },
        `${JSON.stringify(byAgent)}${explain()}`,
      ).toEqual(want);
    };
    expectTokens(main, mock.total('main'));
    expect(
      subName,
      `no sub-agent among the agents with tokens ${JSON.stringify(Object.keys(byAgent))}${explain()}`,
    ).toBeDefined();
    expect(subName).toMatch(new RegExp(`^${agent.cli}/[\\w-]+#[0-9a-zA-Z-]{1,8}$`));
    expectTokens(byAgent[subName as string], mock.total('sub'));
    // The agents: the conversation bound to the session, and the sub-agent that worked on the phase.
    expect(s.agentSessions?.map((a) => [a.cli, a.agentSessionId])).toContainEqual([agent.cli, conversation]);
    expect(
      s.subagents?.find((a) => a.agent === subName),
      JSON.stringify(s.subagents),
    ).toMatchObject({ phaseId: build?.id });
  });

  it('the session end paused the session with its cause, and the handoff names the command that resumes the conversation', async () => {
    const s = JSON.parse(await baton(['status', '--json'])) as Status;
    expect(s.status, explain()).toBe('paused');
    expect(s.cause?.cause).toBe('agent-session-end');
    const handoff = await baton(['handoff']);
    const resume = {
      claude: `claude --resume ${conversation}`,
      codex: `codex resume ${conversation}`,
      gemini: `gemini --resume ${conversation}`,
    }[agent.cli];
    expect(handoff).toContain(resume);
  });

  it('a session that resumes the conversation gets the briefing in its model request', async () => {
    const before = mock.requests.length;
    const r = await runCli(
      await cliBin(agent.cli),
      agent.resume(conversation, 'Continue where we stopped.'),
      work,
      env,
    );
    expect(r.code, `${r.stdout}\n${r.stderr}`).toBe(0);
    const seen = mock.requests.slice(before).filter((q) => JSON.stringify(q.body ?? '').includes(BRIEFING));
    expect(seen.length, `no request after the resume carried the briefing${explain()}`).toBeGreaterThan(0);
    expect(JSON.stringify(seen[0]?.body)).toContain('resume');
  });

  it('compaction (not triggered by these runs) through the installed hook command: a checkpoint and a fresh handoff', async () => {
    const settings = JSON.parse(
      fs.readFileSync(
        path.join(
          work,
          { claude: '.claude/settings.json', codex: '.codex/hooks.json', gemini: '.gemini/settings.json' }[agent.cli],
        ),
        'utf8',
      ),
    ) as {
      hooks: Record<string, Array<{ hooks: Array<{ command: string }> }>>;
    };
    const command = settings.hooks[agent.compactEvent]
      ?.flatMap((g) => g.hooks.map((h) => h.command))
      .find((c) => c.includes(' hook '));
    expect(command).toBe(`baton hook ${agent.cli}`);
    const checkpointsBefore = (JSON.parse(await baton(['checkpoints', '--json'])) as unknown[]).length;
    // The payload each CLI documents for this event, for the conversation just run.
    const payload = {
      session_id: conversation,
      cwd: work,
      hook_event_name: agent.compactEvent,
      trigger: 'auto',
      ...(agent.cli === 'claude'
        ? { transcript_path: null, permission_mode: 'bypassPermissions', custom_instructions: '' }
        : {}),
      ...(agent.cli === 'codex' ? { turn_id: 'turn-compact', transcript_path: null, model: 'gpt-5.5' } : {}),
      ...(agent.cli === 'gemini' ? { transcript_path: null, timestamp: new Date().toISOString() } : {}),
    };
    const r = await runHookCommand(command as string, payload, work, env);
    expect(r.code).toBe(0);
    const after = JSON.parse(await baton(['checkpoints', '--json'])) as unknown[];
    expect(after.length, explain()).toBe(checkpointsBefore + 1);
  });
});
