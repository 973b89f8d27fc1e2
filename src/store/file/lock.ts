import fs from 'node:fs';
import os from 'node:os';
import { BatonError } from '../../domain/errors.js';
import { FILE_MODE } from '../atomic-write.js';
import { pidAlive, sleepSync } from './fsutil.js';

/** How long to wait for a busy lock before giving up with `LOCKED`. */
export const DEFAULT_LOCK_TIMEOUT_MS = 15_000;
/** Longest pause between two tries of a waiter: a holder hands over within about this. */
export const MAX_BACKOFF_MS = 4;
/** A `.want` marker older than this was left by a waiter that is gone. */
const WANT_FRESH_MS = 20 * MAX_BACKOFF_MS;
/** A lock held longer than this by a process on another host is taken as stale. */
export const FOREIGN_STALE_MS = 60_000;

interface Owner {
  pid: number;
  host: string;
  time: number;
  nonce: string;
}

/**
 * Cross-process mutual exclusion with an exclusively created lock file holding its owner
 * (pid, host, time). A lock whose owner process is gone (same host) or that is older than
 * {@link FOREIGN_STALE_MS} (other host) is broken, under a second lock so that two breakers
 * cannot remove a lock a third process just took.
 */
export class FileLock {
  private held = false;
  private nonce = '';

  constructor(
    readonly file: string,
    private readonly timeoutMs = DEFAULT_LOCK_TIMEOUT_MS,
  ) {}

  get isHeld(): boolean {
    return this.held;
  }

  /**
   * Takes the lock, waiting with jittered back-off; `LOCKED` after the timeout. Blocks the
   * thread while it waits: only for locks held across synchronous code, so that no holder in
   * this same process can be waiting for the event loop to release it.
   */
  acquire(): void {
    for (const wait of this.attempts()) sleepSync(wait);
  }

  /**
   * True when another process is waiting for this lock: its `.want` marker was touched
   * recently (a waiter touches it at every try; one left by a waiter that died goes stale).
   */
  get contended(): boolean {
    try {
      // Asked every few ms while a lock is kept: no marker is the usual answer, and a thrown
      // ENOENT (an Error with its stack) would cost more than the stat itself.
      const st = fs.statSync(this.wantFile, { throwIfNoEntry: false });
      return st !== undefined && Date.now() - st.mtimeMs < WANT_FRESH_MS;
    } catch {
      return false;
    }
  }

  private get wantFile(): string {
    return `${this.file}.want`;
  }

  /*
   * A waiter leaves a `.want` marker so that a holder appending in a long burst hands the
   * lock over instead of starving it (the holder checks the marker every few ms).
   */
  private wantIt(): void {
    try {
      fs.writeFileSync(this.wantFile, String(process.pid), { mode: FILE_MODE }); // a write moves the mtime
    } catch {
      // the folder is gone (archived): the next try reports it
    }
  }

  private acquired(tries: number): void {
    if (tries > 0) fs.rmSync(this.wantFile, { force: true });
  }

  /**
   * Takes the lock like {@link acquire} but waits without blocking the event loop: for locks
   * held across `await`, where the holder may be another task of this same process.
   */
  async acquireAsync(): Promise<void> {
    for (const wait of this.attempts()) await new Promise((r) => setTimeout(r, wait));
  }

  /**
   * Tries to take the lock until it is held, yielding how long to wait before each next
   * try (jittered exponential back-off); `LOCKED` after the timeout. The caller waits.
   */
  private *attempts(): Generator<number, void, void> {
    if (this.held) return;
    const deadline = Date.now() + this.timeoutMs;
    let wait = 0.5;
    for (let tries = 0; ; tries++) {
      if (this.tryAcquire()) return this.acquired(tries);
      this.wantIt();
      this.breakIfStale();
      if (Date.now() > deadline) throw this.lockedError();
      yield wait + Math.random() * wait;
      wait = Math.min(wait * 2, MAX_BACKOFF_MS);
    }
  }

  /**
   * Takes the lock if it is free (or held by a process that is gone), without waiting: for
   * optional work that another process may as well do, such as rewriting a cache.
   */
  tryOnce(): boolean {
    if (this.held) return true;
    if (this.tryAcquire()) return true;
    this.breakIfStale();
    return this.tryAcquire();
  }

  private lockedError(): BatonError {
    const owner = readOwner(this.file);
    return new BatonError(
      'LOCKED',
      `Lock ${this.file} is held${owner ? ` by pid ${owner.pid} on ${owner.host}` : ''}.`,
      {
        hint: 'Another baton process is writing; retry shortly. A lock left by a process that died is broken automatically.',
        details: { lock: this.file, owner },
      },
    );
  }

  private tryAcquire(): boolean {
    this.nonce = `${process.pid}-${Math.random().toString(36).slice(2)}`;
    const owner: Owner = { pid: process.pid, host: os.hostname(), time: Date.now(), nonce: this.nonce };
    let fd: number;
    try {
      fd = fs.openSync(this.file, 'wx', FILE_MODE);
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code === 'EEXIST') return false;
      throw e;
    }
    try {
      fs.writeSync(fd, JSON.stringify(owner));
    } catch (e) {
      // A full disk takes the empty file but not its owner: left there, every later writer
      // would wait for it to go stale. Not taken, so nothing is left.
      fs.closeSync(fd);
      fs.rmSync(this.file, { force: true });
      throw e;
    }
    fs.closeSync(fd);
    this.held = true;
    return true;
  }

  /** Releases the lock if this instance holds it (and it was not broken meanwhile). */
  release(): void {
    if (!this.held) return;
    this.held = false;
    const owner = readOwner(this.file);
    if (owner && owner.nonce !== this.nonce) return;
    fs.rmSync(this.file, { force: true });
  }

  private breakIfStale(): void {
    const owner = readOwner(this.file);
    if (owner === undefined) return;
    if (owner !== null && !isStale(owner)) return;
    // A lock file with no readable owner may be one being written right now; give it time.
    if (owner === null && ageMs(this.file) < 2_000) return;
    const breaker = `${this.file}.break`;
    let fd: number;
    try {
      fd = fs.openSync(breaker, 'wx', FILE_MODE);
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code !== 'EEXIST') throw e;
      // The breaker holds this for microseconds; an old one was left by a process that died.
      if (ageMs(breaker) > 1_000) fs.rmSync(breaker, { force: true });
      return;
    }
    fs.closeSync(fd);
    try {
      const again = readOwner(this.file);
      if (again !== undefined && JSON.stringify(again) === JSON.stringify(owner)) fs.rmSync(this.file, { force: true });
    } finally {
      fs.rmSync(breaker, { force: true });
    }
  }
}

/** Reads a lock's owner: undefined when there is no lock file, null when it is unreadable. */
export function readOwner(file: string): Owner | null | undefined {
  let raw: string;
  try {
    raw = fs.readFileSync(file, 'utf8');
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw e;
  }
  try {
    const o = JSON.parse(raw) as Owner;
    return typeof o.pid === 'number' && typeof o.host === 'string' ? o : null;
  } catch {
    return null;
  }
}

function isStale(o: Owner): boolean {
  if (o.host === os.hostname()) return !pidAlive(o.pid);
  return Date.now() - o.time > FOREIGN_STALE_MS;
}

function ageMs(file: string): number {
  try {
    return Date.now() - fs.statSync(file).mtimeMs;
  } catch {
    return 0;
  }
}
