/** How the page reads the API (same origin; the cookie carries the token) and hears live changes. */
import { useEffect, useRef, useState } from 'preact/hooks';

/** An error the API answered with. */
export class ApiError extends Error {
  constructor(
    readonly code: string,
    message: string,
    readonly status: number,
  ) {
    super(message);
  }
}

/** GETs `path` under /api and returns its JSON. */
export async function getJson<T>(path: string, signal?: AbortSignal): Promise<T> {
  const r = await fetch(path, {
    credentials: 'same-origin',
    headers: { Accept: 'application/json' },
    ...(signal ? { signal } : {}),
  });
  const body = (await r.json().catch(() => null)) as { error?: { code: string; message: string } } | null;
  if (!r.ok) throw new ApiError(body?.error?.code ?? 'HTTP', body?.error?.message ?? `HTTP ${r.status}`, r.status);
  return body as T;
}

/** A change the store reported: a session moved to a revision. */
export interface LiveChange {
  sessionId: string;
  revision: number;
}

type Listener = (c: LiveChange) => void;
const listeners = new Set<Listener>();
const stateListeners = new Set<(live: boolean) => void>();
let source: EventSource | null = null;
let liveNow = false;

function setLive(v: boolean): void {
  liveNow = v;
  for (const l of stateListeners) l(v);
}

function connect(): void {
  if (source) return;
  source = new EventSource('/api/live');
  source.addEventListener('ready', (e) =>
    setLive((JSON.parse((e as MessageEvent<string>).data) as { live: boolean }).live),
  );
  source.addEventListener('change', (e) => {
    const c = JSON.parse((e as MessageEvent<string>).data) as LiveChange;
    for (const l of listeners) l(c);
  });
  source.addEventListener('error', () => setLive(false));
}

/** Whether live updates are flowing (for the indicator in the header). */
export function useLiveState(): boolean {
  const [live, set] = useState(liveNow);
  useEffect(() => {
    connect();
    stateListeners.add(set);
    return () => void stateListeners.delete(set);
  }, []);
  return live;
}

/**
 * Reads `path` now and again after each live change that `matters` (at most once per `delayMs`:
 * a burst of changes costs one read), without a reload. `path` null: nothing to read.
 */
export function useApi<T>(
  path: string | null,
  matters: (c: LiveChange) => boolean = () => true,
  delayMs = 120,
): { data: T | null; error: ApiError | null; loading: boolean } {
  const [state, setState] = useState<{ data: T | null; error: ApiError | null; loading: boolean }>({
    data: null,
    error: null,
    loading: path !== null,
  });
  const matter = useRef(matters);
  matter.current = matters;
  useEffect(() => {
    if (path === null) return undefined;
    let ctl = new AbortController();
    let timer: ReturnType<typeof setTimeout> | null = null;
    const load = (): void => {
      ctl.abort();
      ctl = new AbortController();
      const mine = ctl;
      getJson<T>(path, mine.signal).then(
        (data) => !mine.signal.aborted && setState({ data, error: null, loading: false }),
        (e: unknown) =>
          !mine.signal.aborted &&
          setState((s) => ({
            data: s.data,
            error: e instanceof ApiError ? e : new ApiError('NETWORK', String(e), 0),
            loading: false,
          })),
      );
    };
    setState((s) => ({ ...s, loading: true }));
    load();
    connect();
    const onChange: Listener = (c) => {
      if (!matter.current(c)) return;
      // Throttled, not debounced: a session that changes every few milliseconds still refreshes.
      if (timer) return;
      timer = setTimeout(() => {
        timer = null;
        load();
      }, delayMs);
    };
    listeners.add(onChange);
    return () => {
      listeners.delete(onChange);
      if (timer) clearTimeout(timer);
      ctl.abort();
    };
  }, [path, delayMs]);
  return state;
}

/** A query string from the parameters that are set. */
export function query(params: Record<string, string | number | null | undefined>): string {
  const q = new URLSearchParams();
  for (const [k, v] of Object.entries(params)) if (v !== null && v !== undefined && v !== '') q.set(k, String(v));
  const s = q.toString();
  return s ? `?${s}` : '';
}
