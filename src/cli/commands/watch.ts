import type { Command } from 'commander';
import type { SessionChange } from '../../manager/index.js';
import type { Ctx } from '../context.js';
import type { CliIO } from '../io.js';
import { bind, common } from '../program.js';
import { brief } from '../render/log.js';
import { untilInterrupted } from '../interrupt.js';

/** Registers `baton watch`: a live stream of changes until SIGINT/SIGTERM. */
export function registerWatch(program: Command, io: CliIO, holder: { ctx: Ctx | null }): void {
  common(
    program.command('watch').description('print changes to sessions as they happen, one line each, until Ctrl+C'),
  ).action(
    bind(io, holder, async (ctx) => {
      const m = ctx.manager();
      // Only an explicit --session filters: a watcher usually follows the whole pool.
      const only = ctx.opts.session !== undefined ? await ctx.sessionId(ctx.opts.session) : null;
      const print = (c: SessionChange): void => {
        if (ctx.json) io.stdout(`${JSON.stringify(c)}\n`);
        else ctx.emit(null, renderChange(c, ctx));
      };
      const { ended } = untilInterrupted();
      const stop = await m.watch({ sessionId: only, onChange: print, onWarning: (w) => ctx.warn(w) });
      ctx.said(
        `baton: watching ${m.store.kind} store ${m.store.location}${only ? ` (session ${only})` : ''}; Ctrl+C to stop`,
      );
      // The feed's timers and watchers keep the process alive until a signal ends it.
      await ended;
      await stop();
    }),
  );
}

function renderChange(c: SessionChange, ctx: Ctx): string {
  const last = c.events[c.events.length - 1]!;
  const what = c.events.map((e) => {
    const b = brief(e);
    return b ? `${e.type} ${b}` : e.type;
  });
  return `${ctx.paint.dim(last.time)} ${c.sessionId} ${ctx.paint.dim(`r${c.revision}`)} ${what.join('; ')}`;
}
