import type { ChildProcess } from 'node:child_process';
import { createRequire } from 'node:module';
import os from 'node:os';
import type { Command } from 'commander';
import { BatonError, DEFAULT_HEARTBEAT_MS, DEFAULT_LEASE_TTL_MS } from '../../manager/index.js';
import type { RunEndInput, SessionState } from '../../manager/index.js';
import { EXIT_CODES } from '../exit.js';
import type { Ctx } from '../context.js';
import type { CliIO } from '../io.js';
import { bind, common } from '../program.js';

/** Parses a duration: `500ms`, `30s`, `2m`, or plain milliseconds. */
export function parseDuration(value: string, what: string): number {
  const m = /^(\d+)(ms|s|m)?$/.exec(value.trim());
  const n = m ? Number(m[1]) * (m[2] === 's' ? 1000 : m[2] === 'm' ? 60_000 : 1) : Number.NaN;
  if (!Number.isSafeInteger(n) || n <= 0) {
    throw new BatonError(
      'BAD_INPUT',
      `${what} must be a duration like 30s, 500ms or 2m; got ${JSON.stringify(value)}.`,
      { hint: `e.g. --${what} 30s` },
    );
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

const PHASE_HELP =
  'hold this phase only (start or claim it), not the whole session: runs on other phases go on; the command gets it as BATON_PHASE';

/** Registers `baton run -- CMD [ARGS…]`. */
export function registerRun(program: Command, io: CliIO, holder: { ctx: Ctx | null }): void {
  const cmd = common(
    program
      .command('run')
      .description("run a command while holding the session lease (or one phase's); records why it ended")
      .argument('<command...>', 'the command and its arguments (after --)')
      .option('--heartbeat <duration>', 'lease renewal interval (default 30s, or $BATON_HEARTBEAT)')
      .option('--ttl <duration>', 'lease lifetime after each renewal (default 60s, or $BATON_LEASE_TTL)')
      .option('--force', "take the lease even though another run's lease is still valid")
      .option('--phase <phase>', PHASE_HELP)
      .option(
        '--end-orphans',
        'end the command of a dead baton run still running here (SIGTERM, then SIGKILL) before taking over',
      )
      .passThroughOptions()
      .addHelpText('after', RUN_HELP),
  );
  cmd.action(
    bind(io, holder, async (ctx, command, o) => {
      const heartbeatMs = parseDuration(
        String(o['heartbeat'] ?? io.env['BATON_HEARTBEAT'] ?? `${DEFAULT_HEARTBEAT_MS}ms`),
        'heartbeat',
      );
      const ttlMs = parseDuration(String(o['ttl'] ?? io.env['BATON_LEASE_TTL'] ?? `${DEFAULT_LEASE_TTL_MS}ms`), 'ttl');
      if (heartbeatMs >= ttlMs) {
        throw new BatonError(
          'BAD_INPUT',
          `The heartbeat (${heartbeatMs} ms) must be shorter than the lease lifetime (${ttlMs} ms).`,
          { hint: 'e.g. --heartbeat 30s --ttl 60s' },
        );
      }
      // Refused before the lease is taken: a command that cannot be started must not leave
      // the session leased (the next run would be LOCKED for the whole TTL).
      if (command.length === 0 || command[0]!.trim() === '' || command.some((a) => a.includes('\0'))) {
        throw new BatonError('BAD_INPUT', `baton run needs a command to run; got ${JSON.stringify(command)}.`, {
          hint: 'e.g. baton run -- npm test',
        });
      }
      const m = ctx.manager();
      const id = await ctx.sessionId();
      const phase = typeof o['phase'] === 'string' ? o['phase'] : null;
      const graceMs = stopGraceMs(io.env);
      let userInterrupt = false;
      let stopChild: () => void = () => undefined;
      const out = await m.runs.holdOutcome(
        id,
        async (h) => {
          const child = spawnCommand(io, ctx, command, {
            id,
            token: h.token,
            runId: h.runId,
            phase: phase ?? runPhase(await m.get(id), h.runId),
          });
          ctx.said(
            `baton: running ${command.join(' ')} in session ${id} (run ${h.runId}, lease token ${h.token}${phase ? `, phase ${phase}` : ''}${child.pid ? `, pid ${child.pid}` : ''})`,
          );
          const onSignal = (sig: NodeJS.Signals): void => {
            if (sig === 'SIGINT' || sig === 'SIGTERM') userInterrupt = true;
            // The command runs in its own process group (so its orphans can be found): a
            // terminal's Ctrl+C reaches baton only, which passes it on to the whole group.
            signalGroup(child, sig);
          };
          for (const sig of FORWARDED) process.on(sig, onSignal);
          stopChild = stopper(child, graceMs);
          if (h.signal.aborted) stopChild();
          h.signal.addEventListener('abort', () => stopChild());
          if (child.pid)
            await h
              .setProcessGroup(child.pid)
              .catch((e: unknown) => ctx.warn(`the command's process group was not recorded: ${(e as Error).message}`));
          const end = await new Promise<ChildEnd>((resolve) => {
            if (child.exitCode !== null || child.signalCode !== null)
              resolve({ code: child.exitCode, signal: child.signalCode });
            child.once('error', (error) => resolve({ code: null, signal: null, error }));
            child.once('exit', (code, signal) => resolve({ code, signal }));
          });
          for (const sig of FORWARDED) process.off(sig, onSignal);
          if (end.error) io.stderr(`baton: could not start ${command[0]}: ${end.error.message}\n`);
          return end;
        },
        {
          kind: 'command',
          agent: ctx.agent,
          owner: ctx.agent ?? `run:${command[0]}`,
          ttlMs,
          heartbeatMs,
          force: o['force'] === true,
          command,
          phase,
          endOrphans: o['endOrphans'] === true,
          graceMs,
          ...(ctx.fencingToken !== undefined ? { adoptToken: ctx.fencingToken } : {}),
          onNotice: (msg) =>
            msg.startsWith("the lease's holder is gone") ? ctx.warn(msg) : io.stderr(`baton: ${msg}\n`),
          onLost: (why) => io.stderr(`baton: lost the lease on ${id} (${why}); stopping ${command[0]}\n`),
          ...budgetWatch(io, command[0]!),
          endRetryMs: 30_000,
        },
        ({ value }) => runEndOf(value, userInterrupt),
      );
      const end = out.value;
      if (out.error !== undefined) throw out.error;
      if (out.lost !== null) {
        if (out.end === null) {
          io.stderr(
            `baton: the store could not be reached to record the end of the run; session ${id} reads as interrupted once its lease expired\n`,
          );
          ctx.exitCode = EXIT_CODES.STORE_UNAVAILABLE;
          return;
        }
        io.stderr(`baton: ${command[0]} stopped: the lease was lost; recorded in session ${id}\n`);
        ctx.exitCode = EXIT_CODES.FENCED;
        return;
      }
      if (out.budget) return overBudget(ctx, io, command[0]!, id, out.end);
      if (out.end) ctx.said(`baton: ${command[0]} ended (${out.end.cause}); session ${id} is ${out.end.status}`);
      ctx.exitCode = end?.signal ? 128 + signalNumber(end.signal) : (exitCodeOf(end) ?? 1);
    }),
  );
}

/** How often `baton run` judges the budgets (BATON_BUDGET_CHECK, default 5 s), and what it says when one stops the command. */
function budgetWatch(io: CliIO, command: string): { budgetCheckMs: number; onBudget: (why: string) => void } {
  return {
    budgetCheckMs: parseDuration(io.env['BATON_BUDGET_CHECK'] ?? '5s', 'budget-check'),
    onBudget: (why) => io.stderr(`baton: ${why} Stopping ${command}.\n`),
  };
}

/** A command a budget stopped: said on stderr, exit BUDGET_EXCEEDED (docs/budgets.md). */
function overBudget(ctx: Ctx, io: CliIO, command: string, id: string, end: { cause: string } | null): void {
  io.stderr(
    `baton: ${command} stopped: over budget; ${end ? `recorded in session ${id} (cause ${end.cause})` : 'its end could not be recorded yet'}\n`,
  );
  ctx.exitCode = EXIT_CODES.BUDGET_EXCEEDED;
}

interface ChildEnd {
  code: number | null;
  signal: NodeJS.Signals | null;
  error?: NodeJS.ErrnoException;
}

function exitCodeOf(end: ChildEnd | undefined): number | null {
  if (!end) return null;
  return end.error ? spawnFailureStatus(end.error) : end.code;
}

/**
 * How a command's end is recorded: Ctrl+C or SIGTERM to baton pauses (`user-interrupt`); exit
 * 0 finishes (`run-completed`); any other exit or signal interrupts the session (`exit-N`,
 * `signal-S`) when no other run is live.
 */
function runEndOf(end: ChildEnd | undefined, userInterrupt: boolean): RunEndInput {
  const exitCode = exitCodeOf(end);
  const signal = end?.signal ?? null;
  if (userInterrupt) return { how: 'paused', cause: 'user-interrupt', exitCode, signal };
  const cause = signal ? `signal-${signal}` : exitCode === 0 ? 'run-completed' : `exit-${exitCode ?? 'unknown'}`;
  return { how: 'finished', cause, exitCode, signal, session: cause === 'run-completed' ? 'pause' : 'interrupt' };
}

/** The phase the run owns (claimed with --phase, or none). */
function runPhase(s: SessionState, runId: string): string | null {
  return s.phases.find((p) => p.status === 'in_progress' && p.owner === runId)?.id ?? null;
}

/** Starts the command as the leader of its own process group, with the session, lease, run and phase in its environment. */
function spawnCommand(
  io: CliIO,
  ctx: Ctx,
  command: string[],
  r: { id: string; token: number; runId: string; phase: string | null },
): ChildProcess {
  const m = ctx.manager();
  // Loaded here only: node:child_process (with net and stream) costs every other command start-up time.
  // (required, not imported: the bundle runs in a vm.Script, which has no dynamic import of built-ins).
  const { spawn } = createRequire(import.meta.url)('node:child_process') as typeof import('node:child_process');
  return spawn(command[0]!, command.slice(1), {
    stdio: 'inherit',
    cwd: io.cwd,
    detached: true,
    env: {
      ...io.env,
      BATON_SESSION: r.id,
      BATON_LEASE_TOKEN: String(r.token),
      BATON_RUN: r.runId,
      ...(r.phase ? { BATON_PHASE: r.phase } : {}),
      BATON_DIR: m.store.directory ?? io.env['BATON_DIR'],
      // The child writes to the same store, also when it was named by --store.
      ...(ctx.storeUrl ? { BATON_STORE: ctx.storeUrl } : {}),
      ...(ctx.workspace !== null ? { BATON_WORKSPACE: ctx.workspace } : {}),
      ...(ctx.agent ? { BATON_AGENT: ctx.agent } : {}),
    },
  });
}

/** Sends `sig` to the command's whole process group (it leads its own). */
function signalGroup(child: ChildProcess, sig: NodeJS.Signals): void {
  if (!child.pid || child.exitCode !== null || child.signalCode !== null) return;
  try {
    process.kill(-child.pid, sig);
  } catch {
    child.kill(sig);
  }
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
    signalGroup(child, 'SIGTERM');
    const t = setTimeout(() => signalGroup(child, 'SIGKILL'), graceMs);
    t.unref();
    child.once('exit', () => clearTimeout(t));
  };
}

function signalNumber(sig: NodeJS.Signals): number {
  const n = os.constants.signals[sig];
  return typeof n === 'number' ? n : 0;
}
