/**
 * Reads a whole Maestro tree: finds the state dir(s), reads the active session and the
 * archive, and reports what is wrong between files (an archive copied instead of moved, two
 * active files, a design gate approved for another session). Maestro defines no heartbeat or
 * age limit, so a live session is never called stale here: we do not invent a limit.
 */
import type { ReadResult, SafeDir } from '../safe-dir.js';
import type { FormatProblem, ForeignSession, InspectReport } from '../types.js';
import { hashSources, parseDocument, problem, str } from '../util.js';
import { DEFAULT_STATE_DIRS } from './plans.js';
import { readSessionFile } from './session.js';

const GATE = /\.design-gate\.json$/;

function join(a: string, b: string): string {
  return a === '' ? b : `${a}/${b}`;
}

/** State dirs under the root: the root itself, `.gemini/`, `docs/maestro/` (both defaults). */
export async function findStateDirs(dir: SafeDir): Promise<{ dirs: string[]; problems: FormatProblem[] }> {
  const dirs: string[] = [];
  const problems: FormatProblem[] = [];
  for (const cand of ['', ...DEFAULT_STATE_DIRS]) {
    for (const sub of cand === '' ? ['state'] : [cand, join(cand, 'state')]) {
      const chk = await dir.check(sub);
      if (!chk.ok) {
        problems.push({
          ...chk.problem,
          hint: 'Maestro refuses a state dir that is a link (ensure-workspace); point MAESTRO_STATE_DIR at a real folder inside the project.',
        });
        break;
      }
    }
    if (problems.some((p) => p.path === cand || p.path === join(cand, 'state'))) continue;
    const hasState = await dir.exists(join(cand, 'state'));
    const hasPlans = cand !== '' && (await dir.exists(join(cand, 'plans')));
    if (hasState || hasPlans) dirs.push(cand);
  }
  return { dirs, problems };
}

interface Found {
  session: ForeignSession;
  read: ReadResult;
  stateDir: string;
}

function time(s: string | null): number {
  const t = s === null ? NaN : Date.parse(s);
  return Number.isNaN(t) ? -Infinity : t;
}

