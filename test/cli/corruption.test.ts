/**
 * Hand-corrupted store files, driven through the CLI: each gets a clear coded error or a
 * reported repair, and no stored event is lost.
 */
import fs from 'node:fs';
import { describe, expect, it } from 'vitest';
import { expectError, expectJsonError, pool, withSession, workspace } from './helpers.js';
import type { ListRow, StatusJson, Workspace } from './helpers.js';

function journal(ws: Workspace, id: string): string {
  return ws.path('.baton', 'sessions', id, 'journal.jsonl');
}

function sessionFiles(ws: Workspace, id: string): string[] {
  return fs.readdirSync(ws.path('.baton', 'sessions', id)).sort();
}

/** A session `id` with notes n1..n{count} (events 2..count+1). */
async function withNotes(id: string, count: number): Promise<Workspace> {
  const ws = await withSession(id, 'a');
  for (let i = 1; i <= count; i++) await ws.ok(['note', 'add', `n${i}`]);
  return ws;
}

describe('a damaged line in the middle of journal.jsonl', () => {
  it('status fails with CORRUPT (10) naming `baton repair`; repair keeps every event', async () => {
    const ws = await withNotes('mid', 5);
    const before = await ws.log();
    expect(before.map((e) => e.seq)).toEqual([1, 2, 3, 4, 5, 6]);

    const file = journal(ws, 'mid');
    const lines = fs.readFileSync(file, 'utf8').split('\n');
    expect(lines).toHaveLength(7);
    expect(lines[2]).toContain('"text":"n2"');
    lines[2] = lines[2]!.replace('"text":"n2"', '"text":"nX"');
    const damaged = lines.join('\n');
    fs.writeFileSync(file, damaged);

    const e = expectError(await ws.run(['status']), 'CORRUPT');
    expect(e.message).toContain('mid');
    expect(e.hint).toContain('baton repair');
    expect(expectJsonError(await ws.run(['status', '--json']), 'CORRUPT').hint).toContain('baton repair');
    expectError(await ws.run(['note', 'add', 'refused']), 'CORRUPT');
    // The refused write did not touch the file.
    expect(fs.readFileSync(file, 'utf8')).toBe(damaged);

    const repaired = await ws.ok(['repair']);
    expect(repaired.stdout).toMatch(
      /^Session mid: journal rebuilt; 1 unreadable line\(s\) kept as repair events; the original is in journal\.jsonl\.corrupt-\S+\.\n$/,
    );
    const saved = sessionFiles(ws, 'mid').filter((f) => f.startsWith('journal.jsonl.corrupt-'));
    expect(saved).toHaveLength(1);
    expect(fs.readFileSync(ws.path('.baton', 'sessions', 'mid', saved[0]!), 'utf8')).toBe(damaged);

    const s = await ws.status();
    expect(s.revision).toBe(7);
    expect(s.notes.map((n) => n['text'])).toEqual(['n1', 'n3', 'n4', 'n5']);

    const after = await ws.log();
    expect(after.map((e) => e.seq)).toEqual([1, 2, 3, 4, 5, 6, 7]);
    // Every event that was stored is still there: intact ones unchanged, the damaged one
    // kept verbatim as a repair event at its own seq.
    for (const e of before) {
      if (e.seq === 3) continue;
      expect(after[e.seq - 1]).toEqual(e);
    }
    expect(after[2]).toMatchObject({ seq: 3, type: 'repair.unreadable_line', data: { raw: lines[2], line: 3 } });
    expect(after[6]).toMatchObject({
      seq: 7,
      type: 'repair.journal',
      data: { savedTo: saved[0], unreadableLines: [3] },
    });

    // The session takes writes again, and a second repair has nothing to do.
    await ws.ok(['note', 'add', 'n6']);
    expect((await ws.log()).map((e) => e.seq)).toEqual([1, 2, 3, 4, 5, 6, 7, 8]);
    expect((await ws.ok(['repair'])).stdout).toBe('Session mid: journal is intact; nothing to repair.\n');
  });

  it('a line replaced by garbage is kept verbatim by repair', async () => {
    const ws = await withNotes('garb', 3);
    const file = journal(ws, 'garb');
    const lines = fs.readFileSync(file, 'utf8').split('\n');
    lines[1] = 'this is not json at all';
    fs.writeFileSync(file, lines.join('\n'));
    expectError(await ws.run(['status']), 'CORRUPT');
    expect(await ws.json(['repair'])).toMatchObject({
      session: 'garb',
      repairs: [expect.objectContaining({ kind: 'journal_rewritten' })],
    });
    const log = await ws.log();
    expect(log.map((e) => [e.seq, e.type])).toEqual([
      [1, 'session.created'],
      [2, 'repair.unreadable_line'],
      [3, 'note.added'],
      [4, 'note.added'],
      [5, 'repair.journal'],
    ]);
    expect(log[1]!.data['raw']).toBe('this is not json at all');
    expect((await ws.status()).notes.map((n) => n['text'])).toEqual(['n2', 'n3']);
  });
});

