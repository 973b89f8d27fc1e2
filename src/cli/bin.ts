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
  now: clock(process.env['BATON_NOW']),
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

/**
 * The CLI's clock. BATON_NOW (ISO-8601) moves it: the clock starts there and runs on, which
 * lets tests and drills see a lease expire without waiting for it.
 */
function clock(start: string | undefined): () => Date {
  const at = start ? Date.parse(start) : Number.NaN;
  if (Number.isNaN(at)) return () => new Date();
  const offset = at - Date.now();
  return () => new Date(Date.now() + offset);
}
