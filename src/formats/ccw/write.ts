/**
 * `export --format ccw`: writes a baton session in CCW's layout, by CCW's write rules. The
 * layout is the original's (registry, markers or active/archives folders) or, for a session
 * born in baton, the latest one (`.workflow/active/` and `.workflow/archives/`):
 * - `workflow-session.json` merged onto the original document (unknown fields kept),
 *   `updated_at` bumped, statuses mapped baton → CCW;
 * - layout (a): the session's line of `session_status.jsonl` updated or added, the whole file
 *   rewritten (atomically, by the core) with every other line verbatim;
 * - layout (b): the `.active-<session>` marker written for an active session, removed otherwise;
 * - layout (c): a completed or archived session goes to `archives/` and its `active/` copy
 *   is moved there (files written, then removed);
 * - the previous session file kept as `.backups/session-YYYY-MM-DD-HH-MM.json`, the last
 *   five backups retained (CCW's rule; older ones are removed through the plan).
 */
import path from 'node:path';
import type { Phase, PhaseStatus, SessionState, SessionStatus } from '../../domain/state.js';
import type { SafeDir } from '../safe-dir.js';
import type { ExportInput, FormatProblem, WritePlan } from '../types.js';
import { obj, parseText, problem, str, withSafeForeignId } from '../util.js';
import { ARCHIVING_MARKER, type CcwLayout, MARKER_PREFIX, PLACE_DIRS, REGISTRY_FILE, SESSION_FILE } from './layout.js';
import { listBackups } from './backups.js';
import { CURRENT_VERSION, SESSION_STATUS, TASK_FILES_KEY } from './session-file.js';

/** CCW keeps the last five timestamped backups of a session file. */
export const BACKUP_RETENTION = 5;
/** Most files moved along with a session folder (active/ → archives/). */
const MAX_MOVED_FILES = 2000;

/** What export learns from the original documents (keys made relative to the workflow folder). */
interface Origin {
  layout: CcwLayout;
  /** The session had a registry line (layout a, or a legacy registry left next to newer folders). */
  registered: boolean;
  /** Session folder relative to the workflow folder (e.g. `active/WFS-x`), or null. */
  folder: string | null;
  doc: Record<string, unknown> | null;
  registryLine: Record<string, unknown> | null;
  markerText: string | null;
  /** Other documents of the session folder (planning docs, `.task/*.json`), relative to it. */
  companions: Record<string, unknown>;
}

function stripWorkflow(k: string): string {
  return k.startsWith('.workflow/') ? k.slice('.workflow/'.length) : k;
}

function origin(original: Record<string, unknown> | null): Origin {
  const o: Origin = {
    layout: 'directories',
    registered: false,
    folder: null,
    doc: null,
    registryLine: null,
    markerText: null,
    companions: {},
  };
  if (!original) return o;
  let backupDoc: { folder: string; doc: Record<string, unknown> } | null = null;
  let hasMarker = false;
  for (const [key, v] of Object.entries(original)) {
    const k = stripWorkflow(key);
    if (k === REGISTRY_FILE) o.registryLine = obj(v);
    else if (k.startsWith(MARKER_PREFIX)) {
      hasMarker = true;
      o.markerText = typeof v === 'string' ? v : '';
    } else if (k.endsWith(`/${SESSION_FILE}`)) {
      o.folder = k.slice(0, -SESSION_FILE.length - 1);
      o.doc = obj(v);
    } else if (/\/\.backups\/session-[^/]*\.json$/.test(k)) {
      backupDoc = { folder: k.replace(/\/\.backups\/[^/]*$/, ''), doc: obj(v) };
    }
  }
  if (!o.doc && backupDoc) {
    o.folder = backupDoc.folder;
    o.doc = backupDoc.doc;
  }
  if (o.folder) {
    for (const [key, v] of Object.entries(original)) {
      const k = stripWorkflow(key);
      if (!k.startsWith(`${o.folder}/`)) continue;
      const rel = k.slice(o.folder.length + 1);
      if (rel === SESSION_FILE || rel.startsWith('.backups/') || rel.split('/').includes('..')) continue;
      o.companions[rel] = v;
    }
  }
  const inPlaceDir = PLACE_DIRS.includes(o.folder?.split('/')[0] as never);
  o.registered = o.registryLine !== null;
  if (!o.folder || inPlaceDir) o.layout = 'directories';
  else if (o.registered) o.layout = 'registry';
  else if (hasMarker) o.layout = 'markers';
  // A flat folder without registry line or marker: the marker era, not active.
  else o.layout = 'markers';
  return o;
}

