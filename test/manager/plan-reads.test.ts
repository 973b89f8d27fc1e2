/**
 * What the resume plan reads (issue 30: a claim hands its plan over, so a claim pays for its
 * reads): without a checkpoint, the fresh option's count of work events comes from the state's
 * history and the journal is not read; with one, the journal is read for the checkpoint
 * option. Either way the counts are the journal's.
 */
import { describe, expect, it } from 'vitest';
import { WORK_EVENT_TYPES } from '../../src/domain/resume/resume-plan-types.js';
import type { ResumePlan } from '../../src/domain/resume/resume-plan-types.js';
import { SessionManager } from '../../src/manager/manager.js';
import { MemoryStore } from '../../src/store/memory.js';

const fresh = (p: ResumePlan): number | null => p.recovery.options.find((o) => o.kind === 'fresh')!.loses.workEvents;

describe('the resume plan reads the journal only when it needs it', () => {
  it('no checkpoint: the work events counted from the history, no journal read; a checkpoint: the journal read; both as the journal says', async () => {
    const store = new MemoryStore();
    const m = new SessionManager({ store, agent: 'a', pid: 1, host: 'h' });
    await m.start({
      title: 't',
      id: 's',
      phases: [
        { id: 'p', name: 'p' },
        { id: 'q', name: 'q' },
      ],
    });
    await m.phase('s', 'p', 'start');
    await m.substep('s', 'p', 'half');
    await m.note('s', { text: 'n' });
    await m.tokens('s', { input: 10, output: 5 });
    await m.setMetadata('s', 'k', 1);
    await m.leases.acquire('s', { owner: 'o', ttlMs: 60_000 });
    const worked = async (): Promise<number> =>
      (await m.log('s')).filter((e) => e.seq > 1 && WORK_EVENT_TYPES.includes(e.type)).length;
    let reads = 0;
    const read = store.readEvents.bind(store);
    store.readEvents = (...a) => {
      reads++;
      return read(...a);
    };
    const before = await worked();
    expect(before).toBeGreaterThanOrEqual(4);
    reads = 0;
    const { plan } = await m.recovery.plan('s');
    expect(reads).toBe(0);
    expect(fresh(plan)).toBe(before);

    await m.checkpoints.create('s', { name: 'cp' });
    await m.note('s', { text: 'after' });
    const after = await worked();
    reads = 0;
    const again = (await m.recovery.plan('s')).plan;
    expect(reads).toBe(1);
    expect(fresh(again)).toBe(after);
    expect(again.recovery.options.find((o) => o.kind === 'checkpoint')!.loses.workEvents).toBe(1);
  });
});
