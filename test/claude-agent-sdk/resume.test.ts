/**
 * A conversation mirrored on one host and resumed on another, through one shared store (a
 * shared folder, or PostgreSQL): each host is a process with its own working folder, so the
 * SDK gives each its own projectKey. Also: the session's tokens and cost are what the hooks
 * count from the same transcript files, and two hosts appending to one conversation at once
 * lose no line and count no response twice.
 */
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';
import { BUILTIN_PRICING, costReport } from '../../src/manager/index.js';
import { baseEnv, runInProcess } from '../cli/helpers.js';
import type { BatonSessionStore } from '../../src/claude-agent-sdk/index.js';
import { KINDS, fixture, storeAt } from './helpers.js';
import type { StorePlace } from './helpers.js';

const HOST = fileURLToPath(new URL('./host.ts', import.meta.url));
const projectKeyOf = (dir: string): string => dir.replace(/[^a-zA-Z0-9]/g, '-');

/** Runs one host process to its end; its JSON line. */
function host(
  url: string,
  cwd: string,
  project: string | null,
  ...args: string[]
): Promise<{ session: string; lines: number }> {
  return new Promise((resolve, reject) => {
    const kid = spawn(process.execPath, ['--import', 'tsx', HOST, url, cwd, project ?? '-', ...args], {
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let out = '';
    let err = '';
    kid.stdout.on('data', (b: Buffer) => (out += b.toString('utf8')));
    kid.stderr.on('data', (b: Buffer) => (err += b.toString('utf8')));
    kid.on('error', reject);
    kid.on('close', (code) =>
      code === 0
        ? resolve(JSON.parse(out.trim()) as { session: string; lines: number })
        : reject(new Error(`host exited ${code}: ${err}`)),
    );
  });
}

const folder = (name: string): string => fs.mkdtempSync(path.join(os.tmpdir(), `baton-sdk-${name}-`));

describe.each(KINDS)('a conversation that travels between hosts, on %s', (_label, makePlace) => {
  const cleanup: Array<() => Promise<void>> = [];
  const place = (): StorePlace => {
    const p = makePlace();
    cleanup.push(() => p.remove());
    return p;
  };
  const open = (url: string, o: Parameters<typeof storeAt>[1] = {}): BatonSessionStore => {
    const s = storeAt(url, o);
    cleanup.unshift(() => s.close());
    return s;
  };
  afterEach(async () => {
    for (const f of cleanup.splice(0)) await f();
  });

  it('is written on host A and read back whole for resume on host B, from another folder', async () => {
    const { url } = place();
    const sessionId = '7011dc8b-afa6-4eb4-9723-a9f0fa8eb295';
    const [cwdA, cwdB] = [folder('host-a'), folder('host-b')];
    const wrote = await host(url, cwdA, 'shop', 'fixture', sessionId);
    const main = fixture('claude-main.jsonl').entries;
    const sub = fixture('claude-subagent.jsonl').entries;
    expect(wrote.lines).toBe(main.length + sub.length);

    // Host B: its own folder, so the SDK asks with another projectKey; `project` maps both to one.
    const b = open(url, { cwd: cwdB, project: 'shop' });
    const keyB = { projectKey: projectKeyOf(cwdB), sessionId };
    expect(keyB.projectKey).not.toBe(projectKeyOf(cwdA));
    expect(b.sessionIdOf(keyB)).toBe(wrote.session);
    expect(await b.load(keyB)).toEqual(main);
    const subpath = `subagents/agent-${String(sub[0]!['agentId'])}`;
    expect(await b.listSubkeys(keyB)).toEqual([subpath]);
    expect(await b.load({ ...keyB, subpath })).toEqual(sub);
    expect((await b.listSessions(keyB.projectKey)).map((x) => x.sessionId)).toEqual([sessionId]);

    // The resumed conversation goes on from host B: its next lines follow the first host's.
    const next = [{ type: 'user', uuid: 'resumed-1', message: { role: 'user', content: 'go on' } }];
    await b.append(keyB, next);
    const a = open(url, { cwd: cwdA, project: 'shop' });
    expect(await a.load({ projectKey: projectKeyOf(cwdA), sessionId })).toEqual([...main, ...next]);

    // Without `project`, each folder is its own project, as in the SDK: host B's key finds nothing.
    const plain = open(url, { cwd: cwdB });
    expect(await plain.load(keyB)).toBeNull();

    // What a person sees of it: `baton status` and `baton log` of the conversation's session.
    const where = url.startsWith('postgres') ? ['--store', url] : ['--dir', url];
    const status = await runInProcess(['status', '--session', wrote.session, ...where], cwdB, baseEnv());
    expect(status.stdout).toContain(`Claude Agent SDK conversation ${sessionId}`);
    expect(status.stdout).toContain(`Transcript: ${main.length + 1} lines mirrored; 1 sub-agent transcript`);
    const shown = await runInProcess(['log', '--session', wrote.session, ...where], cwdB, baseEnv());
    expect(shown.stdout).toMatch(/transcript\.mirrored +3 line\(s\) by claude\/subagent#ad3b4e2f \[subagents\/agent-/);
  });

  it("counts the conversation's tokens and cost as the hooks count its transcript files", async () => {
    const { url } = place();
    const sessionId = 'c0ffee00-0000-4000-8000-000000000001';
    const wrote = await host(url, folder('host-a'), 'shop', 'fixture', sessionId);
    const b = open(url, { cwd: folder('host-b'), project: 'shop' });
    const mirrored = await b.manager.get(wrote.session);

    // The hooks' way: a session of the same store reads the two transcript files.
    const hooked = await b.manager.start({ title: 'hooks read the same transcripts', id: 'hooks-read' });
    await b.manager.transcripts.ingest(hooked.id, {
      cli: 'claude',
      path: fixture('claude-subagent.jsonl').path,
      agent: 'claude/sub',
    });
    await b.manager.transcripts.ingest(hooked.id, {
      cli: 'claude',
      path: fixture('claude-main.jsonl').path,
      agent: 'claude',
    });
    const expected = await b.manager.get(hooked.id);

    const totals = (s: typeof mirrored) => ({
      input: s.tokens.input,
      output: s.tokens.output,
      cached: s.tokens.cached,
      cacheWrite: s.tokens.cacheWrite ?? 0,
    });
    expect(totals(mirrored)).toEqual(totals(expected));
    expect(totals(mirrored).input).toBeGreaterThan(0);
    const cost = costReport(mirrored, BUILTIN_PRICING).total;
    expect(cost.usd).not.toBeNull();
    expect(cost.usd).toBeCloseTo(costReport(expected, BUILTIN_PRICING).total.usd!, 10);
    // claude-opus-4-8 at $5 input, $25 output, $0.50 cache read, $6.25 cache write per million.
    const t = totals(mirrored);
    expect(cost.usd).toBeCloseTo((t.input * 5 + t.output * 25 + t.cached * 0.5 + t.cacheWrite * 6.25) / 1e6, 10);
    expect(Object.keys(mirrored.tokens.byAgent).sort()).toEqual(['claude', 'claude/subagent#ad3b4e2f']);

    // The SDK retrying a batch, or an import replaying the transcript, adds no token.
    await b.append({ projectKey: 'any', sessionId }, fixture('claude-main.jsonl').entries);
    expect(totals(await b.manager.get(wrote.session))).toEqual(totals(expected));
  });

  it('two hosts appending to one conversation at once lose no line and count each response once', async () => {
    const { url } = place();
    const sessionId = 'c0ffee00-0000-4000-8000-000000000002';
    const n = 15;
    const [one, two] = await Promise.all([
      host(url, folder('host-1'), 'shop', 'burst', sessionId, 'one', String(n)),
      host(url, folder('host-2'), 'shop', 'burst', sessionId, 'two', String(n)),
    ]);
    expect(one.session).toBe(two.session);
    const b = open(url, { project: 'shop' });
    const lines = (await b.load({ projectKey: 'x', sessionId }))!;
    expect(lines).toHaveLength(one.lines + two.lines);
    for (const tag of ['one', 'two']) {
      // Each host's lines in its call order, each batch whole.
      const mine = lines.filter((l) => l['tag'] === tag && l['i'] !== -1).map((l) => `${String(l['i'])}${l['type']}`);
      expect(mine).toEqual(Array.from({ length: n }, (_, i) => [`${i}assistant`, `${i}user`]).flat());
    }
    // 2n responses of their own and the one both reported, each 100 in, 10 out, 1000 cache read, 50 cache write.
    const s = await b.manager.get(one.session);
    const responses = 2 * n + 1;
    expect([s.tokens.input, s.tokens.output, s.tokens.cached, s.tokens.cacheWrite]).toEqual([
      100 * responses,
      10 * responses,
      1000 * responses,
      50 * responses,
    ]);
  });
});
