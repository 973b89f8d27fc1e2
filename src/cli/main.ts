/*
 * The whole `baton` CLI (dist/cli.cjs): every command group. The everyday commands also have a
 * smaller bundle of their own (core.ts, dist/core.cjs); both run through dispatch.ts.
 */
import type { Command } from 'commander';
import { GROUP_WORDS } from './command-words.js';
import { registerPlan } from './commands/plan.js';
import { registerCheckpoints } from './commands/checkpoint.js';
import { registerCleanup } from './commands/cleanup.js';
import { registerCompletion } from './commands/completion.js';
import { registerDoctor } from './commands/doctor.js';
import { registerMcp } from './commands/mcp.js';
import { registerOtel } from './commands/otel.js';
import { registerFormats } from './commands/formats.js';
import { registerHooks } from './commands/hooks.js';
import { registerHook } from './commands/hook.js';
import { registerRun } from './commands/run.js';
import { registerResume } from './commands/resume.js';
import { registerWorkers } from './commands/workers.js';
import { registerUi } from './commands/ui.js';
import type { Ctx } from './context.js';
import { CORE_GROUPS } from './core-groups.js';
import { buildProgramOf, runWith } from './dispatch.js';
import type { CommandGroup } from './dispatch.js';
import type { CliIO } from './io.js';

/**
 * The command groups and the top-level commands each registers; a test checks this table
 * against what the groups really register.
 */
export const GROUPS: readonly CommandGroup[] = [
  ...CORE_GROUPS,
  { register: registerCheckpoints, commands: GROUP_WORDS.checkpoints },
  { register: registerPlan, commands: GROUP_WORDS.plan },
  { register: registerCleanup, commands: GROUP_WORDS.cleanup },
  { register: registerRun, commands: GROUP_WORDS.run },
  { register: registerResume, commands: GROUP_WORDS.resume },
  { register: registerDoctor, commands: GROUP_WORDS.doctor },
  { register: registerWorkers, commands: GROUP_WORDS.workers },
  { register: registerMcp, commands: GROUP_WORDS.mcp },
  { register: registerFormats, commands: GROUP_WORDS.formats },
  { register: registerHooks, commands: GROUP_WORDS.hooks },
  { register: registerHook, commands: GROUP_WORDS.hook },
  { register: registerOtel, commands: GROUP_WORDS.otel },
  { register: registerCompletion, commands: GROUP_WORDS.completion },
  { register: registerUi, commands: GROUP_WORDS.ui },
];

/** Builds the `baton` program: every command, or with `only`, that command's group. Commander's own errors are turned into BAD_INPUT by {@link run}. */
export function buildProgram(io: CliIO, holder: { ctx: Ctx | null }, only?: string): Command {
  return buildProgramOf(GROUPS, io, holder, only);
}

/**
 * Runs the CLI and returns its exit status. This is the CLI's one error boundary: every
 * BatonError becomes its documented exit code; anything else is an INTERNAL error (1).
 */
export function run(cliIO: CliIO): Promise<number> {
  return runWith(GROUPS, cliIO);
}