/** Inspects every Maestro session under `dir`. Never writes, never throws on bad data. */
export async function inspectMaestro(dir: SafeDir): Promise<InspectReport> {
  const { dirs, problems } = await findStateDirs(dir);
  const found: Found[] = [];
  const activeFiles: string[] = [];
  for (const sd of dirs) {
    const activeRel = join(sd, 'state/active-session.md');
    const live = await readSessionFile(dir, activeRel, { stateDir: sd, archived: false });
    if (live.read.kind !== 'missing') activeFiles.push(activeRel);
    if (live.ok) found.push({ session: live.session, read: live.read, stateDir: sd });
    else problems.push(...live.problems);

    const archiveDir = join(sd, 'state/archive');
    const chk = await dir.check(archiveDir);
    if (!chk.ok) problems.push(chk.problem);
    else {
      for (const e of await dir.list(archiveDir)) {
        if (!e.name.endsWith('.md') || e.kind === 'dir') continue;
        const r = await readSessionFile(dir, e.path, { stateDir: sd, archived: true });
        if (r.ok) found.push({ session: r.session, read: r.read, stateDir: sd });
        else problems.push(...r.problems);
      }
    }
  }

  if (activeFiles.length > 1) {
    problems.push(
      problem(
        'TWO_ACTIVE',
        'error',
        `${activeFiles.length} active session files exist (${activeFiles.join(', ')}); Maestro keeps exactly one.`,
        {
          path: activeFiles[0]!,
          hint: 'Keep the one MAESTRO_STATE_DIR points at; archive the other (move it to its state/archive/<id>.md).',
          details: { paths: activeFiles },
        },
      ),
    );
  }

  // One session per id: a live file and an archived copy of the same session are one session.
  const byId = new Map<string, Found[]>();
  for (const f of found) byId.set(f.session.id, [...(byId.get(f.session.id) ?? []), f]);
  const sessions: ForeignSession[] = [];
  for (const [id, group] of byId) {
    if (group.length === 1) {
      sessions.push(group[0]!.session);
      continue;
    }
    sessions.push(mergeCopies(id, group));
  }

  await attachGates(dir, dirs, sessions, problems);
  // Gate files joined a session's sources: its hash covers them too.
  for (const s of sessions) {
    if (s.sources.length > 1 && s.sources.some((p) => GATE.test(p))) {
      const reads: ReadResult[] = [];
      for (const p of s.sources) reads.push(await dir.read(p));
      s.sourceHash = hashSources(reads);
    }
  }

  sessions.sort((a, b) => Number(a.archived) - Number(b.archived) || (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
  return { format: 'maestro', root: dir.root, sessions, problems };
}

/** One session held by several files (live and archived copies, or a reused id): the newest is kept, the others reported. */
function mergeCopies(id: string, group: Found[]): ForeignSession {
  // The newest `updated` wins; on a tie the archived copy (archiving is the last write).
  const kept = [...group].sort(
    (a, b) =>
      time(b.session.updatedAt) - time(a.session.updatedAt) || Number(b.session.archived) - Number(a.session.archived),
  )[0]!;
  const others = group.filter((g) => g !== kept);
  const s = kept.session;
  s.sources = [s.path, ...others.map((o) => o.session.path)];
  s.sourceHash = hashSources([kept.read, ...others.map((o) => o.read)]);
  const live = group.filter((g) => !g.session.archived);
  const archived = group.filter((g) => g.session.archived);
  if (live.length && archived.length) {
    // Seed 000 "Archive Verification" (no active-session.md after archiving): say whether the
    // leftover is byte-identical to the archived copy before advising its removal.
    const identical =
      Buffer.from(live[0]!.read.kind === 'ok' ? live[0]!.read.bytes : []).equals(
        Buffer.from(archived[0]!.read.kind === 'ok' ? archived[0]!.read.bytes : []),
      ) && live[0]!.read.kind === 'ok';
    const leftovers = live.map((g) => g.session.path).join(', ');
    const hint = s.archived
      ? identical
        ? `${leftovers} is byte-identical to ${archived[0]!.session.path}: delete it (Maestro's archive moves the file).`
        : `${leftovers} differs from ${archived[0]!.session.path}: compare them, keep what is newer in the archive, then delete the leftover (Maestro's archive moves the file).`
      : `If the session is finished, replace ${archived[0]!.session.path} with the live file and delete the live one; otherwise delete the archived copy${identical ? ' (they are byte-identical)' : ' (they differ: compare them first)'}.`;
    s.problems.push(
      problem(
        'ARCHIVE_COPIED',
        'error',
        `Session ${id} is both live (${leftovers}) and archived (${archived.map((g) => g.session.path).join(', ')}): the archive was copied, not moved; the copies are ${identical ? 'byte-identical' : 'different'}. Read from ${s.path} (newest).`,
        {
          sessionId: id,
          path: live[0]!.session.path,
          hint,
          details: {
            live: live.map((g) => g.session.path),
            archived: archived.map((g) => g.session.path),
            kept: s.path,
            identical,
          },
        },
      ),
    );
  } else {
    s.problems.push(
      problem(
        'BAD_VALUE',
        'error',
        `Session id ${id} is held by ${group.length} files (${group.map((g) => g.session.path).join(', ')}); read from ${s.path} (newest).`,
        { sessionId: id, path: s.path, details: { field: 'session_id', files: group.map((g) => g.session.path) } },
      ),
    );
  }
  return s;
}

/** Design gates (v1.6 sidecars): each joins the live session of its state dir, or is reported as stranded or lingering. */
async function attachGates(
  dir: SafeDir,
  dirs: string[],
  sessions: ForeignSession[],
  problems: FormatProblem[],
): Promise<void> {
  for (const sd of dirs) {
    const liveHere = sessions.find((s) => !s.archived && s.path === join(sd, 'state/active-session.md'));
    for (const e of await dir.list(join(sd, 'state'))) {
      if (!GATE.test(e.name) || e.kind === 'dir') continue;
      const r = await dir.read(e.path);
      if (r.kind !== 'ok') {
        if (r.kind !== 'missing') problems.push(r.problem);
        continue;
      }
      const parsed = parseDocument(r);
      if (!parsed.ok) {
        problems.push({
          ...parsed.problem,
          hint: 'Delete the design gate file; Maestro re-enters the design gate for the session.',
        });
        continue;
      }
      const fileId = e.name.replace(GATE, '');
      const gateId = str(parsed.value.session_id) ?? fileId;
      if (gateId !== fileId)
        problems.push(
          problem('BAD_VALUE', 'warning', `${e.path} is named after "${fileId}" but is for session "${gateId}".`, {
            sessionId: gateId,
            path: e.path,
            details: { field: 'session_id', file: fileId },
          }),
        );
      if (liveHere && liveHere.id === gateId) {
        liveHere.documents[e.path] = parsed.value;
        liveHere.sources.push(e.path);
        continue;
      }
      const archived = sessions.find((s) => s.archived && s.id === gateId);
      if (liveHere) {
        problems.push(
          problem(
            'DESIGN_GATE_SESSION_MISMATCH',
            'warning',
            `The design gate ${e.path} is for session "${gateId}" but the active session is "${liveHere.id}": its approved design is stranded.`,
            {
              sessionId: liveHere.id,
              path: e.path,
              hint: 'Re-run the design gate for the active session, or delete the stale gate file.',
              details: { gateSession: gateId, activeSession: liveHere.id },
            },
          ),
        );
      } else {
        problems.push(
          problem(
            'DESIGN_GATE_LINGERING',
            'warning',
            `The design gate ${e.path} is for session "${gateId}", which is ${archived ? 'archived' : 'not active'}: a new session reusing the id would inherit its approval.`,
            {
              sessionId: gateId,
              path: e.path,
              hint: 'Delete the gate file (Maestro removes it on archive).',
              details: { gateSession: gateId, archived: Boolean(archived) },
            },
          ),
        );
      }
    }
  }
}

/** How sure we are that `dir` holds a Maestro tree (see FormatAdapter.detect). */
export async function detectMaestro(dir: SafeDir): Promise<number> {
  try {
    const { dirs, problems } = await findStateDirs(dir);
    let best = problems.length ? 0.5 : 0;
    for (const sd of dirs) {
      if (await dir.exists(join(sd, 'state/active-session.md'))) return 1;
      const archived = (await dir.list(join(sd, 'state/archive'))).some((e) => e.name.endsWith('.md'));
      if (archived) best = Math.max(best, 0.9);
      else if ((await dir.list(join(sd, 'state'))).some((e) => GATE.test(e.name))) best = Math.max(best, 0.8);
      else if (sd !== '') best = Math.max(best, 0.3);
    }
    return best;
  } catch {
    return 0;
  }
}
