// baton against its peers, in the same run on the same disk: LangGraph's SqliteSaver (WAL,
// synchronous=FULL: baton's durability; a checkpoint per update) and the whole-file rewrite
// the seed toolkits prescribe (read the state file, parse, change, write a temp file, fsync,
// keep the previous as .bak, rename over). 2,000 updates to one session each, by 16 concurrent
// writers of one process (each system in its best in-process mode: baton's group commit; the
// others serialise) and, for reference, by one writer. The peers are installed into a scratch
// folder at bench time (bench/.work/peers), never as dependencies of baton. Run by
// bench/run.ts (section `peers`); on its own: node --import tsx bench/peers.ts [--quick]
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import { createRequire } from 'node:module';
import os from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { SessionManager } from '../src/manager/manager.js';
import type { SessionState } from '../src/domain/state.js';
import { FileStore } from '../src/store/file/store.js';
import { rowLine, root, turn } from './common.js';
import type { Row } from './common.js';

const PEERS_DIR = path.join(root, 'bench/.work/peers');
const PEER_PACKAGES = [
  '@langchain/langgraph-checkpoint-sqlite@1',
  '@langchain/langgraph-checkpoint@1',
  '@langchain/core@1',
  'better-sqlite3@12',
];

/** Updates each system makes, unmeasured, before its measured ones. */
const WARM_UP = 2000;

/** How the peer rows are measured, for BENCHMARKS.md. */
export const PEERS_EXPLANATION = `- **Peers**: 2,000 updates (tokens recorded by one of 4 agents) to one session, by 16
  concurrent writers in one process and by one writer, against LangGraph's \`SqliteSaver\`
  (\`@langchain/langgraph-checkpoint-sqlite\`: each update \`put\`s a checkpoint whose channel
  values hold the session state; with \`synchronous=FULL\`, the durability baton gives; its
  default, better-sqlite3's \`synchronous=NORMAL\` in WAL mode, does not fsync a commit, and
  comparing with it would compare durability, not speed) and the seed toolkits' whole-file rewrite of a JSON state (read, parse, change, write a
  temp file, fsync, keep \`.bak\`, rename), both starting from baton's own state of the same
  session. Installed by \`npm run bench\` into \`bench/.work/peers\` (not a dependency of baton).
  Each system first makes ${WARM_UP.toLocaleString('en-US')} updates that are not measured (steady state: V8 has compiled the hot
  code of each, as in a long-running orchestrator; a fresh process's first calls are what the CLI rows measure),
  then runs its 2,000 updates in alternating rounds (200 updates a round); disk bytes
  are the bytes the disk holding the data was asked to write, file-system journal included
  (the device's sectors-written count, \`/sys/dev/block/…/stat\`), per update; the machine is
  otherwise quiet during the run.`;

interface Peer {
  name: string;
  /** One update by writer `w`; the peers serialise, baton groups. */
  update: (w: number, i: number) => Promise<void>;
  close: () => Promise<void>;
}

/** Installs the peers into the scratch folder once (kept between runs); their module root. */
function installPeers(): string {
  const marker = path.join(PEERS_DIR, 'node_modules/better-sqlite3/build/Release/better_sqlite3.node');
  if (!fs.existsSync(marker)) {
    fs.mkdirSync(PEERS_DIR, { recursive: true });
    if (!fs.existsSync(path.join(PEERS_DIR, 'package.json')))
      fs.writeFileSync(path.join(PEERS_DIR, 'package.json'), '{"name":"baton-bench-peers","private":true}\n');
    console.error(
      'peers: installing LangGraph SqliteSaver into bench/.work/peers (better-sqlite3 may build with node-gyp)…',
    );
    execFileSync('npm', ['install', '--no-audit', '--no-fund', '--no-save', ...PEER_PACKAGES], {
      cwd: PEERS_DIR,
      stdio: ['ignore', 'ignore', 'inherit'],
    });
    // Install scripts may be held back by the npm configuration: build the native module explicitly.
    if (!fs.existsSync(marker))
      execFileSync('npm', ['rebuild', 'better-sqlite3'], { cwd: PEERS_DIR, stdio: ['ignore', 'ignore', 'inherit'] });
  }
  return PEERS_DIR;
}

