/**
 * The attributes of each kind of span and span event in a session's trace (trace-plan.ts),
 * named by the OpenTelemetry GenAI conventions (`gen_ai.*`), with what Langfuse
 * (`session.id`), Arize Phoenix (`openinference.span.kind`, `llm.*`) and Honeycomb
 * (`gen_ai.conversation.id`, `gen_ai.agent.name`, `gen_ai.operation.name`) group by, and
 * baton's own under `baton.*`. The table is in docs/telemetry.md.
 */
import type { EventDataMap, StoredEvent } from '../events.js';

/** Attribute values as OpenTelemetry takes them. */
export type SpanAttributes = Record<string, string | number | boolean | string[]>;

/** What a span helper gives: name, kind, attributes. */
export type SpanShape = [name: string, kind: 'internal' | 'client', attributes: SpanAttributes];

/** Longest text put in an attribute (error messages, decision rationales). */
const MAX_TEXT = 4096;

function text(s: string): string {
  return s.length > MAX_TEXT ? `${s.slice(0, MAX_TEXT)}…` : s;
}

/** On every span: what groups the spans of a session in each backend. */
export function common(sessionId: string): SpanAttributes {
  return { 'gen_ai.conversation.id': sessionId, 'session.id': sessionId };
}

/** The root span (`invoke_workflow {title}`), from the journal's first event. */
export function rootSpan(e: StoredEvent, sessionId: string): { name: string; attributes: SpanAttributes } {
  const title = e.type === 'session.created' ? e.data.title : sessionId;
  const a: SpanAttributes = {
    'gen_ai.operation.name': 'invoke_workflow',
    'gen_ai.workflow.name': text(title),
    'openinference.span.kind': 'CHAIN',
    'baton.session.id': sessionId,
  };
  if (e.type === 'session.created') a['baton.phase.count'] = e.data.phases.length;
  return { name: `invoke_workflow ${text(title)}`, attributes: a };
}

/** A phase attempt (`phase {name}`). */
export function phaseSpan(id: string, name: string, attempt: number, agent: string | null): SpanAttributes {
  return {
    'openinference.span.kind': 'CHAIN',
    'baton.phase.id': id,
    'baton.phase.name': name,
    'baton.phase.attempt': attempt,
    ...(agent ? { 'gen_ai.agent.name': agent } : {}),
  };
}

/** The provider of an agent CLI, by the conventions' names. */
const CLI_PROVIDER: Record<string, string> = { claude: 'anthropic', codex: 'openai', gemini: 'gcp.gemini' };

/** The provider a model name belongs to, when it says (null: unknown). */
export function providerOfModel(model: string): string | null {
  const m = model.toLowerCase();
  if (m.startsWith('claude')) return 'anthropic';
  if (m.startsWith('gemini')) return 'gcp.gemini';
  if (/^(gpt|o\d|codex|chatgpt)/.test(m)) return 'openai';
  return null;
}

function agentAttributes(name: string, id: string | null): SpanAttributes {
  return {
    'gen_ai.operation.name': 'invoke_agent',
    'gen_ai.agent.name': name,
    ...(id ? { 'gen_ai.agent.id': id } : {}),
    'openinference.span.kind': 'AGENT',
  };
}

/** An agent CLI conversation bound to the session (`invoke_agent {cli}`). */
export function conversationSpan(d: EventDataMap['agent.bound']): SpanAttributes {
  const provider = CLI_PROVIDER[d.cli];
  return {
    ...agentAttributes(d.cli, d.agentSessionId),
    ...(provider ? { 'gen_ai.provider.name': provider } : {}),
    ...(d.model ? { 'gen_ai.request.model': d.model } : {}),
  };
}

/** A sub-agent (`invoke_agent {type}`). */
export function subagentSpan(d: EventDataMap['subagent.started']): SpanAttributes {
  return {
    ...agentAttributes(d.agent, d.agentId),
    ...(d.agentType ? { 'baton.agent.type': d.agentType } : {}),
    ...(d.phaseId ? { 'baton.phase.id': d.phaseId } : {}),
  };
}

/** A command run under `baton run` (`invoke_agent {agent}`). */
export function runSpan(agent: string, command: string[]): SpanAttributes {
  return { ...agentAttributes(agent, null), 'baton.run.command': command.map(text) };
}

