/**
 * One BMAD session file (`sessions/<id>.yaml` or `sessions/archive/<id>.yaml`) into a
 * {@link ForeignSession}. BMAD has no phases: each `agents_spawned` entry becomes a unit
 * (id = the agent's id, name = its type, running → in_progress, completed, failed), so the
 * work done by isolated agents, their tokens (`tokens_used`, kept in unit metadata) and
 * output files are carried over; milestones, decisions, notes and artifacts map to their
 * own ForeignSession lists; `current_focus`, `tags` and identification fields stay in the
 * document. Session status: active, paused, closed (→ completed); blocked (→ paused) and
 * failed/completed are tolerated.
 */
import type { ProblemReport } from '../problems.js';
import type { SessionStatus } from '../../domain/state.js';
import type { ReadResult, SafeDir } from '../safe-dir.js';
import type { FormatProblem, ForeignSession, ForeignUnit, ResumeAdvice } from '../types.js';
import { arr, hashSources, num, obj, problem, rest, str } from '../util.js';
import { readTokens } from './tokens.js';
import { SOURCE_SUFFIX } from './layout.js';

type Doc = Record<string, unknown>;

/** Agent fields mapped onto a unit; the rest (tokens_used…) stays in unit metadata. */
export const AGENT_FIELDS = ['id', 'type', 'started', 'completed', 'status', 'output_file'] as const;

/** Raw session status → baton's reading; `known` false for values outside BMAD's list. */
export function normalizeSessionStatus(raw: string | null): { status: SessionStatus; known: boolean } {
  switch (raw) {
    case 'active':
      return { status: 'active', known: true };
    case 'paused':
      return { status: 'paused', known: true };
    case 'closed':
    case 'completed':
      return { status: 'completed', known: true };
    case 'blocked':
      return { status: 'paused', known: true };
    case 'failed':
      return { status: 'failed', known: true };
    default:
      return { status: 'active', known: false };
  }
}

/** Agent status → unit status (a missing status is inferred from `completed`). */
export function normalizeAgentStatus(raw: string | null, completed: string | null): ForeignUnit['status'] {
  switch (raw) {
    case 'running':
      return 'in_progress';
    case 'completed':
      return 'completed';
    case 'failed':
      return 'failed';
    default:
      return completed ? 'completed' : 'in_progress';
  }
}

/** Context a session is read in. */
export interface SessionContext {
  dir: SafeDir;
  /** The file the session comes from. */
  read: ReadResult & { kind: 'ok' };
  doc: Doc;
  archived: boolean;
  /** Other files read for it (pointer, the other copy of an archive copied instead of moved). */
  extra: ReadResult[];
  /** Parsed documents of those files, by path. */
  extraDocs: Record<string, unknown>;
  /** Root-relative folder paths in the session are relative to (the project root), or null when unknown. */
  projectRel: string | null;
}

async function checkPath(
  ctx: SessionContext,
  sessionId: string,
  p: string,
  what: string,
): Promise<FormatProblem | null> {
  const norm = p.replace(/\\/g, '/');
  const abs = /^([A-Za-z]:)?\//.test(norm);
  // Paths in a session are relative to the project root; when PATH is deeper than that only the lexical check applies.
  const c = await ctx.dir.check(abs || !ctx.projectRel ? norm : `${ctx.projectRel}/${norm}`);
  if (c.ok) return null;
  return {
    ...c.problem,
    sessionId,
    path: ctx.read.path,
    message: `${what} ${JSON.stringify(p)}: ${c.problem.message}`,
    details: { field: what, value: p },
  };
}

type Report = ProblemReport;

/** The artifacts list; entries without a path are reported and skipped, unsafe paths reported. */
async function readArtifacts(
  ctx: SessionContext,
  d: Record<string, unknown>,
  id: string,
  p: Report,
  problems: FormatProblem[],
): Promise<ForeignSession['artifacts']> {
  const artifacts: ForeignSession['artifacts'] = [];
  for (const [i, raw] of arr(d['artifacts']).entries()) {
    const a = typeof raw === 'string' ? { path: raw } : obj(raw);
    const ap = str(a['path']);
    if (ap === null) {
      p('MISSING_FIELD', 'warning', `artifacts[${i}] has no path; ignored.`, null, {
        field: `artifacts[${i}].path`,
        assumed: null,
      });
      continue;
    }
    const bad = await checkPath(ctx, id, ap, `artifacts[${i}].path`);
    if (bad) problems.push(bad);
    artifacts.push({
      path: ap,
      kind: str(a['type']),
      description: str(a['description']),
      unitId: null,
      agent: str(a['agent']),
      time: str(a['modified']) ?? str(a['created']),
    });
  }
  return artifacts;
}

