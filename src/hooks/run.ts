/**
 * `baton hook claude|codex|gemini`: reads one payload on stdin, records it, answers the CLI.
 * Never in the agent's way: the exit status is always 0 and stdout is always valid for the
 * CLI; every problem (no store, a locked or damaged one, a bad or huge payload, a bug) is a
 * line in the hook log instead. Events that record nothing answer without opening the store
 * or loading the manager.
 */
import type { HookLogLine } from '../manager/index.js';
import type { HookCli, HookEvent, Json } from './model.js';
import { HOOK_CLIS, recordsSomething } from './model.js';
import { normalise } from './normalise.js';
import { hookOutput } from './output.js';
import type { HookRunContext } from './record.js';
import { DEFAULT_MAX_PAYLOAD_BYTES, readPayload } from './stdin.js';
import type { Payload } from './stdin.js';

/** What the hook needs from the process. */
export interface HookIO {
  argv: string[];
  env: Readonly<Record<string, string | undefined>>;
  cwd: string;
  now: () => Date;
  stdout: (s: string) => void;
  /** Reads the payload (default: stdin, bounded). */
  read?: (maxBytes: number) => Payload;
}

/** Default longest wait for a busy session lock, ms (BATON_HOOK_LOCK_TIMEOUT_MS). */
export const DEFAULT_HOOK_LOCK_TIMEOUT_MS = 1500;

/** Runs the hook; resolves to the exit status, which is always 0. */
export async function runHook(io: HookIO): Promise<number> {
  const started = Date.now();
  const cli = io.argv[0] as HookCli;
  const ctx = context(io);
  const log: HookLogLine[] = [];
  let dir: string | null = null;
  let event = '';
  let out = '';
  const line = (level: HookLogLine['level'], code: string, message: string): void => {
    log.push({
      time: io.now().toISOString(),
      level,
      code,
      cli: HOOK_CLIS.includes(cli) ? cli : null,
      event: event || null,
      message,
    });
  };
  try {
    if (!HOOK_CLIS.includes(cli)) {
      line(
        'error',
        'BAD_INPUT',
        `Unknown CLI ${JSON.stringify(io.argv[0] ?? '')}: use baton hook claude, codex or gemini.`,
      );
      return 0;
    }
    out = hookOutput(cli, '', null);
    const max = positive(io.env['BATON_HOOK_MAX_BYTES']) ?? DEFAULT_MAX_PAYLOAD_BYTES;
    const payload = (io.read ?? ((n: number) => readPayload(0, n)))(max);
    const parsed = parse(payload, max);
    if (typeof parsed === 'string') {
      line('warn', payload.problem === 'too-large' ? 'PAYLOAD_TOO_LARGE' : 'BAD_PAYLOAD', parsed);
      return 0;
    }
    const ev: HookEvent = normalise(cli, parsed);
    event = ev.event;
    if (!recordsSomething(ev.action, ctx.capture)) return 0;
    const { recordHook } = await import('./record.js');
    const r = await recordHook(ev, ctx);
    dir = r.dir;
    log.push(...r.log);
    out = hookOutput(cli, ev.event, r.context, r.gate);
  } catch (e) {
    line(
      'error',
      'INTERNAL',
      `baton hook failed: ${e instanceof Error ? (e.stack ?? e.message).split('\n').slice(0, 4).join(' | ') : String(e)}`,
    );
  } finally {
    io.stdout(out);
    if (log.length) await writeLog(io, ctx, dir, log, Date.now() - started);
  }
  return 0;
}

function parse(p: Payload, max: number): Json | string {
  if (p.problem === 'too-large')
    return `A payload of ${p.bytes} bytes is over the ${max}-byte limit (BATON_HOOK_MAX_BYTES): skipped unread. Files it wrote are found at the next Stop.`;
  if (p.problem) return `The payload could not be read (${p.problem}, ${p.bytes} bytes).`;
  if (!p.text?.trim()) return 'Empty payload.';
  try {
    const v = JSON.parse(p.text) as unknown;
    if (v && typeof v === 'object' && !Array.isArray(v)) return v as Json;
    return 'The payload is not a JSON object.';
  } catch (e) {
    return `The payload is not JSON (${(e as Error).message.slice(0, 200)}; ${p.bytes} bytes).`;
  }
}

function positive(v: string | undefined): number | null {
  return v && /^\d+$/.test(v) && Number(v) > 0 ? Number(v) : null;
}

function flag(argv: string[], name: string): string | null {
  const i = argv.indexOf(name);
  if (i >= 0 && argv[i + 1] !== undefined) return argv[i + 1]!;
  const eq = argv.find((a) => a.startsWith(`${name}=`));
  return eq ? eq.slice(name.length + 1) : null;
}

function context(io: HookIO): HookRunContext {
  const env = io.env;
  const capture = (env['BATON_HOOK_CAPTURE'] ?? '').toLowerCase().split(/[\s,]+/);
  const on = (v: string | undefined): boolean => v !== undefined && /^(1|true|yes|on)$/i.test(v);
  return {
    env,
    cwd: io.cwd,
    now: io.now,
    storeUrl: flag(io.argv, '--store') ?? (env['BATON_STORE'] || null),
    dir: flag(io.argv, '--dir') ?? (env['BATON_DIR'] || null),
    lockTimeoutMs: positive(env['BATON_HOOK_LOCK_TIMEOUT_MS']) ?? DEFAULT_HOOK_LOCK_TIMEOUT_MS,
    autostart: on(env['BATON_HOOK_AUTOSTART']),
    capture: {
      prompts: capture.includes('prompts') || capture.includes('all'),
      toolOutputs: capture.includes('tool-outputs') || capture.includes('all'),
    },
    briefingMaxChars: positive(env['BATON_HOOK_BRIEFING_CHARS']) ?? 6000,
    keeper: keeperCommand(env),
  };
}

/**
 * How to start a conversation's keeper: this node and the script that runs the hook (the
 * `baton` launcher or the hook bundle), unless BATON_HOOK_KEEPER=off; null when the hook
 * does not run from one of them (in-process, in a test).
 */
function keeperCommand(env: Readonly<Record<string, string | undefined>>): { node: string; script: string } | null {
  if (/^(off|0|false|no)$/i.test(env['BATON_HOOK_KEEPER'] ?? '')) return null;
  const script = process.argv[1] ?? '';
  return /(^|[/\\])(baton(\.cjs)?|hook\.cjs)$/.test(script) ? { node: process.execPath, script } : null;
}

/** Writes the log lines (to the store's hook folder when known, else where the manager door says). */
async function writeLog(
  io: HookIO,
  ctx: HookRunContext,
  dir: string | null,
  lines: HookLogLine[],
  ms: number,
): Promise<void> {
  const { hookDir, locateStore, writeHookLog } = await import('../manager/index.js');
  const target = dir ?? hookDir(locateStore({ url: ctx.storeUrl, dir: ctx.dir, cwd: ctx.cwd }), io.env);
  for (const l of lines) writeHookLog(target, { ...l, ms });
}
