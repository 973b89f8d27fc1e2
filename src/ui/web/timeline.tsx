/**
 * The timeline of a session: one lane per phase, one bar per attempt from its start to its
 * end (the attempt in flight grows with the clock while the session is active), failures and
 * retries marked, the agent on each bar, sub-steps as ticks. Every bar is focusable and says
 * what it shows, so the timeline reads with a keyboard and a screen reader too.
 */
import { useEffect, useState } from 'preact/hooks';
import type { Attempt, RunSegment, SessionPage } from '../../manager/index.js';
import { duration } from './format.js';

function useClock(running: boolean): number {
  const [now, setNow] = useState(Date.now());
  useEffect(() => {
    if (!running) return undefined;
    const t = setInterval(() => setNow(Date.now()), 1000);
    return () => clearInterval(t);
  }, [running]);
  return now;
}

function label(a: Attempt, end: string): string {
  const parts = [
    `${a.phaseId}, attempt ${a.attempt}`,
    a.outcome,
    a.agent ? `by ${a.agent}` : null,
    duration(a.startedAt, end),
  ];
  if (a.reason) parts.push(`reason: ${a.reason}`);
  if (a.substeps.length) parts.push(`sub-steps: ${a.substeps.map((s) => s.name).join(', ')}`);
  if (a.errors.length) parts.push(`errors: ${a.errors.join(', ')}`);
  return parts.filter(Boolean).join('; ');
}

function runText(r: RunSegment, end: string): string {
  const how = r.outcome === 'live' ? 'live' : `${r.outcome}${r.cause ? ` (${r.cause})` : ''}`;
  return [r.label, how, r.phases.length ? `phases: ${r.phases.join(', ')}` : null, duration(r.startedAt, end)]
    .filter(Boolean)
    .join('; ');
}

/**
 * One lane per run (worker): a bar from its start to its end with its agent, a mark where it
 * died; the gaps between bars are the times nobody worked on the session.
 */
function RunLanes({ runs, x, end }: { runs: RunSegment[]; x: (iso: string) => number; end: string }) {
  if (!runs.length) return null;
  return (
    <ol class="lanes runs" aria-label="Runs">
      {runs.map((r) => {
        const stop = r.endedAt ?? end;
        const left = x(r.startedAt);
        const width = Math.max(0.6, x(stop) - left);
        return (
          <li class="lane" key={r.id} data-run={r.id}>
            <div class="lane-name" title={r.label}>
              <span class={`dot r-${r.outcome}`} aria-hidden="true" />
              {r.id}
            </div>
            <ol class="track" aria-label={`Run ${r.id}`}>
              <li
                class={`attempt run r-${r.outcome}`}
                data-run={r.id}
                data-outcome={r.outcome}
                tabIndex={0}
                aria-label={runText(r, stop)}
                title={runText(r, stop)}
                style={{ left: `${left}%`, width: `${width}%` }}
              >
                <span class="bar-text">
                  {r.outcome === 'died' ? '✝ ' : ''}
                  {r.agent ?? r.kind}
                </span>
              </li>
            </ol>
          </li>
        );
      })}
    </ol>
  );
}

/** The timeline section's content. */
export function Timeline({ page }: { page: SessionPage }) {
  const v = page.view;
  const active = v.status === 'active';
  const runs = page.runs ?? [];
  const now = useClock(
    active && (page.attempts.some((a) => a.outcome === 'running') || runs.some((r) => r.outcome === 'live')),
  );
  // A running attempt ends now while the session runs, else where the session stopped.
  const openEnd = active ? new Date(Math.max(now, Date.parse(page.now))).toISOString() : v.updatedAt;
  const endOf = (a: Attempt): string => a.endedAt ?? openEnd;
  if (!page.attempts.length && !runs.length) return <p class="muted empty">No phase has started yet.</p>;
  const starts = [...page.attempts.map((a) => Date.parse(a.startedAt)), ...runs.map((r) => Date.parse(r.startedAt))];
  const t0 = Math.min(...starts);
  const t1 = Math.max(
    t0 + 1000,
    ...page.attempts.map((a) => Date.parse(endOf(a))),
    ...runs.map((r) => Date.parse(r.endedAt ?? openEnd)),
  );
  const x = (iso: string): number => ((Date.parse(iso) - t0) / (t1 - t0)) * 100;
  const lanes = v.phases.filter((p) => page.attempts.some((a) => a.phaseId === p.id));
  const pending = v.phases.filter((p) => !page.attempts.some((a) => a.phaseId === p.id));
  return (
    <div class="timeline">
      <div class="axis" aria-hidden="true">
        <span>{new Date(t0).toISOString().replace('T', ' ').slice(0, 19)}</span>
        <span>{duration(new Date(t0).toISOString(), new Date(t1).toISOString())}</span>
        <span>{new Date(t1).toISOString().replace('T', ' ').slice(0, 19)}</span>
      </div>
      <RunLanes runs={runs} x={x} end={openEnd} />
      <ol class="lanes">
        {lanes.map((p) => (
          <li class="lane" key={p.id} data-phase={p.id}>
            <div class="lane-name" title={p.name}>
              <span class={`dot p-${p.status}`} aria-hidden="true" />
              {p.id}
            </div>
            <ol class="track" aria-label={`Attempts of ${p.id}`}>
              {page.attempts
                .filter((a) => a.phaseId === p.id)
                .map((a) => {
                  const left = x(a.startedAt);
                  const width = Math.max(0.6, x(endOf(a)) - left);
                  return (
                    <li
                      key={a.attempt}
                      class={`attempt o-${a.outcome}${a.attempt > 1 ? ' retry' : ''}`}
                      data-phase={a.phaseId}
                      data-attempt={a.attempt}
                      data-outcome={a.outcome}
                      tabIndex={0}
                      aria-label={label(a, endOf(a))}
                      title={label(a, endOf(a))}
                      style={{ left: `${left}%`, width: `${width}%` }}
                    >
                      <span class="bar-text">
                        {a.outcome === 'failed' ? '✕ ' : a.attempt > 1 ? '↻ ' : ''}
                        {a.agent ?? ''}
                      </span>
                      {a.substeps.map((s) => (
                        <span
                          key={`${s.name}@${s.at}`}
                          class="tick"
                          title={`sub-step ${s.name}`}
                          style={{
                            left: `${((Date.parse(s.at) - Date.parse(a.startedAt)) / Math.max(1, Date.parse(endOf(a)) - Date.parse(a.startedAt))) * 100}%`,
                          }}
                        />
                      ))}
                    </li>
                  );
                })}
            </ol>
          </li>
        ))}
      </ol>
      {pending.length ? <p class="muted">Not started: {pending.map((p) => p.id).join(', ')}</p> : null}
      <p class="legend" aria-hidden="true">
        <span class="key o-completed">completed</span> <span class="key o-failed">failed ✕</span>{' '}
        <span class="key o-running">in flight</span> <span class="key o-superseded">superseded</span>{' '}
        <span class="key retry">↻ retry</span> <span class="key tick-key">sub-step</span>
        {runs.length ? (
          <>
            {' '}
            <span class="key r-live">run live</span> <span class="key r-died">✝ run died</span>
          </>
        ) : null}
      </p>
    </div>
  );
}
