/**
 * baton session → Maestro files, by Maestro's own rules: a live session is the singleton
 * `state/active-session.md`; a completed or archived one is `state/archive/<id>.md` and the
 * active file is removed (Maestro archives by MOVING the file). The frontmatter keeps the
 * flavour of the original (JSON for v1.6 files, YAML otherwise and for sessions born in
 * baton) and every field baton does not map, verbatim; `updated` is bumped.
 *
 * The base document is the session's file already in the output folder when there is one (a
 * mirror or an earlier export: the toolkit may have appended to it since), else the imported
 * one. The Markdown log is append-only, as in Maestro: the base body is kept byte for byte and
 * one `## Phase N: <name> <indicator>` section is appended for each phase whose status differs
 * from what the log last showed for it (or, when the log never mentioned it, from the base
 * frontmatter). Exporting the same state twice appends nothing the second time.
 */
import { writtenTotals } from '../../domain/toolkits/toolkit-tokens.js';
import { BatonError } from '../../domain/errors.js';
import type { Phase, SessionState, SessionStatus } from '../../domain/state.js';
import { foreignTime } from '../import.js';
import type { SafeDir } from '../safe-dir.js';
import type { ExportInput, WritePlan } from '../types.js';
import { obj, str, withSafeForeignId } from '../util.js';
import { bodyStatuses, renderPhaseSection } from './body.js';
import { isMaestroDocument, parseSessionText, renderSessionText, type MaestroDocument } from './frontmatter.js';
import { candidates, DEFAULT_STATE_DIRS, PLAN_FIELDS } from './plans.js';
import { MAESTRO_PHASE_STATUSES } from './phases.js';
import { isMinimal } from './session.js';

/** The agent import uses for tokens the per-agent map does not explain; never written back. */
const UNATTRIBUTED = '(unattributed)';
const GATE = /\.design-gate\.json$/;

type Fm = Record<string, unknown>;

function join(a: string, b: string): string {
  return a === '' ? b : `${a}/${b}`;
}

/** Which raw status stands for baton's status; the original raw one is kept when it still fits. */
function statusOut(status: SessionStatus, archived: boolean, original: unknown): string {
  const raw = str(original);
  const reads: Record<string, SessionStatus> = {
    in_progress: 'active',
    completed: 'completed',
    failed: 'failed',
    interrupted: 'interrupted',
    archived: 'completed',
  };
  const known = raw !== null && Object.hasOwn(reads, raw);
  if (known && reads[raw!] === status && !(archived && raw !== 'completed' && status === 'completed')) return raw!;
  if (raw !== null && !known && status === 'active') return raw; // a BAD_VALUE read as in progress: kept verbatim
  if (status === 'completed') return 'completed';
  if (status === 'failed' || status === 'abandoned') return 'failed';
  return 'in_progress'; // active, paused, interrupted: Maestro resumes an in_progress session
}

/** Phase ids go back as numbers when they look like numbers, unless the original held a string. */
function idOut(id: string, original: unknown): string | number {
  if (typeof original === 'string') return id;
  return /^(0|[1-9]\d{0,14})$/.test(id) ? Number(id) : id;
}

/** The original time text when it names the same instant (import normalizes times to ISO). */
function timeOut(t: string | null, original: unknown): string | null {
  if (t === null) return null;
  const o = str(original);
  return o !== null && Date.parse(o) === Date.parse(t) ? o : t;
}

function filesOf(ph: Phase, action: 'created' | 'modified' | 'deleted'): string[] {
  return [...new Set(ph.files.filter((f) => f.action === action).map((f) => f.path))];
}

function errorsOf(ph: Phase, original: unknown, input: ExportInput): Fm[] {
  const orig = Array.isArray(original) ? original : [];
  return ph.errors.map((e, i) => ({
    ...obj(orig[i]),
    agent: e.agent,
    timestamp: timeOut(foreignTime(input, `error:${e.id}`, e.time), obj(orig[i]).timestamp),
    type: e.type,
    message: e.message,
    resolution: e.resolution ?? (e.resolved ? null : 'pending'),
    resolved: e.resolved,
  }));
}

