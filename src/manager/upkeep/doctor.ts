/**
 * `baton doctor`: checks every session of a store (live and archived) and the store itself,
 * reports each problem with a stable code, and with `fix` repairs what is safe.
 *
 * Checks that need a backend's own layout (raw journal lines, snapshot files, temp files,
 * locks, the registry files) come from the store's optional `doctor` method, which names the
 * codes it covers; everything else runs here over the `SessionStore` contract, so a store
 * without that method still gets the generic version of each check. Repairs go through the
 * store's and the manager's normal paths: a torn tail is cut by `load`, damaged lines are
 * kept by `repair`, the registry is rebuilt by `list`, an expired lease is recorded by an
 * ordinary manager write. Nothing stored is deleted: damaged files are moved aside, and
 * damaged checkpoints are only reported.
 *
 * With `fix`, every check runs again after the repairs; a problem counts as fixed only when
 * that second pass no longer finds it, and anything the repairs uncovered is reported too.
 */
import { basename } from 'node:path';
import { fold } from '../../domain/apply.js';
import { isBatonError } from '../../domain/errors.js';
import type { StoredEvent } from '../../domain/events.js';
import { validateId } from '../../domain/ids.js';
import { leaseExpired } from '../../domain/runs/lease.js';
import { FINAL_STATUSES } from '../../domain/state.js';
import type { SessionState } from '../../domain/state.js';
import { summarize } from '../../domain/summary.js';
import type { SessionSummary } from '../../domain/summary.js';
import { differingKeys, rowDiff } from '../../domain/compare.js';
import type { SessionStore, StoreDoctorResult } from '../../store/types.js';
import { acknowledgeHookProblems } from '../agents/hook-log.js';
import type { HookLogLine } from '../agents/hook-log.js';
import type { OnProgress } from '../progress.js';
import type { ManagerCore as SessionManager } from '../types.js';
import { keyOf, sortProblems } from './doctor-codes.js';
import type { DoctorOptions, DoctorProblem, DoctorReport } from './doctor-codes.js';

/** One problem `baton doctor` found. */

interface Session {
  id: string;
  archived: boolean;
}

/** Journal codes whose session cannot be read until they are repaired. */
const UNREADABLE = new Set([
  'JOURNAL_MISSING',
  'JOURNAL_EMPTY',
  'JOURNAL_CHECKSUM',
  'SEQ_GAP',
  'JOURNAL_CORRUPT',
  'EVENTS_LOST',
]);
/** Journal codes repaired by rebuilding the journal. */
const REBUILD = new Set(['JOURNAL_CHECKSUM', 'SEQ_GAP', 'JOURNAL_CORRUPT', 'EVENTS_LOST']);

/** Checks the store of `m` (and with `fix`, repairs it). */
async function runDoctor(m: SessionManager, o: DoctorOptions = {}): Promise<DoctorReport> {
  const fix = o.fix === true;
  // Progress follows the first pass, which does the work; the check after a fix is quick.
  const first = await new Pass(m, fix, o.agent ?? null, o.onProgress).run();
  let problems = first.problems;
  if (fix) {
    const again = await new Pass(m, false, null).run();
    const left = new Map(again.problems.map((p) => [keyOf(p), p]));
    problems = first.problems.map((p) => {
      const still = left.get(keyOf(p));
      if (still) left.delete(keyOf(p));
      return { ...p, fixed: !still, message: still && p.fixed ? `${p.message}; still found after the fix` : p.message };
    });
    // What the repairs uncovered (or what changed meanwhile).
    problems.push(...left.values());
  }
  problems.push(...hookProblems(m, fix));
  const sessions = first.sessions;
  return {
    ok: problems.every((p) => p.fixed),
    fix,
    location: m.store.location,
    readOnly: m.store.readOnly ?? null,
    sessions: sessions.length,
    archived: sessions.filter((s) => s.archived).length,
    problems: sortProblems(problems),
  };
}

