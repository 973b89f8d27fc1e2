/** The sessions page: every live session (archived ones on demand), interrupted and active first; filter, search, pages. */
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
          <meter
            min={0}
            max={100}
            low={80}
            high={95}
            optimum={0}
            value={Math.min(100, t.percent ?? 0)}
            aria-label={`${t.percent}% of the token budget`}
          />
        </>
      ) : null}
    </div>
  );
}

/** The last part of a workspace path (the whole on hover): the column stays narrow. */
function Workspace({ name }: { name: string | null }) {
  if (name === null) return <span class="muted">—</span>;
  const short =
    name
      .replace(/[\\/]+$/, '')
      .split(/[\\/]/)
      .pop() || name;
  return (
    <span title={name} class="mono">
      {short}
    </span>
  );
}

function Holder({ r }: { r: DashboardRow }) {
  const h = r.holder;
  if (!h) return <span class="muted">—</span>;
  return (
    <span title={`pid ${h.pid} on ${h.host}, lease until ${h.expiresAt}`}>
      {h.owner} <span class="muted">pid {h.pid}</span>
    </span>
  );
}

function Row({ r }: { r: DashboardRow }) {
  return (
    <tr data-session-id={r.id} data-status={r.status} data-archived={r.archived ? 'true' : undefined}>
      <td data-label="Session">
        <a href={`#/s/${encodeURIComponent(r.id)}`} class="session-link">
          {r.title || r.id}
        </a>
        <div class="muted mono">
          {r.id}
          {r.archived ? <span class="badge archived"> archived</span> : null}
        </div>
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
      <td data-label="Cost" class="cost-cell">
        {r.cost ?? <span class="muted">—</span>}
      </td>
      <td data-label="Workspace" class="workspace-cell">
        <Workspace name={r.workspaceName} />
      </td>
      <td data-label="Held by" class="holder-cell">
        <Holder r={r} />
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
  const [archived, setArchived] = useState(false);
  useEffect(() => {
    const t = setTimeout(() => setSearch(typed.trim()), 200);
    return () => clearTimeout(t);
  }, [typed]);
  useEffect(() => setOffset(0), [status, search, archived]);
  const { data, error } = useApi<SessionsPage>(
    `/api/sessions${query({ status, q: search, offset, limit: PAGE, archived: archived ? 'true' : null })}`,
  );
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
            <button
              type="button"
              key={s}
              class={`chip s-${s}`}
              aria-pressed={status === s}
              data-filter={s}
              onClick={() => setStatus(status === s ? null : s)}
            >
              {s} <span class="count">{num(data?.counts[s] ?? 0)}</span>
            </button>
          ))}
        </div>
        <label class="toggle">
          <input
            type="checkbox"
            name="archived"
            checked={archived}
            onChange={(e) => setArchived((e.target as HTMLInputElement).checked)}
          />{' '}
          show archived <span class="count">{num(data?.archived ?? 0)}</span>
        </label>
        <label class="search">
          <span class="sr-only">Search by id or title</span>
          <input
            type="search"
            placeholder="Search id or title"
            value={typed}
            onInput={(e) => setTyped((e.target as HTMLInputElement).value)}
          />
        </label>
      </div>
      {error ? (
        <p class="error" role="alert">
          {error.message}
        </p>
      ) : null}
      <table class="sessions responsive">
        <thead>
          <tr>
            <th scope="col">Session</th>
            <th scope="col">Status</th>
            <th scope="col">Progress</th>
            <th scope="col">Agents</th>
            <th scope="col">Tokens / budget</th>
            <th scope="col">Cost</th>
            <th scope="col">Workspace</th>
            <th scope="col">Held by</th>
            <th scope="col">Last change</th>
          </tr>
        </thead>
        <tbody>
          {data?.rows.map((r) => (
            <Row key={r.id} r={r} />
          ))}
        </tbody>
      </table>
      {data ? (
        <Pager offset={data.offset} limit={data.limit} total={data.total} onOffset={setOffset} label="sessions" />
      ) : (
        <p class="muted">Loading…</p>
      )}
    </main>
  );
}
