/** "3m ago", "2h ago", "5d ago" for people; data keeps ISO-8601. */
export function ago(iso: string, now: Date): string {
  const s = Math.max(0, Math.round((now.getTime() - Date.parse(iso)) / 1000));
  if (Number.isNaN(s)) return iso;
  if (s < 60) return `${s}s ago`;
  if (s < 3600) return `${Math.floor(s / 60)}m ago`;
  if (s < 86400) return `${Math.floor(s / 3600)}h ago`;
  return `${Math.floor(s / 86400)}d ago`;
}

/** "in 45s", "in 3m" (or "…ago" once past). */
export function until(iso: string, now: Date): string {
  const s = Math.round((Date.parse(iso) - now.getTime()) / 1000);
  if (Number.isNaN(s)) return iso;
  if (s < 0) return ago(iso, now);
  if (s < 60) return `in ${s}s`;
  if (s < 3600) return `in ${Math.floor(s / 60)}m`;
  return `in ${Math.floor(s / 3600)}h`;
}

/**
 * Thousands separators for token counts. Not toLocaleString: loading ICU's locale data costs
 * ~15 ms, more than the rest of a `baton tokens add` (its BENCHMARKS.md row needs this).
 */
export function num(n: number): string {
  return String(n).replace(/\B(?=(\d{3})+(?!\d))/g, ',');
}

/** A text progress bar of `width` cells. */
export function bar(fraction: number, width = 20): string {
  const f = Math.min(1, Math.max(0, fraction));
  const full = Math.round(f * width);
  return `[${'█'.repeat(full)}${'░'.repeat(width - full)}]`;
}

/**
 * "2026-11-24 09:30:05" in the machine's local time zone (TZ), for people; data keeps
 * ISO-8601 in UTC. Not toLocaleString: loading ICU's locale data costs more than a command.
 */
export function localTime(iso: string): string {
  const d = new Date(iso);
  if (Number.isNaN(d.getTime())) return iso;
  const p = (n: number): string => String(n).padStart(2, '0');
  return `${d.getFullYear()}-${p(d.getMonth() + 1)}-${p(d.getDate())} ${p(d.getHours())}:${p(d.getMinutes())}:${p(d.getSeconds())}`;
}
