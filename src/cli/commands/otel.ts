import type { Command } from 'commander';
import { BatonError, parseAge } from '../../manager/index.js';
import type { Ctx } from '../context.js';
import type { CliIO } from '../io.js';
import { bind, common } from '../program.js';
import { untilInterrupted } from '../interrupt.js';

/** `--since`: an ISO-8601 time, or an age such as `2h` or `7d` (counted back from now). */
function sinceOf(raw: unknown, now: Date): Date | null {
  if (raw === undefined) return null;
  const text = String(raw);
  if (/^\d{4}-\d{2}-\d{2}/.test(text)) {
    const t = Date.parse(text);
    if (Number.isNaN(t))
      throw new BatonError('BAD_INPUT', `--since ${JSON.stringify(text.slice(0, 40))} is not a valid time.`, {
        hint: 'Give an ISO-8601 time (2026-05-01T12:00:00Z) or an age (2h, 7d).',
      });
    return new Date(t);
  }
  return new Date(now.getTime() - parseAge(text, '--since'));
}

/** The sessions `otel export` sends: --all, --since (every session changed since), else the usual one. */
async function sessionsToExport(ctx: Ctx, o: Record<string, unknown>, since: Date | null): Promise<string[]> {
  if (o['all'] === true && ctx.opts.session !== undefined)
    throw new BatonError('BAD_INPUT', '--all and --session cannot be used together.', {
      hint: 'Give one session with --session, or every session with --all.',
    });
  const m = ctx.manager();
  if (o['all'] === true || (since !== null && ctx.opts.session === undefined)) {
    const rows = await m.list({ all: true });
    return rows.filter((r) => since === null || Date.parse(r.updatedAt) >= since.getTime()).map((r) => r.id);
  }
  return [await ctx.sessionId()];
}

const endpointHelp =
  'collector base URL (traces go to <url>/v1/traces; default: $OTEL_EXPORTER_OTLP_TRACES_ENDPOINT, $OTEL_EXPORTER_OTLP_ENDPOINT, else http://localhost:4318)';
const protocolHelp = 'http/protobuf or http/json (default: $OTEL_EXPORTER_OTLP_PROTOCOL, else http/protobuf)';

/** Registers `baton otel export` and `baton otel follow` (docs/telemetry.md). */
export function registerOtel(program: Command, io: CliIO, holder: { ctx: Ctx | null }): void {
  const otel = program
    .command('otel')
    .description(
      'send sessions as OpenTelemetry traces to a collector (Jaeger, Langfuse, Phoenix …; see docs/telemetry.md)',
    );
  common(
    otel
      .command('export')
      .description(
        'send sessions as traces once; exits non-zero (EXPORT_FAILED) when the collector does not take them after the retries',
      )
      .option('--all', 'every session of the store')
      .option('--since <when>', 'sessions changed, and spans ended, since an ISO time or an age (2h, 7d)')
      .option('--endpoint <url>', endpointHelp)
      .option('--protocol <p>', protocolHelp)
      .option(
        '--retries <n>',
        'attempts after the first, with doubling back-off ($BATON_OTEL_BACKOFF_MS, default 1000 ms)',
        '4',
      ),
  ).action(
    bind(io, holder, async (ctx, _a, o) => {
      const since = sinceOf(o['since'], io.now());
      const ids = await sessionsToExport(ctx, o, since);
      const { otelExport } = await import('../../otel/index.js');
      const r = await otelExport({
        manager: ctx.manager(),
        env: io.env,
        options: {
          endpoint: o['endpoint'] as string | undefined,
          protocol: o['protocol'] as string | undefined,
          retries: o['retries'] as string | undefined,
        },
        sessionIds: ids,
        since,
        onRetry: (m) => ctx.warn(m),
      });
      const open = r.sessions.reduce((n, s) => n + s.open, 0);
      if (open && !ctx.json)
        ctx.warn(
          `${open} span${open === 1 ? ' is' : 's are'} still open (phases in progress, sessions not ended): sent once they close (export again, or run \`baton otel follow\`).`,
        );
      ctx.confirm(
        r,
        `Sent ${r.spans} span${r.spans === 1 ? '' : 's'} of ${r.sessions.length} session${r.sessions.length === 1 ? '' : 's'} to ${r.endpoint} (${r.protocol}).${r.sessions.length === 1 ? `\nTrace id: ${r.sessions[0]!.traceId}` : ''}`,
      );
    }),
  );
  common(
    otel
      .command('follow')
      .description('keep sending spans as sessions change, remembering in the store how far it got, until Ctrl+C')
      .option('--endpoint <url>', endpointHelp)
      .option('--protocol <p>', protocolHelp)
      .option('--name <name>', 'names this destination in the stored positions (default: from the endpoint)')
      .option(
        '--since <when>',
        'at the first start, leave out sessions unchanged since an ISO time or an age (2h, 7d)',
      ),
  ).action(
    bind(io, holder, async (ctx, _a, o) => {
      const m = ctx.manager();
      const { otelFollow } = await import('../../otel/index.js');
      const { ended } = untilInterrupted();
      const f = await otelFollow({
        manager: m,
        env: io.env,
        options: {
          endpoint: o['endpoint'] as string | undefined,
          protocol: o['protocol'] as string | undefined,
          name: o['name'] as string | undefined,
        },
        // Only an explicit --session filters, as for `baton watch`.
        sessionId: ctx.opts.session ?? null,
        since: sinceOf(o['since'], io.now()),
        onSent: (s) =>
          io.stdout(
            ctx.json
              ? `${JSON.stringify(s)}\n`
              : `sent ${s.spans} span${s.spans === 1 ? '' : 's'} of ${s.sessionId} (through r${s.through})\n`,
          ),
        onWarning: (w) => ctx.warn(w),
      });
      ctx.said(
        `baton: sending spans of ${m.store.kind} store ${m.store.location} to ${f.config.url} (${f.config.protocol}); Ctrl+C to stop`,
      );
      try {
        await Promise.race([ended, f.failure]);
      } finally {
        await f.stop();
      }
    }),
  );
}
