/**
 * One Maestro session file (`state/active-session.md` or `state/archive/<id>.md`) → a
 * {@link ForeignSession}. Handles the seed/v1.x YAML frontmatter, the v1.6 JSON one and the
 * minimal one-agent template (`tier`, `task`, `agent`, `validation`, flat file lists, no
 * phases). Problems of the file itself are reported here; problems between files (copies,
 * two actives, design gates) are found by the caller.
 */
import type { SessionStatus } from '../../domain/state.js';
import type { ReadResult, SafeDir } from '../safe-dir.js';
import type { FormatProblem, ForeignSession, ForeignTokens, ForeignUnit, TokenCountsLike } from '../types.js';
import { arr, hashSources, num, obj, problem, str } from '../util.js';
import { bodyStatuses, bodyTitle, INDICATOR } from './body.js';
import { maestroFacts, totalsRule } from './facts.js';
import { parseSessionText, type MaestroDocument } from './frontmatter.js';
import { readErrors, readPhases, type PhaseCtx } from './phases.js';
import { checkPlans, PLAN_FIELDS } from './plans.js';
import { reconcileProblems } from './reconcile.js';
import { maestroResume } from './resume.js';

/** Session statuses the files hold (the docs' diagram adds failed/interrupted/archived). */
const SESSION_STATUS: Record<string, SessionStatus> = {
  in_progress: 'active',
  completed: 'completed',
  failed: 'failed',
  interrupted: 'interrupted',
  archived: 'completed',
};

const ENUMS: Record<string, readonly (string | null)[]> = {
  workflow_mode: ['standard', 'express'],
  execution_mode: ['parallel', 'sequential', null],
  task_complexity: ['simple', 'medium', 'complex'],
};

/** Where the file sits. */
export interface SessionFileCtx {
  /** The state dir, relative to the inspected root ('' when the root is the state dir). */
  stateDir: string;
  archived: boolean;
}

/** Result of reading one session file. */
export type SessionFileResult =
  | { ok: true; session: ForeignSession; doc: MaestroDocument; read: ReadResult & { kind: 'ok' } }
  | { ok: false; problems: FormatProblem[]; read: ReadResult };

/** True for a file in the minimal one-agent template (no phases). */
export function isMinimal(fm: Record<string, unknown>): boolean {
  return !('phases' in fm) && ('tier' in fm || 'agent' in fm || 'validation' in fm);
}

function tokensOf(v: unknown, sessionId: string, path: string, problems: FormatProblem[]): ForeignTokens | null {
  if (v === undefined || v === null) return null;
  const t = obj(v);
  let byAgent: Record<string, TokenCountsLike> | null = null;
  // An empty breakdown (`by_agent: {}`, the seed's initial state) is no breakdown, not a disagreement.
  if (t.by_agent !== undefined && t.by_agent !== null && Object.keys(obj(t.by_agent)).length > 0) {
    byAgent = {};
    for (const [agent, c] of Object.entries(obj(t.by_agent))) {
      const o = obj(c);
      byAgent[agent] = { input: num(o.input), output: num(o.output), cached: num(o.cached) };
    }
  }
  const tokens: ForeignTokens = {
    input: num(t.total_input),
    output: num(t.total_output),
    cached: num(t.total_cached),
    byAgent,
    byUnit: null,
    agrees: null,
    max: null,
  };
  if (byAgent) {
    const sum = Object.values(byAgent).reduce(
      (s, c) => ({ input: s.input + c.input, output: s.output + c.output, cached: s.cached + c.cached }),
      { input: 0, output: 0, cached: 0 },
    );
    tokens.agrees = sum.input === tokens.input && sum.output === tokens.output && sum.cached === tokens.cached;
    if (!tokens.agrees) {
      problems.push(
        problem(
          'TOKENS_DISAGREE',
          'warning',
          `token_usage totals (${tokens.input}/${tokens.output}/${tokens.cached} input/output/cached) differ from the by_agent sums (${sum.input}/${sum.output}/${sum.cached}).`,
          {
            sessionId,
            path,
            hint:
              sum.input > tokens.input || sum.output > tokens.output || sum.cached > tokens.cached
                ? 'On import baton keeps the written totals beside the breakdown, warns about them in status and resume, and exports them as written; correct whichever is wrong in the file.'
                : 'Maestro v1.6 transition_phase adds to the totals only; on import the difference is recorded under the agent "(unattributed)".',
            details: { totals: { input: tokens.input, output: tokens.output, cached: tokens.cached }, byAgentSum: sum },
          },
        ),
      );
    }
  }
  return tokens;
}