/** A CCW-safe folder name for a session born in baton (CCW ids: [a-zA-Z0-9_-]). */
function folderName(foreignId: string): string {
  const slug = foreignId.replace(/[^A-Za-z0-9_-]+/g, '-').replace(/^-+|-+$/g, '') || 'session';
  return slug.startsWith('WFS-') ? slug : `WFS-${slug}`;
}

/** baton session status → CCW's session file status. */
export function ccwStatus(s: SessionStatus): string {
  switch (s) {
    case 'active':
      return 'active';
    case 'paused':
      return 'paused';
    case 'interrupted':
      // CCW's set has no crash status (session.md's "interrupted" means a pause): paused.
      return 'paused';
    case 'completed':
      return 'completed';
    case 'failed':
      return 'paused';
    case 'abandoned':
      return 'completed';
  }
}

/** baton session status → the registry's enum (active|paused|completed). */
function registryStatus(s: SessionStatus): string {
  return s === 'active' ? 'active' : s === 'completed' || s === 'abandoned' ? 'completed' : 'paused';
}

const DONE: readonly PhaseStatus[] = ['completed', 'skipped'];
/** The phases CCW's `current_phase` names (seed 004). */
const CCW_PHASES = ['PLAN', 'IMPLEMENT', 'REVIEW'];

function unitStatus(p: Phase, sessionMd: boolean): string {
  if (sessionMd && p.status === 'skipped' && p.metadata.enabled === false) return 'pending';
  return p.status;
}

function filesOf(p: Phase): string[] {
  return [...new Set(p.files.filter((f) => f.action !== 'deleted').map((f) => f.path))];
}

function metaOf(p: Phase): Record<string, unknown> {
  const m = { ...p.metadata };
  delete m[TASK_FILES_KEY];
  return m;
}

/**
 * The time to write for a phase: null when baton made it up at import (the foreign file had
 * none), and the original spelling when it is the same instant (import normalizes to ISO).
 */
function phaseTime(input: ExportInput, p: Phase, which: 'startedAt' | 'completedAt', orig: unknown): string | null {
  const t = input.untimed?.includes(`phase:${p.id}:${which}`) ? null : p[which];
  const o = str(orig);
  if (t !== null && o !== null && Date.parse(o) === Date.parse(t)) return o;
  return t;
}

function principlesCheckpoint(
  input: ExportInput,
  p: Phase,
  orig: Record<string, unknown>,
  born: boolean,
): Record<string, unknown> {
  const cp: Record<string, unknown> = { ...orig, ...metaOf(p) };
  cp.status = unitStatus(p, false);
  // CCW's documents are the session folder's planning documents: a session born in baton
  // records repository files, which are not (they are said in the output instead).
  const files = born ? [] : filesOf(p);
  if (files.length || 'documents' in orig) cp.documents = files;
  if (p.subStep !== null || 'current_agent' in orig || p.agents.length > 0 || 'agents_completed' in cp) {
    // A completed phase has no current agent: the one it stopped at is done too. A phase
    // in progress without one recorded is being worked on by its last agent, not done by it.
    const done = p.status === 'completed';
    const working = !done && p.subStep === null && p.status === 'in_progress' ? (p.agents.at(-1) ?? null) : null;
    const current = working ?? (done ? null : p.subStep);
    cp.agents_completed = done
      ? [...new Set([...p.agents, ...(p.subStep ? [p.subStep] : [])])]
      : p.agents.filter((a) => a !== current);
    cp.current_agent = current;
  }
  const ts =
    p.status === 'completed'
      ? phaseTime(input, p, 'completedAt', orig.timestamp)
      : p.status === 'in_progress'
        ? phaseTime(input, p, 'startedAt', orig.timestamp)
        : str(cp.timestamp);
  if (ts !== null) cp.timestamp = ts;
  else delete cp.timestamp;
  return cp;
}

