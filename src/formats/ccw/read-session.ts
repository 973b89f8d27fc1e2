/**
 * Reads one CCW session candidate: picks the copy to read when it is both live and
 * archived, reads its `workflow-session.json` (or the latest good backup), its task files and
 * planning documents, decides its status by the layout's rule and advises how to resume.
 */
import type { ReadResult, SafeDir } from '../safe-dir.js';
import type { ForeignSession, ForeignUnit, FormatProblem } from '../types.js';
import { hashSources, parseDocument, problem, str } from '../util.js';
import { backupTime, listBackups, MAX_BACKUPS_READ } from './backups.js';
import { ccwRules, normaliseStatus } from './facts.js';
import type { Candidate } from './candidates.js';
import { ARCHIVING_MARKER, type FoundFolder, type Place, SESSION_FILE } from './layout.js';
import { adviseResume } from './resume.js';
import { readSessionDoc, type SessionDoc } from './session-file.js';
import { positionOf, taskStatusesOf } from './tasks.js';
import { decideStatus } from './status-rule.js';

/** Planning documents of a session folder, carried in `documents` as text. */
const COMPANIONS = ['IMPL_PLAN.md', 'TODO_LIST.md', 'TASK_BREAKDOWN.md'];
/** Larger companions are not carried (they stay in the folder). */
const MAX_COMPANION_BYTES = 1024 * 1024;

const PLACE_RANK: Record<Place, number> = { archives: 3, active: 2, sessions: 1, flat: 0 };

/** What {@link readCandidate} needs from the whole tree. */
export interface ReadContext {
  prefix: string;
  registryPath: string;
  registryRead: ReadResult | null;
  markersLayout: boolean;
  hasRegistry: boolean;
}

/**
 * The folder to read when a session has several: the archived copy when it parses and is not
 * older than the live one, else the live one. Copies left behind are reported.
 */
async function pickCopy(
  dir: SafeDir,
  c: Candidate,
  problems: FormatProblem[],
): Promise<{ main: FoundFolder; live: FoundFolder[] }> {
  const sorted = [...c.folders].sort((a, b) => PLACE_RANK[b.place] - PLACE_RANK[a.place]);
  const live = sorted.filter((f) => f.place !== 'archives');
  const archived = sorted.find((f) => f.place === 'archives');

  // Pick the copy to read: the archived one when it parses and is not older than the live
  // one (the toolkit may have gone on in active/ after a copy), else the live one.
  let main = sorted[0]!;
  if (archived && live.length > 0) {
    const updated = async (f: FoundFolder): Promise<number | null> => {
      const r = await dir.read(`${f.rel}/${SESSION_FILE}`);
      if (r.kind !== 'ok') return null;
      const p = parseDocument(r);
      if (!p.ok) return null;
      const t = Date.parse(str(p.value.updated_at) ?? '');
      return Number.isNaN(t) ? 0 : t;
    };
    const tArchived = await updated(archived);
    const tLive = await updated(live[0]!);
    const archivedOk = tArchived !== null;
    if (!archivedOk || (tLive !== null && tLive > tArchived)) main = live[0]!;
    problems.push(
      problem(
        'ARCHIVE_COPIED',
        'warning',
        `${c.name} is both live (${live.map((f) => f.rel).join(', ')}) and archived (${archived.rel}): the archive was copied instead of moved${archivedOk ? '' : ', and the archived copy has no readable session file'}; ${main.rel} was read.`,
        {
          sessionId: c.name,
          path: archived.rel,
          hint:
            main === archived
              ? `Check ${archived.rel} is complete, then remove ${live.map((f) => f.rel).join(', ')}.`
              : `The live copy ${main.rel} is the newer or the only readable one: archive it again (copy, then remove it), or remove ${archived.rel} to go on with it.`,
          details: { live: live.map((f) => f.rel), archived: archived.rel, read: main.rel },
        },
      ),
    );
  } else if (live.length > 1) {
    problems.push(
      problem(
        'DUPLICATE_SESSION',
        'warning',
        `${c.name} has several live folders (${live.map((f) => f.rel).join(', ')}), left by a layout migration; ${main.rel} was read.`,
        {
          sessionId: c.name,
          path: main.rel,
          hint: `Keep ${main.rel} and remove the others.`,
          details: { folders: live.map((f) => f.rel), read: main.rel },
        },
      ),
    );
  }
  return { main, live };
}

