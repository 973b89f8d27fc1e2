/** Breaking a stale lock from `baton doctor --fix`, and the ages the doctor reports. */
import fs from 'node:fs';
import { readOwner } from './lock.js';

/**
 * Removes a stale lock the way a waiting writer breaks it: under a `.break` marker, and only
 * if the owner is still the one judged stale (a new holder is never removed).
 */
export function breakLock(file: string, owner: ReturnType<typeof readOwner>): void {
  const breaker = `${file}.break`;
  let fd: number;
  try {
    fd = fs.openSync(breaker, 'wx', 0o600);
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code !== 'EEXIST') throw e;
    if (ageMs(breaker) <= 1_000) throw new Error('another process is breaking it right now');
    fs.rmSync(breaker, { force: true });
    fd = fs.openSync(breaker, 'wx', 0o600);
  }
  fs.closeSync(fd);
  try {
    const again = readOwner(file);
    if (again !== undefined && JSON.stringify(again) !== JSON.stringify(owner))
      throw new Error('it was taken again meanwhile');
    fs.rmSync(file, { force: true });
  } finally {
    fs.rmSync(breaker, { force: true });
  }
}

/** The message on one line (problems are listed one per line). */
export function oneLine(s: string): string {
  return s.replace(/\s*[\r\n]+\s*/g, ' ');
}

/** How long ago the file was last modified, in ms (0 when it is gone). */
export function ageMs(file: string): number {
  try {
    return Date.now() - fs.statSync(file).mtimeMs;
  } catch {
    return 0;
  }
}

/** A duration in words: seconds, minutes or hours. */
export function seconds(ms: number): string {
  const s = Math.round(ms / 1000);
  return s < 120 ? `${s} s` : s < 7200 ? `${Math.round(s / 60)} min` : `${Math.round(s / 3600)} h`;
}
