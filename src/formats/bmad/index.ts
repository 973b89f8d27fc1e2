/**
 * The BMAD adapter (BMAD-METHOD PR #1234 session manager, docs/formats/bmad.md): one session per
 * `sessions/<SESSION_ID>.yaml` or `sessions/archive/<SESSION_ID>.yaml`, with
 * `sessions/active-session.yaml` pointing at the active one. Tree-level problems: a dangling
 * or unreadable pointer, two active sessions (two `status: active`, or the pointer against
 * the statuses), a session both live and archived (copied instead of moved), corrupt files.
 */
import type { ReadResult, SafeDir } from '../safe-dir.js';
import type { FormatAdapter, FormatProblem, ForeignSession, ForeignUnit, InspectReport } from '../types.js';
import { parseDocument, problem, reportingAccess, str } from '../util.js';
import { ARCHIVE_DIR, findSessionsDir, idOfFileName, joinRel, POINTER_FILE, sessionFiles } from './layout.js';
import { describePointer, parsePointer, type Pointer } from './pointer.js';
import { readSession, runningAgents } from './read.js';
import { bmadResume, bmadRules, NO_ACTIVE } from './resume.js';
import { bmadExportPlan } from './write.js';

type Doc = Record<string, unknown>;

/** A pointer value that would be a path rather than a file name if joined into one. */
function isPathLike(id: string): boolean {
  return /[\\/\0]/.test(id) || id === '..' || id === '.';
}

/** Codes of a session file that is there but could not be read as a session. */
const BROKEN_FILE_CODES = new Set(['CORRUPT_FILE', 'EMPTY_FILE', 'UNREADABLE']);
interface Found {
  id: string;
  fileId: string;
  read: ReadResult & { kind: 'ok' };
  doc: Doc;
  archived: boolean;
}

async function readFiles(dir: SafeDir, rel: string, archived: boolean, problems: FormatProblem[]): Promise<Found[]> {
  const out: Found[] = [];
  for (const e of await sessionFiles(dir, rel, problems)) {
    const r = await dir.read(e.path);
    const fileId = idOfFileName(e.name);
    if (r.kind !== 'ok') {
      if (r.kind !== 'missing') problems.push({ ...r.problem, sessionId: fileId });
      continue;
    }
    const parsed = parseDocument(r, { yaml: true, sessionId: fileId });
    if (!parsed.ok) {
      problems.push({
        ...parsed.problem,
        hint: 'Fix the YAML by hand or restore it from version control; baton does not guess its content.',
      });
      continue;
    }
    out.push({ id: str(parsed.value['session_id']) ?? fileId, fileId, read: r, doc: parsed.value, archived });
  }
  return out;
}

function newer(a: Found, b: Found): Found {
  const ta = Date.parse(str(a.doc['last_updated']) ?? '') || 0;
  const tb = Date.parse(str(b.doc['last_updated']) ?? '') || 0;
  if (ta === tb) return a.archived ? a : b;
  return ta > tb ? a : b;
}

