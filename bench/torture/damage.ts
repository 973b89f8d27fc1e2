/**
 * The corruption/damage matrix: a session of 25 acknowledged notes (a snapshot at its last
 * revision) is damaged in every way below, and {@link judge} checks that nothing acknowledged
 * is lost silently. File store: the journal cut in the middle (10/50/90 %, and on a line
 * boundary), a torn tail, a byte flipped in an inner or the last line, a line deleted,
 * duplicated or swapped, junk inserted, a zeroed block, an empty or missing journal, an older
 * copy put back, a damaged or missing snapshot, a damaged registry. PostgreSQL: event rows
 * deleted at the tail (a restored backup), in the middle or all, a body that is not JSON or
 * not an event, a damaged snapshot, a registry row past the events.
 */
import fs from 'node:fs';
import path from 'node:path';
import type { StoredEvent } from '../../src/domain/events.js';
import { SessionManager } from '../../src/manager/manager.js';
import type { Sizes, Target, TrialResult } from './common.js';
import { timed } from './common.js';
import { judge } from './judge.js';
import type { Verdict } from './judge.js';

const ID = 'dmg';

/** Makes the session; returns its events and the journal as it was after 12 notes (file store). */
export async function makeSession(
  target: Target,
  spec: string,
  notes = 25,
): Promise<{ original: StoredEvent[]; early: Buffer | null }> {
  const store = target.open(spec);
  try {
    const m = new SessionManager({ store, agent: 'damage', snapshotEvery: 10 });
    await m.start({ title: 'damage', id: ID });
    let early: Buffer | null = null;
    for (let i = 1; i <= notes; i++) {
      await m.note(ID, { text: `note ${i}` });
      if (i === 12 && target.kind === 'file') early = fs.readFileSync(journalOf(spec));
    }
    const state = await m.get(ID);
    await store.writeSnapshot(ID, { revision: state.revision, state });
    return { original: await store.readEvents(ID), early };
  } finally {
    await store.close();
  }
}

const journalOf = (root: string): string => path.join(root, 'sessions', ID, 'journal.jsonl');

const pick = (lo: number, hi: number): number => lo + Math.floor(Math.random() * (hi - lo + 1));

/** Complete lines (with their newline) of a journal. */
function lines(buf: Buffer): string[] {
  return buf.toString('utf8').split(/(?<=\n)/);
}

/** File-store damage, by name: each changes the store folder `root`. */
export const FILE_DAMAGE: Record<string, (root: string, early: Buffer | null) => void> = {
  'cut at 10 %': (root) => cutAt(root, 0.1),
  'cut at 50 %': (root) => cutAt(root, 0.5),
  'cut at 90 %': (root) => cutAt(root, 0.9),
  'cut on a line boundary': (root) => editLines(root, (ls) => ls.slice(0, pick(2, ls.length - 2))),
  'torn tail': (root) => fs.appendFileSync(journalOf(root), '{"v":1,"seq":999,"type":"note.add'),
  'byte flipped in an inner line': (root) => flip(root, (ls) => pick(1, ls.length - 2)),
  'byte flipped in the last line': (root) => flip(root, (ls) => ls.length - 1),
  'inner line deleted': (root) => editLines(root, (ls) => ls.filter((_, i) => i !== pick(1, ls.length - 2))),
  'line duplicated': (root) =>
    editLines(root, (ls) => {
      const i = pick(1, ls.length - 1);
      return [...ls.slice(0, i + 1), ls[i]!, ...ls.slice(i + 1)];
    }),
  'two lines swapped': (root) =>
    editLines(root, (ls) => {
      const i = pick(1, ls.length - 3);
      return [...ls.slice(0, i), ls[i + 1]!, ls[i]!, ...ls.slice(i + 2)];
    }),
  'junk line inserted': (root) =>
    editLines(root, (ls) => {
      const i = pick(1, ls.length - 1);
      return [...ls.slice(0, i), 'this is not an event\n', ...ls.slice(i)];
    }),
  'block zeroed': (root) => {
    const buf = fs.readFileSync(journalOf(root));
    const at = pick(Math.floor(buf.length / 4), Math.floor(buf.length / 2));
    buf.fill(0, at, Math.min(buf.length - 1, at + 512));
    fs.writeFileSync(journalOf(root), buf);
  },
  'journal emptied': (root) => fs.truncateSync(journalOf(root), 0),
  'journal missing': (root) => fs.rmSync(journalOf(root)),
  'older copy put back': (root, early) => fs.writeFileSync(journalOf(root), early!),
  'snapshot garbage': (root) =>
    fs.writeFileSync(path.join(root, 'sessions', ID, 'snapshot.json'), '{"format":"baton.snapshot", garbage'),
  'snapshot deleted': (root) => {
    for (const f of ['snapshot.json', 'snapshot.json.bak'])
      fs.rmSync(path.join(root, 'sessions', ID, f), { force: true });
  },
  'registry garbage': (root) => {
    fs.writeFileSync(path.join(root, 'index.json'), 'not json at all');
    fs.writeFileSync(path.join(root, 'index.log'), '{"id": broken\n');
  },
};

