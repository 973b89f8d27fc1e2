/**
 * The `baton` command table: every top-level command once, with what the CLI derives from it.
 * Commander registration (in this order, which `--help` and completion show), the help groups,
 * the global options each path is offered (command-scope.ts), which commands are
 * safe to suggest for a typo (suggest.ts) and which bundle runs a command (scripts/build.mjs
 * writes dist/baton.cjs's routing from `bundle`) all come from here.
 *
 * A new command is one row here and its registrar; a test fails until every command the
 * registrars define has its row and every path its examples (help-text.ts).
 */
import type { Command } from 'commander';
import { UNDESCRIBED } from './command-scope.js';
import type { GlobalOption, PathScope } from './command-scope.js';
import { registerCheckpoints } from './commands/checkpoint.js';
import { registerClaim } from './commands/claim.js';
import { registerCleanup } from './commands/cleanup.js';
import { registerCompletion } from './commands/completion.js';
import { registerDoctor } from './commands/doctor.js';
import { registerFormats } from './commands/formats.js';
import { registerHook } from './commands/hook.js';
import { registerHooks } from './commands/hooks.js';
import { registerMcp } from './commands/mcp.js';
import { registerMigrateStore } from './commands/migrate-store.js';
import { registerOtel } from './commands/otel.js';
import { registerPlan } from './commands/plan.js';
import { registerRecords } from './commands/records.js';
import { registerResume } from './commands/resume.js';
import { registerRun } from './commands/run.js';
import { registerSession } from './commands/session.js';
import { registerUi } from './commands/ui.js';
import { registerWatch } from './commands/watch.js';
import type { Ctx } from './context.js';
import type { CliIO } from './io.js';

/**
 * Defines commands on `program` (description, arguments, options, action). Several rows may
 * name one registrar (a file of related commands): it is called once, and must define exactly
 * the rows that name it.
 */
export type Register = (program: Command, io: CliIO, holder: { ctx: Ctx | null }) => void;

/** The root help's command groups, in the order shown, and their headings. */
export const HELP_GROUPS = {
  sessions: 'Sessions:',
  records: 'Phases and records:',
  runs: 'Runs and recovery:',
  stores: 'Stores and maintenance:',
  integrations: 'Integrations:',
} as const;

/** Whether a command only reads (its output is data, kept by --quiet), or changes state (suggested for a typo only one slip away). */
export type Does = 'reads' | 'changes';

/** A subcommand (`phase start`): what it does, or that and the global options it does not take. */
export type SubcommandRow = Does | { does: Does; lacks: readonly GlobalOption[] };

/** One top-level command. Its examples are in help-text.ts (EXAMPLES, by path; a test requires them). */
export interface CommandRow {
  name: string;
  /** Its group in the root help. */
  group: keyof typeof HELP_GROUPS;
  register: Register;
  does: Does;
  /** Global options it does not take (it takes every other its registrar asks for with `common()`). */
  lacks?: readonly GlobalOption[];
  /** Prints data (kept by --quiet) although it changes state; by default a command prints data when it only reads. */
  printsData?: boolean;
  /** Each subcommand, by name: every one the registrar defines. */
  subs?: Readonly<Record<string, SubcommandRow>>;
  /** The bundle of its own dist/baton.cjs starts for it (`hook`: an agent CLI runs it on every tool call). */
  bundle?: 'hook';
}