/** bmad: `_bmad-output/sessions/<id>.yaml`, `active-session.yaml`, `archive/`. */
export const bmadAdapter: FormatAdapter = {
  name: 'bmad',
  description: 'BMAD session manager: _bmad-output/sessions/<id>.yaml, active-session.yaml, archive/',

  async detect(dir: SafeDir): Promise<number> {
    try {
      const { rel } = await findSessionsDir(dir);
      if (rel === null) return 0;
      return rel === '_bmad-output/sessions' ? 0.95 : 0.85;
    } catch {
      return 0;
    }
  },

  inspect: reportingAccess(async (dir: SafeDir): Promise<InspectReport> => {
    const found = await findSessionsDir(dir);
    const problems: FormatProblem[] = [...found.problems];
    const S = found.rel;
    if (S === null) {
      if (problems.length === 0)
        problems.push(
          problem('UNKNOWN_FORMAT', 'error', `No BMAD sessions folder (_bmad-output/sessions/) under ${dir.root}.`, {
            hint: 'Give the project root, its _bmad-output folder or the sessions folder.',
          }),
        );
      return { format: 'bmad', root: dir.root, sessions: [], problems };
    }
    const projectRel = S === '_bmad-output/sessions' ? '' : null;
    const pointerRead = await dir.read(joinRel(S, POINTER_FILE));
    let pointer: Pointer | null = null;
    if (pointerRead.kind === 'ok') {
      const pp = parsePointer(pointerRead);
      pointer = pp.pointer;
      if (pp.problem) problems.push(pp.problem);
      if (pointer)
        problems.push(
          problem('ACTIVE_POINTER', 'info', `${describePointer(pointer)}.`, {
            path: pointer.path,
            sessionId: pointer.id,
            details: { style: pointer.style, sessionId: pointer.id },
          }),
        );
    } else if (pointerRead.kind !== 'missing') problems.push(pointerRead.problem);

    const live = await readFiles(dir, S, false, problems);
    const archEntry = (await dir.list(S)).find(
      (e) => e.name === ARCHIVE_DIR && (e.kind === 'dir' || e.kind === 'link'),
    );
    const archCheck = archEntry ? await dir.check(archEntry.path) : null;
    if (archCheck && !archCheck.ok) problems.push(archCheck.problem);
    const archived = archCheck?.ok ? await readFiles(dir, joinRel(S, ARCHIVE_DIR), true, problems) : [];
    const byId = pairCopies([...live, ...archived], problems);

    const sessions: ForeignSession[] = [];
    const docs = new Map<string, Doc>();
    for (const [id, slot] of byId) {
      let chosen = (slot.live ?? slot.archive)!;
      const extra: ReadResult[] = [];
      if (slot.live && slot.archive) {
        chosen = newer(slot.live, slot.archive);
        const other = chosen === slot.live ? slot.archive : slot.live;
        extra.push(other.read);
        problems.push(
          problem(
            'ARCHIVE_COPIED',
            'warning',
            `Session ${id} is both live (${slot.live.read.path}) and archived (${slot.archive.read.path}): it was copied instead of moved. ${chosen.read.path} is read (${chosen === slot.archive ? 'the archive copy, as new as or newer than the live one' : 'newer'}).`,
            {
              sessionId: id,
              path: slot.live.read.path,
              hint: chosen.archived
                ? `Remove ${slot.live.read.path} (baton export of the closed session does).`
                : `Remove the stale ${slot.archive.read.path}.`,
              details: { live: slot.live.read.path, archive: slot.archive.read.path, chosen: chosen.read.path },
            },
          ),
        );
      }
      if (pointerRead.kind === 'ok') extra.push(pointerRead);
      const extraDocs: Record<string, unknown> = pointer ? { [pointer.path]: pointer.value } : {};
      const { session } = await readSession(
        { dir, read: chosen.read, doc: chosen.doc, archived: chosen.archived, extra, extraDocs, projectRel },
        chosen.fileId,
      );
      // A stale pointer does not make a closed or archived session active (SESSION close
      // archives it and clears the pointer; the session file wins).
      session.active =
        pointer !== null &&
        pointer.id === id &&
        !session.archived &&
        session.rawStatus !== 'closed' &&
        session.rawStatus !== 'completed';
      docs.set(id, chosen.doc);
      sessions.push(session);
    }

    const { ids, target, unreadableTarget } = pointerProblems(S, pointer, sessions, docs, problems);
    statusActiveProblems(sessions, target, pointer, problems);
    for (const s of sessions) {
      const orphans = runningAgents(s);
      reportOrphans(s, orphans);
      s.resume = bmadResume(
        s,
        docs.get(s.id)!,
        pointer,
        pointer?.id ? ids.has(pointer.id) || unreadableTarget !== null : false,
      );
      s.rules = bmadRules(s, orphans, pointer?.id ?? null);
      if (!pointer?.id) s.noActive = NO_ACTIVE;
    }
    return { format: 'bmad', root: dir.root, sessions, problems };
  }),

  exportPlan: bmadExportPlan,
};

