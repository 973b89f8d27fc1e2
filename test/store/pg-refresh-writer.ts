/**
 * Child process of postgres-refresh.test.ts: a manager on the PostgreSQL store at argv[2]
 * records tokens on session argv[3] as fast as it can, pinning or unpinning it every third
 * change (a change the registry row shows), and prints each acknowledged revision on its own
 * line, until it is killed (SIGKILL: no close(), no refresh flushed).
 */
import { SessionManager } from '../../src/manager/manager.js';
import { PostgresStore } from '../../src/store/postgres/store.js';

const [url, id] = process.argv.slice(2) as [string, string];
const store = new PostgresStore({ url });
const m = new SessionManager({ store, agent: 'killed-writer' });
let pinned = false;
for (let i = 0; ; i++) {
  let revision: number;
  if (i % 3 !== 2) revision = (await m.tokens(id, { agent: 'killed-writer', input: 1, output: i })).state.revision;
  else {
    pinned = !pinned;
    revision = (await (pinned ? m.pin(id) : m.unpin(id))).revision;
  }
  process.stdout.write(`${revision}\n`);
}