/** One backup as read. */
interface Backup {
  path: string;
  ok: boolean;
  doc: Record<string, unknown> | null;
  /** Zero bytes (or only whitespace): reported as EMPTY_BACKUP, not as damage. */
  empty?: boolean;
}

/** The session file as read, or the latest good backup in its place. */
interface SessionRead {
  doc: Record<string, unknown> | null;
  fileOk: boolean;
  fileUnreadable: boolean;
  backups: Backup[];
  goodBackup: Backup | null;
}

/** Reads the session file, or its latest good backup when it is damaged or unreadable. */
async function readSessionOrBackup(
  dir: SafeDir,
  c: Candidate,
  folder: string,
  filePath: string,
  reads: ReadResult[],
  documents: Record<string, unknown>,
  problems: FormatProblem[],
): Promise<SessionRead> {
  const fr = await dir.read(filePath);
  reads.push(fr);
  let doc: Record<string, unknown> | null = null;
  let fileOk = false;
  let fileProblem: FormatProblem | null = null;
  if (fr.kind === 'ok') {
    const p = parseDocument(fr, { sessionId: c.name });
    if (p.ok) {
      doc = p.value;
      fileOk = true;
      documents[filePath] = doc;
    } else fileProblem = p.problem;
  } else if (fr.kind === 'missing') {
    fileProblem = problem('MISSING_FILE', 'error', `${folder} has no ${SESSION_FILE}.`, {
      sessionId: c.name,
      path: filePath,
    });
  } else fileProblem = { ...fr.problem, sessionId: c.name };

  const backupPaths = await listBackups(dir, folder);
  const backups: Backup[] = [];
  for (const bp of backupPaths.slice(0, MAX_BACKUPS_READ)) {
    const br = await dir.read(bp);
    reads.push(br);
    const empty = br.kind === 'ok' && br.text.trim() === '';
    const parsed = br.kind === 'ok' && !empty ? parseDocument(br, { sessionId: c.name }) : null;
    backups.push({ path: bp, ok: !!parsed?.ok, doc: parsed?.ok ? parsed.value : null, empty });
  }
  const goodBackup = backups.find((b) => b.ok) ?? null;
  backups.forEach((b, i) => {
    if (b.ok) return;
    const fallback = backups.slice(i + 1).find((x) => x.ok)?.path ?? null;
    if (b.empty) {
      // An empty backup holds nothing to roll back to (seed 004: "Automatic backup before each save").
      problems.push(
        problem(
          'EMPTY_BACKUP',
          'warning',
          `The backup ${b.path} is empty (0 bytes)${fallback ? `; the older ${fallback} is the one to fall back to` : '; no older backup parses'}.`,
          {
            sessionId: c.name,
            path: b.path,
            hint: 'Delete the empty backup; CCW writes a new one before its next save.',
            details: { backup: b.path, fallback },
          },
        ),
      );
      return;
    }
    problems.push(
      problem(
        'CORRUPT_CHECKPOINT',
        'warning',
        `The backup ${b.path} does not parse${fallback ? `; the older ${fallback} is the one to fall back to` : ' and no older backup parses'}.`,
        {
          sessionId: c.name,
          path: b.path,
          hint: fallback ? `Use ${fallback} for a rollback; remove ${b.path}.` : `Remove ${b.path}.`,
          details: { fallback },
        },
      ),
    );
  });
  const fileUnreadable = fileProblem?.code === 'UNREADABLE';
  if (fileProblem && fileUnreadable) {
    // The content is unknown, not damaged: keep the permission hint, offer no rollback.
    fileProblem.details = { ...(fileProblem.details ?? {}), backup: goodBackup?.path ?? null };
    problems.push(fileProblem);
    if (goodBackup) {
      doc = goodBackup.doc;
      documents[goodBackup.path] = doc;
    }
  } else if (fileProblem) {
    fileProblem.hint = goodBackup
      ? `Restore ${goodBackup.path} over ${filePath} (CCW's rollback to the last known good state), or rebuild from IMPL_PLAN.md.`
      : `No backup in ${folder}/.backups parses: rebuild the session from the planning documents (IMPL_PLAN.md, TODO_LIST.md).`;
    fileProblem.details = { ...(fileProblem.details ?? {}), backup: goodBackup?.path ?? null };
    if (fileProblem.code !== 'MISSING_FILE')
      fileProblem.code = fileProblem.code === 'EMPTY_FILE' ? 'EMPTY_FILE' : 'CORRUPT_FILE';
    problems.push(fileProblem);
    if (goodBackup) {
      doc = goodBackup.doc;
      documents[goodBackup.path] = doc;
    }
  }
  return { doc, fileOk, fileUnreadable, backups, goodBackup };
}

