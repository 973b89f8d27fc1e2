/**
 * Writes a baton session in BMAD's layout: `sessions/<id>.yaml` while the session is active
 * or paused, `sessions/archive/<id>.yaml` once it is closed (completed/abandoned in baton, or
 * archived) with the live copy removed, as `SESSION close` moves it. The pointer
 * `active-session.yaml` is set when the session is active and cleared when it is closed and
 * the pointer named it, keeping the pointer style found (bare id, `session_id:`,
 * `active_session:`, full copy; `session_id:` when there was none): a bare or full-copy
 * pointer is removed to clear it, a keyed one gets `null`.
 *
 * The document is the imported one with baton's state written into the fields BMAD has
 * (status, last_updated bumped, tokens.current/peak/max, agents_spawned from the phases,
 * artifacts, milestones, decisions, notes, context_summary); every other field is kept
 * verbatim. Token fields baton did not change (legacy `tokens.saved_by_isolation`, an absent
 * `max`) are written back as they were.
 */
import { type IsolationView, isolation } from '../../domain/toolkits/toolkit-tokens.js';
import path from 'node:path';
import type { Phase, SessionState } from '../../domain/state.js';
import type { SafeDir } from '../safe-dir.js';
import type { ExportInput, FormatProblem, WritePlan } from '../types.js';
import { foreignTime } from '../import.js';
import { arr, num, obj, problem, str, withSafeForeignId } from '../util.js';
import { yamlModule } from '../yaml.js';
import { ARCHIVE_DIR, findSessionsDir, joinRel, POINTER_FILE, SOURCE_SUFFIX } from './layout.js';
import { parsePointer, type Pointer, pointerFromValue, type PointerStyle } from './pointer.js';
import { normalizeAgentStatus, normalizeSessionStatus } from './read.js';
import { DEFAULT_MAX } from './tokens.js';
import { renderYaml } from './yaml-edit.js';

type Doc = Record<string, unknown>;

/** BMAD's timestamp style (second precision, Z). */
function bmadTime(d: Date): string {
  return d.toISOString().replace(/\.\d{3}Z$/, 'Z');
}

/** `orig` when it names the same instant as `t` (keeps the file's spelling), else `t`. */
function sameTime(orig: unknown, t: string | null): string | null {
  if (t === null) return null;
  const o = str(orig);
  return o !== null && Date.parse(o) === Date.parse(t) ? o : t;
}

/** The imported session document and pointer, if the session came from BMAD. */
export function originalDocs(original: Record<string, unknown> | null): {
  doc: Doc | null;
  pointer: { path: string; value: unknown } | null;
} {
  if (!original) return { doc: null, pointer: null };
  let doc: Doc | null = null;
  let pointer: { path: string; value: unknown } | null = null;
  for (const [k, v] of Object.entries(original)) {
    if (k.endsWith(SOURCE_SUFFIX)) continue;
    if (k === POINTER_FILE || k.endsWith(`/${POINTER_FILE}`)) pointer = { path: k, value: v };
    else if (!doc && v && typeof v === 'object' && !Array.isArray(v)) doc = v as Doc;
  }
  return { doc, pointer };
}

function sessionStatus(s: SessionState, origRaw: string | null): string {
  if (origRaw !== null && normalizeSessionStatus(origRaw).known && normalizeSessionStatus(origRaw).status === s.status)
    return origRaw;
  switch (s.status) {
    case 'active':
      return 'active';
    case 'paused':
    case 'interrupted':
      return 'paused';
    case 'failed':
      return 'failed';
    default:
      return 'closed';
  }
}

