/**
 * `baton hook keep` (hidden; started by the hook that bound a conversation): keeps a
 * conversation's run alive for other hosts while the agent CLI's process lives, renewing it
 * well within its TTL (an idle conversation waiting for its user stays alive), and records
 * its death as soon as the process is gone (within a poll and a short grace, for a
 * SessionEnd hook its CLI did not wait for), with what was salvaged from its transcript. It
 * exits when the run ends (SessionEnd), the session ends, or the process is gone; never lingers.
 * Its pid is kept in `<hook folder>/keepers/<run>.pid` while it runs.
 */
import fs from 'node:fs';
import path from 'node:path';
import { isBatonError, openManager } from '../manager/index.js';
import type { SessionManager } from '../manager/index.js';
import { procStat } from './agent-process.js';

/** Defaults: a poll a second, a renewal every 40 s (the run's TTL is 120 s), a 1.5 s grace before recording a death. */
const POLL_MS = 1000;
const RENEW_MS = 40_000;
const CHECK_MS = 5000;
const GRACE_MS = 1500;

function flag(argv: string[], name: string): string | null {
  const i = argv.indexOf(name);
  return i >= 0 && argv[i + 1] !== undefined ? argv[i + 1]! : null;
}

function ms(v: string | undefined, dflt: number): number {
  return v && /^\d+$/.test(v) && Number(v) > 0 ? Number(v) : dflt;
}

const sleep = (n: number): Promise<void> => new Promise((r) => setTimeout(r, n));

/** Whether the watched process is still the one the run recorded (its start time guards against a reused pid). */
function watcher(pid: number): () => boolean {
  const start = procStat(pid)?.startTime ?? null;
  return () => {
    const st = procStat(pid);
    if (st) return start === null || st.startTime === start;
    try {
      process.kill(pid, 0);
      return !fs.existsSync('/proc/self/stat');
    } catch (e) {
      return (e as NodeJS.ErrnoException).code === 'EPERM';
    }
  };
}

/** Runs the keeper; resolves to its exit status (0, also when it had nothing to do). */
export async function runKeeper(argv: string[], env: Readonly<Record<string, string | undefined>>): Promise<number> {
  const session = flag(argv, '--session');
  const run = flag(argv, '--run');
  const pid = Number(flag(argv, '--pid'));
  if (!session || !run || !(pid > 1)) return 2;
  const alive = watcher(pid);
  const cwd = flag(argv, '--cwd') ?? process.cwd();
  const m: SessionManager = openManager({
    url: flag(argv, '--store'),
    dir: flag(argv, '--dir'),
    cwd,
    env,
    agent: 'baton-keeper',
    workspace: env['BATON_WORKSPACE'] || null,
    derivedFiles: { refresh: 'flush', handoff: env['BATON_HANDOFF'] !== 'off' },
  });
  const pidFile = path.join(m.hooks.dir, 'keepers', `${run.replace(/[^A-Za-z0-9._-]/g, '_')}.pid`);
  let stop = false;
  const quit = (): void => {
    stop = true;
  };
  process.on('SIGTERM', quit);
  process.on('SIGINT', quit);
  try {
    fs.mkdirSync(path.dirname(pidFile), { recursive: true });
    fs.writeFileSync(pidFile, `${process.pid}\n`);
  } catch {
    // the pid file only helps tests and people find keepers
  }
  const poll = ms(env['BATON_HOOK_KEEPER_POLL_MS'], POLL_MS);
  const renewEvery = ms(env['BATON_HOOK_KEEPER_RENEW_MS'], RENEW_MS);
  let lastRenew = Date.now();
  let lastCheck = Date.now();
  try {
    while (!stop) {
      await sleep(poll);
      if (stop) break;
      if (!alive()) {
        await sleep(GRACE_MS);
        await recordDeath(m, session, run);
        break;
      }
      const now = Date.now();
      if (now - lastCheck >= CHECK_MS) {
        lastCheck = now;
        if (await over(m, session, run)) break;
      }
      if (now - lastRenew >= renewEvery) {
        try {
          await m.hooks.conversations.renew(session, run);
          lastRenew = now;
        } catch (e) {
          // Ended or lapsed (FENCED), or the session took no more changes: nothing left to keep.
          if (isBatonError(e, 'FENCED') || isBatonError(e, 'INVALID_TRANSITION') || isBatonError(e, 'NOT_FOUND')) break;
        }
      }
    }
  } finally {
    fs.rmSync(pidFile, { force: true });
    await m.close().catch(() => undefined);
  }
  return 0;
}

/** True when the run has ended or the session takes no more changes (the keeper's work is over). */
async function over(m: SessionManager, session: string, run: string): Promise<boolean> {
  try {
    const s = await m.get(session);
    const r = s.runs?.find((x) => x.id === run);
    return !r || r.ended !== null || s.archived === true || ['completed', 'failed', 'abandoned'].includes(s.status);
  } catch (e) {
    // Gone (the session or the store): over. Busy or away for a moment: keep watching.
    return !isBatonError(e) || isBatonError(e, 'NOT_FOUND') || isBatonError(e, 'NO_STORE');
  }
}

/** The process is gone: unless the run recorded its end meanwhile, its death with what was salvaged. */
async function recordDeath(m: SessionManager, session: string, run: string): Promise<void> {
  for (let attempt = 0; attempt < 5; attempt++) {
    try {
      if (await over(m, session, run)) return;
      await m.runs.sweep(session, m.hooks.conversations.salvager());
      await m.derivedFiles.flush().catch(() => undefined);
      return;
    } catch (e) {
      if (!isBatonError(e)) return;
      // The store is busy or away for a moment: try again shortly.
      await sleep(1000 * (attempt + 1));
    }
  }
}
