/**
 * A model-based property test of runs (fast-check commands): random interleavings of start,
 * claim, record, end and die across three runs and three phases, on the memory store, the
 * file store and PostgreSQL. Each run's process is a real child (`sleep`); `die` SIGKILLs it,
 * so its death is found by the process check, as on a real host. After every command the
 * session's status as readers report it (`manager.runs.status`) and every phase's status and
 * owner equal a small model's.
 */
import { spawn } from 'node:child_process';
import type { ChildProcess } from 'node:child_process';
import path from 'node:path';
import fc from 'fast-check';
import { afterAll, describe, expect, it } from 'vitest';
import { isBatonError } from '../../src/domain/errors.js';
import { SessionManager } from '../../src/manager/manager.js';
import { FileStore } from '../../src/store/file/store.js';
import { MemoryStore } from '../../src/store/memory.js';
import { openStore } from '../../src/store/open.js';
import type { SessionStore } from '../../src/store/types.js';
import { PG_URL, dropSchema, freshSchema, urlWith } from '../store/pg-helpers.js';
import { tempDir } from '../support/temp.js';

const RUNS = ['A', 'B', 'C'] as const;
const PHASES = ['p1', 'p2', 'p3'] as const;
type RunName = (typeof RUNS)[number];
type PhaseId = (typeof PHASES)[number];
type Status = 'active' | 'paused' | 'interrupted';

/** The model: the recorded status, each run's life, each phase's status and owner. */
interface Model {
  recorded: Status;
  runs: Record<RunName, 'none' | 'live' | 'ended' | 'dead' | 'recorded-dead'>;
  /** How many times each run was started: a run started again is a new run (its own id), `C#2`. */
  starts: Record<RunName, number>;
  phases: Record<PhaseId, { status: 'pending' | 'in_progress'; owner: string | null }>;
}

/** The real side: the manager, the session, the run id of each start (`C#2`), each run's process. */
interface Real {
  m: SessionManager;
  id: string;
  ids: Record<string, string>;
  procs: Partial<Record<RunName, ChildProcess>>;
}

/** The model's name of a run's current start. */
const current = (m: Readonly<Model>, r: RunName): string => `${r}#${m.starts[r]}`;
/** True when the start named `key` is its run's current one and live. */
const keyLive = (m: Readonly<Model>, key: string): boolean => {
  const r = key.split('#')[0] as RunName;
  return current(m, r) === key && m.runs[r] === 'live';
};

const live = (m: Model): RunName[] => RUNS.filter((r) => m.runs[r] === 'live');
const inFlight = (m: Model): boolean => PHASES.some((p) => m.phases[p].status === 'in_progress');

/** The status readers report: recorded active with runs open but none live reads interrupted. */
function effective(m: Model): Status {
  if (m.recorded !== 'active') return m.recorded;
  const open = RUNS.filter((r) => m.runs[r] === 'live' || m.runs[r] === 'dead');
  return open.length && !live(m).length ? 'interrupted' : 'active';
}

/** Deaths readers already see, written down by the next start or claim: the last one decides the status. */
function writeDeaths(m: Model): void {
  const dead = RUNS.filter((r) => m.runs[r] === 'dead');
  const othersLive = live(m).length > 0;
  dead.forEach((r, i) => {
    m.runs[r] = 'recorded-dead';
    if (m.recorded === 'active' && !othersLive && i === dead.length - 1)
      m.recorded = inFlight(m) ? 'interrupted' : 'paused';
  });
}

async function check(model: Model, real: Real): Promise<void> {
  const s = await real.m.get(real.id);
  expect(real.m.runs.status(s).status).toBe(effective(model));
  const nameOf = (runId: string | null | undefined): string | null =>
    runId ? (Object.keys(real.ids).find((k) => real.ids[k] === runId) ?? null) : null;
  for (const p of PHASES) {
    const ph = s.phases.find((x) => x.id === p)!;
    expect({ phase: p, status: ph.status, owner: nameOf(ph.owner) }).toEqual({ phase: p, ...model.phases[p] });
  }
}

class Start implements fc.AsyncCommand<Model, Real> {
  constructor(readonly r: RunName) {}
  check = (m: Readonly<Model>): boolean => m.runs[this.r] !== 'live';
  async run(model: Model, real: Real): Promise<void> {
    const child = spawn('sleep', ['600'], { stdio: 'ignore' });
    real.procs[this.r] = child;
    const run = await real.m.runs.start(real.id, { kind: 'library', ttlMs: 3_600_000, pid: child.pid!, agent: this.r });
    model.starts[this.r] += 1;
    real.ids[current(model, this.r)] = run.result.id;
    writeDeaths(model);
    if (model.recorded !== 'active') model.recorded = 'active';
    model.runs[this.r] = 'live';
    await check(model, real);
  }
  toString = (): string => `start(${this.r})`;
}