/** The session files by id, a live and an archived copy side by side; a second file of the same kind is reported and skipped. */
function pairCopies(files: Found[], problems: FormatProblem[]): Map<string, { live?: Found; archive?: Found }> {
  const byId = new Map<string, { live?: Found; archive?: Found }>();
  for (const f of files) {
    const slot = byId.get(f.id) ?? {};
    const key = f.archived ? 'archive' : 'live';
    if (slot[key]) {
      problems.push(
        problem(
          'BAD_VALUE',
          'warning',
          `${f.read.path} and ${slot[key]!.read.path} both hold session ${f.id}; the first is read.`,
          {
            sessionId: f.id,
            path: f.read.path,
            hint: 'Remove or rename the duplicate.',
            details: { field: 'session_id', value: f.id },
          },
        ),
      );
      continue;
    }
    slot[key] = f;
    byId.set(f.id, slot);
  }
  return byId;
}

/**
 * The active pointer against the sessions read: a path instead of an id, a session that is not
 * there, archived or closed, a copy that differs from its file. Returns the session ids, the
 * pointed session and the problem of a pointed file that could not be read.
 */
function pointerProblems(
  S: string,
  pointer: Pointer | null,
  sessions: ForeignSession[],
  docs: Map<string, Doc>,
  problems: FormatProblem[],
): { ids: Set<string>; target: ForeignSession | null; unreadableTarget: FormatProblem | null } {
  const ids = new Set(sessions.map((s) => s.id));
  const target = pointer && pointer.id !== null ? (sessions.find((s) => s.id === pointer!.id) ?? null) : null;
  const pointedId = pointer?.id ?? null;
  // Problems already reported for the file the pointer names (it exists but could not be read).
  const unreadableTarget =
    pointedId === null
      ? null
      : (problems.find((p) => BROKEN_FILE_CODES.has(p.code) && p.sessionId === pointedId && p.path !== pointer!.path) ??
        null);
  if (pointer && pointedId !== null && !target && isPathLike(pointedId)) {
    problems.push(
      problem(
        'UNSAFE_PATH',
        'error',
        `${pointer.path} names ${JSON.stringify(pointedId)}, which is not a session id but a path${pointedId.includes('..') ? ' climbing out with ".."' : ''}; it was not followed.`,
        {
          path: pointer.path,
          sessionId: null,
          hint: 'Point it at an existing session by its id (SESSION switch), or clear the pointer.',
          details: { pointer: pointedId, style: pointer.style },
        },
      ),
    );
  } else if (pointer && pointedId !== null && !target && unreadableTarget) {
    // Not dangling: the file is there. Its own problem says what is wrong; it also says now
    // that this is the active session, so the way out is fixing the file, not the pointer.
    const i = problems.indexOf(unreadableTarget);
    problems[i] = {
      ...unreadableTarget,
      message: `${unreadableTarget.message} ${pointer.path} names it as the active session.`,
      details: { ...(unreadableTarget.details ?? {}), activePointer: pointer.path },
    };
  } else if (pointer && pointer.id !== null && !target) {
    problems.push(
      problem(
        'DANGLING_ACTIVE',
        'error',
        `${pointer.path} names ${pointer.id}, but there is no ${joinRel(S, `${pointer.id}.yaml`)} (nor an archived copy).`,
        {
          path: pointer.path,
          sessionId: pointer.id,
          hint:
            pointer.style === 'copy'
              ? `The pointer holds a full copy of the session: save it as ${joinRel(S, `${pointer.id}.yaml`)}, or clear the pointer.`
              : 'Clear the pointer, or point it at an existing session (SESSION switch).',
          details: { pointer: pointer.id, style: pointer.style },
        },
      ),
    );
  } else if (target?.archived) {
    problems.push(
      problem(
        'DANGLING_ACTIVE',
        'warning',
        `${pointer!.path} names ${target.id}, which is closed and archived; SESSION close should have cleared the pointer.`,
        {
          path: pointer!.path,
          sessionId: target.id,
          hint: 'Clear the pointer.',
          details: { pointer: target.id, archived: true },
        },
      ),
    );
  } else if (target && target.rawStatus === 'closed') {
    problems.push(
      problem(
        'REGISTRY_MISMATCH',
        'warning',
        `${pointer!.path} names ${target.id}, whose status is closed; the session file wins (no active session).`,
        {
          path: pointer!.path,
          sessionId: target.id,
          hint: 'Clear the pointer and move the session to the archive (SESSION close).',
          details: { pointer: target.id, status: 'closed' },
        },
      ),
    );
  }
  if (target && pointer!.style === 'copy') {
    const copy = pointer!.value as Doc;
    const d = docs.get(target.id)!;
    const differs = ['status', 'last_updated'].filter((k) => JSON.stringify(copy[k]) !== JSON.stringify(d[k]));
    if (differs.length > 0) {
      problems.push(
        problem(
          'REGISTRY_MISMATCH',
          'info',
          `The copy of ${target.id} in ${pointer!.path} differs from ${target.path} in ${differs.join(', ')}; the session file wins.`,
          { path: pointer!.path, sessionId: target.id, details: { fields: differs } },
        ),
      );
    }
  }
  return { ids, target, unreadableTarget };
}

