/**
 * Reading argv before commander does: which command was asked for, with the global options
 * allowed before it (`baton --session X status`) skipped, values included.
 */

/** Global options that take a value, as they may appear before the command. */
const TAKES_VALUE = new Set(['--session', '--dir', '--store', '--agent']);

/** The words of argv that name the command (`['phase', 'start', 'a']` → first is the command), global options skipped. */
export function commandWords(argv: readonly string[]): string[] {
  const words: string[] = [];
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i]!;
    if (a === '--') break;
    if (a.startsWith('-')) {
      if (words.length === 0 && TAKES_VALUE.has(a)) i++;
      continue;
    }
    words.push(a);
  }
  return words;
}

/** The flags every command takes that carry no value, as the CLI reads them itself. */
export interface GlobalFlags {
  quiet: boolean;
  verbose: boolean;
}

/**
 * Takes --quiet (-q) and --verbose out of argv wherever they are before `--`, so they work
 * before or after any command without each command declaring them (declaring two options on
 * every command costs start-up time on every run; `--help` still lists them).
 */
export function takeGlobalFlags(argv: readonly string[]): { argv: string[]; flags: GlobalFlags } {
  const out: string[] = [];
  const flags: GlobalFlags = { quiet: false, verbose: false };
  let rest = false;
  for (const a of argv) {
    if (rest || a === '--') {
      rest = true;
      out.push(a);
    } else if (a === '-q' || a === '--quiet') flags.quiet = true;
    else if (a === '--verbose') flags.verbose = true;
    else out.push(a);
  }
  return { argv: out, flags };
}
