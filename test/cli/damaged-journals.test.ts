/**
 * A damaged journal through the CLI: CORRUPT rather than silently shortened, and repaired by
 * `doctor --fix` with the lost events recorded.
 */
import fs from 'node:fs';
import { describe, expect, it } from 'vitest';
import { expectError, expectJsonError, withSession } from './helpers.js';

/** Every file and folder under `dir`, relative, sorted. */
function _tree(dir: string): string[] {
  return (fs.readdirSync(dir, { recursive: true }) as string[]).map(String).sort();
}

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
