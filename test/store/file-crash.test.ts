/**
 * Crash safety for real: a child process appends to one session and is killed with SIGKILL
 * at random moments, again and again on the same session. After every kill a fresh store
 * must load the session, hold every append the child was told was durable (at the seq it
 * was told), keep seq contiguous, and repair and report a torn tail if the kill left one.
 */
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { fold } from '../../src/domain/apply.js';
import type { StoredEvent } from '../../src/domain/events.js';
import { decodeRecord } from '../../src/store/file/codec.js';
import { dataEndOf } from '../../src/store/file/journal.js';
import { FileStore } from '../../src/store/file/store.js';
import { expectContiguous, seed } from '../../src/testing/conformance.js';
import { tempStoreDir } from './helpers.js';

const REPO = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const WRITER = path.join(REPO, 'test/fixtures/append-writer.ts');
const KILLS = 36;
const ID = 'crash';

interface Run {
  acks: Array<{ seq: number; eventId: string }>;
  sawBig: boolean;
  exit: { code: number | null; signal: NodeJS.Signals | null };
  stderr: string;
}

/**
 * Starts the writer and SIGKILLs it: `mode` 'random' kills at a random moment 20–400 ms
 * after it is ready; 'big' kills it 1–3.5 ms after it announces a large append (or after
 * 1.5 s), which is when a write may be half done.
 */
function runAndKill(root: string, tag: string, mode: 'random' | 'big'): Promise<Run> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['--import', 'tsx', WRITER, root, ID, tag], {
      cwd: REPO,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    const run: Run = { acks: [], sawBig: false, exit: { code: null, signal: null }, stderr: '' };
    let buffered = '';
    let ready = false;
    let killed = false;
    const timers: NodeJS.Timeout[] = [];
    const kill = (): void => {
      if (killed) return;
      killed = true;
      child.kill('SIGKILL');
    };
    timers.push(
      setTimeout(() => {
        run.stderr += '\n[test] writer never became ready';
        kill();
      }, 20_000),
    );
    child.stdout.setEncoding('utf8');
    child.stdout.on('data', (chunk: string) => {
      buffered += chunk;
      const lines = buffered.split('\n');
      buffered = lines.pop()!; // only complete lines count
      for (const line of lines) {
        const [word, a, b] = line.split(' ');
        if (word === 'ack') run.acks.push({ seq: Number(a), eventId: b! });
        else if (word === 'big') {
          run.sawBig = true;
          if (ready && mode === 'big') {
            // Encoding the large line takes a few ms before its write starts: aim into it.
            const until = performance.now() + 1 + Math.random() * 2.5;
            while (performance.now() < until) {
              // spin: a timer is too coarse here
            }
            kill();
          }
        } else if (word === 'ready' && !ready) {
          ready = true;
          if (mode === 'random') timers.push(setTimeout(kill, 20 + Math.random() * 380));
          else timers.push(setTimeout(kill, 1500));
        }
      }
    });
    child.stderr.setEncoding('utf8');
    child.stderr.on('data', (c: string) => (run.stderr += c));
    child.on('error', reject);
    // 'exit' comes after the child was reaped, so its pid is really gone (a zombie would
    // still look alive to the stale-lock check).
    child.on('exit', (code, signal) => {
      for (const t of timers) clearTimeout(t);
      run.exit = { code, signal };
      resolve(run);
    });
  });
}

/** Independently of the store: does the journal end with an incomplete or damaged line? */
function hasTornTail(journal: string): boolean {
  // Zero bytes at the end are room a killed writer had set aside for its burst, not lines.
  const whole = fs.readFileSync(journal);
  const buf = whole.subarray(0, dataEndOf(whole));
  if (buf.length === 0) return false;
  if (buf[buf.length - 1] !== 10) return true;
  const prev = buf.lastIndexOf(10, buf.length - 2);
  const d = decodeRecord(buf.toString('utf8', prev + 1, buf.length - 1));
  if (!d.ok || typeof d.value['seq'] !== 'number') return true;
  // A multi-event append whose write stopped at a line boundary: its last event is missing.
  const batch = d.value['batch'];
  return Array.isArray(batch) && (batch[1] as number) > (d.value['seq'] as number);
}

/** Writes `bytes` into `file` at `at` (over room, or past the end). */
function writeAt(file: string, bytes: Buffer, at: number): void {
  const fd = fs.openSync(file, 'r+');
  try {
    fs.writeSync(fd, bytes, 0, bytes.length, at);
  } finally {
    fs.closeSync(fd);
  }
}

/** The seq of the journal's last complete line. */
function lastSeqOf(journal: string): number {
  const whole = fs.readFileSync(journal);
  const buf = whole.subarray(0, dataEndOf(whole));
  const start = buf.lastIndexOf(10, buf.length - 2) + 1;
  const d = decodeRecord(buf.toString('utf8', start, buf.length - 1));
  if (!d.ok) throw new Error(`journal's last line does not decode: ${d.reason}`);
  return d.value['seq'] as number;
}

