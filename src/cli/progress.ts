/**
 * Progress of a long operation on stderr, worded by the CLI from the manager's counts
 * (manager/progress.ts): on a terminal one line updated in place with the count and an ETA
 * (cli-progress, loaded only when a command shows one), elsewhere a plain line now and then
 * (a log or CI keeps it readable), nothing with --json or --quiet. A fast operation shows
 * nothing at all: the first report waits for {@link SHOW_AFTER_MS}.
 */
import { createRequire } from 'node:module';
import type { SingleBar } from 'cli-progress';
import type { Progress } from '../manager/index.js';
import type { Ctx } from './context.js';

/** Before this, an operation shows no progress (most finish well within it). */
export const SHOW_AFTER_MS = 1000;

/** How often a plain progress line is written when stderr is not a terminal. */
export const PLAIN_EVERY_MS = 5000;

/** What a command tells as it goes, and when it is done. */
export interface ProgressReporter {
  update(p: Progress): void;
  /** Clears the line on a terminal; always call it, also after an error. */
  stop(): void;
}

const NONE: ProgressReporter = { update: () => undefined, stop: () => undefined };

function seconds(ms: number): string {
  const s = Math.max(0, Math.round(ms / 1000));
  return s < 60 ? `${s}s` : `${Math.floor(s / 60)}m${String(s % 60).padStart(2, '0')}s`;
}

/** `doctor: 40/200 sessions (20%), about 12s left` (the ETA once something is done). */
export function plainLine(label: string, unit: string, p: Progress, elapsedMs: number): string {
  const pct = p.total ? Math.floor((p.done / p.total) * 100) : 100;
  const eta =
    p.done > 0 && p.done < p.total ? `, about ${seconds((elapsedMs / p.done) * (p.total - p.done))} left` : '';
  return `baton: ${label}: ${p.done}/${p.total} ${unit} (${pct}%)${eta}`;
}

/**
 * A reporter for `label` (`doctor`) counting `unit`s (`sessions`). `now` is a monotonic clock
 * in ms (injected for tests).
 */
export function progressReporter(
  ctx: Ctx,
  label: string,
  unit: string,
  now: () => number = () => performance.now(),
): ProgressReporter {
  if (ctx.json || ctx.quiet) return NONE;
  const started = now();
  // BATON_PROGRESS_AFTER_MS moves the threshold, for tests and drills (as BATON_NOW moves the clock).
  const raw = ctx.io.env['BATON_PROGRESS_AFTER_MS'];
  const after = raw !== undefined && /^\d+$/.test(raw) ? Number(raw) : SHOW_AFTER_MS;
  if (!(ctx.io.stderrIsTTY ?? ctx.io.isTTY)) {
    let last = started + after - PLAIN_EVERY_MS;
    return {
      update: (p) => {
        const t = now();
        if (t - last < PLAIN_EVERY_MS) return;
        last = t;
        ctx.io.stderr(`${plainLine(label, unit, p, t - started)}\n`);
      },
      stop: () => undefined,
    };
  }
  const unicode = ctx.errPaint.unicode;
  const dot = unicode ? '·' : '-';
  // The bar writes through the CLI's stderr, so it goes where every diagnostic goes.
  const stream = {
    write: (s: string) => {
      ctx.io.stderr(s);
      return true;
    },
    isTTY: true,
    columns: ctx.io.columns ?? 80,
  } as unknown as NodeJS.WriteStream;
  // Loaded once the bar is shown (a quick run never pays for it), and required, not import()ed:
  // the bundle runs in a vm.Script (launcher.cjs), which has no dynamic import.
  const makeBar = (): SingleBar => {
    const { SingleBar } = createRequire(import.meta.url)('cli-progress') as typeof import('cli-progress');
    return new SingleBar({
      stream,
      format: `${label} [{bar}] {value}/{total} ${unit} ${dot} ETA {eta_formatted} ${dot} {item}`,
      barCompleteChar: unicode ? '█' : '#',
      barIncompleteChar: unicode ? '░' : '-',
      barsize: 20,
      hideCursor: true,
      clearOnComplete: true,
      linewrap: false,
      etaBuffer: 20,
    });
  };
  let bar: SingleBar | null = null;
  return {
    update: (p) => {
      if (!bar) {
        if (now() - started < after) return;
        bar = makeBar();
        bar.start(p.total, p.done, { item: p.item ?? '' });
        return;
      }
      bar.setTotal(p.total);
      bar.update(p.done, { item: p.item ?? '' });
    },
    stop: () => bar?.stop(),
  };
}
