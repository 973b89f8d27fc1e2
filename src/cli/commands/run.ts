import type { ChildProcess } from 'node:child_process';
import { createRequire } from 'node:module';
import os from 'node:os';
import type { Command } from 'commander';
import { BatonError, DEFAULT_HEARTBEAT_MS, DEFAULT_LEASE_TTL_MS, goneText, isBatonError, leaseOf } from '../../manager/index.js';
import type { Lease } from '../../manager/index.js';
import { EXIT_CODES } from '../exit.js';
import { LeaseKeeper } from './run-lease.js';
import { recordRunEndRetrying } from './run-end.js';
import type { RunEndRetry } from './run-end.js';
import type { Ctx } from '../context.js';
import type { CliIO } from '../io.js';
import { bind, common } from '../program.js';

/** Parses a duration: `500ms`, `30s`, `2m`, or plain milliseconds. */
export function parseDuration(value: string, what: string): number {
  const m = /^(\d+)(ms|s|m)?$/.exec(value.trim());
  const n = m ? Number(m[1]) * (m[2] === 's' ? 1000 : m[2] === 'm' ? 60_000 : 1) : Number.NaN;
  if (!Number.isSafeInteger(n) || n <= 0) {
    throw new BatonError('BAD_INPUT', `${what} must be a duration like 30s, 500ms or 2m; got ${JSON.stringify(value)}.`, { hint: `e.g. --${what} 30s` });
  }
  return n;
}

const FORWARDED: NodeJS.Signals[] = ['SIGINT', 'SIGTERM', 'SIGHUP'];

/**
 * Exit statuses of `baton run` that are baton's, not the child's, as docker uses them (and
 * as shells use 126 and 127), so a script can tell a failing command from a failing baton:
 * 125 baton itself failed (any coded error: bad options, no store, LOCKED…; the code is on
 * stderr, or in the JSON with --json), 126 the command was found but cannot be executed,
 * 127 the command was not found. Any other status is the child's own (128+N: signal N).
 */
export const RUN_EXIT = { BATON_FAILED: 125, CANNOT_EXECUTE: 126, NOT_FOUND: 127 } as const;

const RUN_HELP = `
Exit status:
  the command's own   it ran; 128+N when signal N ended it
  125                 baton itself failed (error[CODE] on stderr says why)
  126                 the command was found but cannot be executed
  127                 the command was not found`;

/** Options every command takes that are followed by a value. */
const VALUE_OPTIONS: ReadonlySet<string> = new Set(['--session', '--dir', '--store', '--agent']);

/**
 * The exit status of an invocation that failed with `code` before or around its work: for
 * `baton run` (the first command word of `argv`), {@link RUN_EXIT.BATON_FAILED}, so the
 * failure is never taken for the child's status; for any other command, `code` itself.
 */
export function ownFailureStatus(argv: readonly string[], commands: readonly string[], code: number): number {
  const end = argv.indexOf('--');
  const head = end < 0 ? argv : argv.slice(0, end);
  // The value of a global option given before the command (`--session run status`) is no command word.
  const words = head.filter((a, i) => !a.startsWith('-') && !VALUE_OPTIONS.has(head[i - 1] ?? ''));
  return words.find((w) => commands.includes(w)) === 'run' ? RUN_EXIT.BATON_FAILED : code;
}

/** 127 when the command does not exist, 126 when it exists but cannot be run (permissions, a folder, not a program). */
function spawnFailureStatus(e: NodeJS.ErrnoException): number {
  return e.code === 'ENOENT' ? RUN_EXIT.NOT_FOUND : RUN_EXIT.CANNOT_EXECUTE;
}

