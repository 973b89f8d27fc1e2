import { cliClock } from './clock.js';
import { run } from './main.js';

/*
 * Entry point of the bundled `baton` command. stdout is written synchronously so that a
 * pipe reader sees every byte before the process exits.
 */
import fs from 'node:fs';

void run({
  argv: process.argv.slice(2),
  env: process.env,
  cwd: process.cwd(),
  stdout: (s) => writeAll(1, s),
  stderr: (s) => writeAll(2, s),
  isTTY: process.stdout.isTTY === true,
  stderrIsTTY: process.stderr.isTTY === true,
  columns: (process.stdout.isTTY ? process.stdout.columns : undefined) ?? (process.stderr.isTTY ? process.stderr.columns : undefined),
  now: cliClock(process.env['BATON_NOW']),
}).then((code) => {
  process.exitCode = code;
});

function writeAll(fd: number, s: string): void {
  const buf = Buffer.from(s);
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
