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
