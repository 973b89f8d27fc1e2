/**
 * The oracle of every damage trial and property: after damage to a session's stored events,
 * a read is either intact (every acknowledged note there) or CORRUPT, never a silently shorter
 * or altered session; `doctor --fix` then either repairs it so that every acknowledged event is
 * there or stood for by a repair event, and numbering goes on above every acknowledged seq, or
 * leaves it reported (doctor not ok). Nothing acknowledged is ever lost silently.
 */
import { isBatonError } from '../../src/domain/errors.js';
import type { StoredEvent } from '../../src/domain/events.js';
import { SessionManager } from '../../src/manager/manager.js';
import type { SessionStore } from '../../src/store/types.js';

/** How the damaged session came out. */
export type Verdict = 'intact' | 'repaired' | 'reported';

/** A canonical text of what an event says (seq aside). */
const said = (e: StoredEvent): string => JSON.stringify({ type: e.type, data: e.data });

/**
 * Judges session `id` of `open()`'s store after damage; `original` is every event it held
 * when its last append was acknowledged. Returns the verdict and every broken guarantee.
 */
export async function judge(
  open: () => SessionStore,
  id: string,
  original: StoredEvent[],
): Promise<{ verdict: Verdict; problems: string[] }> {
  const problems: string[] = [];
  const top = original.at(-1)!.seq;
  const notes = original.filter((e) => e.type === 'note.added').map((e) => (e.data as { text: string }).text);
  let store = open();
  let m = new SessionManager({ store, agent: 'judge' });
  try {
    let damaged = false;
    try {
      const state = await m.get(id);
      const have = new Set(state.notes.map((n) => n.text));
      const missing = notes.filter((t) => !have.has(t));
      if (missing.length)
        problems.push(
          `read without an error but ${missing.length} acknowledged note(s) are gone (first: ${missing[0]})`,
        );
      if (state.revision < top) problems.push(`read at revision ${state.revision}, below the acknowledged ${top}`);
    } catch (e) {
      if (!isBatonError(e, 'CORRUPT'))
        problems.push(`read failed with ${isBatonError(e) ? e.code : 'an uncoded error'}: ${(e as Error).message}`);
      damaged = true;
    }
    let report: Awaited<ReturnType<typeof m.maintenance.doctor>>;
    try {
      report = await m.maintenance.doctor({ fix: true });
    } catch (e) {
      problems.push(`doctor --fix threw: ${(e as Error).message}`);
      return { verdict: 'reported', problems };
    }
    await store.close();
    store = open();
    m = new SessionManager({ store, agent: 'judge' });
    let after: StoredEvent[];
    try {
      after = await store.readEvents(id);
      await m.get(id);
    } catch (e) {
      if (!isBatonError(e, 'CORRUPT'))
        problems.push(
          `after doctor --fix the read failed with ${isBatonError(e) ? e.code : 'an uncoded error'}: ${(e as Error).message}`,
        );
      else if (report.ok)
        problems.push(`doctor --fix says all is well, but the session is still CORRUPT: ${e.message}`);
      return { verdict: 'reported', problems };
    }
    checkAccounted(original, after, problems);
    const next = await m.note(id, { text: 'after the repair' });
    const seq = next.events.at(-1)!.seq;
    if (seq <= top)
      problems.push(`numbering restarted: a new event took seq ${seq}, at or below the acknowledged ${top}`);
    return { verdict: damaged ? 'repaired' : 'intact', problems };
  } finally {
    await store.close();
  }
}

/** Every acknowledged event is in `after` as it was, or its seq is held or bridged by a repair event. */
function checkAccounted(original: StoredEvent[], after: StoredEvent[], problems: string[]): void {
  const bySeq = new Map(after.map((e) => [e.seq, e]));
  const bridged = (seq: number): boolean =>
    after.some(
      (e) =>
        e.type === 'repair.events_lost' &&
        (e.data as { from: number; to: number }).from <= seq &&
        seq <= (e.data as { from: number; to: number }).to,
    );
  for (const e of original) {
    const now = bySeq.get(e.seq);
    if (now && said(now) === said(e)) continue;
    if (now && String(now.type).startsWith('repair.')) continue; // held by a repair event that says what happened
    if (!now && bridged(e.seq)) continue;
    problems.push(
      now
        ? `acknowledged seq ${e.seq} (${e.type}) silently became ${now.type}`
        : `acknowledged seq ${e.seq} (${e.type}) silently lost`,
    );
  }
}
