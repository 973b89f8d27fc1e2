/**
 * What every torture trial shares: the stores it runs on (a fresh file store folder, or a
 * fresh schema on a PostgreSQL server), its result row, sizes, and child writer processes.
 */
import { spawn } from 'node:child_process';
import crypto from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { FileStore } from '../../src/store/file/store.js';
import { PostgresStore } from '../../src/store/postgres/store.js';
import type { SessionStore } from '../../src/store/types.js';

/** The repository root. */
export const REPO = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');

/** A kind of store the trials run on. */
export interface Target {
  kind: 'file' | 'postgres';
  /** A fresh, empty store: a `.baton` folder or a `postgres://…?schema=` URL. */
  fresh(): string;
  /** Opens the store at `spec` (made by {@link fresh}). */
  open(spec: string): SessionStore;
  /** Removes everything {@link fresh} made. */
  cleanup(): Promise<void>;
}

/** The file store in temp folders. */
export function fileTarget(): Target {
  const made: string[] = [];
  return {
    kind: 'file',
    fresh() {
      const base = fs.mkdtempSync(path.join(os.tmpdir(), 'baton-torture-'));
      made.push(base);
      const root = path.join(base, '.baton');
      FileStore.init(root);
      return root;
    },
    open: (spec) => new FileStore({ root: spec }),
    async cleanup() {
      for (const d of made.splice(0)) fs.rmSync(d, { recursive: true, force: true });
    },
  };
}

/** PostgreSQL at `url`, one fresh schema per store (dropped by cleanup). */
export function pgTarget(url: string): Target {
  const schemas: string[] = [];
  return {
    kind: 'postgres',
    fresh() {
      const schema = `torture_${crypto.randomBytes(5).toString('hex')}`;
      schemas.push(schema);
      const u = new URL(url);
      u.searchParams.set('schema', schema);
      return u.toString();
    },
    open: (spec) => new PostgresStore({ url: spec }),
    async cleanup() {
      const pg = (await import('pg')).default;
      const c = new pg.Client({ connectionString: url });
      await c.connect();
      try {
        for (const s of schemas.splice(0)) await c.query(`DROP SCHEMA IF EXISTS "${s}" CASCADE`);
      } finally {
        await c.end();
      }
    },
  };
}

/** One row of the table. */
export interface TrialResult {
  trial: string;
  store: Target['kind'];
  /** What full size asks for, and how much was done within the time budget. */
  planned: number;
  done: number;
  unit: string;
  /** Every broken guarantee found (empty: passed). */
  problems: string[];
  seconds: number;
  /** What the numbers were, in a few words (kills that tore a line, failures seen…). */
  detail: string;
}

/** The sizes of the trials: full (`npm run torture`) or small (the test suite). */
export interface Sizes {
  kills: number;
  writers: number;
  appendsPerWriter: number;
  mcpCalls: number;
  cliCalls: number;
  takeovers: number;
  /** Damage kinds of the corruption matrix run per kind (1 = each once). */
  damageRounds: number;
  /** Random journal damages (fast-check runs). */
  randomDamage: number;
}

/** Full size, as the issue asks. */
export const FULL: Sizes = {
  kills: 1000,
  writers: 16,
  appendsPerWriter: 500,
  mcpCalls: 20_000,
  cliCalls: 5_000,
  takeovers: 100,
  damageRounds: 3,
  randomDamage: 300,
};
/** What every test run does: the same code, a few seconds per trial. */
export const SMALL: Sizes = {
  kills: 4,
  writers: 3,
  appendsPerWriter: 8,
  mcpCalls: 150,
  cliCalls: 40,
  takeovers: 2,
  damageRounds: 1,
  randomDamage: 5,
};

/** A child process's stdout lines (as they come), exit, and stderr. */
export interface Child {
  lines: string[];
  onLine: ((line: string) => void) | null;
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
  stderr: () => string;
  kill: () => void;
}

/** Writers still running, killed if this process ends first (a crash writer never stops by itself). */
const running = new Set<import('node:child_process').ChildProcess>();
process.on('exit', () => {
  for (const c of running) c.kill('SIGKILL');
});

/** Starts `node bench/torture/writer.mjs …args`. */
export function writer(args: string[]): Child {
  const child = spawn(process.execPath, [path.join(REPO, 'bench/torture/writer.mjs'), ...args], {
    cwd: REPO,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  running.add(child);
  child.on('exit', () => running.delete(child));
  let buffered = '';
  let err = '';
  const c: Child = {
    lines: [],
    onLine: null,
    exited: new Promise((resolve, reject) => {
      child.on('error', reject);
      child.on('exit', (code, signal) => resolve({ code, signal }));
    }),
    stderr: () => err,
    kill: () => void child.kill('SIGKILL'),
  };
  child.stdout.setEncoding('utf8');
  child.stdout.on('data', (chunk: string) => {
    buffered += chunk;
    const lines = buffered.split('\n');
    buffered = lines.pop()!; // only complete lines count
    for (const l of lines) {
      c.lines.push(l);
      c.onLine?.(l);
    }
  });
  child.stderr.setEncoding('utf8');
  child.stderr.on('data', (s: string) => (err += s));
  return c;
}

/** Sleeps `ms`. */
export const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

/** Runs `body` and times it into a result row. */
export async function timed(
  trial: string,
  store: Target['kind'],
  planned: number,
  unit: string,
  body: (r: TrialResult) => Promise<void>,
): Promise<TrialResult> {
  const r: TrialResult = { trial, store, planned, done: 0, unit, problems: [], seconds: 0, detail: '' };
  const t0 = performance.now();
  try {
    await body(r);
  } catch (e) {
    r.problems.push(`trial crashed: ${e instanceof Error ? (e.stack ?? e.message) : String(e)}`);
  }
  r.seconds = (performance.now() - t0) / 1000;
  return r;
}