/**
 * Which files the folder has (the state validation inputs); the planning documents are
 * carried along as text so an export elsewhere gives CCW what it needs to resume.
 */
async function readCompanions(
  dir: SafeDir,
  folder: string,
  sd: SessionDoc,
  id: string,
  filePath: string,
  reads: ReadResult[],
  documents: Record<string, unknown>,
  problems: FormatProblem[],
): Promise<Set<string>> {
  const present = new Set((await dir.list(folder)).map((e) => e.name));
  const plan = sd.units.find((u) => u.id.toLowerCase() === 'plan');
  const companions = new Set(COMPANIONS.filter((n) => present.has(n)));
  for (const f of plan?.files ?? []) {
    const chk = await dir.check(`${folder}/${f.path}`);
    if (!chk.ok || f.path.split(/[\\/]/).includes('..') || f.path.startsWith('/')) {
      problems.push({
        ...(chk.ok
          ? problem(
              'UNSAFE_PATH',
              'error',
              `The plan document path ${JSON.stringify(f.path)} leaves the session folder; it was not followed.`,
              {},
            )
          : chk.problem),
        sessionId: id,
        path: filePath,
        details: { document: f.path },
      });
      continue;
    }
    if (await dir.exists(chk.rel)) {
      present.add(f.path);
      companions.add(chk.rel.slice(folder.length + 1));
    }
  }
  for (const name of companions) {
    const cr = await dir.read(`${folder}/${name}`);
    if (cr.kind !== 'ok' || cr.bytes.length > MAX_COMPANION_BYTES) continue;
    reads.push(cr);
    documents[cr.path] = cr.bytes.toString('utf8');
  }
  return present;
}

/** The session's registry line and marker file, as sources of the session. */
async function registrySources(
  dir: SafeDir,
  c: Candidate,
  ctx: ReadContext,
  reads: ReadResult[],
  documents: Record<string, unknown>,
): Promise<void> {
  if (c.entry) {
    // Only this session's line counts for its source hash: another session's change to the
    // shared registry does not make this one look changed on re-import.
    const r = ctx.registryRead!;
    const line = Buffer.from(JSON.stringify(c.entry.raw), 'utf8');
    reads.push(r.kind === 'ok' ? { ...r, bytes: line, text: line.toString('utf8') } : r);
    documents[ctx.registryPath] = c.entry.raw;
  }
  if (c.marker) {
    const mr = await dir.read(c.marker);
    reads.push(mr);
    documents[c.marker] = mr.kind === 'ok' ? mr.text : '';
  }
}

/** Whether an archive of the session was interrupted (the `.archiving` marker), reported. */
async function archivingOf(
  dir: SafeDir,
  main: { rel: string; place: string },
  live: Array<{ rel: string }>,
  id: string,
  problems: FormatProblem[],
): Promise<boolean> {
  const archiving = main.place !== 'archives' ? await dir.exists(`${main.rel}/${ARCHIVING_MARKER}`) : false;
  const liveArchiving =
    !archiving && live.length > 0 && main.place === 'archives'
      ? await dir.exists(`${live[0]!.rel}/${ARCHIVING_MARKER}`)
      : false;
  if (!archiving && !liveArchiving) return false;
  const at = archiving ? main.rel : live[0]!.rel;
  problems.push(
    problem(
      'ARCHIVE_INTERRUPTED',
      'warning',
      `${at}/${ARCHIVING_MARKER} is present: archiving ${id} was interrupted.`,
      {
        sessionId: id,
        path: `${at}/${ARCHIVING_MARKER}`,
        hint: 'Run CCW session:complete again (it resumes an interrupted archive), or baton export with the session completed.',
      },
    ),
  );
  return true;
}