/** The hook log's unacknowledged problems, one per code (with `fix`, acknowledged). */
function hookProblems(m: SessionManager, fix: boolean): DoctorProblem[] {
  const hp = m.hooks.problems();
  if (!hp.total) return [];
  const byCode = new Map<string, HookLogLine[]>();
  for (const l of hp.problems) byCode.set(l.code, [...(byCode.get(l.code) ?? []), l]);
  if (fix) acknowledgeHookProblems(m.hooks.dir, m.time());
  return [...byCode].map(([code, lines]) => {
    const last = lines.at(-1)!;
    const message = `${lines.length} hook problem(s) ${code}${last.cli ? ` from ${last.cli}` : ''}, last at ${last.time}${last.event ? ` (${last.event})` : ''}: ${last.message} — see ${hp.log}`;
    return {
      code: 'HOOK_PROBLEMS',
      sessionId: null,
      message: fix ? `${message}; acknowledged` : message,
      fixable: true,
      fixed: fix,
      path: hp.log,
    };
  });
}

/** One run of every check (and, with `fix`, of the repairs). */
class Pass {
  private readonly store: SessionStore;
  private readonly problems: DoctorProblem[] = [];
  private covered = new Set<string>();
  private sessions: Session[] = [];
  /** Registry rows derived from each readable session (kept instead of whole states). */
  private readonly rows = new Map<string, SessionSummary>();

  constructor(
    private readonly m: SessionManager,
    private readonly fix: boolean,
    private readonly agent: string | null,
    private readonly onProgress?: OnProgress,
  ) {
    this.store = m.store;
  }

  private add(
    code: string,
    sessionId: string | null,
    path: string | null,
    message: string,
    fixable: boolean,
  ): DoctorProblem {
    const p: DoctorProblem = { code, sessionId, message, fixable, fixed: false, path };
    this.problems.push(p);
    return p;
  }

  /** Runs `repair` for a fixable problem in fix mode; notes what it did or why it failed. */
  private async repair(p: DoctorProblem, repair: () => Promise<string>): Promise<void> {
    if (!this.fix || !p.fixable || p.fixed) return;
    try {
      p.message = `${p.message}; ${await repair()}`;
      p.fixed = true;
    } catch (e) {
      if (!(e instanceof Error)) throw e;
      p.message = `${p.message}; the fix failed: ${(e as Error).message}`;
    }
  }

  async run(): Promise<{ problems: DoctorProblem[]; sessions: Session[] }> {
    const res: StoreDoctorResult | null = this.store.doctor ? await this.store.doctor({ fix: this.fix }) : null;
    if (res) {
      this.covered = new Set(res.checked);
      this.problems.push(...res.problems.map((p) => ({ ...p })));
      this.sessions = res.sessions;
    } else {
      this.sessions = await this.listSessions();
    }
    await this.fixJournals();
    const total = this.sessions.length;
    this.onProgress?.({ done: 0, total, item: null });
    for (const [i, s] of this.sessions.entries()) {
      await this.checkSession(s);
      this.onProgress?.({ done: i + 1, total, item: s.id });
    }
    if (!this.covered.has('INDEX_STALE')) await this.checkIndex();
    await this.fixIndex();
    await this.checkActive();
    return { problems: this.problems, sessions: this.sessions };
  }

  /** Sessions of a store without file-level checks: its registry rows and the ones it lacks. */
  private async listSessions(): Promise<Session[]> {
    const l = await this.store.list();
    const ids = [...new Set([...l.summaries.map((s) => s.id), ...l.missing])].sort();
    const out: Session[] = [];
    for (const id of ids) {
      try {
        out.push({ id, archived: await this.store.isArchived(id) });
      } catch (e) {
        if (!isBatonError(e)) throw e; // a row without a session: the index check reports it
      }
    }
    return out;
  }

  /** Damaged journals: rebuilt by `repair`, a torn tail cut by the normal `load`. */
  private async fixJournals(): Promise<void> {
    if (!this.fix) return;
    const byId = new Map<string, DoctorProblem[]>();
    for (const p of this.problems) {
      if (p.sessionId === null || !p.fixable || p.fixed || !(REBUILD.has(p.code) || p.code === 'TORN_TAIL')) continue;
      byId.set(p.sessionId, [...(byId.get(p.sessionId) ?? []), p]);
    }
    for (const [id, ps] of byId) await this.fixJournal(id, ps);
  }