function sessionMdPhase(input: ExportInput, p: Phase, orig: Record<string, unknown>): Record<string, unknown> {
  const ph: Record<string, unknown> = { ...orig, ...metaOf(p) };
  ph.status = unitStatus(p, true);
  const done = p.status === 'completed' ? phaseTime(input, p, 'completedAt', orig.completed_at) : null;
  if (done !== null || 'completed_at' in orig) ph.completed_at = done;
  const started = p.status !== 'pending' ? phaseTime(input, p, 'startedAt', orig.started_at) : null;
  if (started !== null && ('started_at' in orig || p.status === 'in_progress')) ph.started_at = started;
  const files = filesOf(p);
  if (files.length || 'files_created' in orig) ph.files_created = files;
  return ph;
}

function currentPhase(state: SessionState, doc: Record<string, unknown>, sessionMd: boolean): string | null {
  const ps = state.phases;
  const named = str(doc.current_phase);
  const orig = named ? ps.find((p) => p.id.toLowerCase() === named.toLowerCase()) : undefined;
  // The phase in flight, else the one CCW named (it moves current_phase at transitions, not
  // when a phase merely completes), else the first not done.
  const cur =
    ps.find((p) => p.status === 'in_progress') ?? orig ?? ps.find((p) => !DONE.includes(p.status)) ?? ps[ps.length - 1];
  if (!cur) return named;
  return sessionMd ? cur.id : cur.id.toUpperCase();
}

/** The session file's new content: the original document with baton's state written in. */
export function sessionDocument(input: ExportInput, o: Origin): Record<string, unknown> {
  const { state, now } = input;
  const base: Record<string, unknown> = o.doc ? structuredClone(o.doc) : {};
  const sessionMd = base.phases !== undefined && base.checkpoints === undefined;
  const doc: Record<string, unknown> = base;
  doc.session_id = input.foreignId;
  if (!o.doc) doc.session_version = CURRENT_VERSION;
  if (sessionMd && !('project' in base)) doc.description = state.title;
  else doc.project = state.title;
  if (!o.doc) doc.type = 'medium';
  // Fields baton did not change are written as they were: the position field and updated_at
  // when nothing changed since the import, a status that still reads as baton's (session.md's
  // "interrupted" for a pause).
  const keep = input.unchangedSinceImport === true && o.doc !== null;
  doc.current_phase = keep && 'current_phase' in base ? base.current_phase : currentPhase(state, base, sessionMd);
  // CCW dispatches its resume on PLAN, IMPLEMENT or REVIEW only: another phase is not named there.
  if (!sessionMd && !o.doc && !CCW_PHASES.includes(String(doc.current_phase))) delete doc.current_phase;
  const origStatus = typeof base.status === 'string' ? base.status : null;
  doc.status =
    origStatus !== null && SESSION_STATUS[origStatus] === state.status ? origStatus : ccwStatus(state.status);
  if (!('created_at' in doc) || doc.created_at === null) doc.created_at = state.createdAt;
  doc.updated_at = keep && 'updated_at' in base ? base.updated_at : now.toISOString();
  if (sessionMd) {
    const origPhases = obj(base.phases);
    const phases: Record<string, unknown> = {};
    for (const p of state.phases) phases[p.id] = sessionMdPhase(input, p, obj(origPhases[p.id]));
    doc.phases = phases;
  } else {
    const origCps = obj(base.checkpoints);
    const cps: Record<string, unknown> = {};
    for (const p of state.phases) cps[p.id] = principlesCheckpoint(input, p, obj(origCps[p.id]), !o.doc);
    doc.checkpoints = cps;
    if (!o.doc) {
      doc.context_chain = [];
      doc.state_transitions = [];
    }
  }
  return doc;
}

/** `session-YYYY-MM-DD-HH-MM.json` for `now` (UTC). */
export function backupName(now: Date): string {
  const p = (n: number) => String(n).padStart(2, '0');
  return `session-${now.getUTCFullYear()}-${p(now.getUTCMonth() + 1)}-${p(now.getUTCDate())}-${p(now.getUTCHours())}-${p(now.getUTCMinutes())}.json`;
}

async function filesUnder(out: SafeDir, rel: string, acc: string[], depth = 0): Promise<string[]> {
  if (depth > 8 || acc.length >= MAX_MOVED_FILES) return acc;
  for (const e of await out.list(rel)) {
    if (e.kind === 'file') acc.push(e.path);
    else if (e.kind === 'dir') await filesUnder(out, e.path, acc, depth + 1);
  }
  return acc;
}

/**
 * A session CCW never saw gets a CCW id: `WFS-<slug>`, the name of its folder (CCW builds
 * paths from the id). When that differs from the id, the output says what was written.
 */
