/**
 * Issue 16's defects through the CLI and the MCP server: crashes on rare paths become coded
 * errors and leave no lease behind, a folder that is not a store is never written to, a
 * damaged journal is CORRUPT rather than silently shortened, and tool arguments that are not
 * an object are invalid params, never internal errors.
 */
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import { describe, expect, it } from 'vitest';
import {
  BATON,
  baseEnv,
  expectError,
  expectJsonError,
  expectRunError,
  needBuiltCli,
  withSession,
  workspace,
} from './helpers.js';

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

describe('damaged journals through the CLI', () => {
  it('an empty journal: log --json and status are CORRUPT', async () => {
    const ws = await withSession('s1');
    fs.truncateSync(ws.path('.baton', 'sessions', 's1', 'journal.jsonl'), 0);
    expectJsonError(await ws.run(['log', '--json']), 'CORRUPT');
    expectError(await ws.run(['status']), 'CORRUPT');
  });

  it('a journal cut in the middle under a later snapshot: status is CORRUPT, doctor --fix recovers, numbering goes on above', async () => {
    const ws = await withSession('s1');
    for (let i = 0; i < 12; i++) await ws.ok(['note', 'add', `note ${i}`]);
    const journal = ws.path('.baton', 'sessions', 's1', 'journal.jsonl');
    // A snapshot at the end of the journal, written through the store as the manager does every 200 events.
    const { FileStore } = await import('../../src/store/file/store.js');
    const { fold } = await import('../../src/domain/apply.js');
    const store = new FileStore({ root: ws.store });
    const events = await store.readEvents('s1');
    await store.writeSnapshot('s1', { revision: events.length, state: fold(null, events, 's1')! });
    await store.close();
    const top = events.length;
    fs.truncateSync(journal, Math.floor(fs.statSync(journal).size / 2));
    const damaged = fs.readFileSync(journal);
    const s = expectError(await ws.run(['status']), 'CORRUPT');
    expect(s.message).toMatch(new RegExp(`revision ${top} was acknowledged`));
    expect(s.hint).toMatch(/doctor --fix/);
    expectError(await ws.run(['note', 'add', 'after the damage']), 'CORRUPT');
    expect(fs.readFileSync(journal).equals(damaged)).toBe(true);

    const fix = await ws.run(['doctor', '--fix', '--json']);
    expect(fix.code, fix.stdout + fix.stderr).toBe(0);
    expect(JSON.parse(fix.stdout).problems.map((p: { code: string }) => p.code)).toContain('EVENTS_LOST');
    const status = await ws.status();
    expect(status.revision).toBe(top + 1);
    await ws.ok(['note', 'add', 'after the fix']);
    const log = await ws.log();
    const lost = log.find((e) => e.type === 'repair.events_lost')!;
    expect(lost.seq).toBe(top + 1);
    expect(log.at(-1)!.seq).toBe(top + 2);
    const seqs = log.map((e) => e.seq);
    expect(new Set(seqs).size).toBe(seqs.length);
  });
});

describe('MCP tool arguments that are not an object', () => {
  // Checked before the MCP SDK sees them (src/mcp/arguments-guard.ts): the SDK answers these
  // with a bare -32603, and {"constructor": null} with its validator's TypeError text.
  it('a number, an array, null and {"constructor": …} are refused with -32602 naming the problem; the server reads on', async () => {
    needBuiltCli();
    const ws = await withSession('s1');
    const child = spawn(process.execPath, [BATON, 'mcp'], {
      cwd: ws.dir,
      env: baseEnv(),
      stdio: ['pipe', 'pipe', 'pipe'],
    });
    const answers = new Map<number, { error?: { code: number; message: string }; result?: { isError?: boolean } }>();
    let buf = '';
    const done = new Promise<void>((resolve) => {
      child.stdout.on('data', (d: Buffer) => {
        buf += d.toString('utf8');
        let nl: number;
        while ((nl = buf.indexOf('\n')) !== -1) {
          const msg = JSON.parse(buf.slice(0, nl)) as { id?: number };
          buf = buf.slice(nl + 1);
          if (typeof msg.id === 'number') answers.set(msg.id, msg as never);
          if (answers.size === 7) resolve();
        }
      });
    });
    const send = (m: unknown): boolean => child.stdin.write(`${JSON.stringify(m)}\n`);
    send({
      jsonrpc: '2.0',
      id: 0,
      method: 'initialize',
      params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 't', version: '1' } },
    });
    send({ jsonrpc: '2.0', method: 'notifications/initialized' });
    const bad: unknown[] = [5, [], null, { constructor: null }, { constructor: 5 }];
    bad.forEach((a, i) =>
      send({ jsonrpc: '2.0', id: i + 1, method: 'tools/call', params: { name: 'session_status', arguments: a } }),
    );
    send({ jsonrpc: '2.0', id: 6, method: 'tools/call', params: { name: 'session_status', arguments: {} } });
    await Promise.race([
      done,
      new Promise((_, reject) =>
        setTimeout(() => reject(new Error(`answers: ${JSON.stringify([...answers])}`)), 20_000),
      ),
    ]);
    child.stdin.end();
    child.kill();
    const said = ['is a number', 'is an array', 'is null', 'has the key "constructor"', 'has the key "constructor"'];
    for (let id = 1; id <= bad.length; id++) {
      const a = answers.get(id)!;
      expect(a.error?.code, `${JSON.stringify(bad[id - 1])}: ${JSON.stringify(a)}`).toBe(-32602);
      expect(a.error?.message).toContain(`"arguments" of tools/call "session_status" ${said[id - 1]}`);
      expect(a.error?.message).not.toMatch(/prototype|TypeError/);
    }
    expect(answers.get(6)!.result?.isError ?? false).toBe(false);
  });
});