function phaseOut(ph: Phase, orig: Fm | undefined, idTypes: Map<string, unknown>, input: ExportInput): Fm {
  const o: Fm = orig ? { ...orig } : {};
  if (orig && !Array.isArray(orig.agents)) delete o.agent; // legacy singular → current list
  const unchanged =
    orig !== undefined &&
    (orig.status === ph.status ||
      (ph.status === 'pending' && !(MAESTRO_PHASE_STATUSES as readonly string[]).includes(String(orig.status))));
  const fresh: Fm = {
    id: idOut(ph.id, orig?.id),
    name: ph.name,
    // A status outside the enum was read as pending: while it still is, keep it verbatim.
    status:
      ph.status === 'pending' &&
      typeof orig?.status === 'string' &&
      !(MAESTRO_PHASE_STATUSES as readonly string[]).includes(orig.status)
        ? orig.status
        : ph.status,
    agents: ph.agents,
    ...(orig ? {} : { parallel: ph.parallelGroup !== null }),
    // Times baton made up at import (the file had none) go back as null, unless the phase moved
    // on since (then its time is baton's own, e.g. a failed phase completed after a retry).
    started: timeOut(
      unchanged ? foreignTime(input, `phase:${ph.id}:startedAt`, ph.startedAt) : ph.startedAt,
      orig?.started,
    ),
    completed: timeOut(
      unchanged ? foreignTime(input, `phase:${ph.id}:completedAt`, ph.completedAt) : ph.completedAt,
      orig?.completed,
    ),
    blocked_by: ph.blockedBy.map((b) => idOut(b, idTypes.get(b))),
    files_created: filesOf(ph, 'created'),
    files_modified: filesOf(ph, 'modified'),
    files_deleted: filesOf(ph, 'deleted'),
    errors: errorsOf(ph, orig?.errors, input),
    retry_count: ph.retryCount,
  };
  Object.assign(o, fresh);
  for (const [k, v] of Object.entries(ph.metadata)) {
    if (k === 'filesRead') continue; // Maestro lists no read files
    o[k] = v;
  }
  return o;
}

function tokensOut(state: SessionState, orig: unknown, bornInBaton: boolean): Fm | undefined {
  const t = state.tokens;
  const byAgent = Object.entries(t.byAgent).filter(([a]) => a !== UNATTRIBUTED);
  if (orig === undefined && !bornInBaton && byAgent.length === 0 && t.input + t.output + t.cached === 0)
    return undefined;
  const o: Fm = { ...obj(orig) };
  // Totals the file wrote apart from its by_agent sum are kept as written (issue 27).
  const totals = writtenTotals(state) ?? t;
  o.total_input = totals.input;
  o.total_output = totals.output;
  o.total_cached = totals.cached;
  if (bornInBaton || 'by_agent' in o || byAgent.length > 0) {
    const prev = obj(o.by_agent);
    o.by_agent = Object.fromEntries(
      byAgent.map(([a, c]) => [a, { ...obj(prev[a]), input: c.input, output: c.output, cached: c.cached }]),
    );
  }
  return o;
}

function currentPhase(phases: Phase[], original: unknown, idTypes: Map<string, unknown>): unknown {
  const inFlight = phases.find((p) => p.status === 'in_progress');
  if (inFlight) return idOut(inFlight.id, idTypes.get(inFlight.id));
  if (original !== undefined && phases.some((p) => p.id === str(original))) return original;
  const next = phases.find((p) => p.status === 'pending' || p.status === 'failed') ?? phases[phases.length - 1];
  return next ? idOut(next.id, idTypes.get(next.id)) : 1;
}

/** Picks the session document (and design gate) of this session from the import's documents. */
function originals(
  original: Record<string, unknown> | null,
  foreignId: string,
): { doc: MaestroDocument | null; gate: Fm | null } {
  if (!original) return { doc: null, gate: null };
  const docs = Object.entries(original).filter((e): e is [string, MaestroDocument] => isMaestroDocument(e[1]));
  const doc = docs.find(([, d]) => str(d.frontmatter.session_id) === foreignId)?.[1] ?? docs[0]?.[1] ?? null;
  const gate = Object.entries(original).find(([k, v]) => GATE.test(k) && v !== null && typeof v === 'object');
  return { doc, gate: gate ? (gate[1] as Fm) : null };
}

/** The state dir inside `out`: `out` itself, or its `.gemini/` / `docs/maestro/` when present. */
async function stateDirIn(out: SafeDir): Promise<string> {
  if (await out.exists('state')) return '';
  for (const d of DEFAULT_STATE_DIRS) if (await out.exists(`${d}/state`)) return d;
  return '';
}

