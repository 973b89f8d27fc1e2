/** Fake clocks for tests, written once. */

/**
 * A clock that reads `start`, then `start + step`, `start + 2·step`… (ms), one step per
 * reading: every event a manager writes gets its own, reproducible time.
 */
export function tickingClock(start: number | string, step = 1000): () => Date {
  let t = (typeof start === 'string' ? Date.parse(start) : start) - step;
  return () => new Date((t += step));
}
