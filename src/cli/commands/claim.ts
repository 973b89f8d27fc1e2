import type { Command } from 'commander';
import { BatonError, DEFAULT_LEASE_TTL_MS } from '../../manager/index.js';
import type { Claim } from '../../manager/index.js';
import type { Ctx } from '../context.js';
import { EXIT_CODES } from '../exit.js';
import type { CliIO } from '../io.js';
import { bind, common } from '../program.js';
import { parseDuration } from './run.js';

/** Default interval at which `claim --wait` looks again. */
const DEFAULT_POLL_MS = 1000;

/** Registers `baton claim`: hands this worker one session that needs a worker. */
export function registerClaim(program: Command, io: CliIO, holder: { ctx: Ctx | null }): void {
  common(
    program
      .command('claim')
      .description('take one interrupted session (or one whose lease expired) and its lease, for this worker')
      .option('--wait', 'wait until a session needs a worker')
      .option('--timeout <duration>', 'with --wait: give up after this long (default: wait until stopped)')
      .option('--poll <duration>', 'with --wait: look again at least this often (default 1s)')
      .option(
        '--end-orphans',
        'end the command of a dead baton run still running here (SIGTERM, then SIGKILL) before taking its session over',
      )
      .option(
        '--ttl <duration>',
        'lifetime of the claimed lease; start `baton run` before it ends (default 60s, or $BATON_LEASE_TTL)',
      ),
  ).action(
    bind(io, holder, async (ctx, _a, o) => {
      if (ctx.opts.session !== undefined) {
        throw new BatonError('BAD_INPUT', '`baton claim` picks the session itself; it takes no --session.', {
          hint: 'To take over one given session, use `baton resume --apply <id>`.',
        });
      }
      const ttlMs = parseDuration(String(o['ttl'] ?? io.env['BATON_LEASE_TTL'] ?? `${DEFAULT_LEASE_TTL_MS}ms`), 'ttl');
      const wait = o['wait'] === true;
      if (!wait && (o['timeout'] !== undefined || o['poll'] !== undefined)) {
        throw new BatonError('BAD_INPUT', '--timeout and --poll only apply with --wait.', {
          hint: 'e.g. baton claim --wait --timeout 10m',
        });
      }
      const m = ctx.manager();
      const opts = {
        owner: `claim:${ctx.agent ?? 'worker'}`,
        ttlMs,
        agent: ctx.agent,
        endOrphans: o['endOrphans'] === true,
      };
      let claim: Claim | null;
      if (wait) {
        const stop = new AbortController();
        const onSignal = (): void => stop.abort();
        process.on('SIGINT', onSignal);
        process.on('SIGTERM', onSignal);
        try {
          claim = await m.claims.wait(opts, {
            pollMs: o['poll'] === undefined ? DEFAULT_POLL_MS : parseDuration(String(o['poll']), 'poll'),
            timeoutMs: o['timeout'] === undefined ? null : parseDuration(String(o['timeout']), 'timeout'),
            signal: stop.signal,
            onWaiting: () => ctx.said('baton: waiting for a session that needs a worker…'),
            onTrouble: (message) => io.stderr(`baton: ${message} (still waiting)\n`),
            onOrphan: (message) => io.stderr(`baton: ${message} Waiting for it to exit (--end-orphans ends it).\n`),
          });
        } finally {
          process.off('SIGINT', onSignal);
          process.off('SIGTERM', onSignal);
        }
      } else {
        claim = await m.claims.claim(opts);
      }
      if (!claim) {
        // Not an error: an idle pool is normal. A distinct status lets `while baton claim` loops stop.
        ctx.exitCode = EXIT_CODES.NOT_FOUND;
        if (ctx.json) ctx.emit({ claimed: null }, '');
        else
          io.stderr(
            wait ? 'baton: no session was claimed (stopped or timed out).\n' : 'baton: no session needs a worker.\n',
          );
        return;
      }
      ctx.emit({ claimed: claimJson(claim) }, () => renderClaim(claim));
    }),
  );
}

function claimJson(c: Claim): Record<string, unknown> {
  return {
    sessionId: c.sessionId,
    title: c.title,
    token: c.lease.token,
    lease: c.lease,
    revision: c.revision,
    cause: c.cause,
    plan: c.plan,
  };
}

function renderClaim(c: Claim): string {
  const lines = [
    `Claimed ${c.sessionId} ("${c.title}"): lease token ${c.lease.token}, valid until ${c.lease.expiresAt}.`,
  ];
  if (c.cause) lines.push(`It was interrupted: ${c.cause.cause}${c.cause.detail ? ` (${c.cause.detail})` : ''}.`);
  const p = c.plan;
  if (p.inFlight.length)
    lines.push(
      `In flight: ${p.inFlight.map((f) => (f.subStep ? `${f.phaseId} (sub-step: ${f.subStep})` : f.phaseId)).join(', ')}.`,
    );
  if (p.next.steps.length)
    lines.push(
      `Next: ${p.next.steps.map((s) => `${s.action} ${s.phaseId}${s.subStep ? ` at ${s.subStep}` : ''}`).join('; ')} (${p.next.reason})`,
    );
  else lines.push(`Next: ${p.next.reason}`);
  if (p.recovery.recommended) lines.push(`Recommended recovery: ${p.recovery.recommended.from}.`);
  for (const w of p.warnings) lines.push(`warning: ${w}`);
  lines.push(
    `Work under the lease: BATON_SESSION=${c.sessionId} BATON_LEASE_TOKEN=${c.lease.token} baton run -- <command>`,
  );
  return lines.join('\n');
}
