/**
 * The hook log: what `baton hook` could not record, or chose not to, one JSON line each. It
 * lives in the store (`.baton/hooks/hook.log`) or, with no file store to hold it, in the
 * user's state folder (`$XDG_STATE_HOME/baton/hooks/`, else `~/.local/state/baton/hooks/`).
 * Bounded: past {@link MAX_LOG_BYTES} it is rotated to `hook.log.1` (one old file kept).
 * `baton doctor` and `baton hooks status` report its problems (warnings and errors) until
 * `baton doctor --fix` acknowledges them.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';

/** Rotation threshold of hook.log. */
export const MAX_LOG_BYTES = 256 * 1024;
/** Most problems reported by {@link readHookProblems} (the newest). */
export const MAX_PROBLEMS = 50;
/** Name of the log file inside the hook folder. */
export const HOOK_LOG_FILE = 'hook.log';

/** One line of the hook log. */
export interface HookLogLine {
  time: string;
  level: 'info' | 'warn' | 'error';
  /** Stable code, e.g. `NO_STORE`, `LOCKED`, `PAYLOAD_TOO_LARGE`, `BAD_PAYLOAD`, `INTERNAL`. */
  code: string;
  cli: string | null;
  event: string | null;
  message: string;
  /** The baton session concerned, when known. */
  sessionId?: string | null;
  /** How long the hook took, ms. */
  ms?: number;
  /** Written by `baton doctor --fix`: problems before it are acknowledged. */
  ack?: boolean;
}

/** What {@link readHookProblems} found. */
export interface HookProblems {
  /** The log file read (it may not exist). */
  log: string;
  /** Unacknowledged warnings and errors, oldest first (at most {@link MAX_PROBLEMS}). */
  problems: HookLogLine[];
  /** How many there were in all (more than `problems.length` when some were left out). */
  total: number;
  /** The newest line of any level, if any: when a hook last ran and what it did. */
  last: HookLogLine | null;
}

/**
 * The hook folder of a store: `<store>/hooks` for a store kept in a folder, else the user's
 * fallback folder (one per store URL, so two servers' problems stay apart).
 */
export function hookDir(storeLocation: string | null, env: Readonly<Record<string, string | undefined>>): string {
  if (storeLocation !== null && isDir(storeLocation)) return path.join(storeLocation, 'hooks');
  const base = env['XDG_STATE_HOME'] || path.join(env['HOME'] || os.homedir(), '.local', 'state');
  const dir = path.join(base, 'baton', 'hooks');
  return storeLocation === null ? dir : path.join(dir, slug(storeLocation));
}

function slug(location: string): string {
  // Never the URL itself: it may hold a password.
  let h = 0x811c9dc5;
  for (let i = 0; i < location.length; i++) h = Math.imul(h ^ location.charCodeAt(i), 0x01000193) >>> 0;
  return `store-${h.toString(16).padStart(8, '0')}`;
}

function isDir(p: string): boolean {
  try {
    return fs.statSync(p).isDirectory();
  } catch {
    return false;
  }
}

/**
 * Appends a line to the hook log of `dir`, rotating a full log first. Never throws: a log
 * that cannot be written must not stop the hook (it then writes to stderr, which the agent
 * CLIs keep out of the model's context on exit 0).
 */
export function writeHookLog(dir: string, line: HookLogLine): void {
  try {
    fs.mkdirSync(dir, { recursive: true, mode: 0o700 });
    const file = path.join(dir, HOOK_LOG_FILE);
    try {
      if (fs.statSync(file).size > MAX_LOG_BYTES) fs.renameSync(file, `${file}.1`);
    } catch {
      // no log yet
    }
    const text = JSON.stringify({ ...line, message: line.message.slice(0, 2000) });
    fs.appendFileSync(file, `${text}\n`, { mode: 0o600 });
  } catch (e) {
    process.stderr.write(`baton hook: cannot write the hook log in ${dir}: ${(e as Error).message}\n`);
  }
}

/** Reads the unacknowledged problems of the hook log in `dir` (and its rotated file). */
export function readHookProblems(dir: string): HookProblems {
  const file = path.join(dir, HOOK_LOG_FILE);
  const lines = [...readLines(`${file}.1`), ...readLines(file)];
  let problems: HookLogLine[] = [];
  for (const l of lines) {
    if (l.ack) problems = [];
    else if (l.level === 'warn' || l.level === 'error') problems.push(l);
  }
  return {
    log: file,
    problems: problems.slice(-MAX_PROBLEMS),
    total: problems.length,
    last: lines.filter((l) => !l.ack).at(-1) ?? null,
  };
}

/** Acknowledges every problem logged so far (`baton doctor --fix`). */
export function acknowledgeHookProblems(dir: string, time: string): void {
  writeHookLog(dir, {
    time,
    level: 'info',
    code: 'ACK',
    cli: null,
    event: null,
    message: 'problems acknowledged by baton doctor --fix',
    ack: true,
  });
}

function readLines(file: string): HookLogLine[] {
  let text: string;
  try {
    text = fs.readFileSync(file, 'utf8');
  } catch {
    return [];
  }
  const out: HookLogLine[] = [];
  for (const raw of text.split('\n')) {
    if (!raw.trim()) continue;
    try {
      const l = JSON.parse(raw) as HookLogLine;
      if (l && typeof l === 'object' && typeof l.code === 'string') out.push(l);
    } catch {
      // a torn line (two hooks appending at once on a full disk): skipped
    }
  }
  return out;
}
