/**
 * Which baton session holds a conversation of the Claude Agent SDK: its key (`projectKey`,
 * `sessionId`) as the session id and the session metadata that records it. Pure apart from
 * hashing.
 */
import { createHash } from 'node:crypto';
import { BatonError } from '../manager/index.js';

/** A transcript's key as the SDK passes it (its `SessionKey`). */
export interface SessionKey {
  /** The SDK's scope: by default the working folder, sanitized. */
  projectKey: string;
  /** The conversation's id (a UUID). */
  sessionId: string;
  /** Absent: the main transcript; else a sub-transcript (a sub-agent's, `subagents/agent-<id>`). */
  subpath?: string;
}

/** The session metadata key under which a session records the conversation it holds. */
export const CONVERSATION_KEY = 'claudeAgentSdk';
/** The title every conversation session gets, before the conversation's id. */
export const TITLE_PREFIX = 'Claude Agent SDK conversation ';

const MAX_KEY = 1024;

/** Checks a key's parts: non-empty text of bounded length without control characters. */
export function checkKey(key: unknown): { projectKey: string; sessionId: string; subpath?: string } {
  const k = (typeof key === 'object' && key !== null ? key : {}) as Record<string, unknown>;
  for (const part of ['projectKey', 'sessionId'] as const) {
    const v = k[part];
    if (typeof v !== 'string' || v === '' || v.length > MAX_KEY || /[\u0000-\u001f]/.test(v)) {
      throw new BatonError(
        'BAD_INPUT',
        `The session key's ${part} must be non-empty text of at most ${MAX_KEY} characters; got ${JSON.stringify(v)}.`,
        { hint: 'Pass the key the SDK gives: { projectKey, sessionId, subpath? }.', details: { part } },
      );
    }
  }
  const out = { projectKey: k['projectKey'] as string, sessionId: k['sessionId'] as string };
  return k['subpath'] === undefined ? out : { ...out, subpath: k['subpath'] as string };
}

/**
 * The session id of a conversation: a readable part of its id and 16 hex digits of the
 * SHA-256 of project and id, the same on every machine (`<uuid>-<hash>`): two projects'
 * conversations with one id are two sessions.
 */
export function conversationSessionId(projectKey: string, sessionId: string): string {
  const hash = createHash('sha256').update(`${projectKey}\0${sessionId}`, 'utf8').digest('hex').slice(0, 16);
  const slug = sessionId
    .replace(/[^A-Za-z0-9._-]+/g, '-')
    .replace(/\.{2,}/g, '.')
    .replace(/^[^A-Za-z0-9]+/, '')
    .slice(0, 100)
    .replace(/[^A-Za-z0-9]+$/, '');
  return `${slug || 'conversation'}-${hash}`;
}

/** What a conversation session records of its key. */
export function conversationMetadata(projectKey: string, sessionId: string): Record<string, unknown> {
  return { [CONVERSATION_KEY]: { projectKey, sessionId } };
}

/** Whether session metadata says the session holds conversation `sessionId` of `projectKey`. */
export function holds(metadata: Record<string, unknown>, projectKey: string, sessionId?: string): boolean {
  const v = metadata[CONVERSATION_KEY] as { projectKey?: unknown; sessionId?: unknown } | undefined;
  return (
    typeof v === 'object' &&
    v !== null &&
    v.projectKey === projectKey &&
    (sessionId === undefined || v.sessionId === sessionId)
  );
}

/** The conversation id a session's metadata records, or null. */
export function heldConversation(metadata: Record<string, unknown>): string | null {
  const v = metadata[CONVERSATION_KEY] as { sessionId?: unknown } | undefined;
  return typeof v?.sessionId === 'string' ? v.sessionId : null;
}
