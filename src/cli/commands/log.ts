import type { Command } from 'commander';
import { BatonError } from '../../manager/index.js';
import type { StoredEvent } from '../../manager/index.js';
import type { Ctx } from '../context.js';
import type { CliIO } from '../io.js';
import { page, pagerFor } from '../pager.js';
import type { On } from '../program.js';
import { common } from '../program.js';
import { renderLog } from '../render/log.js';
import { logFilter, NOISE } from '../render/log-filter.js';
import { untilInterrupted } from '../interrupt.js';

const UNIT_MS: Record<string, number> = { s: 1000, m: 60_000, h: 3_600_000, d: 86_400_000, w: 604_800_000 };

/** Where `--since` starts: after a seq, or at a time. */
export type Since = { seq: number } | { time: number };

/**
 * Reads `--since`: a seq (`120`: the events after it), a duration back from now (`10m`,
 * `2h`, `3d`, `1w`, `30s`), or a time (`2026-11-24T09:00`, `2026-11-24 09:00` in local time,
 * or with a zone). Anything else is BAD_INPUT.
 */
export function parseSince(raw: string, now: Date): Since {
  const v = raw.trim();
  if (/^\d+$/.test(v)) return { seq: Number(v) };
  const d = /^(\d+)\s*(s|m|h|d|w)$/.exec(v);
  if (d) return { time: now.getTime() - Number(d[1]) * UNIT_MS[d[2]!]! };
  const t = /\d{4}-\d{2}-\d{2}/.test(v) ? Date.parse(v.replace(' ', 'T')) : Number.NaN;
  if (!Number.isNaN(t)) return { time: t };
  throw new BatonError('BAD_INPUT', `--since must be a seq, a duration or a time; got ${JSON.stringify(raw)}.`, {
    hint: 'e.g. --since 120 (after event 120), --since 10m (the last ten minutes), --since 2026-11-24T09:00',
  });
}

/** Reads `-n/--tail`: a non-negative count. */
function parseTail(raw: unknown): number | null {
  if (raw === undefined) return null;
  const s = String(raw);
  if (!/^\d+$/.test(s))
    throw new BatonError('BAD_INPUT', `--tail must be a number of events; got ${JSON.stringify(s)}.`, {
      hint: 'e.g. -n 20',
    });
  return Number(s);
}

function after(since: Since): (e: StoredEvent) => boolean {
  return 'seq' in since ? (e) => e.seq > since.seq : (e) => Date.parse(e.time) >= since.time;
}

/** Registers `baton log`: a session's events, filtered, tailed, followed, paged. */
export function registerLog(program: Command, io: CliIO, on: On): void {
  on(
    common(
      program
        .command('log')
        .description("show a session's events (times in local time; ISO-8601 in --json)")
        .option(
          '--since <when>',
          'only events after seq N (120), from a duration ago (10m, 2h, 3d), or from a time (2026-11-24T09:00)',
        )
        .option('-n, --tail <n>', 'only the last N events (of those --since keeps)')
        .option(
          '--type <type>',
          'only events of this type or family (phase.completed, phase, phase.*); repeatable or a comma list',
          (v: string, prev: string[] | undefined) => [...(prev ?? []), v],
        )
        .option('--agent <name>', 'only events recorded by (or about) this agent')
        .option('--all', 'also the lease renewals a running worker writes (hidden by default)')
        .option('-f, --follow', 'keep printing events as they are recorded, until Ctrl+C')
        .option('--no-pager', 'never page the output (it is paged on a terminal when longer than the screen)'),
    ),
    async (ctx, _a, o) => {
      const since = o['since'] === undefined ? { seq: 0 } : parseSince(String(o['since']), io.now());
      const tail = parseTail(o['tail']);
      const types = (o['type'] as string[] | undefined) ?? [];
      // Renewals are hidden from people only: a program reading --json gets the whole journal
      // unless it filters it (--type, --agent).
      const agent = (o['agent'] as string | undefined) ?? null;
      const shown = logFilter({ types, agent, all: o['all'] === true || ctx.json });
      const m = ctx.manager();
      const id = await ctx.sessionId();
      const keep = (e: StoredEvent): boolean => after(since)(e) && shown(e);
      if (o['follow'] === true) return follow(ctx, io, id, since, keep, tail);
      const read = (await m.log(id, 'seq' in since ? since.seq : 0)).filter(after(since));
      let events = read.filter(shown);
      if (tail !== null) events = tail === 0 ? [] : events.slice(-tail);
      const text = ctx.json ? `${JSON.stringify(events, null, 2)}\n` : renderLog(events, ctx.paint);
      const pager = pagerFor(io, o['pager'] === false);
      if (pager && text) await page(io, pager, text);
      else io.stdout(text);
      // The renewals the other filters would have shown: how many --all would add.
      const hidden =
        types.length || o['all'] === true || ctx.json
          ? 0
          : read.filter(logFilter({ types, agent, all: true })).filter((e) => NOISE.has(e.type)).length;
      if (hidden) ctx.notice(`(${hidden} lease renewal${hidden === 1 ? '' : 's'} not shown: --all shows them)`);
    },
  );
}

/**
 * `log --follow`: the events kept so far, then each new one as it is recorded (one JSON
 * object per line with --json), until SIGINT or SIGTERM. Watching starts first, so no
 * event falls between the two; one seen twice is printed once.
 */
async function follow(
  ctx: Ctx,
  io: CliIO,
  id: string,
  since: Since,
  keep: (e: StoredEvent) => boolean,
  tail: number | null,
): Promise<void> {
  const m = ctx.manager();
  let last = 'seq' in since ? since.seq : 0;
  const print = (events: StoredEvent[]): void => {
    const fresh = events.filter((e) => e.seq > last && keep(e));
    if (!fresh.length) return;
    last = fresh[fresh.length - 1]!.seq;
    io.stdout(ctx.json ? fresh.map((e) => `${JSON.stringify(e)}\n`).join('') : renderLog(fresh, ctx.paint));
  };
  const { ended } = untilInterrupted();
  let ready = false;
  const pending: StoredEvent[] = [];
  const stop = await m.watch({
    sessionId: id,
    onChange: (c) => (ready ? print(c.events) : pending.push(...c.events)),
    onWarning: (w) => ctx.warn(w),
  });
  let events = (await m.log(id, last)).filter(keep);
  if (tail !== null) events = tail === 0 ? [] : events.slice(-tail);
  if (events.length) last = events[0]!.seq - 1;
  print(events);
  ready = true;
  print(pending);
  // The feed's watchers keep the process alive until a signal ends it.
  await ended;
  await stop();
}
