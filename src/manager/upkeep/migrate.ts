/**
 * Copying everything one store holds into another (file ↔ PostgreSQL, or file → file) through
 * the SessionStore contract only: journals event by event (seq kept), checkpoints, archived
 * sessions, tombstones, the registry, the active pointer and readers' cursors. Every session is verified on
 * both sides afterwards (event count and a sha256 over the canonical event list; checkpoint
 * count and checksums). A copy that was interrupted is continued by running it again:
 * sessions already identical are skipped, a target journal that is a prefix of the source
 * gets the rest appended (conditionally), and one that differs is reported by name and never
 * overwritten.
 */
import { fold } from '../../domain/apply.js';
import { canonicalJson } from '../../domain/compare.js';
import { draft } from '../../domain/decide.js';
import { BatonError, isBatonError } from '../../domain/errors.js';
import { hint } from '../../domain/hints.js';
import type { NewEvent, StoredEvent } from '../../domain/events.js';
import type { SessionState } from '../../domain/state.js';
import { summarize } from '../../domain/summary.js';
import type { SessionSummary } from '../../domain/summary.js';
import type { Checkpoint, SessionStore, Tombstone } from '../../store/types.js';
import { nodeCrypto } from '../lazy.js';
import { copyCursors } from './migrate-cursors.js';
import { copyStepResults } from '../steps.js';
import { DEFAULT_SNAPSHOT_EVERY } from '../types.js';

/** Events per append when copying a journal (bounds memory and transaction size). */
export const DEFAULT_MIGRATE_CHUNK = 500;

/** Fields a store adds to an event line for its own bookkeeping; not part of the event. */
const STORE_FIELDS: ReadonlySet<string> = new Set(['v', 'batch', 'crc']);

/** Metadata key marking the stand-in session created only to record a copied tombstone. */
const TOMBSTONE_STAND_IN = 'batonMigrateTombstone';

/** Progress of {@link migrateStore}, one call per session (and per tombstone). */
export interface MigrateProgress {
  /** Sessions handled so far, this one included. */
  done: number;
  total: number;
  sessionId: string;
  /** `skipped`: not copied, see the problems. */
  action: SessionCopy['action'] | 'tombstone' | 'skipped';
  /** Events appended to the target for this session. */
  eventsCopied: number;
}

/** What happened to one session. */
export interface SessionCopy {
  id: string;
  /** `copied`: new on the target; `continued`: the target had a prefix, the rest was appended; `identical`: nothing to do. */
  action: 'copied' | 'continued' | 'identical';
  events: number;
  eventsCopied: number;
  checkpoints: number;
  checkpointsCopied: number;
  archived: boolean;
  /** sha256 over the canonical event list (see {@link journalDigest}). */
  sha256: string;
}

/** One session (or other object) that did not check out. */
export interface MigrateProblem {
  sessionId: string | null;
  code: 'diverged' | 'verify_failed' | 'checkpoint_damaged' | 'checkpoint_differs' | 'tombstone_blocked' | 'source_gap';
  message: string;
}

/** Result of {@link migrateStore}. */
export interface MigrateResult {
  from: { kind: string; location: string };
  to: { kind: string; location: string };
  sessions: SessionCopy[];
  totals: {
    sessions: number;
    events: number;
    eventsCopied: number;
    checkpoints: number;
    checkpointsCopied: number;
    tombstones: number;
    tombstonesCopied: number /** Readers' positions (see migrate-cursors.ts). */;
    cursors: number;
    cursorsCopied: number;
  };
  active: string | null;
  /** Every session, checkpoint, tombstone and the active pointer checked on both sides. */
  verified: boolean;
  /** Problems that need a person; damaged source checkpoints are reported but do not fail verification. */
  problems: MigrateProblem[];
}

/** Options of {@link migrateStore}. */
export interface MigrateOptions {
  /** Events per append (default {@link DEFAULT_MIGRATE_CHUNK}). */
  chunk?: number;
  onProgress?: (p: MigrateProgress) => void;
  now?: () => Date;
}

/**
 * An event as compared across stores: its fields without store bookkeeping (`v`, `batch`,
 * `crc`), as JSON with keys sorted at every level (PostgreSQL's jsonb does not keep key order).
 */
export function canonicalEvent(e: StoredEvent): string {
  const out: Record<string, unknown> = {};
  for (const k of Object.keys(e)) if (!STORE_FIELDS.has(k)) out[k] = (e as Record<string, unknown>)[k];
  return canonicalJson(out);
}