/** How a run ended. */
export function runEnd(d: EventDataMap['run.ended']): SpanAttributes {
  return {
    'baton.cause': d.cause,
    ...(d.exitCode !== null ? { 'process.exit.code': d.exitCode } : {}),
    ...(d.signal ? { 'baton.signal': d.signal } : {}),
  };
}

/**
 * A token record as a model call (`chat {model}`). The conventions count cached tokens in
 * `gen_ai.usage.input_tokens`; baton's `input` excludes them (Anthropic's meaning), so the
 * input here is input + cache reads + cache writes, with each cached part in its own attribute.
 */
export function chatSpan(d: EventDataMap['tokens.recorded']): SpanShape {
  const cacheWrite = d.cacheWrite ?? 0;
  const input = d.input + d.cached + cacheWrite;
  const model = d.model ?? null;
  const provider = model ? providerOfModel(model) : null;
  const a: SpanAttributes = {
    'gen_ai.operation.name': 'chat',
    'gen_ai.agent.name': d.agent,
    ...(model ? { 'gen_ai.request.model': model, 'llm.model_name': model } : {}),
    ...(provider ? { 'gen_ai.provider.name': provider } : {}),
    'gen_ai.usage.input_tokens': input,
    'gen_ai.usage.output_tokens': d.output,
    'gen_ai.usage.cache_read.input_tokens': d.cached,
    'gen_ai.usage.cache_creation.input_tokens': cacheWrite,
    'openinference.span.kind': 'LLM',
    'llm.token_count.prompt': input,
    'llm.token_count.completion': d.output,
    'llm.token_count.total': input + d.output,
    'llm.token_count.prompt_details.cache_read': d.cached,
    'llm.token_count.prompt_details.cache_write': cacheWrite,
    ...(d.phaseId ? { 'baton.phase.id': d.phaseId } : {}),
  };
  return [`chat ${model ?? d.agent}`, 'client', a];
}

function toolAttributes(tool: string, agent: string | null): SpanAttributes {
  return {
    'gen_ai.operation.name': 'execute_tool',
    'gen_ai.tool.name': tool,
    ...(agent ? { 'gen_ai.agent.name': agent } : {}),
    'openinference.span.kind': 'TOOL',
    'tool.name': tool,
  };
}

/** A file tool call a hook recorded (`execute_tool {tool}`). */
export function fileToolSpan(d: EventDataMap['file.recorded']): SpanShape {
  const tool = d.tool ?? 'file';
  return [
    `execute_tool ${tool}`,
    'internal',
    { ...toolAttributes(tool, d.agent), 'baton.file.path': d.path, 'baton.file.action': d.action },
  ];
}

/** A todo-list tool call a hook recorded (`execute_tool {tool}`). */
export function planToolSpan(tool: string, agent: string | null, steps: number): SpanShape {
  return [`execute_tool ${tool}`, 'internal', { ...toolAttributes(tool, agent), 'baton.steps.count': steps }];
}

/** A failed tool call a hook recorded as an error of type `tool` (its message is `<tool>: <what>`). */
export function failedToolSpan(message: string, agent: string | null): SpanShape {
  const i = message.indexOf(': ');
  const tool = i > 0 ? message.slice(0, i) : 'tool';
  return [`execute_tool ${tool}`, 'internal', toolAttributes(tool, agent)];
}

/** An error as an `exception` span event. */
export function errorEvent(d: EventDataMap['error.recorded']): SpanAttributes {
  return {
    'exception.type': d.type,
    'exception.message': text(d.message),
    'baton.error.id': d.errorId,
    'baton.phase.id': d.phaseId,
    ...(d.agent ? { 'gen_ai.agent.name': d.agent } : {}),
  };
}

/** A decision as a span event. */
export function decisionEvent(d: EventDataMap['decision.recorded']): SpanAttributes {
  return {
    'baton.decision.id': d.decisionId,
    'baton.decision.title': text(d.title),
    'baton.decision.choice': text(d.choice),
    ...(d.rationale ? { 'baton.decision.rationale': text(d.rationale) } : {}),
    ...(d.alternatives.length ? { 'baton.decision.alternatives': d.alternatives.map(text) } : {}),
    ...(d.agent ? { 'gen_ai.agent.name': d.agent } : {}),
  };
}