function cutAt(root: string, fraction: number): void {
  const size = fs.statSync(journalOf(root)).size;
  fs.truncateSync(journalOf(root), Math.floor(size * fraction) + pick(-20, 20));
}

function editLines(root: string, edit: (ls: string[]) => string[]): void {
  fs.writeFileSync(journalOf(root), edit(lines(fs.readFileSync(journalOf(root)))).join(''));
}

function flip(root: string, which: (ls: string[]) => number): void {
  editLines(root, (ls) => {
    const i = which(ls);
    const l = ls[i]!;
    const at = pick(10, l.length - 3);
    const c = l[at] === 'x' ? 'y' : 'x';
    ls[i] = l.slice(0, at) + c + l.slice(at + 1);
    return ls;
  });
}

/** PostgreSQL damage, by name: SQL run on the session's schema `s` (quoted) behind the store's back. */
export const PG_DAMAGE: Record<string, (s: string, top: number) => string> = {
  'events after 50 % deleted (a restored backup)': (s, top) =>
    `DELETE FROM ${s}.events WHERE session_id = '${ID}' AND seq > ${Math.floor(top / 2)}`,
  'events after 90 % deleted': (s, top) =>
    `DELETE FROM ${s}.events WHERE session_id = '${ID}' AND seq > ${Math.floor(top * 0.9)}`,
  'an inner event row deleted': (s, top) =>
    `DELETE FROM ${s}.events WHERE session_id = '${ID}' AND seq = ${pick(2, top - 1)}`,
  'every event row deleted': (s) => `DELETE FROM ${s}.events WHERE session_id = '${ID}'`,
  'an event body that is not JSON': (s, top) =>
    `UPDATE ${s}.events SET body = '{"type": "note.add' WHERE session_id = '${ID}' AND seq = ${pick(2, top)}`,
  'an event body that is not an event': (s, top) =>
    `UPDATE ${s}.events SET body = '[1, 2]' WHERE session_id = '${ID}' AND seq = ${pick(2, top)}`,
  'snapshot garbage': (s) => `UPDATE ${s}.snapshots SET state = '{"revision": "no"' WHERE session_id = '${ID}'`,
  'registry row past the events': (s, top) =>
    `UPDATE ${s}.sessions SET summary_revision = ${top + 5} WHERE id = '${ID}'`,
};

/** Runs `sql` on the server of a PostgreSQL store spec. */
async function runSql(spec: string, sql: string): Promise<void> {
  const pg = (await import('pg')).default;
  const u = new URL(spec);
  u.searchParams.delete('schema');
  const c = new pg.Client({ connectionString: u.toString() });
  await c.connect();
  try {
    await c.query(sql);
  } finally {
    await c.end();
  }
}

/** The damage matrix on `target`: every kind, `sizes.damageRounds` times (random positions). */
export function damageTrial(target: Target, sizes: Sizes, deadline: number): Promise<TrialResult> {
  const kinds = target.kind === 'file' ? Object.keys(FILE_DAMAGE) : Object.keys(PG_DAMAGE);
  const planned = kinds.length * sizes.damageRounds;
  return timed(`damage matrix (${kinds.length} kinds)`, target.kind, planned, 'cases', async (r) => {
    const verdicts: Record<Verdict, number> = { intact: 0, repaired: 0, reported: 0 };
    for (let round = 0; round < sizes.damageRounds && Date.now() < deadline; round++) {
      for (const kind of kinds) {
        const spec = target.fresh();
        const { original, early } = await makeSession(target, spec);
        if (target.kind === 'file') FILE_DAMAGE[kind]!(spec, early);
        else
          await runSql(spec, PG_DAMAGE[kind]!(`"${new URL(spec).searchParams.get('schema')}"`, original.at(-1)!.seq));
        const v = await judge(() => target.open(spec), ID, original);
        verdicts[v.verdict] += 1;
        for (const p of v.problems) r.problems.push(`${kind}: ${p}`);
        r.done += 1;
      }
    }
    r.detail = `${verdicts.intact} read intact, ${verdicts.repaired} CORRUPT then repaired, ${verdicts.reported} left reported`;
  });
}