/** sha256 (hex) over the canonical events, one per line: equal on two stores iff the journals are. */
export function journalDigest(events: readonly StoredEvent[]): string {
  const h = nodeCrypto().createHash('sha256');
  for (const e of events) h.update(`${canonicalEvent(e)}\n`);
  return h.digest('hex');
}

function checkpointDigest(c: Checkpoint): string {
  return nodeCrypto().createHash('sha256').update(canonicalJson(c)).digest('hex');
}

/** The event as handed to `create`/`append`: without seq and store bookkeeping. */
function toNew(e: StoredEvent): NewEvent {
  const out: Record<string, unknown> = {};
  for (const k of Object.keys(e)) if (k !== 'seq' && !STORE_FIELDS.has(k)) out[k] = (e as Record<string, unknown>)[k];
  return out as unknown as NewEvent;
}

/**
 * Copies every session, event, checkpoint, tombstone, registry row and the active pointer of
 * `from` into `to`, then verifies both sides. Safe to run again after an interruption (see
 * the module comment). Rejects with `BAD_INPUT` when both are the same store; problems with
 * single sessions are collected in the result (`problems`) and leave the others copied.
 */
export async function migrateStore(
  from: SessionStore,
  to: SessionStore,
  o: MigrateOptions = {},
): Promise<MigrateResult> {
  const chunk = o.chunk ?? DEFAULT_MIGRATE_CHUNK;
  if (!Number.isSafeInteger(chunk) || chunk < 1)
    throw new BatonError('BAD_INPUT', `The chunk size must be a positive number of events; got ${chunk}.`, {
      hint: hint('option.example', { option: 'chunk', value: '500' }),
    });
  // Only a store other processes can open is named by its location: two in-process stores
  // (memory) share a location name but are different stores.
  const sameNamed =
    from.capabilities.multiProcess &&
    to.capabilities.multiProcess &&
    from.kind === to.kind &&
    from.location === to.location;
  if (from === to || sameNamed) {
    throw new BatonError('BAD_INPUT', `The source and the target are the same store (${from.location}).`, {
      hint: hint('migrate.two-stores'),
    });
  }
  const now = o.now ?? (() => new Date());
  const problems: MigrateProblem[] = [];
  const listed = await from.list();
  const ids = [...new Set([...listed.summaries.map((s) => s.id), ...listed.missing])].sort();
  const tombstones = await from.listTombstones();
  const total = ids.length + tombstones.length;
  let done = 0;

  // Tombstones first: a stand-in for a deleted id must not meet a live session of that id.
  const tombstonesCopied = await copyTombstones(to, tombstones, problems, now, (id) =>
    o.onProgress?.({ done: ++done, total, sessionId: id, action: 'tombstone', eventsCopied: 0 }),
  );

  const sessions: SessionCopy[] = [];
  const rows: SessionSummary[] = [];
  for (const id of ids) {
    const r = await copySession(from, to, id, chunk, problems);
    if (r) {
      sessions.push(r.copy);
      rows.push(r.row);
    }
    o.onProgress?.({
      done: ++done,
      total,
      sessionId: id,
      action: r?.copy.action ?? 'skipped',
      eventsCopied: r?.copy.eventsCopied ?? 0,
    });
  }
  if (rows.length) await to.putSummaries(rows);
  const cursors = await copyCursors(from, to);

  const active = await from.getActive();
  if (active !== null && (await to.exists(active).catch(() => false)) && (await to.getActive()) !== active)
    await to.setActive(active);

  const verified = await verify(from, to, ids, tombstones, active, problems);
  return {
    from: { kind: from.kind, location: from.location },
    to: { kind: to.kind, location: to.location },
    sessions,
    totals: {
      sessions: sessions.length,
      events: sessions.reduce((n, s) => n + s.events, 0),
      eventsCopied: sessions.reduce((n, s) => n + s.eventsCopied, 0),
      checkpoints: sessions.reduce((n, s) => n + s.checkpoints, 0),
      checkpointsCopied: sessions.reduce((n, s) => n + s.checkpointsCopied, 0),
      tombstones: tombstones.length,
      tombstonesCopied,
      cursors: cursors.cursors,
      cursorsCopied: cursors.copied,
    },
    active,
    verified,
    problems,
  };
}

