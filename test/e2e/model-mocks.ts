/**
 * Mocks of the three model APIs the real agent CLIs call (Anthropic Messages, OpenAI
 * Responses, Gemini generateContent), on 127.0.0.1, for the hook end-to-end tests. Each
 * logs every request and plays one scripted conversation: the main agent delegates to a
 * sub-agent (where the CLI has one), writes a file, edits it, runs a shell command that edits
 * another file, then answers with a final text. The step is found from the conversation the
 * CLI sends back (how many tool results it holds), so retries and extra requests do not
 * derail it. Every reply carries fixed usage numbers, distinct per role, and the mock keeps
 * what it reported, normalised to baton's meaning (input without cached tokens, output with
 * reasoning), so a test can compare baton's token totals with it.
 */
import fs from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';

/** Who a request served: the main agent, a sub-agent, or an auxiliary call (titles, routing). */
export type Role = 'main' | 'sub' | 'aux';

/** Token usage in baton's meaning. */
export interface Usage {
  input: number;
  output: number;
  cacheRead: number;
  cacheWrite: number;
}

/** Usage each role's responses report (distinct, so a mix-up shows). */
export const USAGE: Record<Role, Usage> = {
  main: { input: 1201, output: 57, cacheRead: 301, cacheWrite: 211 },
  sub: { input: 703, output: 31, cacheRead: 101, cacheWrite: 53 },
  aux: { input: 17, output: 5, cacheRead: 0, cacheWrite: 0 },
};

/** One step of the scripted conversation. */
export type Step =
  | { kind: 'subagent' }
  | { kind: 'write'; file: string; content: string }
  | { kind: 'edit'; file: string; from: string; to: string }
  | { kind: 'shell'; command: string }
  | { kind: 'plan'; items: PlanItem[] }
  | { kind: 'text'; text: string };

/** One item of the plan a `plan` step sets (the CLI's own plan tool: TodoWrite, update_plan, write_todos). */
export interface PlanItem {
  name: string;
  status: 'pending' | 'in_progress' | 'completed';
}

/** What the mock answered, with the usage it reported (normalised) and the response id. */
export interface Reply {
  role: Role;
  step: Step['kind'];
  id: string;
  usage: Usage;
}

/** A logged request. */
export interface Logged {
  method: string;
  url: string;
  body: unknown;
}

/** The conversation the mock plays: the main agent's steps and the sub-agent's. */
export interface Script {
  main: Step[];
  sub: Step[];
  /** A marker the sub-agent's task carries, so its requests can be told from the main agent's. */
  subMarker: string;
}

/** Answers one request (null: an empty JSON object). */
export type Handler = (
  req: Logged,
  mock: ModelMock,
) => { status?: number; type: 'json' | 'sse'; chunks: unknown[] } | { type: 'hang' } | null;

/** A running mock: its URL, the requests it got and the replies it gave. */
export class ModelMock {
  readonly requests: Logged[] = [];
  readonly replies: Reply[] = [];
  private server: http.Server | null = null;
  /** Requests left unanswered (a model that stopped answering), ended at close. */
  private readonly hanging: http.ServerResponse[] = [];
  /** How many requests were left hanging. */
  get hangs(): number {
    return this.hanging.length;
  }
  private seq = 0;
  url = '';

  constructor(
    readonly script: Script,
    private readonly handler: Handler,
    private readonly logFile: string | null,
  ) {}

  /** A fresh response id. */
  nextId(prefix: string): string {
    this.seq += 1;
    return `${prefix}${this.seq}`;
  }

  async start(): Promise<this> {
    this.server = http.createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => {
        const raw = Buffer.concat(chunks).toString('utf8');
        let body: unknown = null;
        try {
          body = raw ? JSON.parse(raw) : null;
        } catch {
          body = { unparsed: raw.slice(0, 4000) };
        }
        const logged: Logged = { method: req.method ?? '', url: req.url ?? '', body };
        this.requests.push(logged);
        if (this.logFile) fs.appendFileSync(this.logFile, `${JSON.stringify(logged)}\n`);
        const out = this.handler(logged, this);
        if (!out) {
          res.writeHead(200, { 'content-type': 'application/json' });
          res.end('{}');
          return;
        }
        if (out.type === 'hang') {
          // Headers sent, then nothing: the CLI waits for a stream that never comes.
          res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
          this.hanging.push(res);
          return;
        }
        if (out.type === 'json') {
          res.writeHead(out.status ?? 200, { 'content-type': 'application/json' });
          res.end(JSON.stringify(out.chunks[0]));
          return;
        }
        res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
        for (const c of out.chunks) res.write(typeof c === 'string' ? c : `data: ${JSON.stringify(c)}\n\n`);
        res.end();
      });
    });
    await new Promise<void>((resolve) => this.server?.listen(0, '127.0.0.1', resolve));
    this.url = `http://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
    return this;
  }

  /**
   * Records a reply and returns the usage to report, in baton's meaning; `noCacheWrite` for
   * APIs that report no cache writes (OpenAI, Gemini).
   */
  reply(role: Role, step: Step, id: string, noCacheWrite = false): Usage {
    const usage = { ...USAGE[role], ...(noCacheWrite ? { cacheWrite: 0 } : {}) };
    this.replies.push({ role, step: step.kind, id, usage });
    return usage;
  }

  /** The summed usage the mock reported for a role. */
  total(role: Role): Usage {
    const t: Usage = { input: 0, output: 0, cacheRead: 0, cacheWrite: 0 };
    for (const r of this.replies.filter((x) => x.role === role)) {
      t.input += r.usage.input;
      t.output += r.usage.output;
      t.cacheRead += r.usage.cacheRead;
      t.cacheWrite += r.usage.cacheWrite;
    }
    return t;
  }

  /** The requests whose body contains `text` (e.g. the briefing a SessionStart hook injected). */
  requestsContaining(text: string): Logged[] {
    return this.requests.filter((r) => JSON.stringify(r.body ?? '').includes(text));
  }

  async close(): Promise<void> {
    const s = this.server;
    this.server = null;
    for (const r of this.hanging.splice(0)) r.destroy();
    if (s) await new Promise<void>((resolve) => s.close(() => resolve()));
  }
}

/** The step a role is at, given how many tool results its conversation holds. */
export function stepAt(steps: Step[], toolResults: number): Step {
  return steps[Math.min(toolResults, steps.length - 1)] as Step;
}

/** The usual script in a work folder: a sub-agent, a write, an edit, a shell edit, a final text. */
export function defaultScript(dir: string, withSubagent: boolean): Script {
  const main: Step[] = [
    ...(withSubagent ? [{ kind: 'subagent' } as const] : []),
    { kind: 'write', file: path.join(dir, 'notes.md'), content: 'first line\n' },
    { kind: 'edit', file: path.join(dir, 'notes.md'), from: 'first line', to: 'first line, edited' },
    { kind: 'shell', command: 'printf "from the shell\\n" > shell-out.txt' },
    { kind: 'text', text: 'All done: notes.md written and edited, shell-out.txt made by a shell command.' },
  ];
  const sub: Step[] = [
    { kind: 'write', file: path.join(dir, 'from-subagent.txt'), content: 'written by the sub-agent\n' },
    { kind: 'text', text: 'Sub-agent done.' },
  ];
  return { main, sub, subMarker: 'BATON-E2E-SUBTASK' };
}
