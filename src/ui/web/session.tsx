/**
 * A session's page: status and cause above tabs that show one section at a time (overview with
 * errors, durable steps and records, phases, files and checkpoints, tokens and cost, resume plan and handoff,
 * event log). Live.
 */
import type { ResumeView, SessionPage } from '../../manager/index.js';
import { useApi } from './api.js';
import { EventLog } from './event-log.js';
import { useEffect, useState } from 'preact/hooks';
import { num, Status, Time } from './format.js';
import { Checkpoints, Errors, Files, Records } from './records.js';
import { Recommendation, Resume } from './resume.js';
import { Section } from './format.js';
import { DurableSteps } from './steps.js';
import { Timeline } from './timeline.js';
import { TokenChart } from './token-chart.js';

/** The session page's tabs: one section shown at a time, the chosen one kept in the address. */
const TABS = [
  ['overview', 'Overview'],
  ['phases', 'Phases'],
  ['files', 'Files'],
  ['tokens', 'Tokens & cost'],
  ['resume', 'Resume & handoff'],
  ['events', 'Events'],
] as const;
type Tab = (typeof TABS)[number][0];

function tabOf(hash: string): Tab {
  const m = /^#\/s\/[^/?]+\/([a-z]+)/.exec(hash);
  return (TABS.find(([k]) => k === m?.[1])?.[0] ?? 'overview') as Tab;
}

/** A row of tabs (ARIA tabs: arrows move between them, the panel follows). */
function Tabs({ id, tab, onTab }: { id: string; tab: Tab; onTab: (t: Tab) => void }) {
  const move = (e: KeyboardEvent): void => {
    const i = TABS.findIndex(([k]) => k === tab);
    const j =
      e.key === 'ArrowRight'
        ? i + 1
        : e.key === 'ArrowLeft'
          ? i - 1
          : e.key === 'Home'
            ? 0
            : e.key === 'End'
              ? TABS.length - 1
              : null;
    if (j === null) return;
    e.preventDefault();
    const next = TABS[(j + TABS.length) % TABS.length]![0];
    onTab(next);
    document.getElementById(`tab-${next}`)?.focus();
  };
  return (
    <div class="tabs" role="tablist" aria-label={`Sections of session ${id}`} onKeyDown={move}>
      {TABS.map(([k, t]) => (
        <button
          type="button"
          role="tab"
          key={k}
          id={`tab-${k}`}
          data-tab={k}
          aria-selected={tab === k}
          aria-controls={`panel-${k}`}
          tabIndex={tab === k ? 0 : -1}
          onClick={() => onTab(k)}
        >
          {t}
        </button>
      ))}
    </div>
  );
}

/** A glance at the session: where it stands, what it cost, what went wrong, what was decided. */
function Overview({ page }: { page: SessionPage }) {
  const v = page.view;
  const open = v.phases.flatMap((p) => p.errors).filter((e) => !e.resolved).length;
  return (
    <>
      <dl class="facts">
        <div>
          <dt>Progress</dt>
          <dd>
            {v.progress.done}/{v.progress.total} phases ({v.progress.percent}%)
          </dd>
        </div>
        <div>
          <dt>Current phase</dt>
          <dd>{v.phases.find((p) => p.status === 'in_progress')?.id ?? '—'}</dd>
        </div>
        <div>
          <dt>Tokens</dt>
          <dd>
            {num(page.tokens.budget.used)}
            {page.tokens.budget.max !== null
              ? ` of ${num(page.tokens.budget.max)} (${page.tokens.budget.percent}%)`
              : ''}
          </dd>
        </div>
        <div>
          <dt>Estimated cost</dt>
          <dd data-testid="overview-cost">
            {page.money.total ?? '—'}
            {page.money.budget ? <div class="muted small">budget {page.money.budget}</div> : null}
          </dd>
        </div>
        <div>
          <dt>Unresolved errors</dt>
          <dd>{open}</dd>
        </div>
        <div>
          <dt>Checkpoints</dt>
          <dd>{page.checkpoints.length}</dd>
        </div>
      </dl>
      <h3>Errors</h3>
      <Errors page={page} />
      <DurableSteps page={page} />
      <Records page={page} />
    </>
  );
}