describe('file store crash safety (SIGKILL)', () => {
  const dir = tempStoreDir('baton-crash-');
  afterAll(() => dir.remove());

  it(`survives ${KILLS} SIGKILLs of a writer at random moments`, async () => {
    const started = Date.now();
    const journal = path.join(dir.root, 'sessions', ID, 'journal.jsonl');
    {
      const s = new FileStore({ root: dir.root });
      await seed(s, ID);
      await s.close();
    }
    /** Every acknowledged append so far: the event with this id must sit at this seq. */
    const acked = new Map<number, string>();
    const made = { cut: false, long: false };
    const stats = { kills: 0, tornByKill: 0, tornMade: 0, bigKills: 0, acks: 0, repairsSeen: 0, roomAtKill: 0 };

    const check = async (expectTorn: boolean, label: string): Promise<StoredEvent[]> => {
      const store = new FileStore({ root: dir.root });
      try {
        const r = await store.load(ID);
        const kinds = r.repairs.map((x) => x.kind);
        if (expectTorn) {
          expect(kinds, label).toEqual(['torn_tail']);
          expect(r.events.at(-1)?.type, label).toBe('repair.torn_tail');
          expect(fs.existsSync(r.repairs[0]!.savedTo!), label).toBe(true);
          stats.repairsSeen += 1;
        } else {
          expect(kinds, label).toEqual([]);
        }
        expect(hasTornTail(journal), label).toBe(false);
        const events = await store.readEvents(ID);
        expectContiguous(events);
        expect(r.revision, label).toBe(events.length);
        // load = snapshot + the events after it, and both fold to the same state.
        const from = r.snapshot?.revision ?? 0;
        expect(
          r.events.map((e) => e.seq),
          label,
        ).toEqual(events.slice(from).map((e) => e.seq));
        const viaLoad = fold(r.snapshot?.state ?? null, r.events, ID)!;
        const viaReplay = fold(null, events, ID)!;
        expect(viaLoad.tokens, label).toEqual(viaReplay.tokens);
        expect(viaLoad.notes.length, label).toBe(viaReplay.notes.length);
        expect(viaLoad.contextSummary, label).toBe(viaReplay.contextSummary);
        // Every acknowledged append is there, as the very event acknowledged.
        for (const [seq, eventId] of acked) {
          expect(seq, label).toBeLessThanOrEqual(events.length);
          expect(events[seq - 1]!['eventId'], `${label}: seq ${seq}`).toBe(eventId);
        }
        return events;
      } finally {
        await store.close();
      }
    };

    for (let k = 0; k < KILLS; k++) {
      const mode = k % 2 === 0 ? 'random' : 'big';
      const run = await runAndKill(dir.root, `r${k}`, mode);
      const label = `kill #${k + 1} (${mode})`;
      expect(run.exit.signal, `${label}: writer exited by itself: code ${run.exit.code}\n${run.stderr}`).toBe(
        'SIGKILL',
      );
      expect(run.stderr, label).toBe('');
      stats.kills += 1;
      if (mode === 'big' && run.sawBig) stats.bigKills += 1;
      for (const a of run.acks) acked.set(a.seq, a.eventId);
      stats.acks += run.acks.length;

      // A kill in a burst leaves the room the writer set aside (zero bytes after the lines).
      const left = fs.readFileSync(journal);
      if (dataEndOf(left) < left.length) stats.roomAtKill += 1;
      let torn = hasTornTail(journal);
      if (torn) stats.tornByKill += 1;
      if (!torn && k >= 10 && !made.cut) {
        made.cut = true;
        // Make a torn tail for certain: cut the last line in the middle, as a write that
        // never finished would. That event was never durable, so drop any ack of it.
        const whole = fs.readFileSync(journal);
        const buf = whole.subarray(0, dataEndOf(whole));
        const start = buf.lastIndexOf(10, buf.length - 2) + 1;
        const lastSeq = decodeRecord(buf.toString('utf8', start, buf.length - 1)).ok
          ? (JSON.parse(buf.toString('utf8', start, buf.length - 1)).seq as number)
          : -1;
        const half = start + Math.floor((buf.length - start) / 2);
        // Over room (zero bytes after the lines), an unfinished write leaves its start and
        // the room's zeros after it; at the end of the file, just its start.
        if (whole.length > buf.length) writeAt(journal, Buffer.alloc(buf.length - half), half);
        else fs.truncateSync(journal, half);
        acked.delete(lastSeq);
        torn = true;
        stats.tornMade += 1;
      }
      if (!torn && k >= 20 && !made.long) {
        made.long = true;
        // And a long one, past the store's tail window: half of a 400 KB line.
        // It carries the next seq, as a real write would: a snapshot taken right at the
        // end of the journal must still be used once the tail is cut away.
        const whole = fs.readFileSync(journal);
        writeAt(
          journal,
          Buffer.from(
            `{"v":1,"seq":${lastSeqOf(journal) + 1},"type":"context.updated","data":{"summary":"${'z'.repeat(400_000)}`.slice(
              0,
              200_000,
            ),
          ),
          dataEndOf(whole),
        );
        torn = true;
        stats.tornMade += 1;
      }
      await check(torn, label);
    }

    const events = await check(false, 'final');
    const tmpLeft = fs.readdirSync(path.dirname(journal)).filter((f) => f.includes('.tmp-'));
    const seconds = ((Date.now() - started) / 1000).toFixed(1);
    console.log(
      `[crash test] ${stats.kills} SIGKILLs (${stats.bigKills} aimed at a large append), ${stats.acks} acked appends, ` +
        `${events.length} events / ${(fs.statSync(journal).size / 1e6).toFixed(1)} MB journal; torn tails: ${stats.tornByKill} left by kills, ` +
        `${stats.tornMade} made by the test, ${stats.repairsSeen} repaired and reported; ${stats.roomAtKill} kills left room behind; ${tmpLeft.length} snapshot temp file(s) left by kills; ${seconds}s`,
    );
    expect(stats.kills).toBeGreaterThanOrEqual(30);
    expect(stats.repairsSeen).toBe(stats.tornByKill + stats.tornMade);
    expect(stats.tornMade).toBe(2);
    expect(stats.acks).toBeGreaterThan(KILLS);
    // The room path is exercised: some kills landed while the journal ended in room.
    expect(stats.roomAtKill).toBeGreaterThan(0);
  }, 300_000);
});
