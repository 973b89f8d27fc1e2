/**
 * Orphans: the command of a `baton run` (its own process group) still running after baton
 * itself died. "The holder is gone" means the whole group is gone, so a takeover (`resume
 * --apply`, `claim`, `run`, `manager.runs.hold`) is refused while one runs, unless asked to
 * end it first: two agents must never share one work tree (docs/runs.md).
 */
import { BatonError } from '../../domain/errors.js';
import { hint } from '../../domain/hints.js';
import { runsOf } from '../../domain/runs/runs.js';
import type { SessionState } from '../../domain/state.js';
import { groupAlive, processAlive } from './process-check.js';

/** A process group left running by a run whose holder process is gone. */
export interface Orphan {
  runId: string;
  /** The command's pid, which is its process group's id (it was spawned as a group leader). */
  pid: number;
  /** The dead holder (`baton run`) that started it. */
  holderPid: number;
  command: string[];
}

/** How a takeover treats orphans: refuse (default), or end them first. */
export interface OrphanOptions {
  /** End the orphans' process groups first: SIGTERM, then SIGKILL after `graceMs`. */
  endOrphans?: boolean;
  /** How long an orphan may take to stop after SIGTERM (default 5 s). */
  graceMs?: number;
}

/**
 * The orphans of session `s` on this host: runs that did not end cleanly (open, or recorded
 * dead) whose holder process is gone but whose process group still has a process.
 */
export function orphansOf(s: SessionState, origin: { host: string; pid: number }): Orphan[] {
  return runsOf(s)
    .filter(
      (r) =>
        (!r.ended || r.ended.how === 'died') &&
        r.process.host === origin.host &&
        r.process.pgid &&
        r.process.pid !== origin.pid,
    )
    .filter((r) => !processAlive(r.process.pid) && groupAlive(r.process.pgid!))
    .map((r) => ({ runId: r.id, pid: r.process.pgid!, holderPid: r.process.pid, command: r.command ?? [] }));
}

/** "pid 123 (`sleep 600`)". */
export function orphanText(o: Orphan): string {
  return `pid ${o.pid} (\`${o.command.join(' ').slice(0, 80)}\`)`;
}

/** LOCKED: a takeover of `sessionId` while `orphans` run, naming each one's pid and command. */
export function orphanLocked(sessionId: string, orphans: Orphan[]): BatonError {
  return new BatonError(
    'LOCKED',
    `Session ${sessionId} cannot be taken over: the command of a dead baton run still runs: ${orphans.map(orphanText).join('; ')}.`,
    {
      hint: hint('run.end-orphans', { pids: orphans.map((o) => o.pid) }),
      details: { sessionId, orphans },
    },
  );
}

const wait = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

/** Waits until group `pgid` is gone, polling, for at most `ms`; true when it is. */
async function goneWithin(pgid: number, ms: number): Promise<boolean> {
  const until = Date.now() + ms;
  while (groupAlive(pgid)) {
    if (Date.now() >= until) return false;
    await wait(25);
  }
  return true;
}

function signal(pgid: number, sig: NodeJS.Signals): void {
  try {
    process.kill(-pgid, sig);
  } catch {
    // Gone meanwhile (ESRCH), or not ours (EPERM: reported below as still running).
  }
}

/**
 * Ends the orphans' process groups (SIGTERM, SIGKILL after `graceMs`) and returns once every
 * group is gone; LOCKED naming the ones that would not go (another user's processes).
 */
export async function endOrphans(sessionId: string, orphans: Orphan[], graceMs = 5_000): Promise<void> {
  for (const o of orphans) signal(o.pid, 'SIGTERM');
  const left: Orphan[] = [];
  for (const o of orphans) {
    if (await goneWithin(o.pid, graceMs)) continue;
    signal(o.pid, 'SIGKILL');
    if (!(await goneWithin(o.pid, 5_000))) left.push(o);
  }
  if (left.length) throw orphanLocked(sessionId, left);
  // Exited but not reaped yet (zombies): give the reaper a moment, so the group is gone for all to see.
  for (const o of orphans) for (let i = 0; i < 40 && signalled(o.pid); i++) await wait(25);
}

/** True while kill(-pgid, 0) still finds a member (zombies included). */
function signalled(pgid: number): boolean {
  try {
    process.kill(-pgid, 0);
    return true;
  } catch {
    return false;
  }
}

/**
 * Before a takeover of `s`: LOCKED while an orphan runs, unless `o.endOrphans`, which ends
 * them first and returns once they are gone. Returns the orphans ended.
 */
export async function clearOrphans(
  s: SessionState,
  origin: { host: string; pid: number },
  o: OrphanOptions = {},
): Promise<Orphan[]> {
  const found = orphansOf(s, origin);
  if (!found.length) return [];
  if (!o.endOrphans) throw orphanLocked(s.id, found);
  await endOrphans(s.id, found, o.graceMs);
  return found;
}