function ccwId(input: ExportInput, problems: FormatProblem[]): ExportInput {
  const id = folderName(input.foreignId);
  if (id === input.foreignId) return input;
  problems.push(
    problem(
      'NOT_REPRESENTED',
      'info',
      `CCW session ids are WFS-<topic-slug> and name the session's folder: ${input.foreignId} was written as ${id}.`,
      { sessionId: id, details: { field: 'session_id', value: input.foreignId, written: id } },
    ),
  );
  return { ...input, foreignId: id };
}

/** What a session holds that CCW's files cannot: said in the export's output. */
function notRepresented(input: ExportInput, o: Origin, doc: Record<string, unknown>, rel: string): FormatProblem[] {
  const s = input.state;
  const lost: string[] = [];
  const cur = s.phases.find((p) => p.status === 'in_progress') ?? s.phases.find((p) => !DONE.includes(p.status));
  if (!o.doc && cur && doc.current_phase === undefined)
    lost.push(
      `the current phase ${cur.id}: current_phase names PLAN, IMPLEMENT or REVIEW only, so it is left out (CCW reads the position from the checkpoints' statuses)`,
    );
  const files = o.doc ? 0 : s.phases.reduce((n, p) => n + p.files.length, 0);
  if (files > 0)
    lost.push(`${files} file record(s): a checkpoint's documents are the session folder's planning documents`);
  const errors = s.phases.reduce((n, p) => n + p.errors.length, 0);
  if (errors > 0 && !o.doc) lost.push(`${errors} error(s): CCW keeps no error list`);
  const tokens = s.tokens.input + s.tokens.output + s.tokens.cached;
  if (tokens > 0 && !o.doc) lost.push(`${tokens} token(s): CCW keeps no token counts`);
  if (lost.length === 0) return [];
  return [
    problem('NOT_REPRESENTED', 'info', `CCW's session file cannot hold ${lost.join('; ')}.`, {
      sessionId: input.foreignId,
      path: rel,
      details: { files, errors, tokens },
    }),
  ];
}