async function copySession(
  from: SessionStore,
  to: SessionStore,
  id: string,
  chunk: number,
  problems: MigrateProblem[],
): Promise<{ copy: SessionCopy; row: SessionSummary } | null> {
  const events = await from.readEvents(id);
  const gap = events.findIndex((e, i) => e.seq !== i + 1);
  if (gap !== -1) {
    problems.push({
      sessionId: id,
      code: 'source_gap',
      message: `Session ${id} on the source has a gap in its journal at event ${gap + 1}; not copied. Run \`baton repair --session ${id}\` there first.`,
    });
    return null;
  }
  const sourceArchived = await from.isArchived(id);
  let have: StoredEvent[] = [];
  const existed = await to.exists(id);
  if (existed) {
    have = await to.readEvents(id);
    const differs =
      have.length > events.length || have.some((e, i) => canonicalEvent(e) !== canonicalEvent(events[i]!));
    if (differs) {
      problems.push({
        sessionId: id,
        code: 'diverged',
        message: `Session ${id} already exists on the target with a different history (${have.length} events there, ${events.length} here); left as it is.`,
      });
      return null;
    }
  }
  let state: SessionState | null = fold(null, have, id);
  let revision = have.length;
  let copied = 0;
  for (let i = revision; i < events.length; i += chunk) {
    const part = events.slice(i, i + chunk);
    state = fold(state, part, id)!;
    state.id = id;
    const summary = summarize(state);
    if (revision === 0 && !existed) await to.create(id, part.map(toNew), summary);
    else await to.append(id, revision, part.map(toNew), { summary });
    revision += part.length;
    copied += part.length;
  }
  if (!state) {
    problems.push({
      sessionId: id,
      code: 'source_gap',
      message: `Session ${id} on the source has no events; not copied.`,
    });
    return null;
  }
  if (copied > 0 && events.length >= DEFAULT_SNAPSHOT_EVERY) {
    // Only a speed-up for loading; the journal is the truth.
    await to.writeSnapshot(id, { revision: events.length, state }).catch((e: unknown) => {
      if (!isBatonError(e)) throw e;
    });
  }
  const cps = await copyCheckpoints(from, to, id, problems);
  await copyStepResults(from, to, state);
  if (sourceArchived && !(await to.isArchived(id))) await to.archive(id);
  const row = { ...summarize(state), archived: sourceArchived };
  return {
    copy: {
      id,
      action: copied === 0 ? 'identical' : existed ? 'continued' : 'copied',
      events: events.length,
      eventsCopied: copied,
      checkpoints: cps.valid,
      checkpointsCopied: cps.copied,
      archived: sourceArchived,
      sha256: journalDigest(events),
    },
    row,
  };
}

async function copyCheckpoints(
  from: SessionStore,
  to: SessionStore,
  id: string,
  problems: MigrateProblem[],
): Promise<{ valid: number; copied: number }> {
  const source = await from.listCheckpoints(id);
  const there = new Map((await to.listCheckpoints(id)).map((c) => [c.id, c]));
  let valid = 0;
  let copied = 0;
  for (const c of source) {
    if (!c.valid) {
      problems.push({
        sessionId: id,
        code: 'checkpoint_damaged',
        message: `Checkpoint ${c.id} of session ${id} is damaged on the source (${c.problem}); not copied.`,
      });
      continue;
    }
    valid++;
    const t = there.get(c.id);
    if (!t) {
      await to.saveCheckpoint(id, c.checkpoint);
      copied++;
    } else if (!t.valid || checkpointDigest(t.checkpoint) !== checkpointDigest(c.checkpoint)) {
      problems.push({
        sessionId: id,
        code: 'checkpoint_differs',
        message: `Checkpoint ${c.id} of session ${id} already exists on the target with other content; left as it is.`,
      });
    }
  }
  return { valid, copied };
}

/**
 * The contract records a tombstone only when a session is deleted, so each tombstone the
 * target lacks is recorded by deleting a stand-in session of that id (marked in its metadata,
 * archived first when the deleted one was). A stand-in left by an interrupted run is finished.
 */