function agentOf(p: Phase, orig: Doc, input: ExportInput): Doc {
  const meta = { ...p.metadata };
  delete meta['filesRead'];
  const e: Doc = { ...orig, ...meta, id: p.id };
  const type = p.agents[0] ?? (p.name !== p.id ? p.name : null);
  if (type !== null || 'type' in orig) e['type'] = type ?? orig['type'];
  const started = sameTime(orig['started'], foreignTime(input, `phase:${p.id}:startedAt`, p.startedAt));
  if (started !== null || 'started' in orig) e['started'] = started;
  const completed = sameTime(
    orig['completed'],
    foreignTime(input, `phase:${p.id}:completedAt`, p.completedAt ?? p.failedAt),
  );
  if (completed !== null || 'completed' in orig) e['completed'] = completed;
  const out = p.files.find((f) => f.action !== 'deleted')?.path ?? null;
  if (out !== null || 'output_file' in orig) e['output_file'] = out ?? orig['output_file'] ?? null;
  const rs = str(orig['status']);
  const want =
    p.status === 'completed' || p.status === 'skipped' ? 'completed' : p.status === 'failed' ? 'failed' : 'running';
  const done = str(e['completed']);
  // Keep the file's status (or its absence, when the completed time already says it) if it reads the same.
  const same = normalizeAgentStatus(rs, done) === normalizeAgentStatus(want, done);
  if (!same || (rs === null && Object.keys(orig).length === 0)) e['status'] = want;
  return e;
}

function mergeList<T>(
  items: T[],
  orig: unknown[],
  match: (o: unknown, x: T) => boolean,
  write: (x: T, o: Doc | null, raw: unknown) => unknown,
): unknown[] {
  const used = new Set<number>();
  return items.map((x, i) => {
    let j = orig.findIndex((o, k) => !used.has(k) && match(o, x));
    if (j === -1 && i < orig.length && !used.has(i)) j = i;
    if (j !== -1) used.add(j);
    const raw = j === -1 ? undefined : orig[j];
    return write(
      x,
      raw !== undefined && typeof raw === 'object' && raw !== null && !Array.isArray(raw) ? (raw as Doc) : null,
      raw,
    );
  });
}

