/**
 * The event log: a page of events at a time (never the whole journal in the page), newest
 * first, filtered by type (or family) and agent on the server. Each event reads as a sentence
 * (written by the server: domain/event-sentence.ts); its raw JSON opens behind a toggle.
 */
import { useEffect, useState } from 'preact/hooks';
import type { EventsPage, SessionPage } from '../../manager/index.js';
import { query, useApi } from './api.js';
import { num, Pager } from './format.js';

const PAGE = 100;

/** The event as stored (`baton log --json`), without the sentence the server added. */
function raw(e: EventsPage['events'][number]): string {
  const { text: _sentence, ...stored } = e;
  return JSON.stringify(stored, null, 2);
}

/** The event log section's content. */
export function EventLog({ id, page }: { id: string; page: SessionPage }) {
  const [type, setType] = useState('');
  const [agent, setAgent] = useState('');
  const [offset, setOffset] = useState(0);
  useEffect(() => setOffset(0), [type, agent]);
  const { data, error } = useApi<EventsPage>(
    `/api/sessions/${encodeURIComponent(id)}/events${query({ type, agent, offset, limit: PAGE })}`,
    (c) => c.sessionId === id,
  );
  const types = Object.entries(page.facets.types).sort(([a], [b]) => a.localeCompare(b));
  const families = [...new Set(types.map(([t]) => `${t.split('.')[0]}.`))];
  const agents = Object.entries(page.facets.agents).sort(([a], [b]) => a.localeCompare(b));
  return (
    <div class="events">
      <div class="toolbar">
        <label>
          Type{' '}
          <select value={type} onChange={(e) => setType((e.target as HTMLSelectElement).value)} name="type">
            <option value="">all types</option>
            {families.map((f) => (
              <option key={f} value={f}>
                {f}*
              </option>
            ))}
            {types.map(([t, n]) => (
              <option key={t} value={t}>
                {t} ({num(n)})
              </option>
            ))}
          </select>
        </label>
        <label>
          Agent{' '}
          <select value={agent} onChange={(e) => setAgent((e.target as HTMLSelectElement).value)} name="agent">
            <option value="">all agents</option>
            {agents.map(([a, n]) => (
              <option key={a} value={a}>
                {a} ({num(n)})
              </option>
            ))}
          </select>
        </label>
      </div>
      {error ? (
        <p class="error" role="alert">
          {error.message}
        </p>
      ) : null}
      <ol class="log" aria-label="Events, newest first">
        {data?.events.map((e) => (
          <li key={e.seq} data-seq={e.seq} data-type={e.type}>
            <div class="event-line">
              <span class="seq">#{e.seq}</span>{' '}
              <time dateTime={e.time} title={e.time}>
                {e.time.replace('T', ' ').slice(0, 19)}
              </time>{' '}
              <span class="sentence">{e.text}</span> <span class="muted type">{e.type}</span>
            </div>
            <details class="raw">
              <summary>raw JSON</summary>
              <pre>{raw(e)}</pre>
            </details>
          </li>
        ))}
      </ol>
      {data ? (
        <Pager offset={data.offset} limit={data.limit} total={data.total} onOffset={setOffset} label="events" />
      ) : null}
    </div>
  );
}
