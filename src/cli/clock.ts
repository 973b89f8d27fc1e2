/**
 * The CLI's clock. BATON_NOW (ISO-8601) moves it: the clock starts there and runs on, which
 * lets tests and drills see a lease expire without waiting for it. Shared by the bundled
 * entry point and by tests that run the CLI in-process, so both read BATON_NOW alike.
 */
export function cliClock(start: string | undefined): () => Date {
  const at = start ? Date.parse(start) : Number.NaN;
  if (Number.isNaN(at)) return () => new Date();
  const offset = at - Date.now();
  return () => new Date(Date.now() + offset);
}