/**
 * A BMAD agent is a Task-tool subprocess of the conversation that spawned it: on files at
 * rest, one still `running` (completed: null) has nothing to reattach to, whatever the
 * session's status (issue 27: an active session's agent was "continued" instead).
 */
function reportOrphans(s: ForeignSession, orphans: ForeignUnit[]): void {
  if (orphans.length === 0) return;
  const where = s.archived
    ? 'archived'
    : s.rawStatus !== null && s.rawStatus !== 'active'
      ? s.rawStatus
      : 'active, but no conversation is attached to it';
  s.problems.push(
    problem(
      'ORPHANED_AGENT',
      'warning',
      `${s.id} is ${where}; agent${orphans.length === 1 ? '' : 's'} ${orphans.map((u) => u.id).join(', ')} ${orphans.length === 1 ? 'is' : 'are'} still marked running (completed: null): orphaned.`,
      {
        sessionId: s.id,
        path: s.path,
        hint: 'Check their output files and mark them completed or failed.',
        details: { agents: orphans.map((u) => u.id) },
      },
    ),
  );
}

/** BMAD keeps one active session: more than one with status active, or one other than the pointer's, is TWO_ACTIVE. */
function statusActiveProblems(
  sessions: ForeignSession[],
  target: ForeignSession | null,
  pointer: Pointer | null,
  problems: FormatProblem[],
): void {
  const statusActive = sessions.filter((s) => !s.archived && s.rawStatus === 'active').map((s) => s.id);
  if (statusActive.length > 1) {
    problems.push(
      problem(
        'TWO_ACTIVE',
        'error',
        `${statusActive.length} sessions have status active (${statusActive.join(', ')}); BMAD keeps one active session.`,
        {
          hint: `Pause or close all but ${target?.id ?? 'one'} (the pointer names ${pointer?.id ?? 'none'}).`,
          details: { statusActive, pointer: pointer?.id ?? null },
        },
      ),
    );
  } else if (target && statusActive.length === 1 && statusActive[0] !== target.id) {
    problems.push(
      problem('TWO_ACTIVE', 'error', `${pointer!.path} names ${target.id} but ${statusActive[0]} has status active.`, {
        sessionId: statusActive[0],
        hint: `Pause ${statusActive[0]} or point at it (SESSION switch).`,
        details: { statusActive, pointer: target.id },
      }),
    );
  }
}
