/**
 * `inspect` for CCW: finds the sessions of every layout generation present (registry,
 * markers, active/archives folders), reads each `workflow-session.json` (or its latest good
 * backup when it is damaged), applies the layout's rule for which status wins, and reports
 * every integrity problem. Reads only, through the SafeDir; never throws on bad data.
 */
import type { SessionStatus } from '../../domain/state.js';
import type { ReadResult, SafeDir } from '../safe-dir.js';
import type { ForeignSession, ForeignUnit, FormatProblem, InspectReport } from '../types.js';
import { hashSources, obj, parseDocument, problem, str } from '../util.js';
import {
  ARCHIVING_MARKER,
  type FoundFolder,
  LAYOUT_WORDS,
  layoutsFound,
  listSessionFolders,
  MARKER_PREFIX,
  type Place,
  REGISTRY_FILE,
  SESSION_FILE,
  workflowPrefix,
} from './layout.js';
import { parseRegistry, type Registry, type RegistryEntry } from './registry.js';
import { adviseResume } from './resume.js';
import { readSessionDoc, SESSION_STATUS, type SessionDoc, TASK_FILES_KEY } from './session-file.js';

/** Most backups read per session (newest first); older ones are only listed. */
const MAX_BACKUPS_READ = 20;
/** Most task files read per session. */
const MAX_TASK_FILES = 500;
/** CCW's task hierarchy is at most three levels deep (impl-1.2.3). */
const MAX_TASK_DEPTH = 3;

/** Planning documents of a session folder, carried in `documents` as text. */
const COMPANIONS = ['IMPL_PLAN.md', 'TODO_LIST.md', 'TASK_BREAKDOWN.md'];
/** Larger companions are not carried (they stay in the folder). */
const MAX_COMPANION_BYTES = 1024 * 1024;

const TASK_RE = /^impl-(\d+(?:\.\d+)*)\.json$/;
const BACKUP_RE = /^session-(\d{4})-(\d{2})-(\d{2})-(\d{2})-(\d{2})\.json$/;

/** Backup files of a session folder, newest first (their names sort by time). */
export async function listBackups(dir: SafeDir, folder: string): Promise<string[]> {
  return (await dir.list(`${folder}/.backups`))
    .filter((e) => e.kind === 'file' && /^session-.*\.json$/.test(e.name))
    .map((e) => e.path)
    .sort()
    .reverse();
}

/** Registry `directory` → path relative to the inspected root (lexically; checked by the caller). */
function registryDirToRel(directory: string, prefix: string): string {
  const d = directory.replace(/\\/g, '/').replace(/\/+$/, '');
  if (prefix === '') return d.startsWith('.workflow/') ? d.slice('.workflow/'.length) : d;
  return d;
}

interface Candidate {
  name: string;
  folders: FoundFolder[];
  entry: RegistryEntry | null;
  marker: string | null;
  /** The registry's directory for it was unsafe (reported, not followed). */
  unsafe: boolean;
}

/** How the session's status is decided, by the layout its folder belongs to. */
type Rule = 'registry' | 'markers' | 'orphan' | 'directories';

const PLACE_RANK: Record<Place, number> = { archives: 3, active: 2, sessions: 1, flat: 0 };

