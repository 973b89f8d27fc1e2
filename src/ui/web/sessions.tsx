/** The sessions page: every live session, interrupted and active first; filter, search, pages. */
import { useEffect, useState } from 'preact/hooks';
import type { DashboardRow, SessionsPage } from '../../manager/index.js';
import { query, useApi } from './api.js';
import { num, Pager, Status, Time } from './format.js';

const STATUSES = ['interrupted', 'active', 'paused', 'completed', 'failed', 'abandoned'] as const;
const PAGE = 50;

function Progress({ r }: { r: DashboardRow }) {
  return (
    <div class="progress-cell">
      <progress max={100} value={r.progress} aria-label={`${r.progress}% done`} />
      <span>
        {r.phasesDone}/{r.phasesTotal}
        {r.currentPhase ? <span class="muted"> · {r.currentPhase}</span> : null}
      </span>
    </div>
  );
}

function Tokens({ r }: { r: DashboardRow }) {
  const t = r.tokens;
  return (
    <div class={`tokens-cell level-${t.level}`}>
      <span>{num(t.used)}</span>
      {t.max !== null ? (
        <>
          <span class="muted"> / {num(t.max)}</span>
          <meter min={0} max={100} low={80} high={95} optimum={0} value={Math.min(100, t.percent ?? 0)} aria-label={`${t.percent}% of the token budget`} />
        </>
      ) : null}
    </div>
  );
}

function Row({ r }: { r: DashboardRow }) {
  return (
    <tr data-session-id={r.id} data-status={r.status}>
      <td data-label="Session">
        <a href={`#/s/${encodeURIComponent(r.id)}`} class="session-link">
          {r.title || r.id}
        </a>
        <div class="muted mono">{r.id}</div>
      </td>
      <td data-label="Status">
        <Status status={r.status} cause={r.cause} />
      </td>
      <td data-label="Progress">
        <Progress r={r} />
      </td>
      <td data-label="Agents">{r.agents.length ? r.agents.join(', ') : <span class="muted">—</span>}</td>
      <td data-label="Tokens">
        <Tokens r={r} />
      </td>
      <td data-label="Last change">
        <Time iso={r.updatedAt} />
      </td>
    </tr>
  );
}

/** The sessions page. */
export function SessionsView() {
  const [status, setStatus] = useState<string | null>(null);
  const [typed, setTyped] = useState('');
  const [search, setSearch] = useState('');
  const [offset, setOffset] = useState(0);
  useEffect(() => {
    const t = setTimeout(() => setSearch(typed.trim()), 200);
    return () => clearTimeout(t);
  }, [typed]);
  useEffect(() => setOffset(0), [status, search]);
  const { data, error } = useApi<SessionsPage>(`/api/sessions${query({ status, q: search, offset, limit: PAGE })}`);
  const all = data ? Object.values(data.counts).reduce((a, b) => a + b, 0) : 0;
  return (
    <main id="main" class="page">
      <h1>Sessions</h1>
      <div class="toolbar">
        <div class="chips" role="group" aria-label="Filter by status">
          <button type="button" aria-pressed={status === null} onClick={() => setStatus(null)}>
            all <span class="count">{num(all)}</span>
          </button>
          {STATUSES.map((s) => (
            <button type="button" key={s} class={`chip s-${s}`} aria-pressed={status === s} data-filter={s} onClick={() => setStatus(status === s ? null : s)}>
              {s} <span class="count">{num(data?.counts[s] ?? 0)}</span>
            </button>
          ))}
        </div>
        <label class="search">
          <span class="sr-only">Search by id or title</span>
          <input type="search" placeholder="Search id or title" value={typed} onInput={(e) => setTyped((e.target as HTMLInputElement).value)} />
        </label>
      </div>
      {error ? <p class="error" role="alert">{error.message}</p> : null}
      <table class="sessions responsive">
        <thead>
          <tr>
            <th scope="col">Session</th>
            <th scope="col">Status</th>
            <th scope="col">Progress</th>
            <th scope="col">Agents</th>
            <th scope="col">Tokens / budget</th>
            <th scope="col">Last change</th>
          </tr>
        </thead>
        <tbody>{data?.rows.map((r) => <Row key={r.id} r={r} />)}</tbody>
      </table>
      {data ? <Pager offset={data.offset} limit={data.limit} total={data.total} onOffset={setOffset} label="sessions" /> : <p class="muted">Loading…</p>}
    </main>
  );
}
