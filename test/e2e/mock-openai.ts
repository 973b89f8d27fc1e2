/**
 * The OpenAI Responses API as Codex CLI calls it (`POST …/responses`, streamed): plays the
 * script of {@link ModelMock}. File edits go through `apply_patch` (offered for models Codex
 * knows), the shell step through whichever shell tool is offered. A request whose first user
 * input carries the sub-agent marker is a sub-agent's.
 */
import type { Handler, Logged, ModelMock, Role, Step } from './model-mocks.js';
import { stepAt } from './model-mocks.js';

interface Item {
  type?: string;
  role?: string;
  [k: string]: unknown;
}
interface Tool {
  type?: string;
  name?: string;
  function?: { name?: string };
  tools?: Tool[];
}
interface Body {
  model?: string;
  stream?: boolean;
  input?: Item[];
  tools?: Tool[];
}

/** Tool names offered, those inside a namespace (Codex's `collaboration`) as `namespace.name`. */
const toolNames = (b: Body): string[] =>
  (b.tools ?? []).flatMap((t) =>
    t.type === 'namespace'
      ? (t.tools ?? []).map((x) => `${t.name}.${x.name}`)
      : [t.name ?? t.function?.name ?? t.type ?? ''],
  );

/**
 * A sub-agent's request: Codex hands a spawned agent its task as an `agent_message` addressed
 * to it (`/root/<task>`; the payload is encrypted), or, in older builds, as a user message.
 */
function roleOf(body: Body, marker: string): Role {
  const input = body.input ?? [];
  if (input.some((i) => i.type === 'agent_message' && typeof i['recipient'] === 'string' && i['recipient'] !== '/root'))
    return 'sub';
  if (input.some((i) => i.role === 'user' && JSON.stringify(i).includes(marker))) return 'sub';
  return toolNames(body).length ? 'main' : 'aux';
}

const toolResults = (b: Body): number => (b.input ?? []).filter((i) => /_call_output$/.test(i.type ?? '')).length;

function relative(file: string, cwd: string): string {
  return file.startsWith(`${cwd}/`) ? file.slice(cwd.length + 1) : file;
}

function patchFor(step: Step, cwd: string): string | null {
  if (step.kind === 'write')
    return `*** Begin Patch\n*** Add File: ${relative(step.file, cwd)}\n${step.content
      .replace(/\n$/, '')
      .split('\n')
      .map((l) => `+${l}`)
      .join('\n')}\n*** End Patch\n`;
  if (step.kind === 'edit')
    return `*** Begin Patch\n*** Update File: ${relative(step.file, cwd)}\n@@\n-${step.from}\n+${step.to}\n*** End Patch\n`;
  return null;
}

function callFor(step: Step, body: Body, id: string, marker: string, cwd: string): Item | null {
  const names = toolNames(body);
  const call_id = `call_${id}`;
  const patch = patchFor(step, cwd);
  if (patch) {
    const t = (body.tools ?? []).find((x) => x.name === 'apply_patch');
    if (t?.type === 'custom')
      return {
        type: 'custom_tool_call',
        id: `ctc_${id}`,
        status: 'completed',
        call_id,
        name: 'apply_patch',
        input: patch,
      };
    return {
      type: 'function_call',
      id: `fc_${id}`,
      status: 'completed',
      call_id,
      name: 'apply_patch',
      arguments: JSON.stringify({ input: patch }),
    };
  }
  if (step.kind === 'subagent') {
    // Codex's multi-agent tools live in the `collaboration` namespace; a fresh history (fork_turns
    // none) keeps the sub-agent's requests recognisable by the marker of its task.
    const ns = names.find((n) => n.endsWith('.spawn_agent'));
    if (!ns) return null;
    const args = { task_name: 'subtask', message: `${marker}: write from-subagent.txt`, fork_turns: 'none' };
    return {
      type: 'function_call',
      id: `fc_${id}`,
      status: 'completed',
      call_id,
      namespace: ns.split('.')[0],
      name: 'spawn_agent',
      arguments: JSON.stringify(args),
    };
  }
  if (step.kind === 'plan') {
    // update_plan takes the whole plan each time: `{ explanation?, plan: [{ step, status }] }`.
    if (!names.includes('update_plan')) return null;
    return {
      type: 'function_call',
      id: `fc_${id}`,
      status: 'completed',
      call_id,
      name: 'update_plan',
      arguments: JSON.stringify({ plan: step.items.map((i) => ({ step: i.name, status: i.status })) }),
    };
  }
  if (step.kind === 'shell') {
    const [name, args] = names.includes('exec_command')
      ? ['exec_command', { cmd: step.command }]
      : names.includes('shell_command')
        ? ['shell_command', { command: step.command }]
        : ['shell', { command: ['bash', '-lc', step.command] }];
    return {
      type: 'function_call',
      id: `fc_${id}`,
      status: 'completed',
      call_id,
      name,
      arguments: JSON.stringify(args),
    };
  }
  return null;
}

/** The working folder Codex reports in its environment context (for relative patch paths). */
function cwdOf(body: Body): string {
  const m = /<cwd>([^<]+)<\/cwd>/.exec(JSON.stringify(body.input ?? []));
  return m?.[1] ?? '';
}

/** The handler for {@link ModelMock}. */
export const openaiHandler: Handler = (req: Logged, mock: ModelMock) => {
  const url = req.url.split('?')[0] ?? '';
  if (req.method === 'GET' && url.endsWith('/models'))
    return { type: 'json', chunks: [{ object: 'list', data: [], models: [] }] };
  if (req.method !== 'POST' || !url.endsWith('/responses')) return null;
  const body = (req.body ?? {}) as Body;
  const role = roleOf(body, mock.script.subMarker);
  const names = toolNames(body);
  const steps =
    role === 'main'
      ? mock.script.main.filter((s) => s.kind !== 'subagent' || names.some((n) => n.endsWith('.spawn_agent')))
      : mock.script.sub;
  const step = role === 'aux' ? ({ kind: 'text', text: 'Mock' } as const) : stepAt(steps, toolResults(body));
  const id = mock.nextId('resp_e2e_');
  const call = callFor(step, body, id, mock.script.subMarker, cwdOf(body));
  const u = mock.reply(role, step, id, true);
  const usage = {
    input_tokens: u.input + u.cacheRead,
    input_tokens_details: { cached_tokens: u.cacheRead },
    output_tokens: u.output,
    output_tokens_details: { reasoning_tokens: 7 },
    total_tokens: u.input + u.cacheRead + u.output,
  };
  const item: Item = call ?? {
    type: 'message',
    id: `msg_${id}`,
    status: 'completed',
    role: 'assistant',
    content: [{ type: 'output_text', text: step.kind === 'text' ? step.text : '', annotations: [] }],
  };
  const base = {
    id,
    object: 'response',
    created_at: 1_700_000_000,
    model: body.model ?? 'gpt-mock',
    status: 'in_progress',
    output: [] as Item[],
  };
  const done = { ...base, status: 'completed', output: [item], usage };
  if (body.stream === false) return { type: 'json', chunks: [done] };
  const ev = (type: string, seq: number, rest: Record<string, unknown>) =>
    `event: ${type}\ndata: ${JSON.stringify({ type, sequence_number: seq, ...rest })}\n\n`;
  return {
    type: 'sse',
    chunks: [
      ev('response.created', 0, { response: base }),
      ev('response.output_item.added', 1, { output_index: 0, item }),
      ev('response.output_item.done', 2, { output_index: 0, item }),
      ev('response.completed', 3, { response: done }),
    ],
  };
};
