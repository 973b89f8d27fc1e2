import type { StoredEvent } from '../../manager/index.js';
import type { Paint } from '../io.js';
import { ellipsis, truncate, visibleWidth, wrapLine } from '../terminal.js';
import { localTime } from './time.js';

/** One event's payload in a few words, for one-line views (`log`, `watch`). */
export function brief(e: StoredEvent): string {
  const d = e.data as Record<string, unknown>;
  switch (e.type) {
    case 'session.created':
      return `"${String(d['title'])}"`;
    case 'tokens.recorded':
      return `${String(d['agent'])} +${String(d['input'])} in +${String(d['output'])} out +${String(d['cached'])} cached${d['cacheWrite'] ? ` +${String(d['cacheWrite'])} cache write` : ''}${d['model'] ? ` (${String(d['model'])})` : ''}${d['phaseId'] ? ` [${String(d['phaseId'])}]` : ''}`;
    case 'transcript.read': {
      const n = typeof d['responses'] === 'string' ? d['responses'].split('\n').length - 1 : 0;
      return `${String(d['cli'])} ${String(d['path'])} @${String(d['offset'])} (${n} response${n === 1 ? '' : 's'}) ${String(d['agent'])}`;
    }
    case 'budget.set':
      return ['phase', 'agent', 'max', 'maxUsd', 'onExceed']
        .filter((k) => k in d)
        .map((k) => `${k}=${d[k] === null ? 'cleared' : String(d[k])}`)
        .join(' ');
    case 'budget.cost_set':
      return d['maxUsd'] === null ? 'cleared' : `$${String(d['maxUsd'])}`;
    case 'file.recorded':
      return `${String(d['action'])} ${String(d['path'])}${d['phaseId'] ? ` [${String(d['phaseId'])}]` : ''}`;
    case 'phase.skipped':
      return `phaseId=${JSON.stringify(d['phaseId'])}${d['reason'] ? ` reason=${JSON.stringify(d['reason']).slice(0, 80)}` : ''}${d['from'] ? ` from=${JSON.stringify(d['from'])} (the user's decision)` : ''}`;
    case 'phase.added':
    case 'phase.updated': {
      const p = (d['phase'] ?? {}) as Record<string, unknown>;
      const set = ['name', 'after', 'maxRetries', 'blockedBy'].flatMap((k) =>
        (d[k] ?? p[k]) === undefined || (e.type === 'phase.added' && k === 'name' && !p[k])
          ? []
          : [`${k}=${JSON.stringify(d[k] ?? p[k])}`],
      );
      return [
        `phaseId=${JSON.stringify(d['phaseId'])}`,
        ...set,
        ...(d['reason'] ? [`reason=${JSON.stringify(d['reason']).slice(0, 80)}`] : []),
      ].join(' ');
    }
    case 'error.recorded':
      return `${String(d['errorId'])} [${String(d['phaseId'])}] ${String(d['type'])}: ${String(d['message'])}`;
    case 'graph.checkpoint':
      return `step ${String(d['step'])}${d['source'] ? ` (${String(d['source'])})` : ''} ${String(d['checkpointId'])}${d['ns'] ? ` [${String(d['ns'])}]` : ''}`;
    case 'graph.writes':
      return `task ${String(d['taskId'])}: ${Array.isArray(d['writes']) ? d['writes'].map((w: { channel?: unknown }) => String(w.channel)).join(', ') : ''}${d['ns'] ? ` [${String(d['ns'])}]` : ''}`;
    case 'transcript.mirrored':
      return `${Array.isArray(d['entries']) ? d['entries'].length : 0} line(s) by ${String(d['agent'])}${d['subpath'] ? ` [${String(d['subpath'])}]` : ''}`;
    default: {
      const keys = [
        'phaseId',
        'milestoneId',
        'findingId',
        'owner',
        'token',
        'exitCode',
        'signal',
        'name',
        'errorId',
        'resolution',
        'title',
        'text',
        'cause',
        'detail',
        'reason',
      ];
      return keys
        .filter((k) => d[k] !== undefined && d[k] !== null)
        .map((k) => `${k}=${truncate(JSON.stringify(d[k]), 80)}`)
        .join(' ');
    }
  }
}

/** `s` padded to `width` display columns (an agent name may hold CJK). */
function padEnd(s: string, width: number): string {
  return `${s}${' '.repeat(Math.max(0, width - visibleWidth(s)))}`;
}

/**
 * The human `baton log` view: one line per event, its time in local time. On a terminal a
 * line wider than it wraps at word boundaries, continuation lines indented under the event's
 * time (the pager gets it so wrapped: it would break words).
 */
export function renderLog(events: StoredEvent[], c: Paint): string {
  const mark = ellipsis(c);
  return events
    .flatMap((e) => {
      const who = e.actor?.agent ?? `pid ${e.actor?.pid ?? '?'}`;
      const seq = `#${e.seq}`;
      // The padding outside the colour codes: it sets the indent of continuation lines.
      const line = `${' '.repeat(Math.max(0, 6 - seq.length))}${c.dim(seq)} ${c.dim(localTime(e.time))} ${padEnd(who, 12)} ${e.type.padEnd(18)} ${brief(e)}`;
      return c.width === null ? [line] : wrapLine(line, c.width, 3, mark);
    })
    .join('\n')
    .concat(events.length ? '\n' : '');
}