/** Registers `baton run -- CMD [ARGS…]`. */
export function registerRun(program: Command, io: CliIO, holder: { ctx: Ctx | null }): void {
  const cmd = common(
    program
      .command('run')
      .description('run a command while holding the session lease; records why it ended')
      .argument('<command...>', 'the command and its arguments (after --)')
      .option('--heartbeat <duration>', 'lease renewal interval (default 30s, or $BATON_HEARTBEAT)')
      .option('--ttl <duration>', 'lease lifetime after each renewal (default 60s, or $BATON_LEASE_TTL)')
      .option('--force', "take the lease even though another run's lease is still valid")
      .passThroughOptions()
      .addHelpText('after', RUN_HELP),
  );
  cmd.action(
    bind(io, holder, async (ctx, command, o) => {
      const heartbeatMs = parseDuration(String(o['heartbeat'] ?? io.env['BATON_HEARTBEAT'] ?? `${DEFAULT_HEARTBEAT_MS}ms`), 'heartbeat');
      const ttlMs = parseDuration(String(o['ttl'] ?? io.env['BATON_LEASE_TTL'] ?? `${DEFAULT_LEASE_TTL_MS}ms`), 'ttl');
      if (heartbeatMs >= ttlMs) {
        throw new BatonError('BAD_INPUT', `The heartbeat (${heartbeatMs} ms) must be shorter than the lease lifetime (${ttlMs} ms).`, { hint: 'e.g. --heartbeat 30s --ttl 60s' });
      }
      // Refused before the lease is taken: a command that cannot be started must not leave
      // the session leased (the next run would be LOCKED for the whole TTL).
      if (command.length === 0 || command[0]!.trim() === '' || command.some((a) => a.includes('\0'))) {
        throw new BatonError('BAD_INPUT', `baton run needs a command to run; got ${JSON.stringify(command)}.`, { hint: 'e.g. baton run -- npm test' });
      }
      const m = ctx.manager();
      const id = await ctx.sessionId();
      const held = ctx.fencingToken;
      // Expiry is judged by the store's clock (PostgreSQL: the server's), as claimers judge it.
      await m.leases.useStoreClock();
      let lease: Lease;
      if (held !== undefined && (await m.leases.adoptable(id, held))) {
        // A worker that claimed the session (`baton claim`) goes on under the lease it took.
        lease = await m.leases.adopt(id, held, ttlMs, ctx.agent);
      } else {
        // A lease whose holder died on this machine is ended now, not after its lifetime.
        const gone = await m.leases.endGoneHolder(id, ctx.agent);
        if (gone) ctx.warn(`the lease's holder is gone (${goneText(gone)}); taking the session over`);
        let s = await m.get(id);
        if (s.status !== 'active') s = await m.resume(id, ctx.agent);
        const owner = ctx.agent ?? `run:${command[0]}`;
        lease = (await m.leases.acquire(id, { owner, ttlMs, force: o['force'] === true, agent: ctx.agent })).result;
      }
      const token = lease.token;
      await m.change(id, () => ({ events: [{ type: 'run.started', data: { command, token, agent: ctx.agent } }], result: undefined }), { agent: ctx.agent, fencingToken: token });
      ctx.said(`baton: running ${command.join(' ')} in session ${id} (lease token ${token})`);

      // Loaded here only: node:child_process (with net and stream) costs every other command start-up time.
      // (required, not imported: the bundle runs in a vm.Script, which has no dynamic import of built-ins).
      const { spawn } = createRequire(import.meta.url)('node:child_process') as typeof import('node:child_process');
      const child = spawn(command[0]!, command.slice(1), {
        stdio: 'inherit',
        cwd: io.cwd,
        env: {
          ...io.env,
          BATON_SESSION: id,
          BATON_LEASE_TOKEN: String(token),
          BATON_DIR: m.store.directory ?? io.env['BATON_DIR'],
          // The child writes to the same store, also when it was named by --store.
          ...(ctx.storeUrl ? { BATON_STORE: ctx.storeUrl } : {}),
          ...(ctx.workspace !== null ? { BATON_WORKSPACE: ctx.workspace } : {}),
          ...(ctx.agent ? { BATON_AGENT: ctx.agent } : {}),
        },
      });
      let userInterrupt = false;
      const onSignal = (sig: NodeJS.Signals): void => {
        if (sig === 'SIGINT' || sig === 'SIGTERM') userInterrupt = true;
        // A terminal's Ctrl+C reaches the whole process group; a signal sent to baton alone
        // is passed on, so the child always gets the chance to stop cleanly.
        if (child.exitCode === null && child.signalCode === null) child.kill(sig);
      };
      for (const sig of FORWARDED) process.on(sig, onSignal);
      const stopChild = stopper(child, stopGraceMs(io.env));
      const keeper = new LeaseKeeper(m, id, token, { ttlMs, heartbeatMs, expiresAt: lease.expiresAt }, {
        onLost: (why) => {
          io.stderr(`baton: lost the lease on ${id} (${why}); stopping ${command[0]}\n`);
          stopChild();
        },
        onLapsed: (at) => {
          io.stderr(`baton: the lease on ${id} ran out at ${at} without a renewal (store unreachable?); stopping ${command[0]} before another worker takes over\n`);
          stopChild();
        },
        onTrouble: (message) => io.stderr(`baton: heartbeat failed: ${message}\n`),
      });
      keeper.start();

      const end = await new Promise<{ code: number | null; signal: NodeJS.Signals | null; error?: NodeJS.ErrnoException }>((resolve) => {
        child.once('error', (error) => resolve({ code: null, signal: null, error }));
        child.once('exit', (code, signal) => resolve({ code, signal }));
      });
      keeper.stop();
      for (const sig of FORWARDED) process.off(sig, onSignal);
      if (end.error) {
        io.stderr(`baton: could not start ${command[0]}: ${end.error.message}\n`);
      }
      const exitCode = end.error ? spawnFailureStatus(end.error) : end.code;
      // A lapsed lease: learn from the store what became of it before recording anything.
      if (keeper.lost === null && keeper.lapsed !== null && !(await keeper.settle(2 * ttlMs + 30_000))) {
        io.stderr(`baton: the store could not be reached to record the end of the run; session ${id} reads as interrupted once its lease expired\n`);
        ctx.exitCode = EXIT_CODES.STORE_UNAVAILABLE;
        return;
      }
      if (keeper.lost !== null) {
        const now = leaseOf(await m.get(id));
        const holder = now && now.token !== token ? `now held by ${now.owner} (pid ${now.pid} on ${now.host}) with token ${now.token}` : 'no worker holds it now';
        await m.leases.recordLeaseLost(id, token, { command, exitCode, signal: end.signal }, `${keeper.lost} Session ${id} is ${holder}.`, ctx.agent);
        io.stderr(`baton: ${command[0]} stopped: the lease was lost; recorded in session ${id}\n`);
        ctx.exitCode = EXIT_CODES.FENCED;
        return;
      }
      try {
        const r = await recordRunEndRetrying(m, id, token, { command, exitCode, signal: end.signal, userInterrupt }, ctx.agent, endRetry(io.stderr));
        ctx.said(`baton: ${command[0]} ended (${r.result}); session ${id} is ${r.state.status}`);
      } catch (e) {
        if (!isBatonError(e, 'FENCED')) throw e;
        io.stderr(`baton: the run's end was not recorded: ${e.message}\n`);
      }
      ctx.exitCode = end.signal ? 128 + signalNumber(end.signal) : exitCode ?? 1;
    }),
  );
}

/** How `baton run` keeps trying to record the end of the run while the store is unreachable: 30 s, saying so on stderr. */
function endRetry(stderr: (text: string) => void): RunEndRetry {
  return { withinMs: 30_000, onRetry: (message) => stderr(`baton: the end of the run could not be recorded yet (${message}); retrying\n`) };
}

/** How long a command asked to stop (SIGTERM) may take before it is killed: BATON_STOP_GRACE (a duration), default 10 s. */
function stopGraceMs(env: Readonly<Record<string, string | undefined>>): number {
  return parseDuration(env['BATON_STOP_GRACE'] ?? '10s', 'stop-grace');
}

/** Stops `child` cleanly: SIGTERM now, SIGKILL if it is still running after `graceMs`. Idempotent. */
function stopper(child: ChildProcess, graceMs: number): () => void {
  let asked = false;
  return () => {
    if (asked || child.exitCode !== null || child.signalCode !== null) return;
    asked = true;
    child.kill('SIGTERM');
    const t = setTimeout(() => {
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
    }, graceMs);
    t.unref();
    child.once('exit', () => clearTimeout(t));
  };
}

function signalNumber(sig: NodeJS.Signals): number {
  const n = os.constants.signals[sig];
  return typeof n === 'number' ? n : 0;
}