/** Every top-level command, in the order `--help` lists them. */
export const COMMANDS: readonly CommandRow[] = [
  { name: 'init', group: 'sessions', register: registerSession, does: 'changes', lacks: ['session', 'agent'] },
  { name: 'start', group: 'sessions', register: registerSession, does: 'changes', lacks: ['session'] },
  { name: 'status', group: 'sessions', register: registerSession, does: 'reads', lacks: ['agent'] },
  { name: 'list', group: 'sessions', register: registerSession, does: 'reads', lacks: ['session', 'agent'] },
  { name: 'switch', group: 'sessions', register: registerSession, does: 'changes', lacks: ['session'] },
  { name: 'pause', group: 'sessions', register: registerSession, does: 'changes' },
  { name: 'complete', group: 'sessions', register: registerSession, does: 'changes' },
  { name: 'fail', group: 'sessions', register: registerSession, does: 'changes' },
  { name: 'abandon', group: 'sessions', register: registerSession, does: 'changes' },
  { name: 'archive', group: 'sessions', register: registerSession, does: 'changes' },
  { name: 'log', group: 'sessions', register: registerSession, does: 'reads', lacks: ['agent'] },
  { name: 'pin', group: 'sessions', register: registerCleanup, does: 'changes' },
  { name: 'unpin', group: 'sessions', register: registerCleanup, does: 'changes' },
  {
    name: 'phase',
    group: 'records',
    register: registerRecords,
    does: 'changes',
    subs: {
      start: 'changes',
      complete: 'changes',
      fail: 'changes',
      skip: 'changes',
      retry: 'changes',
      claim: 'changes',
    },
  },
  { name: 'substep', group: 'records', register: registerRecords, does: 'changes' },
  {
    name: 'file',
    group: 'records',
    register: registerRecords,
    does: 'changes',
    subs: { created: 'changes', modified: 'changes', deleted: 'changes' },
  },
  {
    name: 'error',
    group: 'records',
    register: registerRecords,
    does: 'changes',
    subs: { add: 'changes', resolve: 'changes' },
  },
  {
    name: 'tokens',
    group: 'records',
    register: registerRecords,
    does: 'reads',
    lacks: ['agent'],
    subs: { add: 'changes' },
  },
  {
    name: 'budget',
    group: 'records',
    register: registerRecords,
    does: 'changes',
    subs: { show: { does: 'reads', lacks: ['agent'] }, set: 'changes', clear: 'changes' },
  },
  { name: 'pricing', group: 'records', register: registerRecords, does: 'reads', lacks: ['session', 'agent'] },
  { name: 'decision', group: 'records', register: registerRecords, does: 'changes', subs: { add: 'changes' } },
  {
    name: 'finding',
    group: 'records',
    register: registerRecords,
    does: 'changes',
    subs: { add: 'changes', remove: 'changes' },
  },
  { name: 'note', group: 'records', register: registerRecords, does: 'changes', subs: { add: 'changes' } },
  {
    name: 'milestone',
    group: 'records',
    register: registerRecords,
    does: 'changes',
    subs: { add: 'changes', done: 'changes' },
  },
  { name: 'artifact', group: 'records', register: registerRecords, does: 'changes', subs: { add: 'changes' } },
  { name: 'context', group: 'records', register: registerRecords, does: 'changes', subs: { set: 'changes' } },
  {
    name: 'plan',
    group: 'records',
    register: registerPlan,
    does: 'changes',
    subs: { add: 'changes', remove: 'changes', set: 'changes' },
  },
  {
    name: 'checkpoint',
    group: 'runs',
    register: registerCheckpoints,
    does: 'changes',
    subs: { show: { does: 'reads', lacks: ['agent'] }, validate: { does: 'reads', lacks: ['agent'] } },
  },
  { name: 'checkpoints', group: 'runs', register: registerCheckpoints, does: 'reads', lacks: ['agent'] },
  { name: 'restore', group: 'runs', register: registerCheckpoints, does: 'changes' },
  { name: 'run', group: 'runs', register: registerRun, does: 'changes' },
  { name: 'resume', group: 'runs', register: registerResume, does: 'reads' },
  { name: 'handoff', group: 'runs', register: registerResume, does: 'reads', lacks: ['agent'] },
  { name: 'claim', group: 'runs', register: registerClaim, does: 'changes', lacks: ['session'] },
  { name: 'watch', group: 'runs', register: registerWatch, does: 'reads', lacks: ['agent'] },
  { name: 'ui', group: 'runs', register: registerUi, does: 'reads', lacks: ['session', 'agent'] },
  { name: 'repair', group: 'stores', register: registerSession, does: 'changes' },
  { name: 'cleanup', group: 'stores', register: registerCleanup, does: 'changes', lacks: ['session'] },
  { name: 'doctor', group: 'stores', register: registerDoctor, does: 'reads' },
  { name: 'migrate-store', group: 'stores', register: registerMigrateStore, does: 'changes' },
  { name: 'mcp', group: 'integrations', register: registerMcp, does: 'reads' },
  { name: 'inspect', group: 'integrations', register: registerFormats, does: 'reads' },
  { name: 'import', group: 'integrations', register: registerFormats, does: 'changes', lacks: ['session'] },
  { name: 'export', group: 'integrations', register: registerFormats, does: 'changes' },
  { name: 'mirror', group: 'integrations', register: registerFormats, does: 'changes', printsData: true },
  {
    name: 'hooks',
    group: 'integrations',
    register: registerHooks,
    does: 'changes',
    subs: { install: 'changes', uninstall: 'changes', status: 'reads' },
  },
  { name: 'hook', group: 'integrations', register: registerHook, does: 'changes', printsData: true, bundle: 'hook' },
  {
    name: 'otel',
    group: 'integrations',
    register: registerOtel,
    does: 'reads',
    subs: { export: { does: 'reads', lacks: ['agent'] }, follow: { does: 'reads', lacks: ['session', 'agent'] } },
  },
  { name: 'completion', group: 'integrations', register: registerCompletion, does: 'reads' },
];

/** Every top-level command word. */
export const COMMAND_NAMES: readonly string[] = COMMANDS.map((c) => c.name);

/** The row of top-level command `name`, if there is one. */
export function commandRow(name: string | undefined): CommandRow | undefined {
  return COMMANDS.find((c) => c.name === name);
}

/** Whether the table has `path` (`phase start`, `status`). */
export function hasPath(path: string): boolean {
  const [top, sub, ...rest] = path.split(' ');
  const row = commandRow(top);
  return row !== undefined && rest.length === 0 && (sub === undefined || row.subs?.[sub] !== undefined);
}

/** The scope of `path` (command-scope.ts); a path the table lacks gets {@link UNDESCRIBED}. */
export function scopeOfPath(path: string): PathScope {
  const [top, sub, ...rest] = path.split(' ');
  const row = commandRow(top);
  if (!row || rest.length) return UNDESCRIBED;
  if (sub === undefined)
    return {
      lacks: row.lacks ?? [],
      changes: row.does === 'changes',
      printsData: row.printsData ?? row.does === 'reads',
    };
  const s = row.subs?.[sub];
  if (s === undefined) return UNDESCRIBED;
  const does = typeof s === 'string' ? s : s.does;
  return { lacks: typeof s === 'string' ? [] : s.lacks, changes: does === 'changes', printsData: does === 'reads' };
}
