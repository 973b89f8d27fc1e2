import type { Command } from 'commander';
import { BatonError, migrateStore, openStoreAt } from '../../manager/index.js';
import type { MigrateResult } from '../../manager/index.js';
import type { Ctx } from '../context.js';
import type { CliIO } from '../io.js';
import { bind } from '../program.js';
import { progressReporter } from '../progress.js';

/** Registers `baton migrate-store --from URL --to URL`. */
export function registerMigrateStore(program: Command, io: CliIO, holder: { ctx: Ctx | null }): void {
  program
    .command('migrate-store')
    .description(
      'copy every session, event, checkpoint and the registry from one store to another, and verify the copy',
    )
    .requiredOption('--from <url>', 'source store: a .baton directory, file:/path, or postgres://…')
    .requiredOption('--to <url>', 'target store (a file store is created when missing)')
    .option('--chunk <n>', 'events per append (default 500)')
    .option('--json', 'print machine-readable JSON on stdout')
    .action(
      bind(io, holder, async (ctx, _a, o) => {
        const fromUrl = String(o['from']);
        const toUrl = String(o['to']);
        for (const [name, v] of [
          ['--from', fromUrl],
          ['--to', toUrl],
        ] as const) {
          if (v.trim() === '')
            throw new BatonError('BAD_INPUT', `${name} needs a store: a .baton directory, file:/path or postgres://…`, {
              hint: 'e.g. baton migrate-store --from .baton --to postgres://host/db',
            });
        }
        let chunk: number | undefined;
        if (o['chunk'] !== undefined) {
          chunk = Number(o['chunk']);
          if (!/^\d+$/.test(String(o['chunk'])) || chunk < 1)
            throw new BatonError(
              'BAD_INPUT',
              `--chunk must be a positive number of events; got ${JSON.stringify(o['chunk'])}.`,
              { hint: 'e.g. --chunk 500' },
            );
        }
        const from = openStoreAt(fromUrl, { cwd: io.cwd, create: false, now: io.now, workspace: ctx.workspace });
        try {
          const to = openStoreAt(toUrl, { cwd: io.cwd, create: true, now: io.now, workspace: ctx.workspace });
          try {
            let started = false;
            // A terminal gets one updating line; a log gets a line per session (docs/cli.md).
            const bar =
              (ctx.io.stderrIsTTY ?? ctx.io.isTTY) ? progressReporter(ctx, 'migrate-store', 'sessions') : null;
            const result = await migrateStore(from, to, {
              ...(chunk === undefined ? {} : { chunk }),
              now: io.now,
              onProgress: (p) => {
                if (bar) return bar.update({ done: p.done, total: p.total, item: p.sessionId });
                if (ctx.json || ctx.quiet) return;
                if (!started)
                  io.stderr(`baton: copying ${from.kind} store ${from.location} to ${to.kind} store ${to.location}\n`);
                started = true;
                io.stderr(
                  `baton: [${p.done}/${p.total}] ${p.sessionId}: ${p.action}${p.eventsCopied ? ` (${p.eventsCopied} events)` : ''}\n`,
                );
              },
            }).finally(() => bar?.stop());
            if (result.problems.length) for (const p of result.problems) ctx.warn(p.message);
            if (!result.verified) {
              throw new BatonError(
                'CONFLICT',
                `The copy did not verify: ${result.problems.filter((p) => p.code !== 'checkpoint_damaged').length} problem(s), first: ${result.problems.find((p) => p.code !== 'checkpoint_damaged')?.message ?? 'unknown'}`,
                {
                  hint: 'Sessions that differ on the target are never overwritten: remove or rename them there, or fix the source, and run the same command again (it continues where it stopped).',
                  details: { problems: result.problems, totals: result.totals },
                },
              );
            }
            ctx.emit(result, () => renderResult(result));
          } finally {
            await to.close();
          }
        } finally {
          await from.close();
        }
      }),
    );
}

function renderResult(r: MigrateResult): string {
  const t = r.totals;
  const by = (a: string): number => r.sessions.filter((s) => s.action === a).length;
  return [
    `Copied ${r.from.kind} ${r.from.location} → ${r.to.kind} ${r.to.location}: verified.`,
    `Sessions: ${t.sessions} (${by('copied')} copied, ${by('continued')} continued, ${by('identical')} already identical); events: ${t.events} (${t.eventsCopied} copied now).`,
    `Checkpoints: ${t.checkpoints} (${t.checkpointsCopied} copied now); tombstones: ${t.tombstones} (${t.tombstonesCopied} copied now); active session: ${r.active ?? 'none'}.`,
    ...(t.cursors ? [`Readers' positions (baton otel follow): ${t.cursors} (${t.cursorsCopied} copied now).`] : []),
  ].join('\n');
}
