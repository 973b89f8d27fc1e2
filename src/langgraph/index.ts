/**
 * `baton-sessions/langgraph`: a LangGraph.js checkpoint saver backed by baton's stores
 * (docs/langgraph.md). Needs `@langchain/langgraph-checkpoint` (a peer dependency).
 */
export { BatonSaver } from './saver.js';
export type { BatonSaverOptions } from './saver.js';
export { threadSessionId } from './thread.js';
