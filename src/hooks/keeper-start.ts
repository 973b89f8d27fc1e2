/**
 * Starts a conversation's keeper (`baton hook keep`, see keeper.ts): a small detached process,
 * its output ignored and not waited for, so the hook answers its CLI at once.
 */
import { spawn } from 'node:child_process';

/** What the keeper watches and where it records. */
export interface KeeperTarget {
  session: string;
  run: string;
  pid: number;
  cwd: string;
  storeUrl: string | null;
  dir: string | null;
}

/** The keeper's arguments after `hook keep`. */
export function keeperArgs(t: KeeperTarget): string[] {
  return [
    '--session',
    t.session,
    '--run',
    t.run,
    '--pid',
    String(t.pid),
    '--cwd',
    t.cwd,
    ...(t.storeUrl ? ['--store', t.storeUrl] : []),
    ...(t.dir ? ['--dir', t.dir] : []),
  ];
}

/** Starts the keeper; its pid, or null when it could not be started. */
export function startKeeper(
  cmd: { node: string; script: string },
  t: KeeperTarget,
  env: Readonly<Record<string, string | undefined>>,
): number | null {
  try {
    const child = spawn(cmd.node, [cmd.script, 'hook', 'keep', ...keeperArgs(t)], {
      cwd: t.cwd,
      env: env as NodeJS.ProcessEnv,
      detached: true,
      stdio: 'ignore',
    });
    child.on('error', () => undefined);
    child.unref();
    return child.pid ?? null;
  } catch {
    return null;
  }
}
