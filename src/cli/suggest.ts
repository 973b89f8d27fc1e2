/**
 * "Did you mean …?" for a mistyped command, without ever steering a user into a change they
 * did not ask for: `baton stat` must not suggest `start`. A command that changes state is
 * suggested only for a slip of one edit, and never for a word that is another tool's command
 * (the user meant that tool's meaning, e.g. `stat`, `completion`, `rm`).
 */
/** Commands of other tools (git, gh, docker, npm, the shell) a user may type at baton by habit. */
const OTHER_TOOLS = new Set([
  'stat',
  'stats',
  'state',
  'completion',
  'completions',
  'ls',
  'ps',
  'rm',
  'rmi',
  'cp',
  'mv',
  'cat',
  'top',
  'kill',
  'exec',
  'commit',
  'push',
  'pull',
  'diff',
  'show',
  'stop',
  'reset',
  'revert',
  'merge',
  'rebase',
  'clone',
  'fetch',
  'tag',
  'login',
  'logout',
  'build',
  'create',
  'delete',
  'stash',
  'branch',
  'checkout',
  'info',
  'logs',
  'history',
  'search',
  'config',
  'version',
  'update',
  'upgrade',
  'restart',
  'rename',
  'view',
  'close',
  'reopen',
  'edit',
  'auth',
  'api',
  'test',
  'sync',
  'describe',
  'get',
  'apply',
  'wait',
  'attach',
  'unpause',
  'prune',
]);

/** Optimal string alignment distance (Damerau-Levenshtein with adjacent transpositions). */
export function editDistance(a: string, b: string): number {
  const d: number[][] = Array.from({ length: a.length + 1 }, (_, i) => [i, ...new Array<number>(b.length).fill(0)]);
  for (let j = 1; j <= b.length; j++) d[0]![j] = j;
  for (let i = 1; i <= a.length; i++) {
    for (let j = 1; j <= b.length; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      let v = Math.min(d[i - 1]![j]! + 1, d[i]![j - 1]! + 1, d[i - 1]![j - 1]! + cost);
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1]) v = Math.min(v, d[i - 2]![j - 2]! + 1);
      d[i]![j] = v;
    }
  }
  return d[a.length]![b.length]!;
}

/**
 * The commands to suggest for `word` among `candidates` (closest first, at most three): a
 * read-only command within about a third of the word's length (as commander judges), a
 * command that changes state (`changes`, as the command table says) only one edit away and
 * only when `word` is not another tool's command. Empty when nothing is close enough.
 */
export function suggestCommands(
  word: string,
  candidates: readonly string[],
  changes: (candidate: string) => boolean,
): string[] {
  const w = word.toLowerCase();
  if (w.length < 2) return [];
  const scored = candidates
    .map((c) => ({ c, d: editDistance(w, c), prefix: c.startsWith(w) && w.length >= 3 }))
    .filter(({ c, d, prefix }) => {
      if (changes(c)) return d <= 1 && !OTHER_TOOLS.has(w);
      return prefix || (d > 0 && d <= Math.max(1, Math.floor(w.length * 0.4)));
    });
  scored.sort((x, y) => x.d - y.d || x.c.localeCompare(y.c));
  return scored.slice(0, 3).map((x) => x.c);
}