/** Milestones, decisions and notes: each entry a string or an object. */
function readLists(d: Record<string, unknown>): Pick<ForeignSession, 'milestones' | 'decisions' | 'notes'> {
  const milestones = arr(d['milestones']).map((raw) => {
    const m = typeof raw === 'string' ? { name: raw } : obj(raw);
    return {
      title: str(m['name']) ?? str(m['title']) ?? '',
      targetDate: str(m['target_date']),
      doneAt: str(m['completed']),
    };
  });
  const decisions = arr(d['decisions']).map((raw) => {
    const x = typeof raw === 'string' ? { decision: raw } : obj(raw);
    const text = str(x['decision']) ?? '';
    return {
      id: null,
      title: text,
      choice: text,
      rationale: str(x['rationale']),
      alternatives: [],
      agent: str(x['made_by']),
      unitId: null,
      time: str(x['date']),
    };
  });
  const notes = arr(d['notes']).map((raw) => {
    if (typeof raw === 'string') return { text: raw, time: null, agent: null };
    const n = obj(raw);
    return { text: str(n['note']) ?? str(n['text']) ?? '', time: str(n['timestamp']), agent: str(n['source']) };
  });
  return { milestones, decisions, notes };
}

/** Checks the session's id (against its file name and seed 003's format) and status; returns the id's parts and the status read. */
function checkHeader(
  d: Doc,
  id: string,
  fileId: string,
  file: string,
  archived: boolean,
  p: Report,
): { idParts: ForeignSession['idParts']; rawStatus: string | null; ns: ReturnType<typeof normalizeSessionStatus> } {
  if (str(d['session_id']) === null)
    p('MISSING_FIELD', 'warning', `${file} has no session_id; the file name ${fileId} is used.`, 'Add session_id.', {
      field: 'session_id',
      assumed: fileId,
    });
  else if (id !== fileId)
    p(
      'BAD_VALUE',
      'warning',
      `${file} holds session_id ${id}, not the ${fileId} its name says; the session_id is used.`,
      'Rename the file or fix session_id.',
      { field: 'session_id', value: id, fileName: fileId },
    );
  // The id's parts (seed 003 "Session ID Format": {PREFIX}{YYYYMM}-{CLIENT}-{PROJECT}).
  const idm = /^(SES|ENG|ANA|DES|TST)(\d{4})(\d{2})-([^-]+)-(.+)$/.exec(id);
  const idParts = idm
    ? {
        prefix: idm[1]!,
        year: idm[2]!,
        month: idm[3]!,
        yyyymm: `${idm[2]}${idm[3]}`,
        client: idm[4]!,
        project: idm[5]!,
      }
    : null;
  if (!/^(SES|ENG|ANA|DES|TST)\d{6}-[^-]+-.+$/.test(id)) {
    p(
      'BAD_VALUE',
      'info',
      `session id ${id} does not follow {PREFIX}{YYYYMM}-{CLIENT}-{PROJECT} (prefixes SES, ENG, ANA, DES, TST).`,
      null,
      { field: 'session_id', value: id },
    );
  }
  const rawStatus = str(d['status']);
  const ns = normalizeSessionStatus(rawStatus);
  if (rawStatus === null)
    p('MISSING_FIELD', 'warning', `${id} has no status; read as active.`, 'Set status to active, paused or closed.', {
      field: 'status',
      assumed: 'active',
    });
  else if (!ns.known)
    p(
      'BAD_VALUE',
      'warning',
      `${id} has status ${JSON.stringify(rawStatus)}, not active, paused or closed; read as active.`,
      null,
      { field: 'status', value: rawStatus },
    );
  if (str(d['created']) === null)
    p('MISSING_FIELD', 'info', `${id} has no created time.`, null, { field: 'created', assumed: null });
  if (archived && rawStatus !== null && rawStatus !== 'closed' && rawStatus !== 'completed') {
    p(
      'BAD_VALUE',
      'warning',
      `${id} is in the archive but its status is ${rawStatus}; BMAD archives only closed sessions.`,
      null,
      { field: 'status', value: rawStatus },
    );
  }
  return { idParts, rawStatus, ns };
}

