/**
 * Child process of postgres-refresh.test.ts: a manager on the PostgreSQL store at argv[2]
 * records tokens on session argv[3] as fast as it can and prints each acknowledged revision
 * on its own line, until it is killed (SIGKILL: no close(), no refresh flushed).
 */
import { SessionManager } from '../../src/manager/manager.js';
import { PostgresStore } from '../../src/store/postgres/store.js';

const [url, id] = process.argv.slice(2) as [string, string];
const store = new PostgresStore({ url });
const m = new SessionManager({ store, agent: 'killed-writer' });
for (let i = 0; ; i++) {
  const r = await m.tokens(id, { agent: 'killed-writer', input: 1, output: i });
  process.stdout.write(`${r.state.revision}\n`);
}
