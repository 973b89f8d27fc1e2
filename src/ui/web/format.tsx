/** Small shared pieces of the page: numbers, times, status badges, a pager. */
import type { ComponentChildren } from 'preact';

/** 12,345 */
export function num(n: number): string {
  return n.toLocaleString('en-US');
}

/** "3 min ago", "in 2 h", from an ISO time. */
export function ago(iso: string | null, now = Date.now()): string {
  if (!iso) return '—';
  const s = Math.round((now - Date.parse(iso)) / 1000);
  const abs = Math.abs(s);
  const v =
    abs < 60
      ? `${abs} s`
      : abs < 3600
        ? `${Math.round(abs / 60)} min`
        : abs < 86400
          ? `${Math.round(abs / 3600)} h`
          : `${Math.round(abs / 86400)} d`;
  return s >= 0 ? `${v} ago` : `in ${v}`;
}

/** A time for people, with the exact ISO time on hover. */
export function Time({ iso }: { iso: string | null }) {
  return iso ? (
    <time dateTime={iso} title={iso}>
      {ago(iso)}
    </time>
  ) : (
    <span>—</span>
  );
}

/** A duration between two ISO times. */
export function duration(from: string, to: string): string {
  const s = Math.max(0, Math.round((Date.parse(to) - Date.parse(from)) / 1000));
  return s < 60
    ? `${s} s`
    : s < 3600
      ? `${Math.floor(s / 60)} min ${s % 60} s`
      : `${Math.floor(s / 3600)} h ${Math.round((s % 3600) / 60)} min`;
}

/** A session or phase status as a coloured badge with its cause. */
export function Status({ status, cause }: { status: string; cause?: { cause: string; detail: string | null } | null }) {
  return (
    <span class="status-cell">
      <span class={`badge s-${status}`} data-status={status}>
        {status}
      </span>
      {cause && status !== 'active' ? (
        <span class="cause" data-cause={cause.cause}>
          {cause.cause}
          {cause.detail ? `: ${cause.detail}` : ''}
        </span>
      ) : null}
    </span>
  );
}

/** The first 12 hex digits of a hash, the whole one on hover. */
export function Hash({ sha }: { sha: string | null }) {
  return sha ? <code title={sha}>{sha.slice(0, 12)}</code> : <span class="muted">no hash</span>;
}

/** Previous / next buttons and where the page is. */
export function Pager({
  offset,
  limit,
  total,
  onOffset,
  label,
}: {
  offset: number;
  limit: number;
  total: number;
  onOffset: (o: number) => void;
  label: string;
}) {
  const last = Math.min(total, offset + limit);
  return (
    <nav class="pager" aria-label={`${label} pages`}>
      <button type="button" disabled={offset === 0} onClick={() => onOffset(Math.max(0, offset - limit))}>
        ← Previous
      </button>
      <span class="pager-pos" aria-live="polite">
        {total === 0 ? `no ${label}` : `${num(offset + 1)}–${num(last)} of ${num(total)}`}
      </span>
      <button type="button" disabled={last >= total} onClick={() => onOffset(offset + limit)}>
        Next →
      </button>
    </nav>
  );
}

/** A titled section of the session page, reachable from the page's table of contents. */
export function Section({
  id,
  title,
  children,
  extra,
}: {
  id: string;
  title: string;
  children: ComponentChildren;
  extra?: ComponentChildren;
}) {
  return (
    <section id={id} aria-labelledby={`${id}-h`} class="card">
      <header class="card-head">
        <h2 id={`${id}-h`}>{title}</h2>
        {extra}
      </header>
      {children}
    </section>
  );
}

/** "nothing recorded" */
export function Empty({ what }: { what: string }) {
  return <p class="muted empty">No {what} recorded.</p>;
}

/** Moves focus to the element `id` without touching the address (the hash is the page's route). */
export function jump(e: Event, id: string): void {
  e.preventDefault();
  const el = document.getElementById(id);
  if (!el) return;
  if (!el.hasAttribute('tabindex')) el.setAttribute('tabindex', '-1');
  el.scrollIntoView({ block: 'start' });
  el.focus({ preventScroll: true });
}
