/**
 * Events, sessions and checks the conformance groups share, exported for a store's own tests
 * (its `additionalTests` and the rest): fixed actor and times, so every run is reproducible.
 */
import { expect } from 'vitest';
import { fold } from '../domain/apply.js';
import { isBatonError } from '../domain/errors.js';
import type { ErrorCode } from '../domain/errors.js';
import type { Actor, NewEvent, StoredEvent } from '../domain/events.js';
import { newEvent } from '../domain/events.js';
import type { SessionState } from '../domain/state.js';
import { summarize } from '../domain/summary.js';
import type { SessionSummary } from '../domain/summary.js';
import type { Checkpoint, SessionStore } from '../store/types.js';

/** The actor of every event the fixtures make. */
export const ACTOR: Actor = { agent: 'conformance', pid: 4242, host: 'test-host' };
const T0 = Date.parse('2026-01-02T03:04:05.000Z');

/** A timestamp `i` seconds after a fixed origin, so runs are reproducible. */
export function at(i: number): string {
  return new Date(T0 + i * 1000).toISOString();
}

/** A `session.created` event. */
export function createdEvent(title = 'Conformance session', phases: string[] = ['plan', 'build']): NewEvent {
  return newEvent(
    'session.created',
    {
      title,
      idFormat: 'explicit',
      phases: phases.map((p) => ({ id: p, name: p })),
      budgetMax: null,
      contextSummary: null,
      metadata: {},
    },
    at(0),
    ACTOR,
  );
}

/** A `note.added` event numbered `i`. */
export function noteEvent(i: number, text = `note ${i}`): NewEvent {
  return newEvent('note.added', { noteId: `note-${i}`, text, phaseId: null, agent: 'conformance' }, at(i), ACTOR);
}

/** A `tokens.recorded` event. */
export function tokensEvent(i: number, input = 1): NewEvent {
  return newEvent(
    'tokens.recorded',
    { agent: 'conformance', phaseId: null, input, output: 0, cached: 0 },
    at(i),
    ACTOR,
  );
}

/** Gives new events the seqs they get when appended after `revision`. */
export function stored(events: NewEvent[], revision = 0): StoredEvent[] {
  return events.map((e, i) => ({ ...e, seq: revision + i + 1 }) as StoredEvent);
}

/** The state a journal of `events` folds to. */
export function stateOf(id: string, events: StoredEvent[]): SessionState {
  const s = fold(null, events, id);
  if (!s) throw new Error('no session.created among the events');
  return s;
}

/** The registry row of a session whose journal is `events`. */
export function summaryOf(id: string, events: StoredEvent[]): SessionSummary {
  return summarize(stateOf(id, events));
}

/** Creates a session with a `session.created` event and `notes` notes; returns its events as stored. */
export async function seed(store: SessionStore, id: string, notes = 0): Promise<StoredEvent[]> {
  const events = [createdEvent(`Session ${id}`), ...Array.from({ length: notes }, (_, i) => noteEvent(i + 1))];
  const all = stored(events);
  const r = await store.create(id, events, summaryOf(id, all));
  expect(r.revision).toBe(events.length);
  return all;
}

/** A checkpoint of session `id` at the end of `events` (which must be its journal so far). */
export function checkpointOf(id: string, events: StoredEvent[], cpId: string, name = cpId): Checkpoint {
  const state = stateOf(id, events);
  return {
    id: cpId,
    sessionId: id,
    name,
    createdAt: at(events.length),
    revision: state.revision,
    state,
    git: { branch: 'main', head: '0123456789abcdef0123456789abcdef01234567', dirty: false },
    files: [
      { path: 'src/a.ts', sha256: 'ab'.repeat(32), size: 12 },
      { path: 'gone.txt', sha256: null, size: null },
    ],
    trigger: 'manual',
    phaseId: null,
  };
}

/** Resolves with the error `p` rejects with, or fails the test when it resolves. */
export async function rejection(p: Promise<unknown>): Promise<unknown> {
  try {
    await p;
  } catch (e) {
    return e;
  }
  throw new Error('expected the call to be refused, but it succeeded');
}

/** Checks that `p` rejects with a `BatonError` of the given code. */
export async function expectCode(p: Promise<unknown>, code: ErrorCode): Promise<void> {
  const e = await rejection(p);
  if (!isBatonError(e, code)) {
    throw new Error(
      `expected BatonError ${code}, got ${isBatonError(e) ? `BatonError ${e.code}: ${e.message}` : String(e)}`,
    );
  }
}

/** Checks that `events` carry seq `from`, `from + 1`, … with no gap or duplicate. */
export function expectContiguous(events: StoredEvent[], from = 1): void {
  expect(events.map((e) => e.seq)).toEqual(events.map((_, i) => from + i));
}

/** Ids every store must refuse with `BAD_INPUT`, each with what is wrong with it. */
export const BAD_IDS: Array<[string, string]> = [
  ['a path escape', '../x'],
  ['empty', ''],
  ['2,000 characters', 'a'.repeat(2000)],
  ['a separator', 'a/b'],
  ['a leading dot', '.hidden'],
];

/** Resolves after `ms` milliseconds. */
export function sleep(ms: number): Promise<void> {
  return new Promise((r) => setTimeout(r, ms));
}