/** Builds the session document. */
export function sessionDocument(input: ExportInput, orig: Doc | null): Doc {
  const s = input.state;
  // session_id leads, as in BMAD's own files, when the imported file lacked it.
  const doc: Doc = orig && 'session_id' in orig ? { ...orig } : { session_id: null, ...(orig ?? {}) };
  doc['session_id'] = input.foreignId;
  // A session born in baton gets its creation time; an imported one keeps what it had (none is not invented).
  if (!orig) doc['created'] = bmadTime(new Date(s.createdAt));
  // last_updated is bumped on a change (seed 003); none since the import: written as it was.
  doc['last_updated'] =
    input.unchangedSinceImport === true && orig && 'last_updated' in orig ? orig['last_updated'] : bmadTime(input.now);
  doc['status'] = sessionStatus(s, str(orig?.['status']));
  const ot = obj(orig?.['tokens']);
  const tokens: Doc = { ...ot };
  // BMAD's isolation: tokens recorded against a spawned agent are its own, not `current`.
  const iso = isolation(s);
  const current = iso ? iso.main : s.tokens.input + s.tokens.output;
  // Fields baton did not change are written back as they were, legacy names and absences
  // included (a missing max still means 150000, a missing figure 0: seed 003 "Token
  // Deserialization and Defaults"); a field baton changed is written under its current name.
  const same = (k: string, v: number, dflt: number): boolean =>
    ot[k] === undefined || ot[k] === null ? v === dflt : num(ot[k]) === v;
  const max = s.tokens.budgetMax ?? (typeof ot['max'] === 'number' ? ot['max'] : DEFAULT_MAX);
  if (!orig || !same('max', max, DEFAULT_MAX)) tokens['max'] = max;
  if (!orig && !('initial' in tokens)) tokens['initial'] = 0;
  if (!orig || !same('current', current, 0)) tokens['current'] = current;
  const peak = Math.max(num(ot['peak']), current);
  if (!orig || !same('peak', peak, 0)) tokens['peak'] = peak;
  // baton keeps no savings figure: the file's (under its legacy name too) is kept; a session
  // born in baton counts its agents' tokens, as BMAD computes savings from the spawned agents.
  const agentsTokens = s.phases.reduce((n, p) => n + num(p.metadata['tokens_used']), 0);
  if (!orig) tokens['saved'] = agentsTokens;
  else if (iso && Object.keys(s.tokens.byPhase).length > 0) {
    // Agents' tokens recorded in baton add to the savings, written under the current name.
    tokens['saved'] = iso.saved;
    delete tokens['saved_by_isolation'];
  }
  // A file without a tokens block keeps none when nothing is to be written in it.
  if (orig && !('tokens' in orig) && Object.keys(tokens).length === 0) delete doc['tokens'];
  else doc['tokens'] = tokens;
  doc['agents_spawned'] = spawnedAgents(input, arr(orig?.['agents_spawned']));
  doc['artifacts'] = mergeList(
    s.artifacts,
    arr(orig?.['artifacts']),
    (o, a) => str(obj(o)['path']) === a.path,
    (a, o) => {
      const e: Doc = o ? { ...o } : {};
      e['path'] = a.path;
      const time = foreignTime(input, `artifact:${a.id}`, a.time);
      const origTime = o ? (str(o['modified']) ?? str(o['created'])) : null;
      if (!o) e['created'] = time;
      else if (time !== null && (origTime === null || Date.parse(origTime) !== Date.parse(time))) e['modified'] = time;
      if (a.agent !== null || (o && 'agent' in o)) e['agent'] = a.agent;
      if (a.kind !== null || (o && 'type' in o)) e['type'] = a.kind;
      if (a.description !== null || (o && 'description' in o)) e['description'] = a.description;
      return e;
    },
  );
  doc['milestones'] = mergeList(
    s.milestones,
    arr(orig?.['milestones']),
    (o, m) => (str(obj(o)['name']) ?? str(obj(o)['title'])) === m.title,
    (m, o) => {
      const e: Doc = o ? { ...o } : {};
      e['name'] = m.title;
      e['completed'] = m.done ? sameTime(o?.['completed'], m.doneAt) : null;
      if (m.targetDate !== null || (o && 'target_date' in o)) e['target_date'] = m.targetDate;
      return e;
    },
  );
  doc['decisions'] = mergeList(
    s.decisions,
    arr(orig?.['decisions']),
    (o, d) => str(obj(o)['decision']) === (d.choice || d.title),
    (d, o, raw) => {
      if (typeof raw === 'string' && raw === (d.choice || d.title)) return raw;
      const e: Doc = o ? { ...o } : {};
      const date = sameTime(o?.['date'], foreignTime(input, `decision:${d.id}`, d.time));
      if (date !== null || (o && 'date' in o) || !o) e['date'] = date;
      e['decision'] = d.choice || d.title;
      if (d.rationale !== null || (o && 'rationale' in o)) e['rationale'] = d.rationale;
      if (d.agent !== null || (o && 'made_by' in o)) e['made_by'] = d.agent;
      return e;
    },
  );
  const on = arr(orig?.['notes']);
  const objectNotes = on.some((n) => typeof n === 'object' && n !== null);
  doc['notes'] = mergeList(
    s.notes,
    on,
    (o, n) => (typeof o === 'string' ? o : str(obj(o)['note'])) === n.text,
    (n, o, raw) => {
      if (typeof raw === 'string' || (!o && !objectNotes)) return n.text;
      const e: Doc = o ? { ...o } : {};
      const ts = sameTime(o?.['timestamp'], foreignTime(input, `note:${n.id}`, n.time));
      if (ts !== null || (o && 'timestamp' in o) || !o) e['timestamp'] = ts;
      e['note'] = n.text;
      if (n.agent !== null || (o && 'source' in o)) e['source'] = n.agent;
      return e;
    },
  );
  if (s.contextSummary !== null || !orig || 'context_summary' in orig)
    doc['context_summary'] = s.contextSummary ?? str(orig?.['context_summary']) ?? '';
  for (const k of ['agents_spawned', 'artifacts', 'milestones', 'decisions', 'notes'] as const) {
    if (orig && !(k in orig) && (doc[k] as unknown[]).length === 0) delete doc[k];
  }
  return doc;
}

/**
 * BMAD's `agents_spawned` from the phases: an entry is matched by id, else (an entry the file
 * left without id) by position. A phase not started is no spawned agent (BMAD's agents are
 * running, completed or failed): it is left out rather than shown running (see notRepresented).
 * A failed agent re-run in baton: BMAD spawns a new agent, so the failed record stays as it was.
 */