/** Builds the frontmatter + body of the exported session. */
export function renderMaestro(input: ExportInput, original: MaestroDocument | null): MaestroDocument {
  const { state, foreignId, now } = input;
  const fm: Fm = original ? structuredClone(original.frontmatter) : {};
  const born = original === null;
  const archived = state.archived || state.status === 'completed';
  const origPhases = new Map<string, Fm>();
  for (const p of Array.isArray(fm.phases) ? fm.phases : []) {
    const id = str(obj(p).id);
    if (id !== null && !origPhases.has(id)) origPhases.set(id, obj(p));
  }
  const idTypes = new Map<string, unknown>([...origPhases].map(([id, p]) => [id, p.id]));

  const out: Fm = born ? { session_id: foreignId, task: state.title } : fm;
  out.session_id = foreignId;
  if (!born && 'task' in fm) out.task = state.title;
  out.created = timeOut(state.createdAt, fm.created);
  // Seed 000 "Update Rules": `updated` is bumped on every state change; none since the import: kept.
  const keep = input.unchangedSinceImport === true && !born;
  out.updated = keep && fm.updated !== undefined ? fm.updated : now.toISOString();
  out.status = statusOut(state.status, archived, fm.status);
  for (const [field, kind] of PLAN_FIELDS) {
    const a = state.artifacts.find((x) => x.kind === kind);
    if (a) out[field] = a.path;
    else if (born) out[field] = null;
  }
  const minimal = !born && isMinimal(fm) && state.phases.length <= 1;
  if (minimal) {
    const ph = state.phases[0];
    if (ph) {
      if ('agent' in fm || ph.agents.length) out.agent = ph.agents.length > 1 ? ph.agents : (ph.agents[0] ?? null);
      for (const a of ['created', 'modified', 'deleted'] as const) {
        const list = filesOf(ph, a);
        if (`files_${a}` in fm || list.length) out[`files_${a}`] = list;
      }
      if ('errors' in fm || ph.errors.length) out.errors = errorsOf(ph, fm.errors, input);
      if ('retry_count' in fm || ph.retryCount > 0) out.retry_count = ph.retryCount;
    }
  } else {
    // The position field is written as it was unless baton moved the session on since the import.
    out.current_phase =
      keep && fm.current_phase !== undefined ? fm.current_phase : currentPhase(state.phases, fm.current_phase, idTypes);
    // A wrong count (BAD_VALUE) is kept verbatim while the phases are the ones it was read with.
    const sameCount = Array.isArray(fm.phases) && fm.phases.length === state.phases.length;
    out.total_phases = sameCount && fm.total_phases !== undefined ? fm.total_phases : state.phases.length;
  }
  const tokens = tokensOut(state, fm.token_usage, born);
  if (tokens) out.token_usage = tokens;
  if (!minimal) out.phases = state.phases.map((ph) => phaseOut(ph, origPhases.get(ph.id), idTypes, input));

  let body = original ? original.body : `\n# ${state.title} Orchestration Log\n`;
  const shown = bodyStatuses(body);
  const sections: string[] = [];
  for (const ph of minimal ? [] : state.phases) {
    // The phase's own time, so exporting the same state twice gives the same section.
    const at = ph.completedAt ?? ph.failedAt ?? ph.startedAt ?? now.toISOString();
    const raw = str(origPhases.get(ph.id)?.status);
    const before =
      shown.get(ph.id)?.status ??
      (raw !== null && (MAESTRO_PHASE_STATUSES as readonly string[]).includes(raw) ? raw : 'pending');
    if (before === ph.status) continue;
    sections.push(
      renderPhaseSection({
        id: ph.id,
        name: ph.name,
        status: ph.status,
        agents: ph.agents,
        created: filesOf(ph, 'created'),
        modified: filesOf(ph, 'modified'),
        deleted: filesOf(ph, 'deleted'),
        errors: ph.errors.map((e) => ({ message: e.message, resolved: e.resolved, resolution: e.resolution })),
        retries: ph.retryCount,
        at,
      }),
    );
  }
  if (sections.length) body = `${body.replace(/\n*$/, '\n')}\n${sections.join('\n')}`;
  return { frontmatterFormat: original?.frontmatterFormat ?? 'yaml', frontmatter: out, body };
}

/**
 * Maestro's archive moves the design and plan to `plans/archive/` (and verifies no plan is
 * left in `plans/`): each plan the session names that is in the output folder outside
 * `plans/archive/` is planned as a write there plus a removal. Only files already in `out`
 * move; baton holds no plan content. The frontmatter keeps the original paths, as Maestro's
 * does (readers look in `plans/archive/` for an archived session).
 */
async function planPlanMoves(fm: Fm, out: SafeDir, sd: string, plan: WritePlan): Promise<void> {
  const moved = new Set<string>();
  for (const [field] of PLAN_FIELDS) {
    const p = str(fm[field])?.replace(/\\/g, '/');
    if (!p || p.trim() === '') continue;
    for (const c of candidates(p, sd)) {
      const chk = await out.check(c);
      if (!chk.ok) break; // never follow a plan path that leads out (inspect reports it)
      if (chk.rel.split('/').includes('archive')) continue;
      const r = await out.read(chk.rel);
      if (r.kind !== 'ok') continue;
      const to = join(sd, `plans/archive/${chk.rel.split('/').pop()!}`);
      if (to === chk.rel || moved.has(chk.rel) || moved.has(to)) break; // one file per name in plans/archive/
      moved.add(chk.rel);
      moved.add(to);
      // The bytes as they are (BOM, CRLF): SafeDir's text is normalized for reading.
      plan.writes.push({ path: to, content: r.bytes.toString('utf8'), backup: false });
      plan.removes.push(chk.rel);
      break;
    }
  }
}