/** Reads every CCW session under `dir`. Never throws on bad data. */
export async function inspectCcw(dir: SafeDir, _now: Date): Promise<InspectReport> {
  const report: InspectReport = { format: 'ccw', root: dir.root, sessions: [], problems: [] };
  const P = report.problems;
  const wf = await dir.check('.workflow');
  if (!wf.ok) {
    P.push({ ...wf.problem, hint: wf.problem.hint });
    return report;
  }
  const prefix = await workflowPrefix(dir);
  if (prefix === null) {
    P.push(problem('UNKNOWN_FORMAT', 'error', `${dir.root} holds no CCW workflow folder (.workflow/ with session_status.jsonl, .active-* markers, WFS-* folders, active/ or archives/).`, { hint: 'Give the project root that holds .workflow/, or the .workflow folder itself.' }));
    return report;
  }
  const wfDir = prefix.replace(/\/$/, '');
  const folders = await listSessionFolders(dir, prefix);
  const layouts = await layoutsFound(dir, prefix, folders);
  P.push(
    problem('CCW_LAYOUT', 'info', `CCW layout${layouts.length > 1 ? 's' : ''} found: ${layouts.map((l) => LAYOUT_WORDS[l]).join('; ') || 'none (an empty workflow folder)'}.`, {
      path: wfDir || '.',
      details: { layouts, workflowDir: wfDir || '.' },
    }),
  );
  if (layouts.length > 1) {
    P.push(
      problem('NEEDS_MIGRATION', 'warning', `The workflow folder mixes CCW layouts (${layouts.join(' + ')}): an older ${layouts[0] === 'registry' ? 'registry' : 'marker'} layout was left behind by a migration.`, {
        path: wfDir || '.',
        hint: 'Move every session to .workflow/active/ or .workflow/archives/ and remove the legacy registry/markers (baton export --format ccw writes the current layout).',
        details: { from: layouts.filter((l) => l !== 'directories'), to: 'directories', layouts },
      }),
    );
  }

  // Registry (layout a).
  let registry: Registry | null = null;
  let registryRead: ReadResult | null = null;
  const regPath = `${prefix}${REGISTRY_FILE}`;
  const rr = await dir.read(regPath);
  if (rr.kind === 'ok') {
    registryRead = rr;
    registry = parseRegistry(rr.text, regPath);
    P.push(...registry.problems);
  } else if (rr.kind !== 'missing') {
    P.push(rr.problem);
  }

  // Markers (layout b).
  const markers = new Map<string, string>();
  for (const e of await dir.list(wfDir)) {
    if (!e.name.startsWith(MARKER_PREFIX) || e.name === MARKER_PREFIX) continue;
    if (e.kind === 'link') {
      const c = await dir.check(e.path);
      if (!c.ok) {
        P.push(c.problem);
        continue;
      }
    } else if (e.kind !== 'file') continue;
    markers.set(e.name.slice(MARKER_PREFIX.length), e.path);
  }

  // Session folders, links checked; unsafe ones reported and not followed.
  const byName = new Map<string, Candidate>();
  const cand = (name: string): Candidate => {
    let c = byName.get(name);
    if (!c) byName.set(name, (c = { name, folders: [], entry: null, marker: null, unsafe: false }));
    return c;
  };
  for (const f of folders) {
    if (f.link) {
      const c = await dir.check(f.rel);
      if (!c.ok) {
        P.push({ ...c.problem, sessionId: f.name });
        continue;
      }
    }
    cand(f.name).folders.push(f);
  }

  if (registry) {
    for (const entry of registry.entries.values()) {
      const directory = str(entry.raw.directory);
      const c = cand(entry.id);
      c.entry = entry;
      if (directory === null) {
        P.push(problem('MISSING_FIELD', 'info', `Registry line ${entry.line} (${entry.id}) has no "directory"; ${prefix}${entry.id} was assumed.`, { path: regPath, sessionId: entry.id, details: { field: 'directory', assumed: `${prefix}${entry.id}`, line: entry.line } }));
        continue;
      }
      let rel = registryDirToRel(directory, prefix);
      // A directory written relative to .workflow (`WFS-x`) rather than to the project root.
      if (prefix !== '' && !rel.startsWith('.workflow/') && !(await dir.exists(rel)) && (await dir.exists(`${prefix}${rel}`))) rel = `${prefix}${rel}`;
      const chk = await dir.check(rel);
      if (!chk.ok) {
        c.unsafe = true;
        P.push({
          ...chk.problem,
          sessionId: entry.id,
          path: regPath,
          message: `Registry line ${entry.line} (${entry.id}) points to ${JSON.stringify(directory)}: ${chk.problem.message}`,
          details: { line: entry.line, directory },
        });
        continue;
      }
      if (c.folders.some((f) => f.rel === chk.rel)) continue;
      const elsewhere = c.folders.length > 0;
      if (!elsewhere && (await dir.exists(chk.rel))) {
        c.folders.push({ name: chk.rel.split('/').pop() ?? entry.id, rel: chk.rel, place: 'flat', link: false });
        continue;
      }
      if (elsewhere) {
        P.push(
          problem('REGISTRY_MISMATCH', 'warning', `Registry line ${entry.line} says ${entry.id} lives in ${directory}, but it is in ${c.folders.map((f) => f.rel).join(', ')}; the folder found wins.`, {
            path: regPath,
            sessionId: entry.id,
            hint: 'The registry predates the move to active/ and archives/: remove it once every session is migrated.',
            details: { line: entry.line, field: 'directory', registry: directory, found: c.folders.map((f) => f.rel) },
          }),
        );
      }
    }
  }
  for (const [name, path] of markers) {
    const c = byName.get(name);
    if (c && c.folders.length > 0) c.marker = path;
    else {
      P.push(problem('DANGLING_ACTIVE', 'error', `The marker ${path} makes ${name} the active session, but no folder ${name} exists.`, { path, sessionId: name, hint: `Remove ${path}, or restore the session folder.` }));
    }
  }

  const read: Array<{ s: ForeignSession; link: boolean }> = [];
  for (const c of [...byName.values()].sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0))) {
    if (c.folders.length === 0) {
      if (c.entry && !c.unsafe) {
        const status = str(c.entry.raw.status);
        P.push(
          problem(status === 'active' ? 'DANGLING_ACTIVE' : 'DANGLING_ENTRY', status === 'active' ? 'error' : 'warning', `Registry line ${c.entry.line} lists ${c.name} (${status ?? 'no status'}), but its folder ${str(c.entry.raw.directory) ?? c.name} does not exist.`, {
            path: regPath,
            sessionId: c.name,
            hint: 'Remove the line from session_status.jsonl, or restore the session folder.',
            details: { line: c.entry.line, directory: str(c.entry.raw.directory) },
          }),
        );
      }
      continue;
    }
    const s = await readCandidate(dir, c, { prefix, registryPath: regPath, registryRead, markersLayout: layouts.includes('markers'), hasRegistry: registry !== null });
    read.push({ s, link: c.folders.every((f) => f.link) });
  }

  // Two folders holding the same session id (a second copy, or a link inside PATH to the
  // same folder): one session is reported, a real folder before a link, the first otherwise.
  read.sort((a, b) => Number(a.link) - Number(b.link));
  const kept = new Map<string, ForeignSession>();
  for (const { s } of read) {
    const first = kept.get(s.id);
    if (first) {
      P.push(
        problem('DUPLICATE_SESSION', 'warning', `${first.path} and ${s.path} both hold the session ${s.id}; ${first.path} was read, the other left out.`, {
          sessionId: s.id,
          path: s.path,
          hint: 'Keep one folder per session (remove the copy or the link), or give each its own session_id.',
          details: { read: first.path, ignored: s.path },
        }),
      );
    } else kept.set(s.id, s);
  }
  report.sessions = [...kept.values()].sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
  const actives = report.sessions.filter((s) => s.active);
  if (actives.length > 1) {
    const legacy = actives.some((s) => !/\/(active|sessions)\//.test(`/${s.path}`));
    P.push(
      problem('TWO_ACTIVE', legacy ? 'warning' : 'info', `${actives.length} sessions claim to be active: ${actives.map((s) => s.id).join(', ')}${legacy ? ' (CCW allows one active session)' : ' (CCW asks which one to resume)'}.`, {
        hint: 'Pause all but one of them.',
        details: { sessions: actives.map((s) => s.id) },
      }),
    );
  }
  return report;
}