/**
 * The status fields of the frontmatter: the raw and baton status, with every missing or
 * out-of-range field (status, created/updated, the enumerated fields) reported.
 */
function checkFields(
  fm: Record<string, unknown>,
  id: string,
  rel: string,
  archived: boolean,
  problems: FormatProblem[],
): { rawStatus: string | null; status: SessionStatus } {
  const rawStatus = str(fm.status);
  let status: SessionStatus = 'active';
  if (rawStatus === null)
    problems.push(
      problem('MISSING_FIELD', 'error', `Session ${id} has no status; in_progress assumed.`, {
        sessionId: id,
        path: rel,
        details: { field: 'status', assumed: 'in_progress' },
      }),
    );
  else if (Object.hasOwn(SESSION_STATUS, rawStatus)) status = SESSION_STATUS[rawStatus]!;
  else
    problems.push(
      problem(
        'BAD_VALUE',
        'error',
        `Session ${id} has status "${rawStatus}", outside in_progress|completed; read as in progress.`,
        { sessionId: id, path: rel, details: { field: 'status', value: rawStatus } },
      ),
    );
  if (archived && rawStatus !== 'completed') {
    problems.push(
      problem(
        'BAD_VALUE',
        'warning',
        `Session ${id} is in the archive but its status is "${rawStatus ?? '(none)'}", not completed.`,
        {
          sessionId: id,
          path: rel,
          hint: 'Archiving sets status completed; if the session is not finished, move it back to state/active-session.md to resume it.',
          details: { field: 'status', value: rawStatus, archived: true },
        },
      ),
    );
  }
  for (const f of ['created', 'updated'] as const) {
    if (str(fm[f]) === null)
      problems.push(
        problem('MISSING_FIELD', 'warning', `Session ${id} has no "${f}" time.`, {
          sessionId: id,
          path: rel,
          details: { field: f, assumed: null },
        }),
      );
  }
  for (const [field, allowed] of Object.entries(ENUMS)) {
    if (!(field in fm)) continue;
    const v = fm[field];
    if (!allowed.includes(v === null ? null : (str(v) ?? '\u0000'))) {
      problems.push(
        problem(
          'BAD_VALUE',
          'warning',
          `Session ${id}: ${field} is ${JSON.stringify(v)}, not one of ${allowed.map((a) => String(a)).join('|')}; kept.`,
          { sessionId: id, path: rel, details: { field, value: v } },
        ),
      );
    }
  }
  return { rawStatus, status };
}

/** The phases as units; a minimal session (one agent, flat lists) is one synthetic phase "1". */
function unitsOf(
  fm: Record<string, unknown>,
  rawStatus: string | null,
  minimal: boolean,
  pctx: PhaseCtx,
): ForeignUnit[] {
  const { sessionId: id, path: rel, problems } = pctx;
  if (minimal) {
    // One agent, one unit of work: a synthetic phase "1" carrying the flat lists.
    const agents = (Array.isArray(fm.agent) ? fm.agent : fm.agent === undefined || fm.agent === null ? [] : [fm.agent])
      .map((a) => str(a))
      .filter((a): a is string => a !== null);
    const unitStatus =
      rawStatus === 'completed' || rawStatus === 'archived'
        ? 'completed'
        : rawStatus === 'failed'
          ? 'failed'
          : 'in_progress';
    const files = (['created', 'modified', 'deleted'] as const).flatMap((a) =>
      arr(fm[`files_${a}`])
        .map((p) => str(p))
        .filter((p): p is string => p !== null)
        .map((path) => ({ path, action: a })),
    );
    return [
      {
        id: '1',
        name: str(fm.task) ?? 'Task',
        status: unitStatus,
        rawStatus,
        subStep: null,
        retries: typeof fm.retry_count === 'number' ? fm.retry_count : null,
        agents,
        blockedBy: [],
        startedAt: str(fm.created),
        completedAt: unitStatus === 'completed' ? str(fm.updated) : null,
        files,
        errors: readErrors(fm.errors, '1', pctx),
        metadata: {},
      },
    ];
  } else if (!('phases' in fm)) {
    problems.push(
      problem('MISSING_FIELD', 'error', `Session ${id} has no phases list; no phases assumed.`, {
        sessionId: id,
        path: rel,
        details: { field: 'phases', assumed: [] },
      }),
    );
    return [];
  } else if (!Array.isArray(fm.phases)) {
    problems.push(
      problem('BAD_VALUE', 'error', `Session ${id}: phases is not a list; no phases read.`, {
        sessionId: id,
        path: rel,
        details: { field: 'phases' },
      }),
    );
    return [];
  } else {
    return readPhases(fm.phases, pctx);
  }
}

