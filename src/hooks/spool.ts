/**
 * Events a hook could not record because the store was busy or away (a session lock held
 * too long, a full disk), kept in `<hook folder>/pending.jsonl` and recorded by the next hook
 * that reaches the store. Bounded: past {@link MAX_PENDING_BYTES} new events are dropped
 * (and logged). Taken by renaming the file first, so two hooks never record one event twice.
 */
import fs from 'node:fs';
import path from 'node:path';
import type { HookEvent } from './model.js';

/** Size bound of the pending file. */
export const MAX_PENDING_BYTES = 1024 * 1024;

/** Keeps an event for later; false when it could not be kept. */
export function spool(dir: string, ev: HookEvent): boolean {
  try {
    const file = path.join(dir, 'pending.jsonl');
    let size = 0;
    try {
      size = fs.statSync(file).size;
    } catch {
      // none yet
    }
    const line = `${JSON.stringify(ev)}\n`;
    if (size + line.length > MAX_PENDING_BYTES) return false;
    fs.mkdirSync(dir, { recursive: true, mode: 0o700 });
    fs.appendFileSync(file, line, { mode: 0o600 });
    return true;
  } catch {
    return false;
  }
}

/** Takes the kept events (oldest first), leaving none behind. */
export function takePending(dir: string): HookEvent[] {
  const file = path.join(dir, 'pending.jsonl');
  const taken = `${file}.${process.pid}.taking`;
  try {
    fs.renameSync(file, taken);
  } catch {
    return [];
  }
  try {
    return fs
      .readFileSync(taken, 'utf8')
      .split('\n')
      .filter((l) => l.trim())
      .flatMap((l) => {
        try {
          const ev = JSON.parse(l) as HookEvent;
          return ev && typeof ev === 'object' && ev.action ? [ev] : [];
        } catch {
          return [];
        }
      });
  } finally {
    fs.rmSync(taken, { force: true });
  }
}
