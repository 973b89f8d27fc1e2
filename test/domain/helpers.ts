/**
 * Small builders for domain tests: stored events with a fixed actor and a deterministic
 * clock, sessions folded from `session.created`, and decisions committed by folding their
 * drafts. Nothing here touches a store.
 */
import { expect } from 'vitest';
import { fold } from '../../src/domain/apply.js';
import type { EventDraft } from '../../src/domain/decide.js';
import { BatonError } from '../../src/domain/errors.js';
import type { Actor, EventDataMap, EventType, PhaseSpec, StoredEvent } from '../../src/domain/events.js';
import type { SessionState } from '../../src/domain/state.js';

/** The actor of every built event: no agent, as when a change is made without `--agent` (the data's own agent fields say who worked). */
export const actor: Actor = { agent: null, pid: 4242, host: 'test-host' };

/** ISO time `n` seconds after 2026-03-04T10:00:00Z. */
export function at(n: number): string {
  return new Date(Date.UTC(2026, 2, 4, 10, 0, 0) + n * 1000).toISOString();
}

/** A stored event of a known type. */
export function ev<K extends EventType>(
  type: K,
  data: EventDataMap[K],
  seq: number,
  time: string = at(seq),
): StoredEvent {
  return { type, time, actor, data, seq } as StoredEvent;
}

/** A stored event of any (possibly unknown) type, as read from disk. */
export function rawEvent(type: string, data: unknown, seq: number, extra: Record<string, unknown> = {}): StoredEvent {
  return { type, time: at(seq), actor, data, seq, ...extra } as unknown as StoredEvent;
}

export interface CreateOptions {
  title?: string;
  budgetMax?: number | null;
  metadata?: Record<string, unknown>;
  contextSummary?: string | null;
  id?: string;
}

/** The `session.created` event (seq 1). */
export function created(phases: PhaseSpec[], o: CreateOptions = {}): StoredEvent {
  return ev(
    'session.created',
    {
      title: o.title ?? 'Test session',
      idFormat: 'date',
      phases,
      budgetMax: o.budgetMax ?? null,
      ...(o.contextSummary !== undefined ? { contextSummary: o.contextSummary } : {}),
      ...(o.metadata !== undefined ? { metadata: o.metadata } : {}),
    },
    1,
  );
}

/** A fresh session state folded from `session.created`. */
export function session(phases: PhaseSpec[] = [], o: CreateOptions = {}): SessionState {
  const s = fold(null, [created(phases, o)], o.id ?? 'sess-1');
  if (!s) throw new Error('fold returned null');
  return s;
}

/** Phase specs a, b, c … with no dependencies. */
export function phases(...ids: string[]): PhaseSpec[] {
  return ids.map((id) => ({ id, name: id.toUpperCase() }));
}

/** Turns drafts into stored events following the state's revision. */
export function stored(s: SessionState, drafts: EventDraft[]): StoredEvent[] {
  return drafts.map((d, i) => {
    const seq = s.revision + i + 1;
    return { ...d, time: at(seq), actor, seq } as StoredEvent;
  });
}

/** Folds the drafts into the state (as the manager would after appending them). */
export function commit(s: SessionState, drafts: EventDraft[]): SessionState {
  return fold(s, stored(s, drafts)) as SessionState;
}

/** Runs `fn`, expects a BatonError (optionally with `code`) and returns it. */
export function refusal(fn: () => unknown, code?: string): BatonError {
  let caught: unknown;
  try {
    fn();
  } catch (e) {
    caught = e;
  }
  expect(caught, 'expected a refusal, but the call succeeded').toBeInstanceOf(BatonError);
  const err = caught as BatonError;
  if (code !== undefined) expect(err.code, `${err.code}: ${err.message}`).toBe(code);
  return err;
}

/** Commits each step's drafts in turn; a step maps the current state to the drafts to fold. */
export function play(s: SessionState, ...steps: Array<(s: SessionState) => EventDraft[]>): SessionState {
  for (const step of steps) s = commit(s, step(s));
  return s;
}

/** A fake sha256 made from a short label ("a1" → "a1000…0"), so tests read like content versions. */
export function fakeSha(label: string): string {
  return label.padEnd(64, '0');
}