/** The session id from the frontmatter (assumed from the file name when missing), with problems about it. */
function sessionIdOf(
  fm: Record<string, unknown>,
  fileId: string | null,
  rel: string,
  problems: FormatProblem[],
): string {
  let id = str(fm.session_id);
  if (id === null) {
    id = fileId ?? 'active-session';
    problems.push(
      problem('MISSING_FIELD', 'error', `${rel} has no session_id; "${id}" assumed.`, {
        sessionId: id,
        path: rel,
        details: { field: 'session_id', assumed: id },
      }),
    );
  } else if (!/^[a-zA-Z0-9_-]+$/.test(id)) {
    problems.push(
      problem(
        'BAD_VALUE',
        'warning',
        `session_id "${id}" has characters Maestro v1.6 refuses (allowed: letters, digits, "_" and "-").`,
        { sessionId: id, path: rel, details: { field: 'session_id', value: id } },
      ),
    );
  }
  if (fileId !== null && fileId !== id) {
    problems.push(
      problem('BAD_VALUE', 'warning', `${rel} is named after "${fileId}" but holds session "${id}".`, {
        sessionId: id,
        path: rel,
        hint: 'Archived sessions are kept as state/archive/<session-id>.md.',
        details: { field: 'session_id', file: fileId },
      }),
    );
  }
  return id;
}

/** Problems of a full session's phase list: total_phases and current_phase against the phases, and the phases against each other. */
function phaseListProblems(
  fm: Record<string, unknown>,
  units: ForeignUnit[],
  id: string,
  rel: string,
): FormatProblem[] {
  const problems: FormatProblem[] = [];
  const total = fm.total_phases;
  if (total !== undefined && total !== null && (typeof total !== 'number' || total !== units.length)) {
    problems.push(
      problem(
        'BAD_VALUE',
        'warning',
        `Session ${id}: total_phases is ${JSON.stringify(total)} but ${units.length} phase(s) are listed.`,
        { sessionId: id, path: rel, details: { field: 'total_phases', value: total, phases: units.length } },
      ),
    );
  }
  const cur = str(fm.current_phase);
  if (cur !== null && units.length && !units.some((u) => u.id === cur)) {
    problems.push(
      problem('BAD_VALUE', 'warning', `Session ${id}: current_phase ${cur} is not one of its phases.`, {
        sessionId: id,
        path: rel,
        details: { field: 'current_phase', value: fm.current_phase },
      }),
    );
  }
  problems.push(...reconcileProblems(units, id, rel));
  return problems;
}

/** The Markdown log is the companion: a phase it shows in another status than the frontmatter is reported (the frontmatter wins). */
function companionProblems(
  doc: MaestroDocument,
  text: string,
  units: ForeignUnit[],
  id: string,
  rel: string,
): FormatProblem[] {
  const problems: FormatProblem[] = [];
  const shown = bodyStatuses(doc.body);
  const bodyOffset = text.slice(0, text.length - doc.body.length).split('\n').length - 1; // lines before the body
  for (const u of units) {
    const b = shown.get(u.id);
    if (b && b.status !== u.status) {
      problems.push(
        problem(
          'STALE_COMPANION',
          'warning',
          `The log shows phase ${u.id} as ${b.status} (${b.indicator}) but the frontmatter says ${u.status}; the frontmatter wins.`,
          {
            sessionId: id,
            path: rel,
            hint: `Append a "## Phase ${u.id}: … ${INDICATOR[u.status as keyof typeof INDICATOR] ?? ''}" section to the log.`,
            details: { phase: u.id, body: b.status, frontmatter: u.status, line: b.line + bodyOffset },
          },
        ),
      );
    }
  }
  return problems;
}

/** The problem of an empty session file. */
function emptyFile(rel: string, fileId: string | null): FormatProblem {
  return problem('EMPTY_FILE', 'error', `${rel} is empty.`, {
    sessionId: fileId,
    path: rel,
    hint: 'Restore the session file from version control, or remove it to start a new session.',
  });
}

/** The problem of a session file whose frontmatter cannot be parsed, naming the session when the text still shows its id. */
function corruptFile(text: string, rel: string, fileId: string | null, reason: string): FormatProblem {
  const seen = /^\s*"?session_id"?\s*:\s*"?([A-Za-z0-9._-]+)"?/m.exec(text)?.[1] ?? fileId;
  return problem('CORRUPT_FILE', 'error', `${rel} cannot be read as a Maestro session: ${reason}.`, {
    sessionId: seen,
    path: rel,
    hint: 'Repair the frontmatter between the "---" lines (YAML or JSON), or restore the file from version control.',
  });
}

