/*
 * Entry point of the hook bundle (dist/hook.cjs), which the `baton` launcher runs instead of
 * the whole CLI for `baton hook …`: an agent CLI runs it on every tool call, so it loads
 * commander, zod, yaml, pg and the MCP SDK never, and the manager only when the event
 * records something.
 */
import fs from 'node:fs';
import { runHook } from './run.js';

if (process.argv[3] === 'keep') {
  // A conversation's keeper (keeper.ts): long-lived, so none of the hook's time limit.
  void import('./keeper.js')
    .then((k) => k.runKeeper(process.argv.slice(4), process.env))
    .then(
      (code) => process.exit(code),
      () => process.exit(0),
    );
} else {
  void runHook({
    argv: process.argv.slice(3),
    env: process.env,
    cwd: process.cwd(),
    now: () => new Date(),
    stdout: (s) => {
      if (!s) return;
      try {
        fs.writeSync(1, s);
      } catch {
        // the CLI stopped reading: nothing to tell it
      }
    },
  }).then(
    (code) => process.exit(code),
    () => process.exit(0),
  );

  // A last guard: whatever hangs (a store that never answers), the agent is not kept waiting.
  const limit =
    Number(process.env['BATON_HOOK_TIMEOUT_MS']) > 0 ? Number(process.env['BATON_HOOK_TIMEOUT_MS']) : 20_000;
  setTimeout(() => process.exit(0), limit).unref();
}
