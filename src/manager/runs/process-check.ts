/**
 * Whether a process (or a whole process group) still exists on this machine: what proves a
 * run alive on its own host (docs/runs.md). `kill(pid, 0)` sends nothing; EPERM means the
 * process exists but belongs to someone else.
 */
import fs from 'node:fs';

/** True while process `pid` runs (on Linux, one that exited but is not reaped yet, a zombie, does not). */
export function processAlive(pid: number): boolean {
  if (!Number.isInteger(pid) || pid <= 0) return false;
  try {
    process.kill(pid, 0);
  } catch (e) {
    return (e as NodeJS.ErrnoException).code === 'EPERM';
  }
  return stateOf(pid) !== 'Z';
}

/** The state letter of process `pid` from /proc (R, S, Z …); null where /proc cannot tell. */
function stateOf(pid: number): string | null {
  try {
    const stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
    return stat.slice(stat.lastIndexOf(')') + 2).split(' ')[0] ?? null;
  } catch {
    return null;
  }
}

/**
 * True while any process of group `pgid` runs (a `baton run` command's orphans count). On
 * Linux a group whose members have all exited but are not reaped yet (zombies: an orphan's
 * new parent may reap late, or never in a container without an init) counts as gone.
 */
export function groupAlive(pgid: number): boolean {
  if (!Number.isInteger(pgid) || pgid <= 1) return false;
  try {
    process.kill(-pgid, 0);
  } catch (e) {
    return (e as NodeJS.ErrnoException).code === 'EPERM';
  }
  const states = groupStates(pgid);
  return states === null || states.some((s) => s !== 'Z');
}

/** The states (R, S, Z …) of the processes of group `pgid`, from /proc; null where /proc cannot tell. */
function groupStates(pgid: number): string[] | null {
  let names: string[];
  try {
    names = fs.readdirSync('/proc');
  } catch {
    return null;
  }
  const out: string[] = [];
  for (const n of names) {
    if (!/^\d+$/.test(n)) continue;
    let stat: string;
    try {
      stat = fs.readFileSync(`/proc/${n}/stat`, 'utf8');
    } catch {
      continue;
    }
    // "pid (comm) state ppid pgrp …": comm may hold spaces and parentheses, so read after the last ')'.
    const [state, , pgrp] = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    if (Number(pgrp) === pgid && state) out.push(state);
  }
  return out.length ? out : null;
}