  private async fixJournal(id: string, ps: DoctorProblem[]): Promise<void> {
    const rebuild = ps.some((p) => REBUILD.has(p.code));
    await this.settle(ps, async () => {
      if (rebuild) {
        const reports = this.store.repair ? await this.store.repair(id) : [];
        return reports.length
          ? reports.map((r) => r.message.replace(/^Session [^:]+: /, '').replace(/\.$/, '')).join('; ')
          : 'nothing left to rebuild';
      }
      let r: Awaited<ReturnType<SessionStore['load']>>;
      try {
        r = await this.store.load(id);
      } catch (e) {
        // Not a torn append after all: acknowledged events were lost. Recovered by repair.
        if (!isBatonError(e, 'CORRUPT') || !e.details['lost'] || !this.store.repair) throw e;
        return (await this.store.repair(id))
          .map((x) => x.message.replace(/^Session [^:]+: /, '').replace(/\.$/, ''))
          .join('; ');
      }
      const cut = r.repairs.find((x) => x.kind === 'torn_tail');
      return cut
        ? `cut by the normal open path (a repair.torn_tail event records it); the bytes are kept in ${cut.savedTo ? basename(cut.savedTo) : 'a .torn file'}`
        : 'no torn tail left to cut';
    });
  }

  /** Runs a fix for problems `ps`: marks them fixed with its note, or notes why it failed. */
  private async settle(ps: DoctorProblem[], fix: () => Promise<string>): Promise<void> {
    let note: string;
    try {
      note = await fix();
    } catch (e) {
      if (!isBatonError(e)) throw e;
      for (const p of ps) p.message = `${p.message}; the fix failed: ${e.message}`;
      return;
    }
    for (const p of ps) {
      p.message = `${p.message}; ${note}`;
      p.fixed = true;
    }
  }

  /** The checks of one session that need its state: snapshot (generic), lease, checkpoints. */
  private async checkSession(s: Session): Promise<void> {
    if (this.problems.some((p) => p.sessionId === s.id && UNREADABLE.has(p.code) && !p.fixed)) return;
    let events: StoredEvent[];
    try {
      events = await this.store.readEvents(s.id);
    } catch (e) {
      if (!isBatonError(e)) throw e;
      const p = this.add(
        'JOURNAL_CORRUPT',
        s.id,
        null,
        `session ${s.id} cannot be read: ${e.message}`,
        e.code === 'CORRUPT',
      );
      if (!this.fix || !p.fixable) return;
      await this.fixJournal(s.id, [p]);
      if (!p.fixed) return;
      events = await this.store.readEvents(s.id);
    }
    const state = fold(null, events, s.id);
    if (!state) {
      if (!this.covered.has('JOURNAL_EMPTY'))
        this.add('JOURNAL_EMPTY', s.id, null, `session ${s.id}'s journal holds no session.created event`, false);
      return;
    }
    this.rows.set(s.id, { ...summarize(state), archived: s.archived });
    if (!this.covered.has('SNAPSHOT_MISMATCH')) await this.checkSnapshot(s, events, state);
    if (!s.archived) await this.checkLease(s, state);
    await this.checkCheckpoints(s);
  }

