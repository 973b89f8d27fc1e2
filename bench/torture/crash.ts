/**
 * Crash trial: a writer process appends to one session and is SIGKILLed at a random moment,
 * again and again. After every kill a fresh store must load the session with every append the
 * writer was told was durable, as the very event it was told about, at its seq; seqs stay
 * contiguous. A new session every 100 kills keeps the journals small.
 */
import { SessionManager } from '../../src/manager/manager.js';
import type { Sizes, Target, TrialResult } from './common.js';
import { sleep, timed, writer } from './common.js';

/** Kills one writer at a random moment 5–120 ms after it is ready; returns its acks. */
async function killOne(
  spec: string,
  id: string,
  tag: string,
): Promise<{ acks: Array<[number, string]>; problem: string | null }> {
  const c = writer(['crash', spec, id, tag]);
  const ready = new Promise<void>((resolve) => {
    c.onLine = (l) => {
      if (l.startsWith('ready')) resolve();
    };
  });
  const t = setTimeout(() => c.kill(), 30_000);
  await Promise.race([ready, c.exited]);
  await sleep(5 + Math.random() * 115);
  c.kill();
  const exit = await c.exited;
  clearTimeout(t);
  const acks = c.lines
    .filter((l) => l.startsWith('ack '))
    .map((l) => {
      const [, seq, eventId] = l.split(' ');
      return [Number(seq), eventId!] as [number, string];
    });
  const problem =
    exit.signal === 'SIGKILL' ? null : `writer ended by itself (${exit.code}): ${c.stderr().slice(0, 500)}`;
  return { acks, problem };
}

/** The crash trial on `target`: `sizes.kills` SIGKILLs. */
export function crashTrial(target: Target, sizes: Sizes, deadline: number): Promise<TrialResult> {
  return timed('crash (SIGKILL during appends)', target.kind, sizes.kills, 'kills', async (r) => {
    const spec = target.fresh();
    let id = '';
    const acked = new Map<number, string>();
    let acks = 0;
    for (let k = 0; k < sizes.kills && Date.now() < deadline && r.problems.length < 5; k++) {
      if (k % 100 === 0) {
        id = `crash-${k / 100}`;
        acked.clear();
        const s = target.open(spec);
        await new SessionManager({ store: s, agent: 'crash' }).start({ title: id, id, switch: true });
        await s.close();
      }
      const run = await killOne(spec, id, `k${k}`);
      if (run.problem) r.problems.push(`kill ${k + 1}: ${run.problem}`);
      for (const [seq, eventId] of run.acks) acked.set(seq, eventId);
      acks += run.acks.length;
      const s = target.open(spec);
      try {
        const events = await s.readEvents(id);
        events.forEach((e, i) => {
          if (e.seq !== i + 1) r.problems.push(`kill ${k + 1}: seq ${e.seq} at position ${i + 1}`);
        });
        for (const [seq, eventId] of acked) {
          const got = events[seq - 1]?.['eventId'];
          if (got !== eventId)
            r.problems.push(`kill ${k + 1}: acknowledged ${eventId} should be at seq ${seq}, found ${String(got)}`);
        }
        await s.load(id);
      } catch (e) {
        r.problems.push(`kill ${k + 1}: the session does not load: ${(e as Error).message}`);
      } finally {
        await s.close();
      }
      r.done = k + 1;
    }
    r.detail = `${acks} acknowledged appends checked after every kill`;
  });
}
