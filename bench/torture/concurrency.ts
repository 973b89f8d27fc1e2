/**
 * Concurrency trial: `writers` processes each add `appendsPerWriter` notes to one session
 * through the manager at the same time. Every note is there exactly once, every append was
 * acknowledged, seqs are contiguous.
 */
import { SessionManager } from '../../src/manager/manager.js';
import type { Sizes, Target, TrialResult } from './common.js';
import { timed, writer } from './common.js';

/**
 * The concurrency trial on `target`. Writers still running at `deadline` are killed (the
 * trial is then PARTIAL): every note acknowledged so far must still be there exactly once.
 */
export function concurrencyTrial(target: Target, sizes: Sizes, deadline = Infinity): Promise<TrialResult> {
  const planned = sizes.writers * sizes.appendsPerWriter;
  return timed(
    `concurrency (${sizes.writers} writers × ${sizes.appendsPerWriter})`,
    target.kind,
    planned,
    'appends',
    async (r) => {
      const spec = target.fresh();
      const setup = target.open(spec);
      await new SessionManager({ store: setup, agent: 'setup' }).start({ title: 'many writers', id: 'many' });
      await setup.close();
      const children = Array.from({ length: sizes.writers }, (_, k) =>
        writer(['notes', spec, 'many', `w${k}`, String(sizes.appendsPerWriter)]),
      );
      const timer = setTimeout(
        () => children.forEach((c) => c.kill()),
        Math.max(0, Math.min(deadline - Date.now(), 2 ** 31 - 1)),
      );
      const exits = await Promise.all(children.map((c) => c.exited));
      clearTimeout(timer);
      exits.forEach((x, k) => {
        if (x.code !== 0 && x.signal !== 'SIGKILL')
          r.problems.push(`writer ${k} exited ${x.code ?? x.signal}: ${children[k]!.stderr().slice(0, 400)}`);
      });
      const ackedBy = children.map(
        (c) => new Set(c.lines.filter((l) => l.startsWith('ack ')).map((l) => Number(l.slice(4)))),
      );
      const acked = children.reduce((n, c) => n + c.lines.filter((l) => l.startsWith('ack ')).length, 0);
      const s = target.open(spec);
      try {
        const events = await s.readEvents('many');
        events.forEach((e, i) => {
          if (e.seq !== i + 1) r.problems.push(`seq ${e.seq} at position ${i + 1}`);
        });
        const seen = new Map<string, number>();
        for (const e of events)
          if (e.type === 'note.added')
            seen.set((e.data as { text: string }).text, (seen.get((e.data as { text: string }).text) ?? 0) + 1);
        for (let k = 0; k < sizes.writers; k++) {
          for (let i = 1; i <= sizes.appendsPerWriter; i++) {
            const n = seen.get(`w${k}-${i}`) ?? 0;
            // A writer killed at the deadline may have stored its last note without saying so.
            if (ackedBy[k]!.has(i) ? n !== 1 : n > 1 || (n === 1 && exits[k]!.signal !== 'SIGKILL'))
              r.problems.push(`note w${k}-${i} is there ${n} times`);
          }
        }
        r.done = acked;
        r.detail = `${events.length} events, all ${acked} acknowledged notes once`;
      } finally {
        await s.close();
      }
      r.problems.splice(10);
    },
  );
}
