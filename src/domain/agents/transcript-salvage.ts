/**
 * What a dead conversation's transcript still tells (docs/runs.md, "Salvage"): its tool calls,
 * read from each agent CLI's transcript format, its last plan (Claude Code `TodoWrite` and
 * the `Task*` tools, Codex `update_plan`, Gemini CLI `write_todos`) and its last tool calls
 * as short lines. Pure: the caller reads the file and hands its lines here.
 *
 * Claude Code 2.1's task tools each carry one change (`TaskCreate` a task, `TaskUpdate` one
 * task's status or subject, `TaskList` the whole list): the plan is their fold, with task ids
 * given in creation order ("1", "2" …) and read back from each call's result.
 */
import type { PlanStep } from '../state.js';

type Json = Record<string, unknown>;

/** One tool call as a transcript recorded it: its input, and its result when one was written. */
export interface ToolCall {
  id: string;
  tool: string;
  input: Json;
  /** The structured result (Claude Code `toolUseResult`), or null when none was written yet. */
  response: unknown;
}

/** Claude Code's task tools, whose calls fold into the plan. */
export const CLAUDE_TASK_TOOLS: ReadonlySet<string> = new Set(['TaskCreate', 'TaskUpdate', 'TaskList', 'TaskGet']);

/** The todo tools whose input is the whole plan, and the field holding its items. */
const PLAN_TOOLS: Readonly<Record<string, string>> = { TodoWrite: 'todos', update_plan: 'plan', write_todos: 'todos' };

const isObj = (v: unknown): v is Json => !!v && typeof v === 'object' && !Array.isArray(v);
const str = (o: Json, k: string): string | null => (typeof o[k] === 'string' && o[k] !== '' ? (o[k] as string) : null);

function parse(line: string): Json | null {
  if (!line.trim()) return null;
  try {
    const v = JSON.parse(line) as unknown;
    return isObj(v) ? v : null;
  } catch {
    return null;
  }
}

function jsonArg(v: unknown): Json {
  if (isObj(v)) return v;
  if (typeof v !== 'string') return {};
  const o = parse(v);
  return o ?? { input: v };
}

/** The tool calls of a transcript, oldest first, for `cli` (claude, codex, gemini); [] for others. */
export function transcriptCalls(cli: string, lines: readonly string[]): ToolCall[] {
  const calls: ToolCall[] = [];
  const byId = new Map<string, ToolCall>();
  const add = (c: ToolCall): void => {
    const known = byId.get(c.id);
    if (known) {
      // Gemini CLI rewrites a message as it goes: the last version wins.
      Object.assign(known, { input: c.input, response: c.response ?? known.response });
      return;
    }
    byId.set(c.id, c);
    calls.push(c);
  };
  for (const line of lines) {
    const o = parse(line);
    if (!o) continue;
    if (cli === 'claude') claudeLine(o, add, byId);
    else if (cli === 'codex') codexLine(o, add, byId);
    else if (cli === 'gemini') geminiLine(o, add);
  }
  return calls;
}

function claudeLine(o: Json, add: (c: ToolCall) => void, byId: Map<string, ToolCall>): void {
  const msg = isObj(o['message']) ? o['message'] : {};
  const content = Array.isArray(msg['content']) ? (msg['content'] as unknown[]) : [];
  if (o['type'] === 'assistant') {
    for (const b of content)
      if (isObj(b) && b['type'] === 'tool_use' && str(b, 'id'))
        add({
          id: str(b, 'id')!,
          tool: str(b, 'name') ?? '',
          input: isObj(b['input']) ? b['input'] : {},
          response: null,
        });
  } else if (o['type'] === 'user') {
    for (const b of content) {
      if (!isObj(b) || b['type'] !== 'tool_result') continue;
      const c = byId.get(str(b, 'tool_use_id') ?? '');
      if (c) c.response = o['toolUseResult'] ?? b['content'] ?? true;
    }
  }
}

function codexLine(o: Json, add: (c: ToolCall) => void, byId: Map<string, ToolCall>): void {
  if (o['type'] !== 'response_item' || !isObj(o['payload'])) return;
  const p = o['payload'];
  const id = str(p, 'call_id') ?? str(p, 'id');
  if (!id) return;
  if (p['type'] === 'function_call')
    add({ id, tool: str(p, 'name') ?? '', input: jsonArg(p['arguments']), response: null });
  else if (p['type'] === 'custom_tool_call')
    add({ id, tool: str(p, 'name') ?? '', input: { input: p['input'] }, response: null });
  else if (p['type'] === 'function_call_output' || p['type'] === 'custom_tool_call_output') {
    const c = byId.get(id);
    if (c) c.response = p['output'] ?? true;
  }
}

function geminiLine(o: Json, add: (c: ToolCall) => void): void {
  const messages =
    isObj(o['$set']) && Array.isArray(o['$set']['messages']) ? (o['$set']['messages'] as unknown[]) : [o];
  for (const m of messages) {
    if (!isObj(m) || m['type'] !== 'gemini' || !Array.isArray(m['toolCalls'])) continue;
    for (const t of m['toolCalls'] as unknown[]) {
      if (!isObj(t) || !str(t, 'id')) continue;
      add({
        id: str(t, 'id')!,
        tool: str(t, 'name') ?? '',
        input: isObj(t['args']) ? t['args'] : {},
        response: t['status'] === 'success' ? (t['result'] ?? true) : null,
      });
    }
  }
}

