/**
 * The Gemini API as Gemini CLI calls it (`…:streamGenerateContent?alt=sse`, `…:generateContent`):
 * plays the script of {@link ModelMock}. Requests asking for JSON (the CLI's router and checks)
 * are auxiliary; a request whose first user turn carries the sub-agent marker is a sub-agent's.
 */
import type { Handler, Logged, ModelMock, Role, Step } from './model-mocks.js';
import { stepAt } from './model-mocks.js';

interface Part {
  text?: string;
  functionCall?: unknown;
  functionResponse?: unknown;
}
interface Body {
  contents?: Array<{ role?: string; parts?: Part[] }>;
  tools?: Array<{ functionDeclarations?: Array<{ name?: string }> }>;
  generationConfig?: { responseMimeType?: string; responseJsonSchema?: unknown; responseSchema?: unknown };
}

const toolNames = (b: Body): string[] =>
  (b.tools ?? []).flatMap((t) => (t.functionDeclarations ?? []).map((f) => f.name ?? ''));

/** The tool that runs a sub-agent: Gemini CLI offers its agents as tools. */
export const GEMINI_SUBAGENT_TOOLS = ['invoke_agent', 'delegate_to_agent'];

function wantsJson(b: Body): boolean {
  const c = b.generationConfig ?? {};
  return (
    c.responseMimeType === 'application/json' || c.responseJsonSchema !== undefined || c.responseSchema !== undefined
  );
}

function roleOf(body: Body, marker: string): Role {
  if (wantsJson(body)) return 'aux';
  const first = (body.contents ?? []).find((c) => c.role === 'user');
  if (first && JSON.stringify(first).includes(marker)) return 'sub';
  return toolNames(body).includes('write_file') ? 'main' : 'aux';
}

const toolResults = (b: Body): number =>
  (b.contents ?? []).reduce((n, c) => n + (c.parts ?? []).filter((p) => p.functionResponse).length, 0);

function callFor(step: Step, names: string[], marker: string): { name: string; args: Record<string, unknown> } | null {
  switch (step.kind) {
    case 'subagent': {
      const name = GEMINI_SUBAGENT_TOOLS.find((n) => names.includes(n));
      if (!name) return null;
      const task = `${marker}: write from-subagent.txt`;
      return {
        name,
        args:
          name === 'invoke_agent'
            ? { agent_name: 'generalist', prompt: task }
            : { agent_name: 'generalist', objective: task },
      };
    }
    case 'write':
      return { name: 'write_file', args: { file_path: step.file, content: step.content } };
    case 'edit':
      return {
        name: 'replace',
        args: { file_path: step.file, old_string: step.from, new_string: step.to, instruction: 'edit the line' },
      };
    case 'shell':
      return { name: 'run_shell_command', args: { command: step.command, description: 'write a file from the shell' } };
    case 'plan':
      // write_todos takes the whole list each time (`description`, `status`).
      return names.includes('write_todos')
        ? { name: 'write_todos', args: { todos: step.items.map((i) => ({ description: i.name, status: i.status })) } }
        : null;
    case 'text':
      return null;
  }
}

/** The handler for {@link ModelMock}. */
export const geminiHandler: Handler = (req: Logged, mock: ModelMock) => {
  const m = /\/models\/([^:/]+):(\w+)$/.exec(req.url.split('?')[0] ?? '');
  if (req.method !== 'POST' || !m) return null;
  if (m[2] === 'countTokens') return { type: 'json', chunks: [{ totalTokens: 42 }] };
  if (m[2] !== 'generateContent' && m[2] !== 'streamGenerateContent') return null;
  const body = (req.body ?? {}) as Body;
  const role = roleOf(body, mock.script.subMarker);
  const names = toolNames(body);
  const steps =
    role === 'main'
      ? mock.script.main.filter((s) => s.kind !== 'subagent' || GEMINI_SUBAGENT_TOOLS.some((n) => names.includes(n)))
      : mock.script.sub;
  const step: Step = role === 'aux' ? { kind: 'text', text: '' } : stepAt(steps, toolResults(body));
  const call = role === 'aux' ? null : callFor(step, names, mock.script.subMarker);
  const id = mock.nextId('gem-e2e-');
  const u = mock.reply(role, step, id, true);
  let text = step.kind === 'text' ? step.text : '';
  // The router and the loop checks ask for JSON; one object serves all of them.
  if (role === 'aux')
    text = JSON.stringify({
      reasoning: 'mock',
      next_speaker: 'user',
      model_choice: 'flash',
      complexity_reasoning: 'mock',
      complexity_score: 10,
      unproductive_state_confidence: 0,
    });
  const parts = call ? [{ functionCall: call }] : [{ text }];
  const resp = {
    candidates: [{ content: { role: 'model', parts }, finishReason: 'STOP', index: 0 }],
    usageMetadata: {
      promptTokenCount: u.input + u.cacheRead,
      cachedContentTokenCount: u.cacheRead,
      candidatesTokenCount: u.output - 4,
      thoughtsTokenCount: 4,
      totalTokenCount: u.input + u.cacheRead + u.output,
    },
    modelVersion: m[1],
    responseId: id,
  };
  if (m[2] === 'generateContent') return { type: 'json', chunks: [resp] };
  return { type: 'sse', chunks: [`data: ${JSON.stringify(resp)}\r\n\r\n`] };
};
