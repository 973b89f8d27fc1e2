/**
 * Whether a process (or a whole process group) still exists on this machine: what proves a
 * run alive on its own host (docs/runs.md). `kill(pid, 0)` sends nothing; EPERM means the
 * process exists but belongs to someone else.
 */

/** True while process `pid` exists. */
export function processAlive(pid: number): boolean {
  if (!Number.isInteger(pid) || pid <= 0) return false;
  try {
    process.kill(pid, 0);
    return true;
  } catch (e) {
    return (e as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/** True while any process of group `pgid` exists (a `baton run` command's orphans count). */
export function groupAlive(pgid: number): boolean {
  if (!Number.isInteger(pgid) || pgid <= 1) return false;
  try {
    process.kill(-pgid, 0);
    return true;
  } catch (e) {
    return (e as NodeJS.ErrnoException).code === 'EPERM';
  }
}