  /** Generic snapshot check: the snapshot `load` starts from equals a replay up to its revision. */
  private async checkSnapshot(s: Session, events: StoredEvent[], full: SessionState): Promise<void> {
    const r = await this.store.load(s.id);
    if (!r.snapshot) return;
    const rev = r.snapshot.revision;
    if (rev > full.revision) {
      // A live writer moved the session on (and snapshotted it) since its events were read.
      events = await this.store.readEvents(s.id);
      full = fold(null, events, s.id) ?? full;
    }
    const replay = fold(
      null,
      events.filter((e) => e.seq <= rev),
      s.id,
    );
    const keys = replay
      ? differingKeys(
          { ...r.snapshot.state, id: s.id } as unknown as Record<string, unknown>,
          replay as unknown as Record<string, unknown>,
        )
      : ['(no session.created)'];
    if (!keys.length) return;
    const p = this.add(
      'SNAPSHOT_MISMATCH',
      s.id,
      'snapshot',
      `the snapshot at revision ${rev} differs from a full replay of the journal in: ${keys.join(', ')}`,
      true,
    );
    await this.repair(p, async () => {
      await this.store.writeSnapshot(s.id, { revision: full.revision, state: full });
      return `replaced by the replayed state at revision ${full.revision}`;
    });
  }

  /** Active, but the lease expired: the run vanished. The fix records it like the next write would. */
  private async checkLease(s: Session, state: SessionState): Promise<void> {
    const lease = state.lease ?? null;
    if (state.status !== 'active' || !lease || !leaseExpired(lease, this.m.time())) return;
    const p = this.add(
      'LEASE_EXPIRED',
      s.id,
      null,
      `session ${s.id} says active, but its lease (${lease.owner}, pid ${lease.pid} on ${lease.host}) expired at ${lease.expiresAt}: it reads as interrupted (lease-expired)`,
      true,
    );
    await this.repair(p, async () => {
      // An ordinary write: the manager records the expiry (lease.expired, session.interrupted) first.
      const r = await this.m.change(s.id, () => ({ events: [], result: undefined }), { agent: this.agent });
      this.rows.set(s.id, { ...summarize(r.state), archived: s.archived });
      return `recorded: now ${r.state.status} (${r.state.statusCause?.cause ?? 'no cause'}) at revision ${r.state.revision}`;
    });
  }

  /** Damaged checkpoints are reported, never deleted. */
  private async checkCheckpoints(s: Session): Promise<void> {
    let list: Awaited<ReturnType<SessionStore['listCheckpoints']>>;
    try {
      list = await this.store.listCheckpoints(s.id);
    } catch (e) {
      if (!isBatonError(e)) throw e;
      this.add(
        'CHECKPOINT_CORRUPT',
        s.id,
        'checkpoints',
        `the checkpoints of session ${s.id} cannot be listed: ${e.message}`,
        false,
      );
      return;
    }
    for (const c of list) {
      if (c.valid) continue;
      this.add(
        'CHECKPOINT_CORRUPT',
        s.id,
        `checkpoint ${c.id}`,
        `checkpoint ${c.id} is damaged (${c.problem}); it is kept as it is. Restores fall back to the previous valid checkpoint; remove it by hand once it is no longer needed`,
        false,
      );
    }
  }

  /** Generic registry check: every session has a row equal to the one its state derives. */
  private async checkIndex(): Promise<void> {
    const l = await this.store.list();
    const rows = new Map(l.summaries.map((r) => [r.id, r]));
    const known = new Set(this.sessions.map((s) => s.id));
    for (const s of this.sessions) {
      const derived = this.rows.get(s.id);
      if (!derived) continue;
      const row = rows.get(s.id);
      if (!row) {
        this.add('INDEX_STALE', s.id, 'registry', `the registry has no row for session ${s.id}`, true);
        continue;
      }
      const diff = rowDiff(row, derived);
      if (diff.length)
        this.add(
          'INDEX_STALE',
          s.id,
          'registry',
          `the registry row of ${s.id} differs from its journal: ${diff.join(', ')}`,
          true,
        );
    }
    for (const id of rows.keys()) {
      if (!known.has(id))
        this.add('INDEX_STALE', id, 'registry', `the registry has a row for session ${id}, which does not exist`, true);
    }
  }

