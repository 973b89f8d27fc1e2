/** A session's page: status, timeline, tokens, records, files, checkpoints, resume plan, handoff, event log. Live. */
import type { ResumeView, SessionPage } from '../../manager/index.js';
import { useApi } from './api.js';
import { EventLog } from './event-log.js';
import { jump, num, Status, Time } from './format.js';
import { Checkpoints, Errors, Files, Records } from './records.js';
import { Recommendation, Resume } from './resume.js';
import { Section } from './format.js';
import { Timeline } from './timeline.js';
import { TokenChart } from './token-chart.js';

const PARTS: ReadonlyArray<[string, string]> = [
  ['timeline', 'Timeline'],
  ['tokens', 'Tokens'],
  ['errors', 'Errors'],
  ['records', 'Decisions & findings'],
  ['files', 'Files'],
  ['checkpoints', 'Checkpoints'],
  ['resume', 'Resume & handoff'],
  ['events', 'Event log'],
];

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
  if (error && !page) {
    return (
      <main id="main" class="page">
        <p class="error" role="alert">{error.message}</p>
        <a href="#/">← All sessions</a>
      </main>
    );
  }
  if (!page) return <main id="main" class="page"><p class="muted">Loading…</p></main>;
  const v = page.view;
  return (
    <main id="main" class="page" data-session={v.id} data-revision={v.revision}>
      <a href="#/" class="back">← All sessions</a>
      <h1>{v.title || v.id}</h1>
      <p class="meta">
        <span class="mono">{v.id}</span> <Status status={v.status} cause={v.cause} /> <span>{v.progress.done}/{v.progress.total} phases ({v.progress.percent}%)</span>{' '}
        <span>revision <span data-testid="revision">{num(v.revision)}</span></span> <span>changed <Time iso={v.updatedAt} /></span>
        {v.lease ? <span> · lease held by {v.lease.owner} until <Time iso={v.lease.expiresAt} /></span> : null}
      </p>
      <Banner page={page} resume={resume.data} />
      <nav class="toc" aria-label="On this page">
        {PARTS.map(([k, t]) => (
          <a key={k} href={`#${k}`} onClick={(e) => jump(e, k)}>{t}</a>
        ))}
      </nav>
      <Section id="timeline" title="Timeline"><Timeline page={page} /></Section>
      <Section id="tokens" title="Tokens"><TokenChart page={page} /></Section>
      <Section id="errors" title="Errors"><Errors page={page} /></Section>
      <Section id="records" title="Decisions, findings, milestones"><Records page={page} /></Section>
      <Section id="files" title="Files"><Files page={page} resume={resume.data} /></Section>
      <Section id="checkpoints" title="Checkpoints"><Checkpoints page={page} /></Section>
      <Section id="resume" title="Resume plan and handoff"><Resume resume={resume.data} error={resume.error?.message ?? null} /></Section>
      <Section id="events" title="Event log" extra={<span class="muted">{num(v.revision)} events</span>}><EventLog id={id} page={page} /></Section>
    </main>
  );
}