/**
 * The design document and implementation plan travel with the session: the texts imported
 * with it are written under `plans/` (`plans/archive/` for an archived session) where `out`
 * has no file of that name yet (docs/formats/maestro.md: plans live in `<state_dir>/plans/`, archiving
 * moves them to `plans/archive/`).
 */
async function planFilesTravel(
  input: ExportInput,
  out: SafeDir,
  sd: string,
  archived: boolean,
  plan: WritePlan,
): Promise<void> {
  for (const [rel, text] of Object.entries(input.original ?? {})) {
    if (typeof text !== 'string' || !/(^|\/)plans\/(archive\/)?[^/]+$/.test(rel)) continue;
    const base = rel.split('/').pop()!;
    const to = join(sd, archived ? `plans/archive/${base}` : `plans/${base}`);
    const other = join(sd, archived ? `plans/${base}` : `plans/archive/${base}`);
    if ((await out.exists(to)) || (await out.exists(other)) || plan.writes.some((w) => w.path === to)) continue;
    plan.writes.push({ path: to, content: text, backup: false });
  }
}

/** See the module comment. Refuses (ACTIVE_EXISTS) to overwrite another live session's active file. */
export async function maestroExportPlan(given: ExportInput, out: SafeDir): Promise<WritePlan> {
  const { input, problem: idProblem } = withSafeForeignId(given, 'Maestro');
  const id = input.foreignId;
  // The imported documents are found by the id they hold, which may be the unsafe one.
  const { doc, gate } = originals(input.original, given.foreignId);
  const sd = await stateDirIn(out);
  const activeRel = join(sd, 'state/active-session.md');
  const archiveRel = join(sd, `state/archive/${id}.md`);
  const gateRel = join(sd, `state/${id}.design-gate.json`);
  const archived = input.state.archived || input.state.status === 'completed';

  let activeHolder: string | null = null;
  let activeExists = false;
  // The session's file already in `out` (a mirror, an earlier export) is newer than the import's
  // documents: the toolkit may have appended to its log since. It is the base when it parses.
  let base: MaestroDocument | null = null;
  const cur = await out.read(activeRel);
  if (cur.kind === 'ok') {
    activeExists = true;
    const p = parseSessionText(cur.text);
    activeHolder = p.ok ? str(p.doc.frontmatter.session_id) : null;
    if (p.ok && activeHolder === id) base = p.doc;
  } else if (cur.kind !== 'missing') {
    throw new BatonError('BAD_INPUT', cur.problem.message, { hint: cur.problem.hint ?? undefined });
  }
  if (!base) {
    const arch = await out.read(archiveRel);
    const p = arch.kind === 'ok' ? parseSessionText(arch.text) : null;
    if (p?.ok && str(p.doc.frontmatter.session_id) === id) base = p.doc;
  }
  if (!archived && activeExists && activeHolder !== id) {
    throw new BatonError(
      'ACTIVE_EXISTS',
      `${activeRel} in the output folder holds ${activeHolder === null ? 'a session baton cannot read' : `session ${activeHolder}`}; Maestro keeps one active session.`,
      {
        hint: 'Archive that session first (move it to state/archive/<id>.md), or export to another folder.',
        details: { path: activeRel, holder: activeHolder },
      },
    );
  }

  const rendered = renderMaestro(input, base ?? doc);
  const plan: WritePlan = {
    writes: [{ path: archived ? archiveRel : activeRel, content: renderSessionText(rendered), backup: false }],
    removes: [],
    ...(idProblem ? { problems: [idProblem] } : {}),
  };
  await planFilesTravel(input, out, sd, archived, plan);
  if (archived) {
    await planPlanMoves(rendered.frontmatter, out, sd, plan);
    if (activeExists && activeHolder === id) plan.removes.push(activeRel);
    if (await out.exists(gateRel)) plan.removes.push(gateRel); // a lingering gate would approve a later session reusing the id
  } else {
    if (await out.exists(archiveRel)) plan.removes.push(archiveRel); // live again: no archived copy beside it
    if (gate)
      plan.writes.push({
        path: gateRel,
        content: `${JSON.stringify({ ...gate, session_id: id }, null, 2)}\n`,
        backup: false,
      });
  }
  return plan;
}
