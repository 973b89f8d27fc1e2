/**
 * Workers that append notes to one PostgreSQL session while the server is restarted or their
 * connections are killed, each with its own store (its own pool), recording which appends were
 * acknowledged and how each failure was reported. Shared by the fault-injection test and the
 * torture trials.
 */
import { SessionManager, toBatonError } from '../../src/manager/index.js';
import { PostgresStore } from '../../src/store/postgres/store.js';
import type { StoredEvent } from '../../src/domain/events.js';

/** What one worker saw. */
export interface WorkerLog {
  acked: Array<{ text: string; at: number }>;
  failed: Array<{ text: string; code: string; retryable: unknown; message: string }>;
}

/** Appends `<name>-<i>` notes to session `id` until `stop(log so far)` is true, pausing after a failure. */
export async function noteWorker(
  url: string,
  id: string,
  name: string,
  stop: (log: WorkerLog) => boolean,
): Promise<WorkerLog> {
  const store = new PostgresStore({ url });
  const m = new SessionManager({ store, agent: name });
  const log: WorkerLog = { acked: [], failed: [] };
  try {
    for (let i = 1; !stop(log); i++) {
      const text = `${name}-${i}`;
      try {
        await m.note(id, { text });
        log.acked.push({ text, at: Date.now() });
      } catch (e) {
        const b = toBatonError(e, 'bug');
        log.failed.push({
          text,
          code: b.code,
          retryable: (b.details as { retryable?: unknown }).retryable,
          message: b.message,
        });
        await new Promise((r) => setTimeout(r, 40));
      }
    }
  } finally {
    await store.close();
  }
  return log;
}

/** Problems with what the events table holds, given what the workers saw (empty: all good). */
export function checkNotes(events: StoredEvent[], logs: WorkerLog[]): string[] {
  const problems: string[] = [];
  events.forEach((e, i) => {
    if (e.seq !== i + 1) problems.push(`seq ${e.seq} at position ${i + 1}`);
  });
  const count = new Map<string, number>();
  for (const e of events) {
    if (e.type !== 'note.added') continue;
    const t = (e.data as { text: string }).text;
    count.set(t, (count.get(t) ?? 0) + 1);
  }
  const failed = new Set(logs.flatMap((l) => l.failed.map((f) => f.text)));
  for (const l of logs) {
    for (const a of l.acked)
      if (count.get(a.text) !== 1) problems.push(`acknowledged ${a.text} is there ${count.get(a.text) ?? 0} times`);
    for (const f of l.failed) {
      if (f.code !== 'STORE_UNAVAILABLE' || f.retryable !== true)
        problems.push(`failure of ${f.text} reported as ${f.code} (retryable: ${String(f.retryable)}): ${f.message}`);
    }
  }
  const acked = new Set(logs.flatMap((l) => l.acked.map((a) => a.text)));
  for (const [t, n] of count) {
    // A commit whose answer was lost with the connection is there though it was reported failed.
    if (!acked.has(t) && !failed.has(t)) problems.push(`${t} is there but was never written`);
    if (n > 1) problems.push(`${t} is there ${n} times`);
  }
  return problems;
}
