/*
 * The top-level command words, by the group that registers them (main.ts's GROUPS, checked
 * against the registrations by test/cli/groups.test.ts). Data only, so the core bundle
 * (core.ts) knows every command without loading the groups it leaves out.
 */

/** The words each command group registers. */
export const GROUP_WORDS = {
  session: [
    'init',
    'start',
    'status',
    'list',
    'switch',
    'pause',
    'complete',
    'fail',
    'abandon',
    'archive',
    'log',
    'repair',
  ],
  records: [
    'phase',
    'substep',
    'file',
    'error',
    'tokens',
    'budget',
    'pricing',
    'decision',
    'finding',
    'note',
    'milestone',
    'artifact',
    'context',
  ],
  checkpoints: ['checkpoint', 'checkpoints', 'restore'],
  plan: ['plan'],
  cleanup: ['cleanup', 'pin', 'unpin'],
  run: ['run'],
  resume: ['resume', 'handoff'],
  doctor: ['doctor'],
  workers: ['claim', 'watch', 'migrate-store'],
  mcp: ['mcp'],
  formats: ['inspect', 'import', 'export', 'mirror'],
  hooks: ['hooks'],
  hook: ['hook'],
  otel: ['otel'],
  completion: ['completion'],
  ui: ['ui'],
} as const satisfies Record<string, readonly string[]>;

/** Every top-level command word. */
export const ALL_COMMANDS: readonly string[] = Object.values(GROUP_WORDS).flat();
