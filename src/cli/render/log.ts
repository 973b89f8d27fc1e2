import type { StoredEvent } from '../../manager/index.js';
import type { Paint } from '../io.js';
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
    case 'budget.cost_set':
      return d['maxUsd'] === null ? 'cleared' : `$${String(d['maxUsd'])}`;
    case 'file.recorded':
      return `${String(d['action'])} ${String(d['path'])}${d['phaseId'] ? ` [${String(d['phaseId'])}]` : ''}`;
    case 'error.recorded':
      return `${String(d['errorId'])} [${String(d['phaseId'])}] ${String(d['type'])}: ${String(d['message'])}`;
    case 'graph.checkpoint':
      return `step ${String(d['step'])}${d['source'] ? ` (${String(d['source'])})` : ''} ${String(d['checkpointId'])}${d['ns'] ? ` [${String(d['ns'])}]` : ''}`;
    case 'graph.writes':
      return `task ${String(d['taskId'])}: ${Array.isArray(d['writes']) ? d['writes'].map((w: { channel?: unknown }) => String(w.channel)).join(', ') : ''}${d['ns'] ? ` [${String(d['ns'])}]` : ''}`;
    default: {
      const keys = ['phaseId', 'milestoneId', 'findingId', 'owner', 'token', 'exitCode', 'signal', 'name', 'errorId', 'resolution', 'title', 'text', 'cause', 'detail', 'reason'];
      return keys.filter((k) => d[k] !== undefined && d[k] !== null).map((k) => `${k}=${JSON.stringify(d[k]).slice(0, 80)}`).join(' ');
    }
  }
}

/** The human `baton log` view: one line per event, its time in local time. */
export function renderLog(events: StoredEvent[], c: Paint): string {
  return events
    .map((e) => {
      const who = e.actor?.agent ?? `pid ${e.actor?.pid ?? '?'}`;
      return `${c.dim(`#${e.seq}`.padStart(6))} ${c.dim(localTime(e.time))} ${who.padEnd(12)} ${e.type.padEnd(18)} ${brief(e)}`;
    })
    .join('\n')
    .concat(events.length ? '\n' : '');
}
