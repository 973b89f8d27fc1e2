import { createRequire } from 'node:module';
import type { CliIO } from './io.js';

/**
 * The pager command for long output, as git chooses it: $BATON_PAGER, else $PAGER, else
 * `less -FRX` (quit when it fits on one screen, keep colours, leave the text on screen).
 * Null when output must not be paged: stdout is not a terminal, `--no-pager`, or a pager
 * set to nothing or `cat`.
 */
export function pagerFor(io: CliIO, disabled: boolean): string | null {
  if (disabled || !io.isTTY) return null;
  const chosen = io.env['BATON_PAGER'] ?? io.env['PAGER'] ?? 'less -FRX';
  return chosen.trim() === '' || chosen.trim() === 'cat' ? null : chosen;
}

/**
 * Shows `text` through `pager` (run by the shell, its output on this process's terminal),
 * waiting until the user leaves it. Output shorter than the terminal is printed as it is.
 * A pager that cannot be started (exit 126/127 from the shell) is skipped, the text printed.
 */
export async function page(io: CliIO, pager: string, text: string): Promise<void> {
  const rows = process.stdout.rows ?? 0;
  if (rows > 0 && text.split('\n').length < rows) {
    io.stdout(text);
    return;
  }
  // Loaded only when a pager runs: most commands never start a process. (require, not
  // import(): the launcher runs the CLI's bundle where dynamic import is not available.)
  const { spawn } = createRequire(import.meta.url)('node:child_process') as typeof import('node:child_process');
  const env = { ...io.env, LESS: io.env['LESS'] ?? 'FRX', LV: io.env['LV'] ?? '-c' };
  const child = spawn('/bin/sh', ['-c', pager], { stdio: ['pipe', 'inherit', 'inherit'], env, cwd: io.cwd });
  // Quitting the pager before the end closes its input: not an error.
  child.stdin.on('error', () => undefined);
  child.stdin.end(text);
  const code = await new Promise<number | null>((resolve) => {
    child.once('error', () => resolve(127));
    child.once('exit', (c) => resolve(c));
  });
  if (code === 126 || code === 127) io.stdout(text);
}