function spawnedAgents(input: ExportInput, oa: unknown[]): unknown[] {
  const s = input.state;
  const iso = isolation(s);
  return s.phases.flatMap((p, i) => {
    const byId = oa.find((a) => str(obj(a)['id']) === p.id);
    const byPos = oa[i] !== undefined && str(obj(oa[i])['id']) === null ? oa[i] : undefined;
    if (p.status === 'pending' && byId === undefined && byPos === undefined) return [];
    const o = obj(byId ?? byPos);
    if (str(o['status']) === 'failed' && p.retryCount > 0) return rerunRecords(input, p, o, oa, iso);
    // Tokens baton recorded against the agent are its own (BMAD's isolation): its tokens_used
    // grows by them as `saved` does, so the two still agree when read back (TOKENS_DISAGREE).
    if (iso && s.tokens.byPhase[p.id] !== undefined)
      return [agentOf({ ...p, metadata: { ...p.metadata, tokens_used: iso.agents[p.id] ?? 0 } }, o, input)];
    return [agentOf(p, o, input)];
  });
}

/**
 * A failed agent re-run in baton (phase retried N times): BMAD spawns a new agent, so the
 * failed record stays as it was, earlier re-runs (`<id>-rerun-<k>`, k < N) are written back as
 * they are, and the current run is `<id>-rerun-<N>` (its record from the file when it is there).
 * Its `tokens_used` is what the agent used in all (isolation) less what the other records
 * hold, so their sum is what `saved` counts.
 */
function rerunRecords(input: ExportInput, p: Phase, o: Doc, oa: unknown[], iso: IsolationView | null): unknown[] {
  const runOf = (a: unknown): number | null => {
    const m = /^(.+)-rerun-(\d+)$/.exec(str(obj(a)['id']) ?? '');
    return m && m[1] === p.id ? Number(m[2]) : null;
  };
  const earlier = oa.filter((a) => (runOf(a) ?? p.retryCount) < p.retryCount);
  const now = obj(oa.find((a) => runOf(a) === p.retryCount));
  const c = input.state.tokens.byPhase[p.id];
  const before = [o, ...earlier].reduce<number>((n, a) => n + num(obj(a)['tokens_used']), 0);
  const used = iso ? Math.max(0, (iso.agents[p.id] ?? 0) - before) : c ? c.input + c.output : 0;
  const meta = { ...p.metadata, tokens_used: used };
  const run = agentOf({ ...p, id: `${p.id}-rerun-${p.retryCount}`, metadata: meta }, now, input);
  // A new record takes the failed one's field order (id first, as BMAD writes its agents).
  const order = Object.keys(now).length > 0 ? [] : Object.keys(o).filter((k) => k in run);
  return [o, ...earlier, { ...Object.fromEntries(order.map((k) => [k, run[k]])), ...run }];
}

/** Sessions folder (relative to `out`) to write into. */
async function sessionsDir(out: SafeDir): Promise<string> {
  const found = await findSessionsDir(out);
  if (found.rel !== null) return found.rel;
  const base = path.basename(out.root);
  if (base === 'sessions') return '';
  if (base === '_bmad-output') return 'sessions';
  return '_bmad-output/sessions';
}

function pointerContent(style: PointerStyle, id: string, prev: unknown, doc: Doc): string {
  const Y = yamlModule();
  switch (style) {
    case 'bare':
      return Y.stringify(id);
    case 'copy':
      return Y.stringify(doc);
    case 'active_session':
      return Y.stringify({ ...obj(prev), active_session: id });
    default:
      return Y.stringify({ ...obj(prev), session_id: id });
  }
}

/** The text of the session's file already at the destination (the newest: the toolkit may have written it). */
async function sourceAt(out: SafeDir, rels: string[], id: string): Promise<string | null> {
  for (const rel of rels) {
    const r = await out.read(rel);
    if (r.kind !== 'ok') continue;
    try {
      if (str(obj(yamlModule().parse(r.text))['session_id']) === id) return r.bytes.toString('utf8');
    } catch {
      // Unreadable: written anew.
    }
  }
  return null;
}

/** The session file's text as imported (kept beside its parse), if any. */
function originalSource(original: Record<string, unknown> | null): string | null {
  for (const [k, v] of Object.entries(original ?? {}))
    if (k.endsWith(SOURCE_SUFFIX) && typeof v === 'string' && !k.includes(POINTER_FILE)) return v;
  return null;
}

