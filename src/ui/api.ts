/**
 * The JSON API under `/api` (docs/ui.md): what the page reads, usable by scripts with the
 * token. Each route parses its query, asks `manager.dashboard`, and returns JSON. Errors are
 * `{ "error": { code, message, hint?, hintAction? } }` with an HTTP status by code.
 */
import { BatonError, isBatonError, toBatonError } from '../manager/index.js';
import type { SessionManager, SessionStatus } from '../manager/index.js';

/** A JSON answer. */
export interface ApiAnswer {
  status: number;
  body: unknown;
}

const STATUS_BY_CODE: Readonly<Record<string, number>> = {
  BAD_INPUT: 400,
  NOT_FOUND: 404,
  CORRUPT: 500,
  STORE_UNAVAILABLE: 503,
};

function int(url: URL, name: string): number | undefined {
  const raw = url.searchParams.get(name);
  if (raw === null || raw === '') return undefined;
  if (!/^\d{1,9}$/.test(raw))
    throw new BatonError('BAD_INPUT', `${name} must be a whole number; got ${JSON.stringify(raw)}.`, {
      hint: `Pass ${name}=0 or another whole number.`,
    });
  return Number(raw);
}

function text(url: URL, name: string): string | null {
  const v = url.searchParams.get(name);
  return v === null || v === '' ? null : v;
}

function flag(url: URL, name: string): boolean {
  const v = url.searchParams.get(name);
  if (v === null || v === '' || v === '0' || v === 'false') return false;
  if (v === '1' || v === 'true') return true;
  throw new BatonError('BAD_INPUT', `${name} must be true or false; got ${JSON.stringify(v)}.`, {
    hint: `Pass ${name}=true or leave it out.`,
  });
}

/** Routes of the API: `null` when the path is not one of them. */
async function route(m: SessionManager, url: URL): Promise<unknown | null> {
  const parts = url.pathname
    .split('/')
    .slice(2)
    .map((p) => decodeURIComponent(p));
  if (parts.length === 0 || (parts.length === 1 && parts[0] === '')) {
    return {
      store: { kind: m.store.kind, location: m.store.location },
      endpoints: [
        '/api/sessions',
        '/api/sessions/{id}',
        '/api/sessions/{id}/events',
        '/api/sessions/{id}/resume',
        '/api/live',
      ],
    };
  }
  if (parts[0] !== 'sessions') return null;
  if (parts.length === 1) {
    return m.dashboard.sessions({
      status: text(url, 'status') as SessionStatus | null,
      search: text(url, 'q'),
      offset: int(url, 'offset'),
      limit: int(url, 'limit'),
      archived: flag(url, 'archived'),
    });
  }
  const id = parts[1]!;
  if (parts.length === 2) return m.dashboard.session(id, { maxPoints: int(url, 'points') });
  if (parts.length === 3 && parts[2] === 'events') {
    const order = text(url, 'order');
    if (order !== null && order !== 'asc' && order !== 'desc')
      throw new BatonError('BAD_INPUT', `order must be asc or desc; got ${JSON.stringify(order)}.`, {
        hint: 'Use order=desc (newest first) or order=asc.',
      });
    return m.dashboard.events(id, {
      type: text(url, 'type'),
      agent: text(url, 'agent'),
      offset: int(url, 'offset'),
      limit: int(url, 'limit'),
      order: order ?? 'desc',
    });
  }
  if (parts.length === 3 && parts[2] === 'resume') return m.dashboard.resume(id);
  return null;
}

/** Answers one API request. */
export async function answer(m: SessionManager, url: URL): Promise<ApiAnswer> {
  try {
    const body = await route(m, url);
    if (body === null)
      return {
        status: 404,
        body: {
          error: {
            code: 'NOT_FOUND',
            message: `No API at ${url.pathname}.`,
            hint: 'See /api for the endpoints (docs/ui.md).',
          },
        },
      };
    return { status: 200, body };
  } catch (e) {
    const err = isBatonError(e)
      ? e
      : toBatonError(e, 'This is a bug in baton; please report it with the request you made.');
    return { status: STATUS_BY_CODE[err.code] ?? 500, body: { error: err.toJSON() } };
  }
}
