import type { SessionStatus, SessionSummary, Tombstone } from '../../manager/index.js';
import type { Paint } from '../io.js';
import { paintStatus } from './session-status.js';
import { renderTable } from './table.js';
import { ago } from './time.js';

/**
 * The human `baton list` table: a header, `*` on the active session, the title cut to fit, and
 * after it the cause of a stop, or the pid of an orphan (`orphans`: session id → pid) working on it.
 * With no rows, says so and how many archived sessions `--all` would show (`archived`).
 */
export function renderList(
  rows: SessionSummary[],
  active: string | null,
  c: Paint,
  now: Date,
  archived = 0,
  orphans: ReadonlyMap<string, number> = new Map(),
): string {
  if (!rows.length) {
    if (!archived) return 'No sessions.\n';
    return `No sessions (${archived} archived: \`baton list --all\` shows ${archived === 1 ? 'it' : 'them'}).\n`;
  }
  const cells = rows.map((r) => {
    const flags = `${r.archived ? ' archived' : ''}${r.pinned ? ' pinned' : ''}`;
    const orphan = orphans.get(r.id);
    const cause =
      orphan !== undefined
        ? ` (orphaned: command pid ${orphan} still running)`
        : r.cause && r.status !== 'active'
          ? ` (${r.cause.cause})`
          : '';
    return [
      `${r.id === active ? c.green('*') : ' '} ${r.id}`,
      `${paintStatus(r.status, c)}${flags}`,
      r.phasesTotal ? `${r.phasesDone}/${r.phasesTotal}` : '-',
      ago(r.updatedAt, now),
      `${r.title}${c.dim(cause)}`,
    ];
  });
  const table = renderTable(
    [
      { header: '  ID', shrink: true },
      { header: 'STATUS' },
      { header: 'PHASES', align: 'right' },
      { header: 'UPDATED', align: 'right' },
      { header: 'TITLE', flex: true },
    ],
    cells,
    c,
  );
  return `${table.join('\n')}\n`;
}

/** The human `baton list --deleted` table: one tombstone per line, newest deletion first. */
export function renderTombstones(rows: Tombstone[], c: Paint, now: Date): string {
  if (!rows.length) return 'No deleted sessions.\n';
  const cells = rows.map((r) => [
    r.id,
    `${paintStatus(r.status as SessionStatus, c)}${r.archived ? ' archived' : ''}`,
    ago(r.deletedAt, now),
    r.title,
  ]);
  const table = renderTable(
    [
      { header: 'ID', shrink: true },
      { header: 'STATUS' },
      { header: 'DELETED', align: 'right' },
      { header: 'TITLE', flex: true },
    ],
    cells,
    c,
  );
  return `${table.join('\n')}\n`;
}