/** What the session holds that BMAD's file cannot: said in the export's output. */
function notRepresented(input: ExportInput, rel: string): FormatProblem[] {
  const s = input.state;
  const pending = s.phases.filter((p) => p.status === 'pending').map((p) => p.id);
  const errors = s.phases.reduce((n, p) => n + p.errors.length, 0);
  const extraFiles = s.phases.reduce(
    (n, p) => n + Math.max(0, p.files.filter((f) => f.action !== 'deleted').length - 1),
    0,
  );
  const lost = [
    ...(pending.length > 0
      ? [`phase(s) not started (${pending.join(', ')}): BMAD records only spawned agents, so they are not written`]
      : []),
    ...(errors > 0 ? [`${errors} error(s): a BMAD agent record has no error list`] : []),
    ...(extraFiles > 0 ? [`${extraFiles} file record(s): an agent record holds one output_file`] : []),
  ];
  if (lost.length === 0) return [];
  return [
    problem(
      'NOT_REPRESENTED',
      pending.length > 0 ? 'warning' : 'info',
      `BMAD's session file cannot hold ${lost.join('; ')}.`,
      {
        sessionId: input.foreignId,
        path: rel,
        details: { pending, errors, files: extraFiles },
      },
    ),
  ];
}

/** The write plan of a session in BMAD's layout. */
export async function bmadExportPlan(given: ExportInput, out: SafeDir): Promise<WritePlan> {
  const { input, problem: idProblem } = withSafeForeignId(given, 'BMAD');
  const { doc: orig, pointer: origPointer } = originalDocs(input.original);
  const doc = sessionDocument(input, orig);
  const S = await sessionsDir(out);
  const id = input.foreignId;
  const live = joinRel(S, `${id}.yaml`);
  const arch = joinRel(S, ARCHIVE_DIR, `${id}.yaml`);
  const ptrPath = joinRel(S, POINTER_FILE);
  const ptrRead = await out.read(ptrPath);
  const current: Pointer | null = ptrRead.kind === 'ok' ? parsePointer(ptrRead).pointer : null;
  const origParsed: Pointer | null = origPointer !== null ? pointerFromValue(ptrPath, origPointer.value) : null;
  // The style of the pointer already in `out` (the toolkit there writes it so), else the imported one's.
  const style: PointerStyle =
    current && current.style !== 'empty'
      ? current.style
      : origParsed && origParsed.style !== 'empty'
        ? origParsed.style
        : 'session_id';
  const prevValue = current?.value ?? origParsed?.value ?? null;
  const closed = input.state.archived || doc['status'] === 'closed' || doc['status'] === 'completed';
  const source = (await sourceAt(out, [live, arch], id)) ?? originalSource(given.original);
  const text = renderYaml(doc, source);
  const problems = [...(idProblem ? [idProblem] : []), ...notRepresented(input, closed ? arch : live)];
  const plan: WritePlan = { writes: [], removes: [], ...(problems.length > 0 ? { problems } : {}) };
  if (closed) {
    plan.writes.push({ path: arch, content: text, backup: false });
    if (await out.exists(live)) plan.removes.push(live);
    if (current && current.id === id) {
      if (current.style === 'bare' || current.style === 'copy') plan.removes.push(ptrPath);
      else
        plan.writes.push({
          path: ptrPath,
          content: yamlModule().stringify({
            ...obj(current.value),
            [current.style === 'active_session' ? 'active_session' : 'session_id']: null,
          }),
          backup: false,
        });
    }
    return plan;
  }
  plan.writes.push({ path: live, content: text, backup: false });
  if (await out.exists(arch)) plan.removes.push(arch);
  // The pointer follows the session where the import saw it point (a paused session keeps it);
  // it is set for a session born in baton that is active, or one baton made active since.
  const pointedBefore = origParsed !== null && origParsed.id === id;
  const origStatus = normalizeSessionStatus(str(orig?.['status']));
  const becameActive = doc['status'] === 'active' && (orig === null || origStatus.status !== 'active');
  if (pointedBefore || becameActive || (current && current.id === id && current.style === 'copy')) {
    plan.writes.push({
      path: ptrPath,
      content: pointerContent(style, id, current?.style === style ? prevValue : (origParsed?.value ?? null), doc),
      backup: false,
    });
  }
  return plan;
}
