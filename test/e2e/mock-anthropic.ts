/**
 * The Anthropic Messages API as Claude Code calls it (`POST /v1/messages`, streamed): plays
 * the script of {@link ModelMock}. A request whose first user message carries the sub-agent
 * marker is the sub-agent's; one offering the Write tool is the main agent's; anything else
 * (titles, summaries) is auxiliary and gets a short text.
 */
import type { Handler, Logged, ModelMock, Role, Step } from './model-mocks.js';
import { stepAt } from './model-mocks.js';

interface Block {
  type: string;
  [k: string]: unknown;
}
interface Message {
  role: string;
  content: string | Block[];
}
interface Body {
  model?: string;
  stream?: boolean;
  messages?: Message[];
  tools?: Array<{ name?: string }>;
}

function roleOf(body: Body, marker: string): Role {
  const first = (body.messages ?? []).find((m) => m.role === 'user');
  if (first && JSON.stringify(first.content).includes(marker)) return 'sub';
  return (body.tools ?? []).some((t) => t.name === 'Write') ? 'main' : 'aux';
}

function toolResults(body: Body): number {
  let n = 0;
  for (const m of body.messages ?? [])
    if (m.role === 'user' && Array.isArray(m.content)) n += m.content.filter((b) => b.type === 'tool_result').length;
  return n;
}

function toolUse(step: Step, tools: string[], marker: string): { name: string; input: Record<string, unknown> } | null {
  switch (step.kind) {
    case 'subagent': {
      const name = ['Agent', 'Task'].find((t) => tools.includes(t));
      return name
        ? {
            name,
            input: {
              description: 'Write the sub-agent file',
              prompt: `${marker}: write from-subagent.txt`,
              subagent_type: 'general-purpose',
            },
          }
        : null;
    }
    case 'write':
      return { name: 'Write', input: { file_path: step.file, content: step.content } };
    case 'edit':
      return { name: 'Edit', input: { file_path: step.file, old_string: step.from, new_string: step.to } };
    case 'shell':
      return { name: 'Bash', input: { command: step.command, description: 'Write a file from the shell' } };
    case 'plan':
      return tools.includes('TodoWrite')
        ? {
            name: 'TodoWrite',
            input: { todos: step.items.map((i) => ({ content: i.name, status: i.status, activeForm: i.name })) },
          }
        : null;
    case 'text':
      return null;
  }
}

const sse = (event: string, data: unknown): string => `event: ${event}\ndata: ${JSON.stringify(data)}\n\n`;

/** The handler for {@link ModelMock}. */
export const anthropicHandler: Handler = (req: Logged, mock: ModelMock) => {
  const url = req.url.split('?')[0];
  if (req.method === 'POST' && url === '/v1/messages/count_tokens')
    return { type: 'json', chunks: [{ input_tokens: 42 }] };
  if (req.method !== 'POST' || url !== '/v1/messages') return null;
  const body = (req.body ?? {}) as Body;
  const role = roleOf(body, mock.script.subMarker);
  const tools = (body.tools ?? []).map((t) => t.name ?? '');
  const steps =
    role === 'main'
      ? mock.script.main.filter((s) => s.kind !== 'subagent' || tools.includes('Agent') || tools.includes('Task'))
      : mock.script.sub;
  const step = role === 'aux' ? ({ kind: 'text', text: 'Mock title' } as const) : stepAt(steps, toolResults(body));
  const call = toolUse(step, tools, mock.script.subMarker);
  const id = mock.nextId('msg_e2e_');
  const u = mock.reply(role, step, id);
  const usage = {
    input_tokens: u.input,
    cache_creation_input_tokens: u.cacheWrite,
    cache_read_input_tokens: u.cacheRead,
  };
  const content: Block = call
    ? { type: 'tool_use', id: `toolu_${id}`, name: call.name, input: call.input }
    : { type: 'text', text: step.kind === 'text' ? step.text : '' };
  const stop = call ? 'tool_use' : 'end_turn';
  const model = body.model ?? 'claude-mock';
  if (body.stream !== true) {
    return {
      type: 'json',
      chunks: [
        {
          id,
          type: 'message',
          role: 'assistant',
          model,
          content: [content],
          stop_reason: stop,
          stop_sequence: null,
          usage: { ...usage, output_tokens: u.output },
        },
      ],
    };
  }
  const json = call ? JSON.stringify(call.input) : '';
  return {
    type: 'sse',
    chunks: [
      sse('message_start', {
        type: 'message_start',
        message: {
          id,
          type: 'message',
          role: 'assistant',
          model,
          content: [],
          stop_reason: null,
          stop_sequence: null,
          usage: { ...usage, output_tokens: 1 },
        },
      }),
      sse('content_block_start', {
        type: 'content_block_start',
        index: 0,
        content_block: call ? { ...content, input: {} } : { type: 'text', text: '' },
      }),
      call
        ? sse('content_block_delta', {
            type: 'content_block_delta',
            index: 0,
            delta: { type: 'input_json_delta', partial_json: json },
          })
        : sse('content_block_delta', {
            type: 'content_block_delta',
            index: 0,
            delta: { type: 'text_delta', text: (content['text'] as string) ?? '' },
          }),
      sse('content_block_stop', { type: 'content_block_stop', index: 0 }),
      sse('message_delta', {
        type: 'message_delta',
        delta: { stop_reason: stop, stop_sequence: null },
        usage: { output_tokens: u.output },
      }),
      sse('message_stop', { type: 'message_stop' }),
    ],
  };
};