function Banner({ page, resume }: { page: SessionPage; resume: ResumeView | null }) {
  const v = page.view;
  if (v.status !== 'interrupted' && v.status !== 'failed' && v.status !== 'paused') return null;
  return (
    <div class={`banner b-${v.status}`} role="note" data-banner={v.status}>
      <p>
        <strong>{v.status}</strong>
        {v.cause ? (
          <>
            {' '}
            because <span data-cause={v.cause.cause}>{v.cause.cause}</span>
            {v.cause.detail ? ` (${v.cause.detail})` : ''} <Time iso={v.cause.at} />
          </>
        ) : null}
      </p>
      <Recommendation resume={resume} />
    </div>
  );
}

/** The session page. */
export function SessionView({ id }: { id: string }) {
  const mine = (c: { sessionId: string }): boolean => c.sessionId === id;
  const { data: page, error } = useApi<SessionPage>(`/api/sessions/${encodeURIComponent(id)}`, mine);
  // The resume plan hashes every recorded file: read again at most every half second while changes stream in.
  const resume = useApi<ResumeView>(`/api/sessions/${encodeURIComponent(id)}/resume`, mine, 500);
  const [tab, setTab] = useState<Tab>(() => tabOf(location.hash));
  useEffect(() => {
    // A link to another tab of this session changes only the hash: follow it.
    const on = (): void => setTab(tabOf(location.hash));
    window.addEventListener('hashchange', on);
    return () => window.removeEventListener('hashchange', on);
  }, []);
  const choose = (t: Tab): void => {
    setTab(t);
    // The tab is part of the address (a reload or a shared link opens it) without a new history entry.
    history.replaceState(null, '', `#/s/${encodeURIComponent(id)}/${t}`);
  };
  if (error && !page) {
    return (
      <main id="main" class="page">
        <p class="error" role="alert">
          {error.message}
        </p>
        <a href="#/">← All sessions</a>
      </main>
    );
  }
  if (!page)
    return (
      <main id="main" class="page">
        <p class="muted">Loading…</p>
      </main>
    );
  const v = page.view;
  return (
    <main id="main" class="page" data-session={v.id} data-revision={v.revision}>
      <a href="#/" class="back">
        ← All sessions
      </a>
      <h1>{v.title || v.id}</h1>
      <p class="meta">
        <span class="mono">{v.id}</span> <Status status={v.status} cause={v.cause} />{' '}
        <span>
          {v.progress.done}/{v.progress.total} phases ({v.progress.percent}%)
        </span>{' '}
        <span>
          revision <span data-testid="revision">{num(v.revision)}</span>
        </span>{' '}
        <span>
          changed <Time iso={v.updatedAt} />
        </span>
        {v.lease ? (
          <span>
            {' '}
            · lease held by {v.lease.owner} until <Time iso={v.lease.expiresAt} />
          </span>
        ) : null}
      </p>
      <Banner page={page} resume={resume.data} />
      <Tabs id={v.id} tab={tab} onTab={choose} />
      <div role="tabpanel" id={`panel-${tab}`} aria-labelledby={`tab-${tab}`} data-panel={tab} class="panel">
        {tab === 'overview' ? (
          <Section id="overview" title="Overview">
            <Overview page={page} />
          </Section>
        ) : null}
        {tab === 'phases' ? (
          <Section id="timeline" title="Phases">
            <Timeline page={page} />
          </Section>
        ) : null}
        {tab === 'files' ? (
          <>
            <Section id="files" title="Files">
              <Files page={page} resume={resume.data} />
            </Section>
            <Section id="checkpoints" title="Checkpoints">
              <Checkpoints page={page} />
            </Section>
          </>
        ) : null}
        {tab === 'tokens' ? (
          <Section id="tokens" title="Tokens and cost">
            <TokenChart page={page} />
          </Section>
        ) : null}
        {tab === 'resume' ? (
          <Section id="resume" title="Resume plan and handoff">
            <Resume resume={resume.data} error={resume.error?.message ?? null} />
          </Section>
        ) : null}
        {tab === 'events' ? (
          <Section id="events" title="Event log" extra={<span class="muted">{num(v.revision)} events</span>}>
            <EventLog id={id} page={page} />
          </Section>
        ) : null}
      </div>
    </main>
  );
}