/** `agents_spawned` as units (ids made unique, status read from the completed time when missing) and the tokens they report. */
async function readAgents(
  ctx: SessionContext,
  d: Doc,
  id: string,
  p: Report,
  problems: FormatProblem[],
): Promise<{ units: ForeignUnit[]; agentsTokens: number | null }> {
  const units: ForeignUnit[] = [];
  const seen = new Set<string>();
  let agentsTokens: number | null = null;
  const agentsRaw = d['agents_spawned'];
  if (agentsRaw !== undefined && agentsRaw !== null && !Array.isArray(agentsRaw))
    p('BAD_VALUE', 'warning', 'agents_spawned is not a list; ignored.', null, {
      field: 'agents_spawned',
      value: agentsRaw,
    });
  const noStatus: string[] = [];
  for (const [i, raw] of arr(agentsRaw).entries()) {
    const a = obj(raw);
    let uid = str(a['id']) ?? `agent-${i + 1}`;
    if (str(a['id']) === null)
      p('MISSING_FIELD', 'warning', `agents_spawned[${i}] has no id; ${uid} is used.`, null, {
        field: `agents_spawned[${i}].id`,
        assumed: uid,
      });
    if (seen.has(uid)) {
      const dup = uid;
      uid = `${uid}-${i + 1}`;
      p('BAD_VALUE', 'warning', `agents_spawned[${i}] repeats the id ${dup}; read as ${uid}.`, null, {
        field: `agents_spawned[${i}].id`,
        value: dup,
      });
    }
    seen.add(uid);
    const rs = str(a['status']);
    const completed = str(a['completed']);
    if (rs === null) noStatus.push(uid);
    else if (!['running', 'completed', 'failed'].includes(rs))
      p(
        'BAD_VALUE',
        'warning',
        `agent ${uid} has status ${JSON.stringify(rs)}, not running, completed or failed.`,
        null,
        { field: `agents_spawned[${i}].status`, value: rs },
      );
    if ('tokens_used' in a) agentsTokens = (agentsTokens ?? 0) + num(a['tokens_used']);
    const out = str(a['output_file']);
    if (out) {
      const bad = await checkPath(ctx, id, out, `agents_spawned[${i}].output_file`);
      if (bad) problems.push(bad);
    }
    const type = str(a['type']);
    units.push({
      id: uid,
      name: type ?? uid,
      status: normalizeAgentStatus(rs, completed),
      rawStatus: rs,
      subStep: null,
      retries: null,
      agents: type ? [type] : [],
      blockedBy: [],
      startedAt: str(a['started']),
      completedAt: completed,
      files: out ? [{ path: out, action: 'created' }] : [],
      errors: [],
      metadata: rest(a, AGENT_FIELDS),
    });
  }
  if (noStatus.length > 0) {
    p(
      'MISSING_FIELD',
      'info',
      `agent${noStatus.length === 1 ? '' : 's'} ${noStatus.join(', ')} ha${noStatus.length === 1 ? 's' : 've'} no status; read from the completed time.`,
      null,
      {
        field: 'agents_spawned[].status',
        agents: noStatus,
        assumed: 'completed when "completed" is set, else running',
      },
    );
  }
  return { units: foldReruns(units), agentsTokens };
}

/**
 * Folds the re-runs of a failed agent back into its unit. BMAD spawns a new agent for a re-run
 * and keeps the failed one's record; baton writes that new agent as `<id>-rerun-<N>` (write.ts)
 * where its phase `<id>` was retried N times. Read back, `agent-d2` (failed) and
 * `agent-d2-rerun-1` are one phase retried once, with the re-run's status and times, and the
 * tokens of every record (so the agent's tokens and the savings still agree): a re-import finds
 * the phase it retried instead of a new unit and a failed one going backwards, and the export
 * writes every record back (the failed one and earlier re-runs as they are). Only a re-run whose
 * base agent is in the file and failed is folded; any other id is an agent of its own.
 */
