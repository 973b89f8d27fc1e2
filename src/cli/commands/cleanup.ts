import type { Command } from 'commander';
import { BatonError, changeView, DEFAULT_OLDER_THAN, parseAge, parseCleanupStatuses } from '../../manager/index.js';
import type { CleanupAction, SessionState } from '../../manager/index.js';
import type { Ctx } from '../context.js';
import type { CliIO } from '../io.js';
import { bind, common, strict } from '../program.js';
import { progressReporter } from '../progress.js';
import type { Action } from '../program.js';
import { paintStatus } from '../render/session-status.js';
import { renderTable } from '../render/table.js';
import { ago } from '../render/time.js';

function pinned(ctx: Ctx, s: SessionState, text: string): void {
  ctx.emit({ ...changeView(s), pinned: s.pinned === true }, text);
}

/** Registers retention: `pin`, `unpin`, `cleanup`. */
export function registerCleanup(program: Command, io: CliIO, holder: { ctx: Ctx | null }): void {
  const on = (cmd: Command, action: Action): Command => cmd.action(bind(io, holder, action));

  on(
    strict(
      common(
        program
          .command('pin')
          .description('pin a session: cleanup never archives or deletes it')
          .argument('[id]')
          .option('--reason <text>', 'why it is kept'),
      ),
    ),
    async (ctx, [id], o) => {
      const s = await ctx
        .manager()
        .pin(await ctx.sessionId(id), (o['reason'] as string | undefined) ?? null, ctx.change());
      pinned(ctx, s, `Pinned ${s.id}`);
    },
  );

  on(
    strict(
      common(
        program
          .command('unpin')
          .description('unpin a session: cleanup may archive or delete it again')
          .argument('[id]')
          .option('--reason <text>', 'why'),
      ),
    ),
    async (ctx, [id], o) => {
      const s = await ctx
        .manager()
        .unpin(await ctx.sessionId(id), (o['reason'] as string | undefined) ?? null, ctx.change());
      pinned(ctx, s, `Unpinned ${s.id}`);
    },
  );

  on(
    common(
      program
        .command('cleanup')
        .description('archive (or --delete) old finished sessions; never active, interrupted or pinned ones')
        .option(
          '--older-than <age>',
          'only sessions last updated more than this long ago (12h, 30d, 2w)',
          DEFAULT_OLDER_THAN,
        )
        .option('--keep <n>', 'leave the newest N of the selected sessions alone')
        .option(
          '--status <list>',
          'statuses to clean up, comma-separated (paused, completed, failed, abandoned; default: completed,failed,abandoned)',
        )
        .option('--dry-run', 'show what would happen and change nothing')
        .option(
          '--delete',
          'delete (archived sessions included) instead of archiving; each deletion leaves a tombstone (`list --deleted`)',
        ),
    ),
    async (ctx, _a, o) => {
      const olderThanMs = parseAge(o['olderThan']);
      let keep: number | null = null;
      if (o['keep'] !== undefined) {
        const raw = String(o['keep']);
        if (!/^\d{1,9}$/.test(raw))
          throw new BatonError('BAD_INPUT', `--keep must be a whole number of sessions; got ${JSON.stringify(raw)}.`, {
            hint: 'e.g. --keep 10',
          });
        keep = Number(raw);
      }
      const statuses = o['status'] !== undefined ? parseCleanupStatuses(String(o['status'])) : undefined;
      const dryRun = o['dryRun'] === true;
      const progress = progressReporter(ctx, 'cleanup', 'sessions');
      const r = await ctx
        .manager()
        .cleanup({
          olderThanMs,
          keep,
          ...(statuses ? { statuses } : {}),
          dryRun,
          delete: o['delete'] === true,
          agent: ctx.agent,
          onSkip: (id, reason) => io.stderr(`${ctx.paint.yellow('skipped')}: ${id}: ${reason}\n`),
          onProgress: (p) => progress.update(p),
        })
        .finally(() => progress.stop());
      const now = io.now();
      ctx.emit(
        {
          dryRun: r.dryRun,
          actions: r.actions.map(({ id, action, status, updatedAt }) => ({ id, action, status, updatedAt })),
        },
        () => renderCleanup(r.actions, dryRun, now, ctx),
      );
    },
  );
}

/** One row per session with its action, under a header. */
function renderCleanup(actions: CleanupAction[], dryRun: boolean, now: Date, ctx: Ctx): string {
  if (!actions.length) return `Nothing to clean up${dryRun ? ' (dry run)' : ''}.\n`;
  const verb = (a: CleanupAction): string =>
    dryRun ? `would ${a.action}` : a.action === 'archive' ? 'archived' : 'deleted';
  const rows = actions.map((a) => [verb(a), a.id, paintStatus(a.status, ctx.paint), ago(a.updatedAt, now), a.title]);
  const lines = renderTable(
    [
      { header: 'ACTION' },
      { header: 'ID', shrink: true },
      { header: 'STATUS' },
      { header: 'UPDATED', align: 'right' },
      { header: 'TITLE', flex: true },
    ],
    rows,
    ctx.paint,
  );
  if (dryRun)
    lines.push(
      ctx.paint.dim(`Dry run: nothing was changed (${actions.length} session${actions.length === 1 ? '' : 's'}).`),
    );
  return `${lines.join('\n')}\n`;
}
