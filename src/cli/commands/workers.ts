import type { Command } from 'commander';
import type { Ctx } from '../context.js';
import type { CliIO } from '../io.js';
import { registerClaim } from './claim.js';
import { registerMigrateStore } from './migrate-store.js';
import { registerWatch } from './watch.js';

/** Registers the commands for pools of workers sharing a store: `claim`, `watch`, `migrate-store`. */
export function registerWorkers(program: Command, io: CliIO, holder: { ctx: Ctx | null }): void {
  registerClaim(program, io, holder);
  registerWatch(program, io, holder);
  registerMigrateStore(program, io, holder);
}