function foldReruns(units: ForeignUnit[]): ForeignUnit[] {
  const byId = new Map(units.map((u) => [u.id, u]));
  const out = new Map<string, ForeignUnit>();
  for (const u of units) {
    const m = /^(.+)-rerun-([1-9]\d{0,3})$/.exec(u.id);
    const base = m ? byId.get(m[1]!) : undefined;
    if (!m || !base || base.rawStatus !== 'failed') {
      if (!out.has(u.id)) out.set(u.id, { ...u });
      continue;
    }
    const b = out.get(base.id) ?? { ...base };
    const n = Number(m[2]);
    const has = 'tokens_used' in b.metadata || 'tokens_used' in u.metadata;
    const tokens = num(b.metadata['tokens_used']) + num(u.metadata['tokens_used']);
    const later = n >= (b.retries ?? 0);
    out.set(base.id, {
      ...b,
      ...(later
        ? { status: u.status, rawStatus: u.rawStatus, startedAt: u.startedAt, completedAt: u.completedAt, retries: n }
        : {}),
      files: [...b.files, ...u.files.filter((f) => !b.files.some((x) => x.path === f.path))],
      metadata: has ? { ...b.metadata, tokens_used: tokens } : b.metadata,
    });
  }
  return [...out.values()];
}

/** Builds the session; `active` and `resume` are settled by the caller, which knows the pointer. */
export async function readSession(
  ctx: SessionContext,
  fileId: string,
): Promise<{ session: ForeignSession; problems: FormatProblem[] }> {
  const d = ctx.doc;
  const file = ctx.read.path;
  const problems: FormatProblem[] = [];
  const id = str(d['session_id']) ?? fileId;
  const p = (
    code: string,
    sev: 'error' | 'warning' | 'info',
    msg: string,
    hint: string | null,
    details?: Record<string, unknown>,
  ) => problems.push(problem(code, sev, msg, { sessionId: id, path: file, hint, details }));
  const { idParts, rawStatus, ns } = checkHeader(d, id, fileId, file, ctx.archived, p);

  const { units, agentsTokens } = await readAgents(ctx, d, id, p, problems);
  const tokens = readTokens(d['tokens'], agentsTokens, id, file, problems);

  const artifacts = await readArtifacts(ctx, d, id, p, problems);
  const { milestones, decisions, notes } = readLists(d);
  const running = units.filter(
    (u) => u.rawStatus === 'running' || (u.rawStatus === null && u.status === 'in_progress'),
  );
  const client = str(d['client']);
  const project = str(d['project']);
  const title = str(d['description']) || [client, project].filter(Boolean).join(' ') || id;
  const reads = [ctx.read, ...ctx.extra];
  const resume: ResumeAdvice = {
    unitId: null,
    action: 'none',
    subStep: null,
    retryLimit: null,
    retriesUsed: null,
    lastCompleted: null,
    reason: '',
    options: [],
    recommended: null,
    warnings: [],
  };
  const session: ForeignSession = {
    format: 'bmad',
    id,
    title,
    rawStatus,
    status: ns.status,
    active: false,
    archived: ctx.archived,
    path: file,
    sources: reads.filter((r) => r.kind === 'ok').map((r) => r.path),
    createdAt: str(d['created']),
    updatedAt: str(d['last_updated']),
    units,
    position: { unitId: running[0]?.id ?? null, subStep: null },
    resume,
    unresolvedErrors: [],
    tokens,
    decisions,
    findings: [],
    notes,
    milestones,
    artifacts,
    contextSummary: str(d['context_summary']),
    checkpoints: [],
    problems,
    // The text too: export edits it in place, keeping its comments and quoting.
    documents: { [file]: d, [`${file}${SOURCE_SUFFIX}`]: ctx.read.bytes.toString('utf8'), ...ctx.extraDocs },
    sourceHash: hashSources(reads),
    idParts,
  };
  return { session, problems };
}

/** The agents still marked running (orphaned when the session is not active). */
export function runningAgents(s: ForeignSession): ForeignUnit[] {
  return s.units.filter((u) => u.rawStatus === 'running' || (u.rawStatus === null && u.status === 'in_progress'));
}