/**
 * Bytes written to the disk that holds `dir` so far: the device's own count of sectors written
 * (/sys/dev/block/<major>:<minor>/stat), which includes what the file system's journal writes
 * for each system. The process's write_bytes (/proc/self/io) counts pages dirtied, a whole page
 * for a few bytes written over one already on disk, and nothing of the journal: it misstates
 * both kinds of update. Falls back to it where the device's count cannot be read.
 */
function diskBytes(dir: string): () => number {
  const dev = fs.statSync(dir).dev;
  const file = `/sys/dev/block/${(dev >> 8) & 0xfff}:${(dev & 0xff) | ((dev >> 12) & 0xfff00)}/stat`;
  if (fs.existsSync(file)) return () => Number(fs.readFileSync(file, 'utf8').trim().split(/\s+/)[6]) * 512;
  return () => Number(/write_bytes: (\d+)/.exec(fs.readFileSync('/proc/self/io', 'utf8'))?.[1] ?? 0);
}

async function batonPeer(dir: string): Promise<{ peer: Peer; state: SessionState }> {
  FileStore.init(dir);
  const store = new FileStore({ root: dir });
  const m = new SessionManager({ store, agent: 'bench' });
  const s = await m.start({
    title: 'peer comparison',
    id: 'peer',
    phases: Array.from({ length: 8 }, (_, i) => ({ id: `p${i}`, name: `Phase ${i}` })),
  });
  await m.phase(s.id, 'p0', 'start');
  for (let i = 0; i < 10; i++)
    await m.note(s.id, { text: `note ${i}: what was decided and why, as an agent records it` });
  await m.derivedFiles.settled();
  const state = await m.get(s.id);
  return {
    state,
    peer: {
      name: 'baton',
      update: async (w) => void (await m.tokens(s.id, { agent: `agent-${w % 4}`, input: 10, output: 5 })),
      close: () => m.close(),
    },
  };
}

function rewritePeer(dir: string, state: SessionState): Peer {
  fs.mkdirSync(dir, { recursive: true });
  const file = path.join(dir, 'state.json');
  fs.writeFileSync(file, JSON.stringify(state, null, 2));
  return {
    name: 'whole-file rewrite',
    update: async (w) => {
      const s = JSON.parse(fs.readFileSync(file, 'utf8')) as SessionState & {
        tokens: { input: number; output: number; byAgent?: Record<string, { input: number; output: number }> };
      };
      s.tokens.input += 10;
      s.tokens.output += 5;
      s.updatedAt = new Date().toISOString();
      const tmp = `${file}.tmp`;
      const fd = fs.openSync(tmp, 'w');
      fs.writeSync(fd, JSON.stringify(s, null, 2));
      fs.fsyncSync(fd);
      fs.closeSync(fd);
      fs.rmSync(`${file}.bak`, { force: true });
      fs.linkSync(file, `${file}.bak`);
      fs.renameSync(tmp, file);
      void w;
    },
    close: async () => undefined,
  };
}

async function sqlitePeer(dir: string, state: SessionState, modules: string): Promise<Peer> {
  fs.mkdirSync(dir, { recursive: true });
  const req = createRequire(path.join(modules, 'package.json'));
  const { SqliteSaver } = (await import(pathToFileURL(req.resolve('@langchain/langgraph-checkpoint-sqlite')).href)) as {
    SqliteSaver: { fromConnString(p: string): { put: (...a: unknown[]) => Promise<unknown>; db: { close(): void } } };
  };
  const { uuid6 } = (await import(pathToFileURL(req.resolve('@langchain/langgraph-checkpoint')).href)) as {
    uuid6: (n: number) => string;
  };
  const saver = SqliteSaver.fromConnString(path.join(dir, 'checkpoints.db'));
  // better-sqlite3 builds SQLite with SQLITE_DEFAULT_WAL_SYNCHRONOUS=1: in WAL mode a commit is
  // not fsynced (a machine crash may lose acknowledged checkpoints). FULL syncs each commit, as
  // baton does: the same durability.
  (saver.db as unknown as { pragma(s: string): unknown }).pragma('synchronous=FULL');
  let current = structuredClone(state) as SessionState & { tokens: { input: number; output: number } };
  let parent: string | undefined;
  let version = 0;
  return {
    name: 'LangGraph SqliteSaver with synchronous=FULL (the same durability)',
    update: async (w, i) => {
      current = {
        ...current,
        tokens: { ...current.tokens, input: current.tokens.input + 10, output: current.tokens.output + 5 },
        updatedAt: new Date().toISOString(),
      };
      version += 1;
      const checkpoint = {
        v: 4,
        id: uuid6(-3),
        ts: new Date().toISOString(),
        channel_values: { session: current },
        channel_versions: { session: version },
        versions_seen: { [`agent-${w % 4}`]: { session: version } },
      };
      const config = {
        configurable: { thread_id: 'peer', checkpoint_ns: '', ...(parent ? { checkpoint_id: parent } : {}) },
      };
      await saver.put(config, checkpoint, { source: 'loop', step: i, parents: {} }, { session: version });
      parent = checkpoint.id;
    },
    close: async () => saver.db.close(),
  };
}