class Claim implements fc.AsyncCommand<Model, Real> {
  constructor(
    readonly r: RunName,
    readonly p: PhaseId,
  ) {}
  check = (m: Readonly<Model>): boolean => m.runs[this.r] === 'live';
  async run(model: Model, real: Real): Promise<void> {
    const ph = model.phases[this.p];
    const me = current(model, this.r);
    const ownerLive = ph.owner !== null && keyLive(model, ph.owner);
    const refused = ph.status === 'in_progress' && ph.owner !== me && ownerLive;
    try {
      await real.m.runs.claimPhase(real.id, real.ids[me]!, this.p);
      expect(refused, `claim(${this.r}, ${this.p}) succeeded`).toBe(false);
      if (!(ph.status === 'in_progress' && ph.owner === me)) {
        writeDeaths(model);
        model.phases[this.p] = { status: 'in_progress', owner: me };
      }
    } catch (e) {
      if (!isBatonError(e, 'LOCKED')) throw e;
      expect(refused, `claim(${this.r}, ${this.p}) refused: ${(e as Error).message}`).toBe(true);
    }
    await check(model, real);
  }
  toString = (): string => `claim(${this.r}, ${this.p})`;
}

class RecordFile implements fc.AsyncCommand<Model, Real> {
  constructor(readonly r: RunName) {}
  check = (m: Readonly<Model>): boolean =>
    m.runs[this.r] === 'live' &&
    PHASES.some((p) => m.phases[p].owner === current(m, this.r) && m.phases[p].status === 'in_progress');
  async run(model: Model, real: Real): Promise<void> {
    const r = await real.m.files(real.id, 'modified', [`${this.r}.txt`], null, {
      run: real.ids[current(model, this.r)]!,
      agent: this.r,
    });
    // A file naming no phase goes to a phase of the run's own.
    const to = r.events.find((e) => e.type === 'file.recorded')!.data as { phaseId: string };
    expect(model.phases[to.phaseId as PhaseId]?.owner).toBe(current(model, this.r));
    await check(model, real);
  }
  toString = (): string => `record(${this.r})`;
}

class End implements fc.AsyncCommand<Model, Real> {
  constructor(readonly r: RunName) {}
  check = (m: Readonly<Model>): boolean => m.runs[this.r] === 'live';
  async run(model: Model, real: Real): Promise<void> {
    await real.m.runs.end(real.id, real.ids[current(model, this.r)]!, { how: 'finished', cause: 'done' });
    model.runs[this.r] = 'ended';
    if (model.recorded === 'active' && !live(model).length) model.recorded = 'paused';
    real.procs[this.r]?.kill('SIGKILL');
    await check(model, real);
  }
  toString = (): string => `end(${this.r})`;
}

class Die implements fc.AsyncCommand<Model, Real> {
  constructor(readonly r: RunName) {}
  check = (m: Readonly<Model>): boolean => m.runs[this.r] === 'live';
  async run(model: Model, real: Real): Promise<void> {
    const child = real.procs[this.r]!;
    const exited = new Promise((res) => child.once('exit', res));
    child.kill('SIGKILL');
    await exited;
    model.runs[this.r] = 'dead';
    await check(model, real);
  }
  toString = (): string => `die(${this.r})`;
}

const commands = [
  ...RUNS.map((r) => fc.constant(new Start(r))),
  ...RUNS.flatMap((r) => PHASES.map((p) => fc.constant(new Claim(r, p)))),
  ...RUNS.map((r) => fc.constant(new RecordFile(r))),
  ...RUNS.map((r) => fc.constant(new End(r))),
  ...RUNS.map((r) => fc.constant(new Die(r))),
];

const schemas: string[] = [];
afterAll(async () => {
  for (const s of schemas) await dropSchema(s);
});

const stores: Array<[string, () => SessionStore]> = [
  ['memory', () => new MemoryStore()],
  [
    'file',
    () => {
      const root = path.join(tempDir('baton-model-'), '.baton');
      FileStore.init(root);
      return new FileStore({ root });
    },
  ],
];
if (PG_URL) {
  stores.push([
    'postgres',
    () => {
      const schema = freshSchema('model');
      schemas.push(schema);
      return openStore({ url: urlWith({ schema }) });
    },
  ]);
} else {
  console.warn('SKIPPED: the runs model test on PostgreSQL (no server).');
}

describe.each(stores)('runs against a model, on the %s store', (_name, open) => {
  it('status and every phase owner follow the model after each command', async () => {
    const store = open();
    const m = new SessionManager({ store, agent: 'model' });
    let n = 0;
    const all: ChildProcess[] = [];
    try {
      await fc.assert(
        fc.asyncProperty(fc.commands(commands, { maxCommands: 14 }), async (cmds) => {
          const id = `s${++n}`;
          await m.start({ title: 'model', id, switch: true, phases: PHASES.map((p) => ({ id: p, name: p })) });
          await m.lifecycle(id, 'pause');
          const model: Model = {
            recorded: 'paused',
            runs: { A: 'none', B: 'none', C: 'none' },
            starts: { A: 0, B: 0, C: 0 },
            phases: {
              p1: { status: 'pending', owner: null },
              p2: { status: 'pending', owner: null },
              p3: { status: 'pending', owner: null },
            },
          };
          const real: Real = { m, id, ids: {}, procs: {} };
          try {
            await fc.asyncModelRun(() => ({ model, real }), cmds);
          } finally {
            for (const c of Object.values(real.procs) as ChildProcess[]) {
              all.push(c);
              c.kill('SIGKILL');
            }
          }
        }),
        { numRuns: 100 },
      );
    } finally {
      for (const c of all) c.kill('SIGKILL');
      await m.close();
    }
  }, 240_000);
});
