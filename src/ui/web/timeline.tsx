/**
 * The timeline of a session: one lane per phase, one bar per attempt from its start to its
 * end (the attempt in flight grows with the clock while the session is active), failures and
 * retries marked, the agent on each bar, sub-steps as ticks. Every bar is focusable and says
 * what it shows, so the timeline reads with a keyboard and a screen reader too.
 */
import { useEffect, useState } from 'preact/hooks';
import type { Attempt, SessionPage } from '../../manager/index.js';
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
  const parts = [`${a.phaseId}, attempt ${a.attempt}`, a.outcome, a.agent ? `by ${a.agent}` : null, duration(a.startedAt, end)];
  if (a.reason) parts.push(`reason: ${a.reason}`);
  if (a.substeps.length) parts.push(`sub-steps: ${a.substeps.map((s) => s.name).join(', ')}`);
  if (a.errors.length) parts.push(`errors: ${a.errors.join(', ')}`);
  return parts.filter(Boolean).join('; ');
}

/** The timeline section's content. */
export function Timeline({ page }: { page: SessionPage }) {
  const v = page.view;
  const active = v.status === 'active';
  const now = useClock(active && page.attempts.some((a) => a.outcome === 'running'));
  // A running attempt ends now while the session runs, else where the session stopped.
  const openEnd = active ? new Date(Math.max(now, Date.parse(page.now))).toISOString() : v.updatedAt;
  const endOf = (a: Attempt): string => a.endedAt ?? openEnd;
  if (!page.attempts.length) return <p class="muted empty">No phase has started yet.</p>;
  const t0 = Math.min(...page.attempts.map((a) => Date.parse(a.startedAt)));
  const t1 = Math.max(t0 + 1000, ...page.attempts.map((a) => Date.parse(endOf(a))));
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
                        <span key={`${s.name}@${s.at}`} class="tick" title={`sub-step ${s.name}`} style={{ left: `${((Date.parse(s.at) - Date.parse(a.startedAt)) / Math.max(1, Date.parse(endOf(a)) - Date.parse(a.startedAt))) * 100}%` }} />
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
        <span class="key o-completed">completed</span> <span class="key o-failed">failed ✕</span> <span class="key o-running">in flight</span>{' '}
        <span class="key o-superseded">superseded</span> <span class="key retry">↻ retry</span> <span class="key tick-key">sub-step</span>
      </p>
    </div>
  );
}
