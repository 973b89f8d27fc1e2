/**
 * A journal replaced under a live writer (issue 25): a real process adds 400 notes, 5 ms
 * apart, through the library, while this test replaces its journal by a copy of itself again
 * and again at random moments, as sync tools, backups, editors and `git checkout` do: the
 * copy taken and moved over at once, moved over a few ms after it was taken (so the writer has
 * appended in between and the copy lacks it), or by `cp journal.jsonl x && mv x journal.jsonl`
 * in a shell. Afterwards the session loads without CORRUPT and holds every note the writer was
 * told was acknowledged, each once, in order.
 */
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { SessionManager } from '../../src/manager/manager.js';
import { dataEndOf } from '../../src/store/file/journal.js';
import { FileStore } from '../../src/store/file/store.js';
import { expectContiguous } from '../../src/testing/conformance.js';
import { tempStoreDir } from './helpers.js';

const REPO = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const WRITER = path.join(REPO, 'test/fixtures/note-writer.ts');
const NOTES = 400;

interface Outcome {
  acked: number[];
  failed: string[];
  replaced: number;
  /** Replacements whose copy was shorter than the journal it was moved over: it lacked appends. */
  older: number;
  stderr: string;
}

type Way = 'at-once' | 'late-move' | 'shell';

/** Runs the writer while replacing its journal `way`, until it reports `done`. */
function race(root: string, id: string, way: Way): Promise<Outcome> {
  const journal = path.join(root, 'sessions', id, 'journal.jsonl');
  const out: Outcome = { acked: [], failed: [], replaced: 0, older: 0, stderr: '' };
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['--import', 'tsx', WRITER, root, id, String(NOTES), '5'], {
      cwd: REPO,
      stdio: ['pipe', 'pipe', 'pipe'],
    });
    let stopped = false;
    let inFlight: Promise<void> = Promise.resolve();
    let n = 0;
    const moveOver = (tmp: string): void => {
      // Lines only: zero bytes at the end are room a writer set aside (append.ts).
      const lacks = dataEndOf(fs.readFileSync(tmp)) < dataEndOf(fs.readFileSync(journal));
      fs.renameSync(tmp, journal);
      out.replaced += 1;
      if (lacks) out.older += 1;
    };
    const replaceOnce = async (): Promise<void> => {
      const tmp = `${journal}.copy-${n++}`;
      if (way === 'shell') {
        await new Promise<void>((done, fail) => {
          const sh = spawn('sh', ['-c', `cp "$1" "$2" && mv "$2" "$1"`, 'sh', journal, tmp], { stdio: 'ignore' });
          sh.on('exit', (code) => (code === 0 ? done() : fail(new Error(`cp && mv exited ${code}`))));
        });
        out.replaced += 1;
        return;
      }
      fs.copyFileSync(journal, tmp);
      if (way === 'late-move') await new Promise((r) => setTimeout(r, 1 + Math.random() * 12));
      moveOver(tmp);
    };
    const loop = (): void => {
      if (stopped) return;
      setTimeout(() => {
        if (stopped) return;
        inFlight = inFlight.then(replaceOnce).then(loop);
        inFlight.catch(reject);
      }, Math.random() * 15);
    };
    let buffered = '';
    child.stdout.setEncoding('utf8');
    child.stdout.on('data', (chunk: string) => {
      buffered += chunk;
      const lines = buffered.split('\n');
      buffered = lines.pop()!;
      for (const line of lines) {
        const [word, a] = line.split(' ');
        if (word === 'ready') loop();
        else if (word === 'ack') out.acked.push(Number(a));
        else if (word === 'fail') out.failed.push(line);
        else if (word === 'done') {
          // No replacement is left half done when the writer lets the session go.
          stopped = true;
          void inFlight.then(() => child.stdin.end(), reject);
        }
      }
    });
    child.stderr.setEncoding('utf8');
    child.stderr.on('data', (c: string) => (out.stderr += c));
    child.on('error', reject);
    child.on('exit', (code) => (code === 0 ? resolve(out) : reject(new Error(`writer exited ${code}: ${out.stderr}`))));
  });
}

/** What a fresh store reads of the session: loads without CORRUPT, contiguous, the notes in order. */
async function notesOf(root: string, id: string): Promise<string[]> {
  const store = new FileStore({ root });
  try {
    const state = await new SessionManager({ store, agent: 'check' }).get(id);
    expectContiguous(await store.readEvents(id));
    return state.notes.map((n) => n.text);
  } finally {
    await store.close();
  }
}

describe('a journal replaced by a copy of itself under a live writer', () => {
  it.each<Way>(['at-once', 'late-move', 'shell'])(
    'loses no acknowledged note (%s)',
    async (way) => {
      const { root, remove } = tempStoreDir();
      try {
        await check(root, way);
      } finally {
        remove();
      }
    },
    120_000,
  );
});

async function check(root: string, way: Way): Promise<void> {
  const id = `replaced-${way}`;
  const o = await race(root, id, way);
  expect(o.failed, o.stderr).toEqual([]);
  expect(o.acked).toEqual(Array.from({ length: NOTES }, (_, i) => i + 1));
  expect(o.replaced).toBeGreaterThan(20);
  if (way === 'late-move') expect(o.older, 'copies that lacked appends when moved over').toBeGreaterThan(5);
  expect(await notesOf(root, id)).toEqual(o.acked.map((i) => `note ${i}`));
  // Nothing but the journal, its snapshots and the lock's leftovers: no copy stayed behind.
  const left = fs.readdirSync(path.join(root, 'sessions', id)).filter((f) => f.includes('.copy-'));
  expect(left).toEqual([]);
}
