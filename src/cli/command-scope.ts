/**
 * Which of the global options each command is offered, and which commands change state.
 * A command is not offered an option that would mean nothing to it (gh and docker do the
 * same): --agent names who made a change, so read-only commands lack it; --session picks
 * one session, so commands that act on none or pick their own lack it. One table, so help,
 * completion and parsing agree; commands not listed take every global option.
 */

/** The options {@link common} adds, by their long names without dashes. */
export type GlobalOption = 'session' | 'json' | 'dir' | 'store' | 'agent' | 'workspace';

/** Per command path (`phase start`), the global options it does not take. */
const NOT_OFFERED: Readonly<Record<string, readonly GlobalOption[]>> = {
  init: ['session', 'agent'],
  start: ['session'],
  status: ['agent'],
  list: ['session', 'agent'],
  switch: ['session'],
  log: ['agent'],
  tokens: ['agent'],
  'budget show': ['agent'],
  pricing: ['session', 'agent'],
  'checkpoint show': ['agent'],
  'checkpoint validate': ['agent'],
  checkpoints: ['agent'],
  cleanup: ['session'],
  claim: ['session'],
  handoff: ['agent'],
  watch: ['agent'],
  ui: ['session', 'agent'],
  import: ['session'],
  'otel export': ['agent'],
  'otel follow': ['session', 'agent'],
};

/** Whether `baton <path>` offers global option `o`. */
export function offers(path: string, o: GlobalOption): boolean {
  return !(NOT_OFFERED[path] ?? []).includes(o);
}

/**
 * Commands that only read (a human confirmation is all the rest print on success, which
 * --quiet leaves out; these print data, which --quiet keeps).
 */
const READ_ONLY = new Set([
  'status',
  'list',
  'log',
  'tokens',
  'budget show',
  'pricing',
  'checkpoint show',
  'checkpoint validate',
  'checkpoints',
  'handoff',
  'watch',
  'doctor',
  'inspect',
  'hooks status',
  'completion',
  'resume',
  'mirror',
  'mcp',
  'hook',
  'otel export',
  'otel follow',
  'ui',
]);

/** Whether `baton <path>` prints data (kept by --quiet) rather than a confirmation of a change. */
export function printsData(path: string): boolean {
  return READ_ONLY.has(path);
}

/**
 * Commands that change state, and so are never suggested for a mistyped word unless it is
 * one typing slip away and not another tool's command (see suggest.ts).
 */
export const CHANGES_STATE: ReadonlySet<string> = new Set([
  'init',
  'start',
  'switch',
  'pause',
  'complete',
  'fail',
  'abandon',
  'archive',
  'repair',
  'phase',
  'substep',
  'file',
  'error',
  'budget',
  'decision',
  'finding',
  'note',
  'milestone',
  'artifact',
  'context',
  'checkpoint',
  'restore',
  'cleanup',
  'pin',
  'unpin',
  'run',
  'claim',
  'migrate-store',
  'import',
  'export',
  'mirror',
  'hooks',
  'hook',
  'start',
  'done',
  'skip',
  'retry',
  'created',
  'modified',
  'deleted',
  'add',
  'resolve',
  'set',
  'clear',
  'remove',
  'install',
  'uninstall',
]);
