/**
 * Takeover trial: a worker (the zombie) holds a short lease and stops renewing it; once it has
 * expired, four waiting workers (each a manager with its own store handle) try to take it at
 * once. Exactly one must win, with a higher fencing token; the others are refused (LOCKED);
 * the zombie's writes with its old token are refused (FENCED). Then the winner lets go.
 */
import { isBatonError } from '../../src/domain/errors.js';
import { SessionManager } from '../../src/manager/manager.js';
import type { SessionStore } from '../../src/store/types.js';
import type { Sizes, Target, TrialResult } from './common.js';
import { sleep, timed } from './common.js';

const TTL = 150;

/** The takeover trial on `target`: `sizes.takeovers` rounds. */
export function takeoverTrial(target: Target, sizes: Sizes, deadline: number): Promise<TrialResult> {
  return timed('lease takeovers (4 waiting workers)', target.kind, sizes.takeovers, 'takeovers', async (r) => {
    const spec = target.fresh();
    const stores: SessionStore[] = [];
    const manager = (pid: number): SessionManager => {
      const store = target.open(spec);
      stores.push(store);
      return new SessionManager({ store, agent: `p${pid}`, pid });
    };
    const zombie = manager(90_000);
    const waiters = [1, 2, 3, 4].map((k) => manager(90_000 + k));
    await zombie.start({ title: 'takeovers', id: 'lease' });
    let fenced = 0;
    try {
      for (let round = 0; round < sizes.takeovers && Date.now() < deadline && r.problems.length < 10; round++) {
        const held = (await zombie.leases.acquire('lease', { owner: 'zombie', ttlMs: TTL })).result;
        await sleep(TTL + 60);
        const tries = await Promise.allSettled(
          waiters.map((m, k) => m.leases.acquire('lease', { owner: `w${k}`, ttlMs: 60_000 })),
        );
        const won = tries.flatMap((t, k) => (t.status === 'fulfilled' ? [{ k, token: t.value.result.token }] : []));
        const refusals = tries.flatMap((t) => (t.status === 'rejected' ? [t.reason as unknown] : []));
        if (won.length !== 1) r.problems.push(`round ${round + 1}: ${won.length} workers took the lease`);
        for (const e of refusals)
          if (!isBatonError(e, 'LOCKED'))
            r.problems.push(`round ${round + 1}: a waiter was refused with ${isBatonError(e) ? e.code : String(e)}`);
        const winner = won[0];
        if (winner && winner.token <= held.token)
          r.problems.push(`round ${round + 1}: the new token ${winner.token} is not above the zombie's ${held.token}`);
        // The zombie wakes up and writes with its old token.
        for (const write of [
          () => zombie.note('lease', { text: `zombie ${round}` }, { fencingToken: held.token }),
          () => zombie.leases.adopt('lease', held.token, 1000, null),
        ]) {
          try {
            await write();
            r.problems.push(`round ${round + 1}: a zombie write with token ${held.token} was accepted`);
          } catch (e) {
            if (isBatonError(e, 'FENCED')) fenced += 1;
            else
              r.problems.push(
                `round ${round + 1}: a zombie write was refused with ${isBatonError(e) ? e.code : String(e)}, not FENCED`,
              );
          }
        }
        if (winner) await waiters[winner.k]!.leases.release('lease', winner.token);
        r.done = round + 1;
      }
    } finally {
      for (const s of stores) await s.close();
    }
    r.detail = `one winner each round, ${fenced} zombie writes fenced`;
  });
}