async function copyTombstones(
  to: SessionStore,
  tombstones: Tombstone[],
  problems: MigrateProblem[],
  now: () => Date,
  progress: (id: string) => void,
): Promise<number> {
  const key = (t: Tombstone): string => `${t.id}\u0000${t.deletedAt}`;
  const there = new Set((await to.listTombstones()).map(key));
  let copied = 0;
  for (const t of tombstones) {
    if (!there.has(key(t))) {
      if (await to.exists(t.id)) {
        const stale = await isStandIn(to, t.id);
        if (stale === null) {
          problems.push({
            sessionId: t.id,
            code: 'tombstone_blocked',
            message: `The tombstone of deleted session ${t.id} was not copied: the target has a session ${t.id}.`,
          });
          progress(t.id);
          continue;
        }
        if (!(await to.isArchived(t.id)) && t.archived) await to.archive(t.id);
        await to.delete(t.id, stale, { deletedAt: t.deletedAt, title: t.title, status: t.status });
      } else {
        const time = now().toISOString();
        const created = {
          ...draft('session.created', {
            title: t.title,
            idFormat: 'explicit',
            phases: [],
            budgetMax: null,
            contextSummary: null,
            metadata: { [TOMBSTONE_STAND_IN]: true },
          }),
          time,
          actor: { agent: 'baton-migrate', pid: process.pid, host: 'migrate' },
        } as NewEvent;
        const state = fold(null, [{ ...created, seq: 1 } as StoredEvent], t.id)!;
        await to.create(t.id, [created], summarize(state));
        if (t.archived) await to.archive(t.id);
        await to.delete(t.id, 1, { deletedAt: t.deletedAt, title: t.title, status: t.status });
      }
      there.add(key(t));
      copied++;
    }
    progress(t.id);
  }
  return copied;
}

/** The revision of a stand-in session (see {@link copyTombstones}); null for a real session. */
async function isStandIn(store: SessionStore, id: string): Promise<number | null> {
  const events = await store.readEvents(id);
  const first = events[0] as (StoredEvent & { data: { metadata?: Record<string, unknown> } }) | undefined;
  if (events.length !== 1 || first?.type !== 'session.created' || first.data.metadata?.[TOMBSTONE_STAND_IN] !== true)
    return null;
  return 1;
}

async function verify(
  from: SessionStore,
  to: SessionStore,
  ids: string[],
  tombstones: Tombstone[],
  active: string | null,
  problems: MigrateProblem[],
): Promise<boolean> {
  const before = problems.length;
  const fail = (sessionId: string | null, message: string): void => {
    problems.push({ sessionId, code: 'verify_failed', message });
  };
  for (const id of ids) {
    if (problems.some((p) => p.sessionId === id && (p.code === 'diverged' || p.code === 'source_gap'))) continue;
    if (!(await to.exists(id))) {
      fail(id, `Session ${id} is missing on the target.`);
      continue;
    }
    const [a, b] = [await from.readEvents(id), await to.readEvents(id)];
    if (a.length !== b.length || journalDigest(a) !== journalDigest(b)) {
      fail(
        id,
        `Session ${id} differs after the copy: ${a.length} events (sha256 ${journalDigest(a).slice(0, 12)}) on the source, ${b.length} (sha256 ${journalDigest(b).slice(0, 12)}) on the target. If the source was written meanwhile, run the migration again.`,
      );
      continue;
    }
    const ca = (await from.listCheckpoints(id)).flatMap((c) =>
      c.valid ? [`${c.id}:${checkpointDigest(c.checkpoint)}`] : [],
    );
    const cbAll = await to.listCheckpoints(id);
    const cb = new Set(cbAll.flatMap((c) => (c.valid ? [`${c.id}:${checkpointDigest(c.checkpoint)}`] : [])));
    const missing = ca.filter((x) => !cb.has(x));
    if (missing.length)
      fail(
        id,
        `Session ${id}: ${missing.length} of ${ca.length} checkpoint(s) missing or different on the target (${missing.map((x) => x.split(':')[0]).join(', ')}).`,
      );
    if ((await from.isArchived(id)) !== (await to.isArchived(id)))
      fail(
        id,
        `Session ${id} is ${(await from.isArchived(id)) ? '' : 'not '}archived on the source but not so on the target.`,
      );
  }
  const there = new Set((await to.listTombstones()).map((t) => `${t.id}\u0000${t.deletedAt}`));
  const lost = tombstones.filter((t) => !there.has(`${t.id}\u0000${t.deletedAt}`));
  if (lost.length)
    fail(null, `${lost.length} tombstone(s) missing on the target: ${lost.map((t) => t.id).join(', ')}.`);
  if (active !== null && (await to.getActive()) !== active) fail(null, `The target's active session is not ${active}.`);
  return (
    problems.slice(before).length === 0 &&
    !problems.some(
      (p) =>
        p.code === 'diverged' ||
        p.code === 'source_gap' ||
        p.code === 'checkpoint_differs' ||
        p.code === 'tombstone_blocked',
    )
  );
}
