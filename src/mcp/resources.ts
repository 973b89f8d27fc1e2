import { ResourceTemplate } from '@modelcontextprotocol/sdk/server/mcp.js';
import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import type { ReadResourceResult } from '@modelcontextprotocol/sdk/types.js';
import { BatonError, statusView } from '../manager/index.js';
import type { Kit } from './context.js';
import { protocolError } from './errors.js';
import { handoffMarkdown } from './tools/resume.js';

/** The URI of the session list; a session's resources live under `baton://sessions/<id>`. */
export const SESSIONS_URI = 'baton://sessions';

const json = (uri: string, data: unknown): ReadResourceResult => ({
  contents: [{ uri, mimeType: 'application/json', text: JSON.stringify(data, null, 2) }],
});

/**
 * One template variable, percent-decoded (the SDK may hand over an array for exploded
 * variables). A malformed escape is the caller's mistake, so BAD_INPUT naming it, not the
 * URIError that would otherwise surface as INTERNAL.
 */
function one(v: string | string[] | undefined): string {
  const raw = Array.isArray(v) ? v.join(',') : (v ?? '');
  try {
    return decodeURIComponent(raw);
  } catch {
    const bad = badEscape(raw);
    throw new BatonError(
      'BAD_INPUT',
      `The URI holds a malformed percent-escape: ${JSON.stringify(bad)} is not percent-encoded UTF-8.`,
      {
        hint: 'Percent-encode the session id as UTF-8 (as encodeURIComponent does), or take the URI from resources/list.',
        details: { escape: bad },
      },
    );
  }
}

/** The first run of percent-escapes in `raw` that does not decode (clipped: it is quoted back). */
function badEscape(raw: string): string {
  const runs = raw.match(/(?:%[0-9A-Fa-f]{0,2})+/g) ?? [];
  const bad = runs.find((r) => {
    try {
      decodeURIComponent(r);
      return false;
    } catch {
      return true;
    }
  });
  const s = bad ?? raw;
  return s.length > 60 ? `${s.slice(0, 60)}…` : s;
}

/**
 * Resources: the session list, one session's state (as `session_status`), its handoff
 * Markdown (as `handoff`) and its event log. A refused read is a JSON-RPC error (see
 * protocolError). Without a store the list is empty and a session is not found.
 */
export function registerResources(server: McpServer, kit: Kit): void {
  const guard = async (fn: () => Promise<ReadResourceResult>): Promise<ReadResourceResult> => {
    try {
      return await fn();
    } catch (e) {
      throw protocolError(e);
    }
  };

  server.registerResource(
    'sessions',
    SESSIONS_URI,
    {
      title: 'Sessions',
      description:
        'Every session of the workspace (registry rows: id, title, status, progress, current phase), newest first, and the active one.',
      mimeType: 'application/json',
    },
    (uri) =>
      guard(async () =>
        json(
          uri.href,
          await kit.unlessNoStore(async (m) => ({ active: await m.store.getActive(), sessions: await m.list({}) }), {
            active: null,
            sessions: [],
          }),
        ),
      ),
  );

  server.registerResource(
    'session',
    new ResourceTemplate(`${SESSIONS_URI}/{id}`, {
      list: async () => {
        try {
          const rows = await kit.unlessNoStore((m) => m.list({}), []);
          return {
            resources: rows.map((r) => ({
              uri: `${SESSIONS_URI}/${encodeURIComponent(r.id)}`,
              name: r.id,
              title: r.title,
              description: `${r.status}, ${r.phasesDone}/${r.phasesTotal} phases`,
              mimeType: 'application/json',
            })),
          };
        } catch (e) {
          throw protocolError(e);
        }
      },
    }),
    {
      title: 'Session state',
      description: "One session's state, as session_status returns it.",
      mimeType: 'application/json',
    },
    (uri, v) =>
      guard(async () =>
        json(uri.href, statusView(await kit.manager().get(one(v['id'])), kit.now(), kit.manager().pricing())),
      ),
  );

  server.registerResource(
    'session-handoff',
    new ResourceTemplate(`${SESSIONS_URI}/{id}/handoff`, { list: undefined }),
    {
      title: 'Session handoff',
      description: "One session's handoff briefing (Markdown), as the handoff tool returns it.",
      mimeType: 'text/markdown',
    },
    (uri, v) =>
      guard(async () => ({
        contents: [
          {
            uri: uri.href,
            mimeType: 'text/markdown',
            text: await handoffMarkdown(kit, await kit.manager().resolve(one(v['id']))),
          },
        ],
      })),
  );

  server.registerResource(
    'session-events',
    new ResourceTemplate(`${SESSIONS_URI}/{id}/events`, { list: undefined }),
    {
      title: 'Session event log',
      description: "One session's journal: every event (seq, type, time, actor, data), oldest first.",
      mimeType: 'application/json',
    },
    (uri, v) => guard(async () => json(uri.href, await kit.manager().log(one(v['id'])))),
  );
}