function stepStatus(raw: unknown): PlanStep['status'] {
  const v = typeof raw === 'string' ? raw.toLowerCase().replace(/[\s-]/g, '_') : '';
  if (v === 'completed' || v === 'done' || v === 'complete') return 'completed';
  if (v === 'in_progress' || v === 'active' || v === 'running') return 'in_progress';
  if (v === 'cancelled' || v === 'canceled' || v === 'skipped') return 'cancelled';
  return 'pending';
}

/** A whole todo list (TodoWrite, update_plan, write_todos items) as steps. */
export function stepsOfList(items: unknown): PlanStep[] {
  if (!Array.isArray(items)) return [];
  const out: PlanStep[] = [];
  for (const it of items) {
    if (!isObj(it)) continue;
    const name =
      str(it, 'content') ??
      str(it, 'step') ??
      str(it, 'subject') ??
      str(it, 'description') ??
      str(it, 'text') ??
      str(it, 'title');
    if (name) out.push({ name: name.replace(/\s+/g, ' ').trim(), status: stepStatus(it['status']) });
  }
  return out;
}

interface Task {
  id: string;
  subject: string;
  status: PlanStep['status'];
}

/**
 * Claude Code's plan as the fold of its task tool calls: `TaskCreate` adds a task (its id
 * from the result, else the next number), `TaskUpdate` changes one (status `deleted` removes
 * it), `TaskList` replaces the list with what it returned. Null when no call changed a task.
 */
export function foldTasks(calls: readonly ToolCall[]): PlanStep[] | null {
  let tasks: Task[] = [];
  let seen = false;
  let next = 1;
  for (const c of calls) {
    if (c.tool === 'TaskCreate') {
      const r = isObj(c.response) && isObj(c.response['task']) ? c.response['task'] : {};
      const id = str(r, 'id') ?? String(next);
      next = Math.max(next, Number(id) + 1 || next + 1);
      const subject = str(c.input, 'subject') ?? str(r, 'subject') ?? str(c.input, 'description');
      if (subject) tasks.push({ id, subject, status: 'pending' });
      seen = true;
    } else if (c.tool === 'TaskUpdate') {
      const id = str(c.input, 'taskId') ?? (isObj(c.response) ? str(c.response, 'taskId') : null);
      const t = tasks.find((x) => x.id === id);
      if (!t) continue;
      const status = str(c.input, 'status');
      if (status === 'deleted') tasks = tasks.filter((x) => x !== t);
      else if (status) t.status = stepStatus(status);
      t.subject = str(c.input, 'subject') ?? t.subject;
      seen = true;
    } else if (c.tool === 'TaskList' && isObj(c.response) && Array.isArray(c.response['tasks'])) {
      tasks = (c.response['tasks'] as unknown[])
        .filter(isObj)
        .flatMap((t) =>
          str(t, 'subject')
            ? [{ id: str(t, 'id') ?? '', subject: str(t, 'subject')!, status: stepStatus(t['status']) }]
            : [],
        );
      seen = true;
    }
  }
  return seen ? tasks.map((t) => ({ name: t.subject.replace(/\s+/g, ' ').trim(), status: t.status })) : null;
}

/**
 * The plan the transcript last held: the last whole-list todo call, or the task tools' fold
 * when a task call came after it. Null when the conversation kept no plan.
 */
export function lastPlan(calls: readonly ToolCall[]): PlanStep[] | null {
  let lastList = -1;
  let lastTask = -1;
  calls.forEach((c, i) => {
    if (PLAN_TOOLS[c.tool]) lastList = i;
    if (CLAUDE_TASK_TOOLS.has(c.tool)) lastTask = i;
  });
  if (lastTask > lastList) return foldTasks(calls);
  if (lastList < 0) return null;
  const c = calls[lastList]!;
  return stepsOfList(c.input[PLAN_TOOLS[c.tool]!]);
}

/** A tool call as one short line: `Write src/a.ts`, `Bash: make test`, `TaskUpdate`. */
export function toolLine(c: ToolCall): string {
  const file =
    str(c.input, 'file_path') ?? str(c.input, 'path') ?? str(c.input, 'notebook_path') ?? str(c.input, 'absolute_path');
  const cmd = str(c.input, 'command') ?? str(c.input, 'cmd');
  const what = file ?? (cmd ? `\`${cmd.replace(/\s+/g, ' ')}\`` : null);
  const line = what ? `${c.tool} ${what}` : c.tool;
  return `${line.slice(0, 200)}${c.response === null ? ' (no result)' : ''}`;
}

/** The last `n` tool calls as short lines, newest last. */
export function lastTools(calls: readonly ToolCall[], n = 5): string[] {
  return calls.slice(-n).map(toolLine);
}

/** The files the file tools of these calls wrote, newest last, each once. */
export function writtenFiles(calls: readonly ToolCall[]): string[] {
  const out: string[] = [];
  for (const c of calls) {
    if (!/^(Write|Edit|MultiEdit|NotebookEdit|write_file|replace)$/.test(c.tool)) continue;
    const f = str(c.input, 'file_path') ?? str(c.input, 'notebook_path') ?? str(c.input, 'path');
    if (!f) continue;
    const at = out.indexOf(f);
    if (at >= 0) out.splice(at, 1);
    out.push(f);
  }
  return out;
}