  /** Rebuilds the registry from the sessions when any of it is stale or unreadable. */
  private async fixIndex(): Promise<void> {
    const ps = this.problems.filter(
      (p) => (p.code === 'INDEX_STALE' || p.code === 'INDEX_CORRUPT') && p.fixable && !p.fixed,
    );
    if (!this.fix || !ps.length) return;
    await this.settle(ps, async () => {
      // A plain read first: it moves an unreadable index.json aside instead of overwriting it.
      if (ps.some((p) => p.code === 'INDEX_CORRUPT')) await this.store.list();
      await this.store.list({ rebuild: true });
      const rows = this.sessions.map((s) => this.rows.get(s.id)).filter((r): r is SessionSummary => r !== undefined);
      if (rows.length) await this.store.putSummaries(rows);
      return `registry rebuilt from ${rows.length} session(s)`;
    });
  }

  /** The active pointer, and the rule of one active session per workspace. */
  private async checkActive(): Promise<void> {
    const now = this.m.time();
    const expired = (r: SessionSummary): boolean =>
      typeof r.leaseExpiresAt === 'string' && Date.parse(r.leaseExpiresAt) <= Date.parse(now);
    const running = this.sessions
      .filter((s) => !s.archived)
      .map((s) => this.rows.get(s.id))
      .filter((r): r is SessionSummary => r !== undefined && r.status === 'active' && !expired(r));
    const pointer = await this.store.getActive();
    const only = running.length === 1 ? running[0]!.id : null;
    const repoint = async (from: string | null): Promise<string> =>
      this.store.withWorkspaceLock(async () => {
        if ((await this.store.getActive()) !== from) throw new Error('the active pointer changed meanwhile');
        await this.store.setActive(only);
        return only ? `now points at ${only}, the one active session` : 'cleared';
      });

    let pointerBad = false;
    if (pointer !== null) {
      let valid = true;
      try {
        validateId(pointer);
      } catch {
        valid = false;
      }
      if (!valid || !(await this.store.exists(pointer))) {
        pointerBad = true;
        const p = this.add(
          'ACTIVE_DANGLING',
          null,
          'active',
          `the active pointer names ${JSON.stringify(pointer)}, which does not exist`,
          true,
        );
        await this.repair(p, () => repoint(pointer));
      } else {
        const s = this.sessions.find((x) => x.id === pointer);
        const st = this.rows.get(pointer);
        const why = s?.archived
          ? 'is archived'
          : st && FINAL_STATUSES.includes(st.status)
            ? `has ended (${st.status})`
            : null;
        if (why) {
          pointerBad = true;
          const p = this.add(
            'ACTIVE_NOT_ACTIVE',
            pointer,
            'active',
            `the active pointer names session ${pointer}, which ${why}`,
            true,
          );
          await this.repair(p, () => repoint(pointer));
        }
      }
    }

    if (running.length > 1) {
      const keep =
        running.find((s) => s.id === pointer) ??
        [...running].sort((a, b) => (a.updatedAt < b.updatedAt ? 1 : a.updatedAt > b.updatedAt ? -1 : 0))[0]!;
      for (const st of running) {
        if (st.id === keep.id) continue;
        this.add(
          'DUPLICATE_ACTIVE',
          st.id,
          null,
          `sessions ${keep.id} and ${st.id} are both active; the workspace allows one. Pause ${st.id} (\`baton pause --session ${st.id}\`), or \`baton switch ${st.id}\` to keep it and pause ${keep.id}`,
          false,
        );
      }
    } else if (only !== null && only !== pointer && !pointerBad) {
      if (pointer === null) {
        const p = this.add(
          'ACTIVE_UNPOINTED',
          only,
          'active',
          `session ${only} is active, but the workspace has no active pointer`,
          true,
        );
        await this.repair(p, () => repoint(null));
      } else {
        this.add(
          'ACTIVE_UNPOINTED',
          only,
          'active',
          `session ${only} is active, but the active pointer names ${pointer}. Run \`baton switch ${only}\` to make it the workspace session, or \`baton pause --session ${only}\``,
          false,
        );
      }
    }
  }
}

/** Checking and repairing the store (`manager.maintenance`, `baton doctor`). */
export class Maintenance {
  constructor(private readonly m: SessionManager) {}

  /** See {@link runDoctor}. */
  doctor(o: DoctorOptions = {}): Promise<DoctorReport> {
    return runDoctor(this.m, o);
  }
}
