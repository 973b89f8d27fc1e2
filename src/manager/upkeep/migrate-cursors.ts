import { cursorsOf } from '../../store/capabilities.js';
import type { SessionStore } from '../../store/types.js';

/**
 * Copies the readers' positions (capability `cursors`, e.g. where `baton otel follow` got to)
 * with the sessions, so a follower pointed at the new store goes on where it was instead of
 * sending everything again. A cursor the target already holds is the target's own reader's
 * and is left as it is. Nothing to do when either store keeps no cursors.
 */
export async function copyCursors(from: SessionStore, to: SessionStore): Promise<{ cursors: number; copied: number }> {
  const src = cursorsOf(from);
  const dst = cursorsOf(to);
  if (!src || !dst) return { cursors: 0, copied: 0 };
  const all = await src.list('');
  let copied = 0;
  for (const c of all) {
    if ((await dst.get(c.name)) !== null) continue;
    await dst.put(c.name, c.value, null);
    copied += 1;
  }
  return { cursors: all.length, copied };
}
