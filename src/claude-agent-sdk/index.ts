/**
 * `baton-sessions/claude-agent-sdk`: the Claude Agent SDK's session store on baton's stores
 * (docs/claude-agent-sdk.md). Needs nothing of the SDK at run time: pass the store as
 * `query({ options: { sessionStore } })`.
 */
export { BatonSessionStore } from './store.js';
export type { BatonSessionStoreOptions, SessionStoreEntry } from './store.js';
export { conversationSessionId } from './keys.js';
export type { SessionKey } from './keys.js';
