/**
 * An embedded PostgreSQL for the tests: PGlite behind @electric-sql/pglite-socket's
 * wire-protocol server, adapted so that many `pg` connections can share PGlite's one session.
 *
 * The socket server queues single protocol messages, which is not enough for the `pg`
 * driver: an extended-protocol request (Parse, Bind, Describe, Execute … Sync) of one
 * connection must not interleave with another's (they share the unnamed statement and the
 * error state), and a connection's named prepared statements must not collide with another
 * connection's of the same name. So a connection owns the session from its first message
 * until a Sync (or a simple Query) that leaves no transaction open, and statement names get
 * a per-connection prefix.
 *
 * What one session still cannot do is listed in {@link EMBEDDED_LIMITS}.
 */
import type { PGlite } from '@electric-sql/pglite';
import type { PGLiteSocketServer } from '@electric-sql/pglite-socket';

/** What the embedded server cannot do that a real server does (the tests that need it say so). */
export const EMBEDDED_LIMITS = [
  'one session for all connections: a second connection cannot run while another holds a transaction open (a workspace-lock section that uses the store through another connection waits forever)',
  'NOTIFY is delivered to the session, not to the connection that ran LISTEN',
] as const;

type Enqueue = (handlerId: number, message: Uint8Array, onData: (data: Uint8Array) => void) => Promise<number>;
interface Queue {
  enqueue: Enqueue;
  clearTransactionIfNeeded: (handlerId: number) => Promise<void>;
}

/** Starts the embedded server on 127.0.0.1:`port`. */
export async function startEmbedded(port: number): Promise<{ db: PGlite; server: PGLiteSocketServer }> {
  const { PGlite } = await import('@electric-sql/pglite');
  const { PGLiteSocketServer } = await import('@electric-sql/pglite-socket');
  const db = await PGlite.create();
  const server = new PGLiteSocketServer({ db, host: '127.0.0.1', port, maxConnections: 512 });
  share(db, (server as unknown as { queryQueue: Queue }).queryQueue);
  await server.start();
  return { db, server };
}

/** Wraps the server's query queue: whole requests per connection, private statement names. */
function share(db: PGlite, queue: Queue): void {
  const enqueue = queue.enqueue.bind(queue);
  const clear = queue.clearTransactionIfNeeded.bind(queue);
  let owner: number | null = null;
  let waiters: Array<() => void> = [];
  const release = (): void => {
    owner = null;
    const w = waiters;
    waiters = [];
    for (const wake of w) wake();
  };
  const acquire = async (id: number): Promise<void> => {
    while (owner !== null && owner !== id) await new Promise<void>((r) => waiters.push(r));
    owner = id;
  };
  queue.enqueue = async (id, message, onData) => {
    const type = String.fromCharCode(message[0] ?? 0);
    const startup = message.length >= 8 && readInt32(message, 4) === 196608;
    if (startup || type === 'X') return enqueue(id, message, onData);
    await acquire(id);
    try {
      return await enqueue(id, renameStatements(id, type, message), onData);
    } finally {
      if ((type === 'S' || type === 'Q') && !db.isInTransaction()) release();
    }
  };
  queue.clearTransactionIfNeeded = async (id) => {
    await clear(id);
    if (owner === id) {
      if (db.isInTransaction()) await db.exec('ROLLBACK');
      release();
    }
  };
}

function readInt32(b: Uint8Array, at: number): number {
  return Buffer.from(b.buffer, b.byteOffset, b.byteLength).readInt32BE(at);
}

/** Prefixes the prepared-statement name in Parse, Bind, Describe and Close with the connection's id. */
function renameStatements(id: number, type: string, message: Uint8Array): Uint8Array {
  const buf = Buffer.from(message.buffer, message.byteOffset, message.byteLength);
  let at: number;
  if (type === 'P') at = 5;
  else if (type === 'B')
    at = buf.indexOf(0, 5) + 1; // after the portal name
  else if ((type === 'D' || type === 'C') && buf[5] === 0x53 /* 'S' */) at = 6;
  else return message;
  const end = buf.indexOf(0, at);
  if (end <= at) return message; // the unnamed statement is private while the connection owns the session
  const name = Buffer.from(`c${id}_${buf.toString('utf8', at, end)}`);
  const out = Buffer.concat([buf.subarray(0, at), name, buf.subarray(end)]);
  out.writeInt32BE(out.length - 1, 1);
  return new Uint8Array(out);
}
