import { cliClock } from './clock.js';
import type { CliIO } from './io.js';

/*
 * The process side of the bundled `baton` command (bin.ts). stdout is written
 * synchronously so that a pipe reader sees every byte before the process exits.
 */
import fs from 'node:fs';

/** Runs `run` (the CLI) on this process's argv, environment and streams; sets the exit code. */
export function startCli(run: (io: CliIO) => Promise<number>): void {
  const outTTY = isTerminal(1);
  const errTTY = isTerminal(2);
  void run({
    argv: process.argv.slice(2),
    env: process.env,
    cwd: process.cwd(),
    stdout: (s) => writeAll(1, Buffer.from(s)),
    stdoutBytes: (b) => writeAll(1, b),
    stderr: (s) => writeAll(2, Buffer.from(s)),
    isTTY: outTTY,
    stderrIsTTY: errTTY,
    // Only a terminal has a width: process.stdout/stderr are created only then.
    columns: (outTTY ? process.stdout.columns : undefined) ?? (errTTY ? process.stderr.columns : undefined),
    now: cliClock(process.env['BATON_NOW']),
  }).then((code) => {
    process.exitCode = code;
  });
}

function writeAll(fd: number, buf: Uint8Array): void {
  let off = 0;
  while (off < buf.length) {
    try {
      off += fs.writeSync(fd, buf, off);
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code === 'EAGAIN') continue;
      if ((e as NodeJS.ErrnoException).code === 'EPIPE') return;
      throw e;
    }
  }
}

/**
 * `process.stdout.isTTY` without creating process.stdout (which loads net and stream: start-up
 * time every command would pay). A terminal is a character device; only then is tty asked,
 * and not for /dev/null (where scripts and agents send what they do not read): node:tty loads
 * node:net, a few milliseconds of start-up (BENCHMARKS.md's `tokens add` row needs it).
 */
function isTerminal(fd: number): boolean {
  try {
    const st = fs.fstatSync(fd);
    if (!st.isCharacterDevice()) return false;
    if (st.rdev === nullDevice()) return false;
  } catch {
    return false;
  }
  return (require('node:tty') as typeof import('node:tty')).isatty(fd);
}

let devNull: number | null | undefined;

/** The device number of /dev/null, or null where there is none (Windows). */
function nullDevice(): number | null {
  if (devNull === undefined) {
    try {
      devNull = fs.statSync('/dev/null').rdev;
    } catch {
      devNull = null;
    }
  }
  return devNull;
}