/** Reads and normalizes one session file. Never throws. */
export async function readSessionFile(dir: SafeDir, rel: string, ctx: SessionFileCtx): Promise<SessionFileResult> {
  const read = await dir.read(rel);
  if (read.kind === 'missing') return { ok: false, problems: [], read };
  if (read.kind !== 'ok') return { ok: false, problems: [read.problem], read };
  const stem = rel.split('/').pop()!.replace(/\.md$/, '');
  const fileId = ctx.archived ? stem : null;
  if (read.bytes.length === 0 || read.text.trim() === '') {
    return { ok: false, read, problems: [emptyFile(rel, fileId)] };
  }
  const parsed = parseSessionText(read.text);
  if (!parsed.ok) {
    return { ok: false, read, problems: [corruptFile(read.text, rel, fileId, parsed.reason)] };
  }
  const doc = parsed.doc;
  const fm = doc.frontmatter;
  const problems: FormatProblem[] = [];

  const id = sessionIdOf(fm, fileId, rel, problems);

  const { rawStatus, status } = checkFields(fm, id, rel, ctx.archived, problems);

  const minimal = isMinimal(fm);
  const pctx: PhaseCtx = { sessionId: id, path: rel, problems };
  const units = unitsOf(fm, rawStatus, minimal, pctx);

  if (!minimal) problems.push(...phaseListProblems(fm, units, id, rel));

  problems.push(...companionProblems(doc, read.text, units, id, rel));

  const tokens = tokensOf(fm.token_usage, id, rel, problems);
  const plans = await checkPlans(dir, fm, {
    sessionId: id,
    path: rel,
    stateDir: ctx.stateDir,
    archived: ctx.archived,
    express: fm.workflow_mode === 'express',
  });
  problems.push(...plans);
  const planFiles = plans.files ?? [];

  // In flight first, then the failed phase resume goes back to, then the next pending one.
  const ordered = units;
  const position =
    ordered.find((u) => u.status === 'in_progress') ??
    ordered.find((u) => u.status === 'failed') ??
    ordered.find((u) => u.status === 'pending') ??
    null;
  const active = !ctx.archived;
  const resume = maestroResume(units, {
    rawStatus,
    archived: ctx.archived,
    workflowMode: str(fm.workflow_mode),
    minimal,
  });
  const facts = maestroFacts({
    id,
    path: rel,
    fm,
    frontmatterFormat: doc.frontmatterFormat,
    units,
    rawStatus,
    archived: ctx.archived,
    minimal,
    position: position?.id ?? null,
    resume,
  });
  problems.push(...facts.problems);
  const tokenRules = totalsRule(tokens);
  if (tokenRules) facts.rules.tokens = tokenRules;
  if (facts.rules.choices.length) resume.choices = facts.rules.choices;
  for (const h of facts.halfWritten) {
    if (h.status === 'failed')
      resume.warnings.push(
        `Phase ${h.unitId} failed: ${h.files.length} file(s) it touched may be half-written (${h.files.join(', ')}); check them before retrying.`,
      );
  }
  const session: ForeignSession = {
    format: 'maestro',
    id,
    title: str(fm.task) ?? bodyTitle(doc.body) ?? id,
    rawStatus,
    status,
    active,
    archived: ctx.archived,
    path: rel,
    sources: [rel, ...planFiles.map((f) => f.path)],
    createdAt: str(fm.created),
    updatedAt: str(fm.updated),
    units,
    position: { unitId: ctx.archived ? null : (position?.id ?? null), subStep: null },
    resume,
    unresolvedErrors: units.flatMap((u) => u.errors.filter((e) => !e.resolved)),
    tokens,
    decisions: [],
    findings: [],
    notes: [],
    milestones: [],
    artifacts: PLAN_FIELDS.flatMap(([field, kind]) => {
      const p = str(fm[field]);
      return p ? [{ path: p, kind, description: field, unitId: null, agent: null, time: str(fm.created) }] : [];
    }),
    contextSummary: null,
    checkpoints: [],
    problems,
    // Plans travel with the session (export writes them back): kept as their text.
    documents: { [rel]: doc, ...Object.fromEntries(planFiles.map((f) => [f.path, f.read.bytes.toString('utf8')])) },
    sourceHash: hashSources([read, ...planFiles.map((f) => f.read)]),
    rules: facts.rules,
    variant: facts.variant,
    recordedPosition: facts.recordedPosition,
    halfWritten: facts.halfWritten,
    archive: facts.archive,
  };
  return { ok: true, session, doc, read };
}
