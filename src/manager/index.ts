/**
 * The manager's one door: every surface (the CLI, the MCP server, agent hooks) imports what
 * it needs of baton from here.
 */
export { SessionManager } from './manager.js';
export type { ChangeOptions, ChangeResult, ManagerOptions } from './manager.js';
export { openManager } from './open.js';
export type { OpenManagerOptions } from './open.js';
export { HandoffFiles } from './handoff-file.js';
export { AgentHooks } from './agent-hooks.js';
export type { AgentContext, BindingSource, ResolveOptions } from './agent-hooks.js';
export { hookDir, writeHookLog, readHookProblems, acknowledgeHookProblems, HOOK_LOG_FILE, MAX_LOG_BYTES } from './hook-log.js';
export type { HookLogLine, HookProblems } from './hook-log.js';
export { locateStore } from './locate.js';
export { BatonError, isBatonError } from '../domain/errors.js';
export { continueWith, resumeCommand, resumeStep, stepsText, AGENT_CLIS } from '../domain/agent-sessions.js';
export type { ContinueWith } from '../domain/agent-sessions.js';
export { BRIEFING_MAX_CHARS } from '../domain/agent-briefing.js';
export { resumePlan } from './resume.js';
export { sessionHandoff } from './handoff-file.js';
export { renderResumePlan } from '../domain/resume.js';