/**
 * CCW keeps a unit's documents relative to the session folder (`IMPL_PLAN.md` is
 * `.workflow/WFS-x/IMPL_PLAN.md`); a path written from the project (`.workflow/…`) is not.
 */
function setBases(units: ForeignUnit[], folder: string): void {
  for (const u of units)
    for (const f of u.files) {
      const norm = f.path.replace(/\\/g, '/');
      if (!norm.startsWith('.workflow/') && !/^([A-Za-z]:)?\//.test(norm)) f.base = folder;
    }
}

/** Reads one session candidate (it has at least one folder). */
export async function readCandidate(dir: SafeDir, c: Candidate, ctx: ReadContext): Promise<ForeignSession> {
  const problems: FormatProblem[] = [];
  const reads: ReadResult[] = [];
  const documents: Record<string, unknown> = {};
  const { main, live } = await pickCopy(dir, c, problems);
  const folder = main.rel;
  const filePath = `${folder}/${SESSION_FILE}`;
  await registrySources(dir, c, ctx, reads, documents);

  const { doc, fileOk, fileUnreadable, backups, goodBackup } = await readSessionOrBackup(
    dir,
    c,
    folder,
    filePath,
    reads,
    documents,
    problems,
  );
  const sd: SessionDoc = readSessionDoc(doc ?? {}, fileOk ? filePath : (goodBackup?.path ?? filePath), c.name);
  if (doc) problems.push(...sd.problems);
  const id = sd.id ?? c.entry?.id ?? c.name;
  if (sd.id !== null && sd.id !== c.name) {
    problems.push(
      problem('REGISTRY_MISMATCH', 'info', `${filePath} names the session ${sd.id}, but its folder is ${c.name}.`, {
        sessionId: id,
        path: filePath,
        details: { field: 'session_id', file: sd.id, folder: c.name },
      }),
    );
  }
  setBases(sd.units, folder);
  const taskStatuses = await taskStatusesOf(dir, folder, id, sd, { reads, problems, documents });

  const fileStatus = sd.rawStatus;
  if (doc) normaliseStatus(fileStatus, id, filePath, problems);
  const { status, active, isArchived, regStatus } = decideStatus(
    {
      c,
      main,
      fileStatus,
      hasDoc: doc !== null,
      id,
      filePath,
      folder,
      registryPath: ctx.registryPath,
      markersLayout: ctx.markersLayout,
      hasRegistry: ctx.hasRegistry,
    },
    problems,
  );
  const archiving = await archivingOf(dir, main, live, id, problems);
  const present = await readCompanions(dir, folder, sd, id, filePath, reads, documents, problems);

  const { advice, problems: rp } = adviseResume({
    sessionId: id,
    status,
    archived: isArchived,
    archiving,
    units: sd.units,
    currentUnit: sd.currentUnit,
    folder,
    file: { path: filePath, ok: fileOk, unreadable: fileUnreadable },
    present,
    backups,
  });
  problems.push(...rp);
  const position = positionOf(sd, status, taskStatuses, advice);
  const session: ForeignSession = {
    format: 'ccw',
    id,
    title: sd.title ?? str(c.entry?.raw.description) ?? id,
    rawStatus: fileStatus ?? regStatus,
    status,
    active,
    archived: isArchived,
    path: filePath,
    sources: [...new Set(reads.map((r) => r.path))],
    createdAt: sd.createdAt ?? str(c.entry?.raw.created),
    updatedAt: sd.updatedAt,
    units: sd.units,
    position,
    resume: advice,
    unresolvedErrors: sd.units.flatMap((u) => u.errors.filter((e) => !e.resolved)),
    tokens: null,
    decisions: [],
    findings: [],
    notes: [],
    milestones: [],
    artifacts: [],
    contextSummary: null,
    checkpoints: backups.map((b) => ({
      id: b.path.split('/').pop()!,
      unitId: null,
      createdAt: backupTime(b.path),
      valid: b.ok,
      problem: b.ok ? null : b.empty ? 'is empty' : 'does not parse',
    })),
    problems: problems.map((p) => ({
      ...p,
      sessionId: p.sessionId === null || p.sessionId === c.name ? id : p.sessionId,
    })),
    documents,
    sourceHash: hashSources(reads),
  };
  session.rules = ccwRules(session);
  return session;
}