describe('a torn tail (half a line, no newline)', () => {
  it('the next command succeeds, reports repaired[torn_tail] and records repair.torn_tail', async () => {
    const ws = await withNotes('torn', 2);
    const file = journal(ws, 'torn');
    const good = fs.readFileSync(file, 'utf8');
    const half = '{"v":1,"seq":4,"type":"note.added","data":{"noteId":"note-3","te';
    fs.appendFileSync(file, half);

    const r = await ws.run(['status', '--json']);
    expect(r.code).toBe(0);
    expect(r.stderr).toMatch(
      /^repaired\[torn_tail\]: Session torn: cut a torn last journal line \(\d+ bytes, an append that was never acknowledged\); kept in journal\.jsonl\.torn-\S+\.\n$/,
    );
    const s = JSON.parse(r.stdout) as StatusJson;
    expect(s.revision).toBe(4);
    expect(s.notes.map((n) => n['text'])).toEqual(['n1', 'n2']);
    expect(s.repairs).toEqual([expect.objectContaining({ kind: 'torn_tail' })]);

    const torn = sessionFiles(ws, 'torn').filter((f) => f.startsWith('journal.jsonl.torn-'));
    expect(torn).toHaveLength(1);
    expect(fs.readFileSync(ws.path('.baton', 'sessions', 'torn', torn[0]!), 'utf8')).toBe(half);
    expect(fs.readFileSync(file, 'utf8').startsWith(good)).toBe(true);

    // Reported once: the next command is quiet, and appends go on after the repair event.
    await ws.ok(['note', 'add', 'n3']);
    const log = await ws.log();
    expect(log.map((e) => [e.seq, e.type])).toEqual([
      [1, 'session.created'],
      [2, 'note.added'],
      [3, 'note.added'],
      [4, 'repair.torn_tail'],
      [5, 'note.added'],
    ]);
    expect(log[3]!.data).toMatchObject({ truncatedBytes: Buffer.byteLength(half), savedTo: torn[0] });
  });

  it('a write as the next command also repairs and succeeds', async () => {
    const ws = await withNotes('torn2', 1);
    fs.appendFileSync(journal(ws, 'torn2'), '{"v":1,"seq":3,"ty');
    const r = await ws.run(['tokens', 'add', '--agent', 'w', '--input', '7']);
    expect(r.code).toBe(0);
    expect(r.stdout).toBe('Recorded 7 in / 0 out / 0 cached for w\nSession total: 7 in / 0 out / 0 cached\n');
    expect(r.stderr).toMatch(/^repaired\[torn_tail\]: /);
    expect((await ws.log()).map((e) => e.type)).toEqual([
      'session.created',
      'note.added',
      'repair.torn_tail',
      'tokens.recorded',
    ]);
  });
});

