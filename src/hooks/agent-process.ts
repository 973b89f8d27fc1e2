/**
 * The agent CLI's own process, found from the hook: the CLI runs each hook through a shell
 * (`/bin/sh -c …`), so the CLI is the hook's nearest ancestor that is not a shell. Read from
 * /proc (Linux): each process's parent and name in `/proc/<pid>/stat`, its environment in
 * `/proc/<pid>/environ` (BATON_PHASE given to the CLI). Elsewhere: the hook's parent.
 */
import fs from 'node:fs';

/** Process names skipped on the way up: the shells a CLI runs its hook commands with. */
const SHELLS: ReadonlySet<string> = new Set(['sh', 'bash', 'dash', 'zsh', 'ksh', 'mksh', 'fish', 'busybox']);

/** Name and parent of a process from /proc/<pid>/stat, or null when it cannot be read. */
export function procStat(pid: number): { comm: string; ppid: number; startTime: string } | null {
  try {
    const text = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
    // The name is in parentheses and may hold spaces or parentheses itself: split after the last one.
    const open = text.indexOf('(');
    const close = text.lastIndexOf(')');
    const rest = text.slice(close + 2).split(' ');
    return { comm: text.slice(open + 1, close), ppid: Number(rest[1]), startTime: rest[19] ?? '' };
  } catch {
    return null;
  }
}

/**
 * The agent CLI's pid: BATON_HOOK_AGENT_PID when set (a wrapper that knows better, or a
 * test), else the first ancestor from `ppid` up that is not a shell; null when none is found.
 */
export function agentPid(
  env: Readonly<Record<string, string | undefined>>,
  ppid: number = process.ppid,
): number | null {
  const given = env['BATON_HOOK_AGENT_PID'];
  if (given && /^\d+$/.test(given) && Number(given) > 1) return Number(given);
  let pid = ppid;
  for (let i = 0; i < 8 && pid > 1; i++) {
    const st = procStat(pid);
    if (!st) return i === 0 && !fs.existsSync('/proc/self/stat') ? ppid : null;
    if (!SHELLS.has(st.comm)) return pid;
    pid = st.ppid;
  }
  return null;
}

/** A variable of another process's environment (/proc/<pid>/environ), or null. */
export function environOf(pid: number, name: string): string | null {
  try {
    const raw = fs.readFileSync(`/proc/${pid}/environ`, 'utf8');
    for (const kv of raw.split('\0')) if (kv.startsWith(`${name}=`)) return kv.slice(name.length + 1) || null;
  } catch {
    // another user's process, or no /proc: not known
  }
  return null;
}