/** Writes out every dirty page of the file system holding `dir` (sync -f: syncfs). */
function syncDisk(dir: string): void {
  execFileSync('sync', ['-f', dir]);
}

/** Runs `n` updates of `peer` by `writers` concurrent writers; time in ms. */
async function runUpdates(peer: Peer, n: number, writers: number): Promise<number> {
  const t0 = performance.now();
  await Promise.all(
    Array.from({ length: writers }, async (_, w) => {
      for (let i = w; i < n; i += writers) await peer.update(w, i);
    }),
  );
  await turn();
  return performance.now() - t0;
}

/** Measures baton and the peers; returns the rows (two per peer: 16 writers, one writer). */
export async function peers(quick: boolean, work: string): Promise<Row[]> {
  const modules = installPeers();
  const total = quick ? 600 : 2000;
  const perRound = quick ? 100 : 200;
  const rows: Row[] = [];
  for (const writers of [16, 1]) {
    const { peer: ours, state } = await batonPeer(path.join(work, `peer-baton-${writers}`));
    const others = [
      await sqlitePeer(path.join(work, `peer-sqlite-full-${writers}`), state, modules),
      rewritePeer(path.join(work, `peer-rewrite-${writers}`), state),
    ];
    const all = [ours, ...others];
    const timeMs = new Map<Peer, number>(all.map((p) => [p, 0]));
    const bytes = new Map<Peer, number>(all.map((p) => [p, 0]));
    const writeBytes = diskBytes(work);
    // Warm-up, the same for every system: steady state, as in a long-running orchestrator (the
    // first updates of a process run before V8 has compiled its hot code; the CLI rows measure that).
    for (const p of all) await runUpdates(p, WARM_UP, writers);
    // Alternating rounds, the order rotated each round, so that noise hits all alike.
    for (let r = 0; r < total / perRound; r++) {
      for (let k = 0; k < all.length; k++) {
        const p = all[(r + k) % all.length]!;
        // Everything the previous round left in the page cache goes to disk first, and this
        // round's bytes are counted once all of them are on disk (untimed): a system that does
        // not fsync is charged for what it writes later, not the next system.
        syncDisk(work);
        const b0 = writeBytes();
        timeMs.set(p, timeMs.get(p)! + (await runUpdates(p, perRound, writers)));
        syncDisk(work);
        bytes.set(p, bytes.get(p)! + writeBytes() - b0);
      }
    }
    const rate = (p: Peer): number => total / (timeMs.get(p)! / 1000);
    const perUpdate = (p: Peer): string => `${Math.round(bytes.get(p)! / total).toLocaleString('en-US')} B/update`;
    for (const other of others) {
      const ratio = rate(ours) / rate(other);
      // Issue 26: 16 writers at least 5x SqliteSaver at the same durability, 10x the whole-file rewrite.
      const need = other.name.startsWith('LangGraph') ? 5 : 10;
      rows.push({
        name: `${total.toLocaleString('en-US')} updates to one session by ${writers === 1 ? 'one writer' : `${writers} concurrent writers`}: baton vs ${other.name}`,
        baton: `${rate(ours).toFixed(0)} /s, ${perUpdate(ours)}`,
        baseline: `${rate(other).toFixed(0)} /s, ${perUpdate(other)}`,
        ratio,
        target: writers === 1 ? 'reference (no target)' : `≥ ${need}×`,
        pass: writers === 1 ? true : ratio >= need,
      });
    }
    for (const p of all) await p.close();
  }
  return rows;
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  const work = fs.mkdtempSync(path.join(os.tmpdir(), 'baton-bench-'));
  try {
    for (const r of await peers(process.argv.includes('--quick'), work)) console.log(rowLine(r));
  } finally {
    fs.rmSync(work, { recursive: true, force: true });
  }
}
