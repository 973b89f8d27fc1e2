/**
 * What a command path (`phase start`) is, as the command table (command-table.ts) says: the
 * global options it is offered, whether it changes state, whether it prints data. A command is
 * not offered an option that would mean nothing to it (gh and docker do the same): --agent
 * names who made a change, so read-only commands lack it; --session picks one session, so
 * commands that act on none or pick their own lack it.
 *
 * The program root carries the lookup ({@link ScopedProgram}), so the registrars' `common()`
 * and `bind()` read the table without importing it (the table imports the registrars).
 */
import { Command } from 'commander';

/** The options {@link common} adds, by their long names without dashes. */
export type GlobalOption = 'session' | 'json' | 'dir' | 'store' | 'agent' | 'workspace';

/** What the table says about one command path. */
export interface PathScope {
  /** The global options it does not take (it takes every other). */
  lacks: readonly GlobalOption[];
  /** Whether it changes state: never suggested for a mistyped word unless one slip away (suggest.ts). */
  changes: boolean;
  /** Whether it prints data (kept by --quiet) rather than a confirmation of a change. */
  printsData: boolean;
}

/** The scope of a path nobody described: every option, a change, a confirmation. */
export const UNDESCRIBED: PathScope = { lacks: [], changes: true, printsData: false };

/** The `baton` program's root: a commander Command that knows each path's {@link PathScope}. */
export class ScopedProgram extends Command {
  /** The scope of `path` (`phase start`). */
  readonly scopeOf: (path: string) => PathScope;

  constructor(name: string, scopeOf: (path: string) => PathScope) {
    super(name);
    this.scopeOf = scopeOf;
  }
}

/** The scope of the command at `path` below `cmd`'s root ({@link UNDESCRIBED} outside a {@link ScopedProgram}). */
export function scopeAt(cmd: Command, path: string): PathScope {
  let root = cmd;
  while (root.parent) root = root.parent;
  return root instanceof ScopedProgram ? root.scopeOf(path) : UNDESCRIBED;
}
