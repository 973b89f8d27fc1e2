/*
 * The everyday commands' CLI (dist/core.cjs): the groups of core-groups.ts, without the code of
 * the other commands (MCP, formats' commands, hooks, the dashboard, OpenTelemetry, …), so an
 * agent's frequent calls read and deserialise less at start-up. The launcher starts it only for
 * a core command word in first place and no help asked for (src/cli/launcher.cjs); help,
 * completion and unknown words, which need every command, go to the whole CLI (main.ts).
 */
import { CORE_GROUPS } from './core-groups.js';
import { runWith } from './dispatch.js';
import type { CliIO } from './io.js';

/** Runs a core command: as main.ts's `run` does, with the core groups. */
export function runCore(cliIO: CliIO): Promise<number> {
  return runWith(CORE_GROUPS, cliIO);
}
