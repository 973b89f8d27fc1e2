/**
 * What a command confirms: `-q` silences every confirmation; `tokens add` prints what it
 * recorded; `hooks uninstall` leaves no backup behind.
 */
import fs from 'node:fs';
import { describe, expect, it } from 'vitest';
import { withSession, workspace } from './helpers.js';

describe('-q silences every confirmation', () => {
  it('resume --apply -q prints nothing (the plan without --apply is data and still prints)', async () => {
    const ws = await withSession('q1');
    await ws.ok(['pause']);
    expect((await ws.ok(['resume', '-q'])).stdout).toContain('Resume plan');
    const r = await ws.ok(['resume', '--apply', '-q']);
    expect(r.stdout).toBe('');
    expect(r.stderr).toBe('');
    expect((await ws.status('q1')).status).toBe('active');
    // Without -q it still says so; --json is data, which -q keeps.
    await ws.ok(['pause']);
    expect((await ws.ok(['resume', '--apply'])).stdout).toBe('Resumed q1 from live; it is active.\n');
    await ws.ok(['pause']);
    expect(JSON.parse((await ws.ok(['resume', '--apply', '-q', '--json'])).stdout)).toMatchObject({
      session: 'q1',
      status: 'active',
    });
  });
});

describe('tokens add', () => {
  it('prints the amount recorded, and the running total labelled as the session total', async () => {
    const ws = await withSession('t1', 'plan');
    await ws.ok(['tokens', 'add', '--agent', 'alice', '--input', '5000', '--output', '700']);
    const r = await ws.ok([
      'tokens',
      'add',
      '--agent',
      'bob',
      '--phase',
      'plan',
      '--input',
      '100',
      '--output',
      '20',
      '--cached',
      '3',
    ]);
    expect(r.stdout).toBe(
      'Recorded 100 in / 20 out / 3 cached for bob on phase plan\nSession total: 5,100 in / 720 out / 3 cached\n',
    );
    const json = JSON.parse((await ws.ok(['tokens', 'add', '--agent', 'bob', '--input', '1', '--json'])).stdout) as {
      recorded: unknown;
      tokens: { input: number };
    };
    expect(json.recorded).toEqual({ agent: 'bob', phaseId: null, model: null, input: 1, output: 0, cached: 0 });
    expect(json.tokens.input).toBe(5101);
  });
});

describe('hooks uninstall', () => {
  it('removes the .baton-backup its install left, keeping the user settings', async () => {
    const ws = workspace();
    const file = ws.write('.claude/settings.json', '{\n  "model": "opus"\n}\n');
    const installed = await ws.json<{ backup: string }>(['hooks', 'install', 'claude']);
    expect(fs.existsSync(installed.backup)).toBe(true);
    const removed = await ws.json<{ backup: string | null; changed: boolean }>(['hooks', 'uninstall', 'claude']);
    expect(removed).toMatchObject({ changed: true, backup: null });
    expect(fs.existsSync(`${file}.baton-backup`)).toBe(false);
    expect(fs.readFileSync(file, 'utf8')).toBe('{\n  "model": "opus"\n}\n');
    expect(fs.readdirSync(ws.path('.claude'))).toEqual(['settings.json']);
  });
});