/** Plans the files that put `input.state` in CCW's layout under `out`. */
export async function planCcwExport(given: ExportInput, out: SafeDir): Promise<WritePlan> {
  // The folder is slugged from the id (folderName), but CCW commands build paths from the
  // session_id and registry id too: one with "/" or ".." would lead them out of .workflow/.
  const safe = withSafeForeignId(
    given,
    'CCW',
    (id) => id.trim() !== '' && !/[\\/\0]/.test(id) && id !== '..' && id !== '.',
  );
  const o = origin(safe.input.original);
  const problems: FormatProblem[] = safe.problem ? [safe.problem] : [];
  const input = o.folder ? safe.input : ccwId(safe.input, problems);
  const plan: WritePlan = { writes: [], removes: [], problems };
  const { state } = input;
  const prefix = path.basename(out.root) === '.workflow' ? '' : '.workflow/';
  const name = o.folder ? o.folder.split('/').pop()! : folderName(input.foreignId);
  const finished = state.archived || state.status === 'completed' || state.status === 'abandoned';

  let folder: string;
  if (o.layout === 'directories') {
    const place = o.folder?.split('/')[0];
    folder = finished ? `archives/${name}` : place === 'sessions' ? `sessions/${name}` : `active/${name}`;
  } else folder = o.folder ?? name;
  const target = `${prefix}${folder}`;
  const filePath = `${target}/${SESSION_FILE}`;
  const doc = sessionDocument(input, o);
  problems.push(...notRepresented(input, o, doc, filePath));
  const written = new Set<string>([filePath]);
  plan.writes.push({ path: filePath, content: `${JSON.stringify(doc, null, 2)}\n`, backup: false });

  // Other copies of the folder in the current layout move into the target (archive = move).
  let previous = await out.read(filePath);
  const moved: Array<{ from: string; to: string }> = [];
  if (o.layout === 'directories') {
    for (const p of PLACE_DIRS) {
      const other = `${prefix}${p}/${name}`;
      if (other === target || !(await out.exists(other))) continue;
      if (previous.kind !== 'ok') {
        const r = await out.read(`${other}/${SESSION_FILE}`);
        if (r.kind === 'ok') previous = r;
      }
      for (const f of await filesUnder(out, other, []))
        moved.push({ from: f, to: `${target}${f.slice(other.length)}` });
    }
  }

  // Backup of the file being replaced, with CCW's retention of the last five.
  const backupsDir = `${target}/.backups`;
  const existingBackups = new Set<string>();
  for (const m of moved) {
    if (m.to.startsWith(`${backupsDir}/`) && /\/session-[^/]*\.json$/.test(m.to)) existingBackups.add(m.to);
  }
  for (const b of await listBackups(out, target)) existingBackups.add(b);
  if (previous.kind === 'ok') {
    const b = `${backupsDir}/${backupName(input.now)}`;
    plan.writes.push({ path: b, content: previous.bytes.toString('utf8'), backup: false });
    written.add(b);
    existingBackups.add(b);
  }
  const keep = new Set(
    [...existingBackups].sort((a, b) => (path.basename(a) < path.basename(b) ? 1 : -1)).slice(0, BACKUP_RETENTION),
  );
  const dropped = new Set([...existingBackups].filter((b) => !keep.has(b)));

  for (const m of moved) {
    if (path.basename(m.from) === ARCHIVING_MARKER) {
      plan.removes.push(m.from);
      continue;
    }
    if (!written.has(m.to) && !dropped.has(m.to)) {
      const r = await out.read(m.from);
      if (r.kind === 'ok') {
        plan.writes.push({ path: m.to, content: r.bytes.toString('utf8'), backup: false });
        written.add(m.to);
      }
    }
    plan.removes.push(m.from);
  }
  for (const d of dropped) if (!moved.some((m) => m.to === d)) plan.removes.push(d);
  if (finished && (await out.exists(`${target}/${ARCHIVING_MARKER}`)))
    plan.removes.push(`${target}/${ARCHIVING_MARKER}`);

  // The session's other documents (planning docs, task files) where `out` lacks them: CCW needs
  // them to resume. Files already there are the toolkit's newer word and are left alone.
  for (const [rel, body] of Object.entries(o.companions)) {
    const to = `${target}/${rel}`;
    if (written.has(to) || (await out.exists(to))) continue;
    plan.writes.push({
      path: to,
      content: typeof body === 'string' ? body : `${JSON.stringify(body, null, 2)}\n`,
      backup: false,
    });
    written.add(to);
  }

  if (o.registered) plan.writes.push(await registryWrite(input, o, out, prefix, folder));
  if (o.layout === 'markers') {
    const marker = `${prefix}${MARKER_PREFIX}${name}`;
    if (state.status === 'active' && !state.archived)
      plan.writes.push({ path: marker, content: o.markerText ?? '', backup: false });
    else if (await out.exists(marker)) plan.removes.push(marker);
  }
  return plan;
}

/** The registry rewritten whole: this session's line updated (or added), every other line verbatim. */
async function registryWrite(
  input: ExportInput,
  o: Origin,
  out: SafeDir,
  prefix: string,
  folder: string,
): Promise<WritePlan['writes'][number]> {
  const regPath = `${prefix}${REGISTRY_FILE}`;
  const r = await out.read(regPath);
  const lines = r.kind === 'ok' ? r.text.split('\n').filter((l, i, all) => !(l === '' && i === all.length - 1)) : [];
  let existing: Record<string, unknown> | null = null;
  const idx: number[] = [];
  lines.forEach((l, i) => {
    // Torn, garbled or absurdly nested lines stay as they are: not ours to repair.
    const p = parseText(l, false);
    if (p.ok && obj(p.value).id === input.foreignId) {
      idx.push(i);
      existing = obj(p.value);
    }
  });
  const line: Record<string, unknown> = { ...(o.registryLine ?? {}), ...(existing ?? {}) };
  line.id = input.foreignId;
  line.status = registryStatus(input.state.status);
  line.description = input.state.title;
  if (!('created' in line)) line.created = input.state.createdAt;
  line.directory = `.workflow/${folder}`;
  const text = JSON.stringify(line);
  const kept = lines.filter((_, i) => !idx.slice(1).includes(i));
  if (idx.length) kept[idx[0]!] = text;
  else kept.push(text);
  // The other lines are kept byte for byte: the file's BOM and line ends too.
  const eol = r.kind === 'ok' && r.crlf ? '\r\n' : '\n';
  const bom = r.kind === 'ok' && r.bom ? '\uFEFF' : '';
  return { path: regPath, content: `${bom}${kept.join(eol)}${eol}`, backup: false };
}
