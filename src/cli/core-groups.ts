import { GROUP_WORDS } from './command-words.js';
import { registerRecords } from './commands/records.js';
import { registerSession } from './commands/session.js';
import type { CommandGroup } from './dispatch.js';

/**
 * The groups of the everyday commands (status, phase, tokens, file, note, …: what an agent
 * runs many times per workflow), which the core bundle (core.ts, dist/core.cjs) holds.
 */
export const CORE_GROUPS: readonly CommandGroup[] = [
  { register: registerSession, commands: GROUP_WORDS.session },
  { register: registerRecords, commands: GROUP_WORDS.records },
];

/** The command words the core bundle runs; src/cli/launcher.cjs lists the same (a test checks). */
export const CORE_COMMANDS: readonly string[] = CORE_GROUPS.flatMap((g) => g.commands);