describe('a garbage snapshot.json', () => {
  it('the command succeeds with a repair report; the file is moved aside; state is unchanged', async () => {
    const ws = await withSession('snap');
    // 199 notes + session.created = 200 events: the CLI writes a snapshot.
    await pool(
      Array.from({ length: 199 }, (_, i) => i),
      4,
      (i) => ws.ok(['note', 'add', `n${i}`]),
    );
    const snapshot = ws.path('.baton', 'sessions', 'snap', 'snapshot.json');
    expect(fs.existsSync(snapshot)).toBe(true);
    const before = await ws.status();
    expect(before.revision).toBe(200);

    fs.writeFileSync(snapshot, 'garbage, not a snapshot {');
    const r = await ws.run(['status', '--json']);
    expect(r.code).toBe(0);
    expect(r.stderr).toMatch(
      /^repaired\[snapshot_corrupt\]: Session snap: snapshot\.json is unreadable .*moved aside.*\n$/,
    );
    expect(JSON.parse(r.stdout)).toEqual(before);
    const aside = sessionFiles(ws, 'snap').filter((f) => /^snapshot\.json\.corrupt-/.test(f));
    expect(aside).toHaveLength(1);
    expect(fs.readFileSync(ws.path('.baton', 'sessions', 'snap', aside[0]!), 'utf8')).toBe('garbage, not a snapshot {');

    // No event was lost, and the session still takes writes.
    const log = await ws.log();
    expect(log.map((e) => e.seq)).toEqual(Array.from({ length: 200 }, (_, i) => i + 1));
    await ws.ok(['note', 'add', 'after']);
    expect((await ws.status()).notes).toHaveLength(200);
  }, 300_000); // 200 CLI runs: minutes when the rest of the suite loads the machine
});

describe('a garbage index.json', () => {
  it('list still shows every session, with a repair report, and the index is rebuilt', async () => {
    const ws = workspace();
    await ws.ok(['start', 'One', '--id', 'one', '--phases', 'a,b']);
    await ws.ok(['phase', 'start', 'a']);
    await ws.ok(['phase', 'complete', 'a']);
    await ws.ok(['start', 'Two', '--id', 'two', '--switch']);
    await ws.ok(['start', 'Three', '--id', 'three', '--switch']);
    await ws.ok(['pause']);
    await ws.ok(['archive']);
    const expected = await ws.json<ListRow[]>(['list', '--all']);
    expect(expected.map((r) => r.id)).toEqual(['three', 'two', 'one']);
    const index = ws.path('.baton', 'index.json');
    expect(fs.existsSync(index)).toBe(true);

    fs.writeFileSync(index, '{"format": "baton.index", "sessions": [tr');
    const r = await ws.run(['list', '--all', '--json']);
    expect(r.code).toBe(0);
    expect(r.stderr).toMatch(/^repaired\[index_corrupt\]: index\.json was unreadable .*rebuilt.*\n$/);
    expect(JSON.parse(r.stdout)).toEqual(expected);
    expect(fs.readdirSync(ws.store).filter((f) => f.startsWith('index.json.corrupt-'))).toHaveLength(1);

    // Rebuilt: the next list is quiet and the same; the human list shows every live session.
    expect(await ws.json<ListRow[]>(['list', '--all'])).toEqual(expected);
    const human = (await ws.ok(['list'])).stdout;
    expect(human).toMatch(/^ {2}two\s+paused\s+-/m);
    expect(human).toMatch(/^ {2}one\s+paused\s+1\/2/m);
  });

  it('a session is listed even when index.json and index.log are gone or garbage', async () => {
    const ws = workspace();
    await ws.ok(['start', 'One', '--id', 'one']);
    await ws.ok(['start', 'Two', '--id', 'two', '--switch']);
    await ws.ok(['list']);
    fs.rmSync(ws.path('.baton', 'index.json'), { force: true });
    fs.writeFileSync(ws.path('.baton', 'index.log'), 'not json\n{"id":\n');
    const rows = await ws.json<ListRow[]>(['list']);
    expect(rows.map((x) => [x.id, x.status])).toEqual([
      ['two', 'active'],
      ['one', 'paused'],
    ]);
    fs.rmSync(ws.path('.baton', 'index.json'), { force: true });
    fs.rmSync(ws.path('.baton', 'index.log'), { force: true });
    expect((await ws.json<ListRow[]>(['list'])).map((x) => x.id)).toEqual(['two', 'one']);
  });
});
