// Writer process of the torture trials, on the built library (dist/index.js, dist/domain.js), so that it
// starts in a fraction of a second and can be killed a thousand times.
//
//   node bench/torture/writer.mjs MODE STORE SESSION TAG [COUNT]
//
// STORE is a .baton folder or a postgres:// URL. MODE `crash`: appends through the store
// (conditional, 1-3 small events, now and then a large one, a snapshot every 20 appends)
// until killed; prints `ready <revision>`, then `ack <seq> <eventId>` once each append was
// reported durable. MODE `notes`: COUNT notes `TAG-i` through the manager (which retries
// lost races, and which is retried after LOCKED), printing `ack <i>` after each; exits 0 when done.
import { isBatonError, openManager } from '../../dist/index.js';
import { fold } from '../../dist/domain.js';

const [mode, spec, id, tag, count = '0'] = process.argv.slice(2);
const m = openManager({ cwd: process.cwd(), agent: tag, ...(spec.startsWith('postgres') ? { url: spec } : { dir: spec }) });
const store = m.store;
const say = (line) => process.stdout.write(`${line}\n`);
const actor = { agent: 'torture', pid: process.pid, host: 'torture' };

function event(n, big) {
  const eventId = `${tag}-${n}`;
  const time = new Date().toISOString();
  if (big) return { type: 'context.updated', time, actor, data: { summary: 'x'.repeat(50_000 + Math.floor(Math.random() * 150_000)) }, eventId };
  return { type: 'note.added', time, actor, data: { noteId: eventId, text: `note ${eventId}`, phaseId: null, agent: 'torture' }, eventId };
}

async function crash() {
  let { revision } = await store.load(id);
  say(`ready ${revision}`);
  let n = 0;
  for (let appends = 1; ; appends++) {
    const big = Math.random() < 0.05;
    const events = [];
    for (let k = big ? 1 : 1 + Math.floor(Math.random() * 3); k > 0; k--) events.push(event(++n, big));
    try {
      revision = (await store.append(id, revision, events)).revision;
    } catch (e) {
      if (!isBatonError(e, 'CONFLICT')) throw e;
      revision = (await store.load(id)).revision;
      continue;
    }
    say(`ack ${revision} ${events.at(-1).eventId}`);
    if (appends % 20 === 0) {
      const cur = await store.load(id);
      const state = fold(cur.snapshot?.state ?? null, cur.events, id);
      if (state) await store.writeSnapshot(id, { revision: cur.revision, state });
    }
  }
}

let locked = 0;

async function notes() {
  for (let i = 1; i <= Number(count); i++) {
    try {
      await m.note(id, { text: `${tag}-${i}` });
    } catch (e) {
      // LOCKED (the session lock not had within its timeout) is refused before anything is
      // written: a client retries it, as its hint says.
      if (!isBatonError(e, 'LOCKED')) throw e;
      locked += 1;
      i -= 1;
      continue;
    }
    say(`ack ${i}`);
  }
  if (locked) process.stderr.write(`LOCKED ${locked} times (retried)\n`);
  await m.close();
}

(mode === 'crash' ? crash() : notes()).catch((e) => {
  process.stderr.write(`writer failed: ${e?.stack ?? e}\n`);
  process.exit(1);
});
