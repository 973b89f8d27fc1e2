import type { SessionSummary, Tombstone } from '../../manager/index.js';
import type { Paint } from '../io.js';
import { ago } from './time.js';

/** The human `baton list` table. */
export function renderList(rows: SessionSummary[], active: string | null, c: Paint, now: Date): string {
  if (!rows.length) return 'No sessions.\n';
  const idW = Math.max(2, ...rows.map((r) => r.id.length));
  const stW = Math.max(6, ...rows.map((r) => r.status.length + (r.archived ? 9 : 0) + (r.pinned ? 7 : 0)));
  const lines = rows.map((r) => {
    const mark = r.id === active ? c.green('*') : ' ';
    const st = `${r.status}${r.archived ? ' archived' : ''}${r.pinned ? ' pinned' : ''}`;
    const progress = r.phasesTotal ? `${r.phasesDone}/${r.phasesTotal}` : '-';
    const cause = r.cause && r.status !== 'active' ? c.dim(` (${r.cause.cause})`) : '';
    return `${mark} ${r.id.padEnd(idW)}  ${st.padEnd(stW)}  ${progress.padStart(5)}  ${ago(r.updatedAt, now).padStart(8)}  ${r.title}${cause}`;
  });
  return `${lines.join('\n')}\n`;
}

/** The human `baton list --deleted` table: one tombstone per line, newest deletion first. */
export function renderTombstones(rows: Tombstone[], c: Paint, now: Date): string {
  if (!rows.length) return 'No deleted sessions.\n';
  const idW = Math.max(2, ...rows.map((r) => r.id.length));
  const stW = Math.max(6, ...rows.map((r) => r.status.length + (r.archived ? 9 : 0)));
  const lines = rows.map((r) => `${r.id.padEnd(idW)}  ${`${r.status}${r.archived ? ' archived' : ''}`.padEnd(stW)}  ${c.dim(`deleted ${ago(r.deletedAt, now)}`.padEnd(16))}  ${r.title}`);
  return `${lines.join('\n')}\n`;
}