interface ReadContext {
  prefix: string;
  registryPath: string;
  registryRead: ReadResult | null;
  markersLayout: boolean;
  hasRegistry: boolean;
}

async function readCandidate(dir: SafeDir, c: Candidate, ctx: ReadContext): Promise<ForeignSession> {
  const problems: FormatProblem[] = [];
  const reads: ReadResult[] = [];
  const documents: Record<string, unknown> = {};
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
      problem('ARCHIVE_COPIED', 'warning', `${c.name} is both live (${live.map((f) => f.rel).join(', ')}) and archived (${archived.rel}): the archive was copied instead of moved${archivedOk ? '' : ', and the archived copy has no readable session file'}; ${main.rel} was read.`, {
        sessionId: c.name,
        path: archived.rel,
        hint: main === archived ? `Check ${archived.rel} is complete, then remove ${live.map((f) => f.rel).join(', ')}.` : `The live copy ${main.rel} is the newer or the only readable one: archive it again (copy, then remove it), or remove ${archived.rel} to go on with it.`,
        details: { live: live.map((f) => f.rel), archived: archived.rel, read: main.rel },
      }),
    );
  } else if (live.length > 1) {
    problems.push(
      problem('DUPLICATE_SESSION', 'warning', `${c.name} has several live folders (${live.map((f) => f.rel).join(', ')}), left by a layout migration; ${main.rel} was read.`, {
        sessionId: c.name,
        path: main.rel,
        hint: `Keep ${main.rel} and remove the others.`,
        details: { folders: live.map((f) => f.rel), read: main.rel },
      }),
    );
  }
  const folder = main.rel;
  const filePath = `${folder}/${SESSION_FILE}`;

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

  // The session file, or its latest good backup.
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
    fileProblem = problem('MISSING_FILE', 'error', `${folder} has no ${SESSION_FILE}.`, { sessionId: c.name, path: filePath });
  } else fileProblem = { ...fr.problem, sessionId: c.name };

  const backupPaths = await listBackups(dir, folder);
  const backups: Array<{ path: string; ok: boolean; doc: Record<string, unknown> | null }> = [];
  for (const bp of backupPaths.slice(0, MAX_BACKUPS_READ)) {
    const br = await dir.read(bp);
    reads.push(br);
    const parsed = br.kind === 'ok' ? parseDocument(br, { sessionId: c.name }) : null;
    backups.push({ path: bp, ok: !!parsed?.ok, doc: parsed?.ok ? parsed.value : null });
  }
  const goodBackup = backups.find((b) => b.ok) ?? null;
  backups.forEach((b, i) => {
    if (b.ok) return;
    const fallback = backups.slice(i + 1).find((x) => x.ok)?.path ?? null;
    problems.push(
      problem('CORRUPT_CHECKPOINT', 'warning', `The backup ${b.path} does not parse${fallback ? `; the older ${fallback} is the one to fall back to` : ' and no older backup parses'}.`, {
        sessionId: c.name,
        path: b.path,
        hint: fallback ? `Use ${fallback} for a rollback; remove ${b.path}.` : `Remove ${b.path}.`,
        details: { fallback },
      }),
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
    if (fileProblem.code !== 'MISSING_FILE') fileProblem.code = fileProblem.code === 'EMPTY_FILE' ? 'EMPTY_FILE' : 'CORRUPT_FILE';
    problems.push(fileProblem);
    if (goodBackup) {
      doc = goodBackup.doc;
      documents[goodBackup.path] = doc;
    }
  }
  const sd: SessionDoc = readSessionDoc(doc ?? {}, fileOk ? filePath : goodBackup?.path ?? filePath, c.name);
  if (doc) problems.push(...sd.problems);
  const id = sd.id ?? c.entry?.id ?? c.name;
  if (sd.id !== null && sd.id !== c.name) {
    problems.push(problem('REGISTRY_MISMATCH', 'info', `${filePath} names the session ${sd.id}, but its folder is ${c.name}.`, { sessionId: id, path: filePath, details: { field: 'session_id', file: sd.id, folder: c.name } }));
  }

  // Task files: counts and statuses as implement-unit metadata.
  const taskSummary = await readTasks(dir, folder, id, reads, problems, documents);
  if (taskSummary) {
    const impl = sd.units.find((u) => u.id.toLowerCase() === 'implement');
    if (impl) impl.metadata[TASK_FILES_KEY] = taskSummary;
  }

  // Status by the rule of the layout the folder belongs to.
  const fileStatus = sd.rawStatus;
  const mapped = fileStatus !== null ? SESSION_STATUS[fileStatus] ?? null : null;
  if (doc && fileStatus !== null && mapped === null) {
    problems.push(problem('BAD_VALUE', 'warning', `${id} has status ${JSON.stringify(fileStatus)}, not one of active|paused|interrupted|completed; read as paused.`, { sessionId: id, path: filePath, details: { field: 'status', value: fileStatus } }));
  }
  const rule: Rule = main.place !== 'flat' ? 'directories' : c.entry ? 'registry' : ctx.markersLayout && !ctx.hasRegistry ? 'markers' : c.marker ? 'markers' : 'orphan';
  const regStatus = c.entry ? str(c.entry.raw.status) : null;
  // Nothing readable says otherwise: a session whose file is lost stopped mid-way.
  let status: SessionStatus = mapped ?? (regStatus ? SESSION_STATUS[regStatus] ?? 'paused' : c.marker ? 'active' : doc ? 'paused' : 'interrupted');
  let active = false;
  const isArchived = main.place === 'archives';
  if (rule === 'registry') {
    // The registry names the active session; a session file that says otherwise wins.
    active = regStatus === 'active' && (mapped === null || mapped === 'active');
    const regMapped = regStatus ? SESSION_STATUS[regStatus] ?? null : null;
    if (regStatus !== null && regMapped === null) {
      problems.push(problem('BAD_VALUE', 'warning', `Registry line ${c.entry!.line} gives ${id} the status ${JSON.stringify(regStatus)}, not one of active|paused|completed.`, { sessionId: id, path: ctx.registryPath, details: { field: 'status', value: regStatus, line: c.entry!.line } }));
    }
    const agree = regMapped === mapped || (regMapped === 'paused' && mapped === 'interrupted');
    if (mapped && regMapped && !agree) {
      problems.push(
        problem('REGISTRY_MISMATCH', 'warning', `The registry says ${id} is ${regStatus}, its session file says ${fileStatus}; the session file wins (${status}).`, {
          sessionId: id,
          path: ctx.registryPath,
          hint: `Update line ${c.entry!.line} of ${REGISTRY_FILE} to "${fileStatus === 'interrupted' ? 'paused' : fileStatus}".`,
          details: { field: 'status', registry: regStatus, file: fileStatus, line: c.entry!.line },
        }),
      );
    }
    if (!mapped && regMapped) status = regMapped;
  } else if (rule === 'markers') {
    active = c.marker !== null;
    if (active) {
      if (mapped && mapped !== 'active') {
        problems.push(problem('REGISTRY_MISMATCH', 'info', `${id} has an active marker but its session file says ${fileStatus}; in the marker layout the marker wins (active).`, { sessionId: id, path: c.marker, details: { field: 'status', marker: 'active', file: fileStatus } }));
      }
      status = 'active';
    } else if (mapped === 'active') {
      problems.push(problem('REGISTRY_MISMATCH', 'info', `${id}'s session file says active but it has no .active-${c.name} marker; in the marker layout the marker wins (not active: paused).`, { sessionId: id, path: filePath, details: { field: 'status', marker: null, file: fileStatus } }));
      status = 'paused';
    }
  } else if (rule === 'orphan') {
    active = false;
    if (ctx.hasRegistry) {
      problems.push(problem('ORPHAN_SESSION', 'warning', `${folder} is not listed in ${ctx.registryPath}.`, { sessionId: id, path: folder, hint: `Add a line for ${id} to the registry, or remove the folder.`, details: { folder } }));
    }
    if (status === 'active') status = 'paused';
  } else {
    active = !isArchived && status === 'active';
    if (isArchived && status !== 'completed') {
      problems.push(problem('REGISTRY_MISMATCH', 'warning', `${id} is in archives/ but its session file says ${fileStatus ?? 'nothing'}; an archived session is completed.`, { sessionId: id, path: filePath, hint: 'Set its status to completed, or move it back to active/ to continue it.', details: { field: 'status', place: 'archives', file: fileStatus } }));
      status = 'completed';
    }
  }

  const archiving = main.place !== 'archives' ? await dir.exists(`${folder}/${ARCHIVING_MARKER}`) : false;
  const liveArchiving = !archiving && live.length > 0 && main.place === 'archives' ? await dir.exists(`${live[0]!.rel}/${ARCHIVING_MARKER}`) : false;
  if (archiving || liveArchiving) {
    const at = archiving ? folder : live[0]!.rel;
    problems.push(problem('ARCHIVE_INTERRUPTED', 'warning', `${at}/${ARCHIVING_MARKER} is present: archiving ${id} was interrupted.`, { sessionId: id, path: `${at}/${ARCHIVING_MARKER}`, hint: 'Run CCW session:complete again (it resumes an interrupted archive), or baton export with the session completed.' }));
  }

  // State validation inputs: which files the folder has. The planning documents are carried
  // along (as text) so an export elsewhere gives CCW what it needs to resume.
  const present = new Set((await dir.list(folder)).map((e) => e.name));
  const plan = sd.units.find((u) => u.id.toLowerCase() === 'plan');
  const companions = new Set(COMPANIONS.filter((n) => present.has(n)));
  for (const f of plan?.files ?? []) {
    const chk = await dir.check(`${folder}/${f.path}`);
    if (!chk.ok || f.path.split(/[\\/]/).includes('..') || f.path.startsWith('/')) {
      problems.push({ ...(chk.ok ? problem('UNSAFE_PATH', 'error', `The plan document path ${JSON.stringify(f.path)} leaves the session folder; it was not followed.`, {}) : chk.problem), sessionId: id, path: filePath, details: { document: f.path } });
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

  const { advice, problems: rp } = adviseResume({
    sessionId: id,
    status,
    archived: isArchived,
    archiving: archiving || liveArchiving,
    units: sd.units,
    currentUnit: sd.currentUnit,
    folder,
    file: { path: filePath, ok: fileOk, unreadable: fileUnreadable },
    present,
    backups,
  });
  problems.push(...rp);

  const posUnit: ForeignUnit | undefined =
    sd.units.find((u) => u.id === sd.currentUnit) ?? sd.units.find((u) => u.status === 'in_progress') ?? sd.units.find((u) => u.status === 'pending' || u.status === 'failed');
  const sources = reads.map((r) => r.path);
  return {
    format: 'ccw',
    id,
    title: sd.title ?? str(c.entry?.raw.description) ?? id,
    rawStatus: fileStatus ?? regStatus,
    status,
    active,
    archived: isArchived,
    path: filePath,
    sources: [...new Set(sources)],
    createdAt: sd.createdAt ?? str(c.entry?.raw.created),
    updatedAt: sd.updatedAt,
    units: sd.units,
    position: { unitId: posUnit?.id ?? null, subStep: posUnit?.subStep ?? null },
    resume: advice,
    unresolvedErrors: sd.units.flatMap((u) => u.errors.filter((e) => !e.resolved)),
    tokens: null,
    decisions: [],
    findings: [],
    notes: [],
    milestones: [],
    artifacts: [],
    contextSummary: null,
    checkpoints: backups.map((b) => ({ id: b.path.split('/').pop()!, unitId: null, createdAt: backupTime(b.path), valid: b.ok, problem: b.ok ? null : 'does not parse' })),
    problems: problems.map((p) => ({ ...p, sessionId: p.sessionId === null || p.sessionId === c.name ? id : p.sessionId })),
    documents,
    sourceHash: hashSources(reads),
  };
}

/** The time in a backup's name (session-YYYY-MM-DD-HH-MM.json), as ISO, or null. */
export function backupTime(path: string): string | null {
  const m = BACKUP_RE.exec(path.split('/').pop() ?? '');
  return m ? `${m[1]}-${m[2]}-${m[3]}T${m[4]}:${m[5]}:00.000Z` : null;
}

async function readTasks(dir: SafeDir, folder: string, id: string, reads: ReadResult[], problems: FormatProblem[], documents: Record<string, unknown>): Promise<Record<string, unknown> | null> {
  const entries = (await dir.list(`${folder}/.task`)).filter((e) => e.kind === 'file' && TASK_RE.test(e.name));
  if (entries.length === 0) return null;
  const byStatus: Record<string, number> = {};
  const ids: string[] = [];
  for (const e of entries.slice(0, MAX_TASK_FILES)) {
    const num = TASK_RE.exec(e.name)![1]!;
    if (num.split('.').length > MAX_TASK_DEPTH) {
      problems.push(problem('BAD_VALUE', 'warning', `${e.path} is nested ${num.split('.').length} levels deep; CCW allows at most ${MAX_TASK_DEPTH} (impl-1.2.3). It was not read.`, { sessionId: id, path: e.path, details: { field: 'task id', value: `impl-${num}`, maxDepth: MAX_TASK_DEPTH } }));
      continue;
    }
    const r = await dir.read(e.path);
    reads.push(r);
    let status = 'unknown';
    if (r.kind === 'ok') {
      const p = parseDocument(r, { sessionId: id });
      if (p.ok) {
        status = str(p.value.status) ?? str(obj(p.value.meta).status) ?? 'pending';
        documents[e.path] = p.value;
      }
      else {
        problems.push({ ...p.problem, severity: 'warning' });
        status = 'unreadable';
      }
    }
    ids.push(`impl-${num}`);
    byStatus[status] = (byStatus[status] ?? 0) + 1;
  }
  if (entries.length > MAX_TASK_FILES) problems.push(problem('BAD_VALUE', 'info', `${folder}/.task holds ${entries.length} task files; the first ${MAX_TASK_FILES} were read.`, { sessionId: id, path: `${folder}/.task` }));
  const key = (id: string) => id.slice(5).split('.').map(Number);
  ids.sort((a, b) => {
    const x = key(a);
    const y = key(b);
    for (let i = 0; i < Math.max(x.length, y.length); i++) if ((x[i] ?? -1) !== (y[i] ?? -1)) return (x[i] ?? -1) - (y[i] ?? -1);
    return 0;
  });
  return { total: ids.length, byStatus, ids };
}

