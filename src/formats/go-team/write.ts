/**
 * Writes a baton session in Go Team's layout, by Go Team's own write rules: the live
 * `state.json` (an `action` save), the `manifest.json`, the `sessions.json` registry merged
 * with the sessions already in the destination, and `recovery.json` for an interrupted
 * session. Go Team checkpoint files (`cp-*.json`: git commit + state snapshot + checksum)
 * cannot be made from baton checkpoints, so only the ones the session was imported with are
 * written back, verbatim, where the destination lacks them; baton's own checkpoints stay in
 * baton. Every field baton does not map is kept from the session's files already at the
 * destination (the newest: with --mirror the toolkit may still write them), else from the
 * imported documents.
 */
import { BatonError } from '../../domain/errors.js';
import { validateId } from '../../domain/ids.js';
import type { Phase, SessionState, SessionStatus, TokenCounts } from '../../domain/state.js';
import type { SafeDir } from '../safe-dir.js';
import type { ExportInput, WritePlan } from '../types.js';
import { foreignTime, UNATTRIBUTED } from '../import.js';
import { arr, obj, parseDocument, str } from '../util.js';
import { join, locate } from './layout.js';
import { REVIEW_MAX_ITERATIONS, STEPS, stepOf, TOTAL_STEPS } from './steps.js';

/** Files of a session folder the writer regenerates; every other one is written back verbatim. */
const MANAGED = new Set(['state.json', 'manifest.json', 'recovery.json']);
const SESSION_FILE = /^(manifest|state|recovery|rollback-history)\.json$|^cp-.*\.json$/;

/** baton status → Go Team registry status (abandoned keeps a paused/interrupted status with resumable false). */
function goStatus(s: SessionStatus, previous: string | null): string {
  if (s === 'abandoned') return previous === 'interrupted' || previous === 'paused' ? previous : 'abandoned';
  return s;
}

function json(v: unknown): string {
  return `${JSON.stringify(v, null, 2)}\n`;
}

/** The nine steps as baton phases: by step-number id, else by position. */
function stepPhases(state: SessionState): Array<Phase | null> {
  const byId = state.phases.filter((p) => stepOf(p.id) !== null);
  const out: Array<Phase | null> = Array.from({ length: TOTAL_STEPS }, () => null);
  if (byId.length > 0) for (const p of byId) out[(stepOf(p.id) as number) - 1] = p;
  else state.phases.slice(0, TOTAL_STEPS).forEach((p, i) => (out[i] = p));
  return out;
}

async function existing(out: SafeDir, rel: string): Promise<Record<string, unknown> | null | 'corrupt'> {
  const r = await out.read(rel);
  if (r.kind === 'missing') return null;
  if (r.kind !== 'ok') return 'corrupt';
  const p = parseDocument(r);
  return p.ok ? p.value : 'corrupt';
}

function tokenEntry(c: TokenCounts): Record<string, number> {
  return { input_tokens: c.input, output_tokens: c.output, cached_tokens: c.cached };
}

/** Where the session stands in the nine steps, as Go Team counts it. */
function positionOf(state: SessionState): {
  phases: Array<Phase | null>;
  completedCount: number;
  firstOpen: number;
  currentStep: number;
  open: Phase | null;
} {
  const phases = stepPhases(state);
  const isDone = (p: Phase | null) => p !== null && (p.status === 'completed' || p.status === 'skipped');
  const completedCount = phases.filter((p) => p?.status === 'completed').length;
  const firstOpen = phases.findIndex((p) => !isDone(p));
  let currentStep: number;
  if (state.status === 'completed' || firstOpen === -1) currentStep = TOTAL_STEPS;
  else {
    const p = phases[firstOpen] ?? null;
    const started = p !== null && (p.status === 'in_progress' || p.status === 'failed');
    currentStep = started || firstOpen === 0 ? firstOpen + 1 : firstOpen; // not started yet: Go Team stays on the last done step
  }
  const open = firstOpen === -1 ? null : (phases[firstOpen] ?? null);
  return { phases, completedCount, firstOpen, currentStep, open };
}

/** What the registry entry of the exported session is made from. */
interface EntryInput {
  status: string;
  resumable: boolean;
  currentStep: number;
  completedCount: number;
  phases: Array<Phase | null>;
  /** created_at of the imported manifest, the fallback after the registry's own. */
  createdAt: string | null;
}

/**
 * The registry at the destination (or a new one from the imported registry's top fields) with
 * this session's entry updated or added; refuses a registry it cannot read rather than lose
 * the other sessions it lists.
 */
async function mergeRegistry(
  input: ExportInput,
  out: SafeDir,
  regRel: string,
  origRegistry: Record<string, unknown>,
  origEntry: Record<string, unknown>,
  p: EntryInput,
): Promise<{ reg: Record<string, unknown>; entry: Record<string, unknown> }> {
  const { state, foreignId: id, now } = input;
  const nowIso = now.toISOString();
  const outReg = await existing(out, regRel);
  if (outReg === 'corrupt') {
    throw new BatonError(
      'CORRUPT',
      `${regRel} in the export folder cannot be read, so the other sessions it lists would be lost.`,
      { hint: 'Repair or remove that registry (it keeps no backup), then export again.' },
    );
  }
  const { sessions: _s, ...origTop } = origRegistry;
  const reg: Record<string, unknown> = outReg ?? {
    version: '1.0.0',
    ...origTop,
    sessions: [],
    last_active_session: null,
  };
  const list = arr(reg.sessions);
  const at = list.findIndex((e) => str(obj(e).id) === id);
  const base = at >= 0 ? obj(list[at]) : origEntry;
  const entry: Record<string, unknown> = {
    ...base,
    id,
    topic: state.title,
    status: p.status,
    created_at: str(base.created_at) ?? p.createdAt ?? state.createdAt,
    // Nothing changed since the import: the update time and position are written as they were.
    updated_at: input.unchangedSinceImport === true && base.updated_at !== undefined ? base.updated_at : nowIso,
    current_step:
      input.unchangedSinceImport === true && base.current_step !== undefined ? base.current_step : p.currentStep,
    current_checkpoint: base.current_checkpoint ?? null,
    progress: {
      ...obj(base.progress),
      steps_completed: p.completedCount,
      total_steps: TOTAL_STEPS,
      percentage: Math.round((p.completedCount / TOTAL_STEPS) * 100),
    },
    git_branch: base.git_branch ?? `go-team/${id}`,
    resumable: p.resumable,
  };
  if (state.status === 'completed') {
    const last = p.phases[TOTAL_STEPS - 1] ?? null;
    entry.completed_at =
      str(base.completed_at) ??
      (last ? foreignTime(input, `phase:${last.id}:completedAt`, last.completedAt) : null) ??
      nowIso;
  } else delete entry.completed_at;
  // The entry says something new (a status baton derived, e.g. a dead heartbeat read as
  // interrupted): the update time is bumped after all.
  if (entry.updated_at !== nowIso && sameFields(entry, base, 'updated_at') === false) entry.updated_at = nowIso;
  const sessions = [...list];
  if (at >= 0) sessions[at] = entry;
  else sessions.push(entry);
  reg.sessions = sessions;
  if (state.status === 'active') reg.last_active_session = id;
  else if (
    (reg.last_active_session === undefined || reg.last_active_session === null) &&
    str(origRegistry.last_active_session) === id
  )
    reg.last_active_session = id;
  else if (reg.last_active_session === undefined) reg.last_active_session = null;
  return { reg, entry };
}

/**
 * Writes baton's token counts into go_team_state.token_metrics (the reader's first choice), and
 * its cost budget into metrics.cost.budget. A breakdown baton does not hold (per-agent totals
 * without input/output split, per-step counts) is kept as found.
 */
function writeTokenMetrics(ls: Record<string, unknown>, state: SessionState, docs: Record<string, unknown>): void {
  const t = state.tokens;
  const metricsKey = Object.keys(docs).find((k) => k.endsWith('metrics/session-metrics.json'));
  const metricsRec = metricsKey ? obj(obj(docs[metricsKey]).session) : null;
  if (ls.token_metrics !== undefined || metricsRec || t.input + t.output + t.cached > 0) {
    const prev =
      ls.token_metrics !== undefined
        ? obj(ls.token_metrics)
        : metricsRec
          ? { by_agent: metricsRec.by_agent, by_step: metricsRec.by_step }
          : {};
    const byAgent: Record<string, unknown> = {};
    for (const [a, c] of Object.entries(t.byAgent)) if (a !== UNATTRIBUTED) byAgent[a] = tokenEntry(c);
    const tm: Record<string, unknown> = {
      ...prev,
      total_input: t.input,
      total_output: t.output,
      total_cached: t.cached,
    };
    if (Object.keys(byAgent).length > 0) tm.by_agent = byAgent;
    if (tm.token_summary !== undefined)
      tm.token_summary = {
        ...obj(tm.token_summary),
        total_input: t.input,
        total_output: t.output,
        total_cached: t.cached,
        total_tokens: t.input + t.output,
      };
    const byStep: Record<string, unknown> = {};
    for (const [pid, c] of Object.entries(t.byPhase)) {
      const n = stepOf(pid);
      const d = n === null ? null : STEPS[n - 1];
      if (d) byStep[`step-${String(d.n).padStart(2, '0')}-${d.name}`] = tokenEntry(c);
    }
    if (Object.keys(byStep).length > 0) tm.by_step = byStep;
    for (const k of Object.keys(tm)) if (tm[k] === undefined) delete tm[k];
    ls.token_metrics = tm;
  }
  // The dollar budget where Go Team's `*budget:set` keeps it (token-tracking.md's metrics.cost).
  const usd = t.costBudgetUsd ?? null;
  const cost = obj(obj(ls.metrics).cost);
  if (usd !== null || (cost.budget ?? null) !== null)
    ls.metrics = { ...obj(ls.metrics), cost: { ...cost, budget: usd } };
}

/** recovery.json for a session interrupted in baton that has none: Go Team's three recovery options. */
function newRecovery(
  state: SessionState,
  id: string,
  nowIso: string,
  currentStep: number,
  entry: Record<string, unknown>,
  manifest: Record<string, unknown>,
  ls: Record<string, unknown>,
): Record<string, unknown> {
  const def = STEPS[currentStep - 1] ?? STEPS[0];
  const reason = state.statusCause?.cause ?? null;
  const listed = arr(manifest.checkpoints)
    .map(obj)
    .filter((c) => c.valid !== false && c.invalidated_by === undefined);
  const cp = str(entry.current_checkpoint) ?? str(manifest.current_checkpoint) ?? str(listed[listed.length - 1]?.id);
  return {
    session_id: id,
    interrupted_at: state.statusCause?.at ?? nowIso,
    interrupt_reason:
      reason === 'timeout' || reason === 'crash' || reason === 'disconnect' || reason === 'error' ? reason : 'crash',
    last_known_state: {
      step: currentStep,
      step_name: def?.name ?? null,
      agent: str(ls.current_agent),
      action: state.contextSummary,
    },
    recovery_options: [
      ...(cp
        ? [
            {
              type: 'checkpoint',
              target: cp,
              description: 'Resume from last checkpoint (safe)',
              data_loss: `all work done after ${cp}`,
            },
          ]
        : []),
      {
        type: 'live_state',
        target: 'state.json',
        description: 'Resume from last auto-save (experimental)',
        data_loss: '~30 seconds of work',
      },
      { type: 'fresh_start', target: null, description: 'Start fresh from step 1', data_loss: 'All progress' },
    ],
    recommended: cp ? 'checkpoint' : 'live_state',
    auto_resume_enabled: true,
  };
}

/** Plans the files that put `input.state` in Go Team's layout under `out`. */
export async function planExport(input: ExportInput, out: SafeDir): Promise<WritePlan> {
  const { state, foreignId: id, now } = input;
  const nowIso = now.toISOString();
  try {
    validateId(id);
  } catch {
    throw new BatonError('BAD_INPUT', `The Go Team session id ${JSON.stringify(id)} cannot be a folder name.`, {
      hint: 'Use an id made of letters, digits, ".", "_" and "-".',
    });
  }
  const docs = input.original ?? {};
  const found = await locate(out);
  const cpDir = found?.cp ?? 'checkpoints';
  const sdir = join(cpDir, id);

  // The imported documents of this session, by file name.
  const mine = new Map<string, unknown>();
  let origRegistry: Record<string, unknown> = {};
  for (const [key, doc] of Object.entries(docs)) {
    const parts = key.split('/');
    const name = parts[parts.length - 1] ?? '';
    if (parts[parts.length - 2] === id && SESSION_FILE.test(name)) mine.set(name, doc);
    else if (name === 'sessions.json' && doc !== null && typeof doc === 'object') origRegistry = obj(doc);
  }
  const origEntry = obj(arr(origRegistry.sessions).find((e) => str(obj(e).id) === id));
  const asObj = (v: unknown) =>
    v !== null && typeof v === 'object' && !Array.isArray(v) ? (v as Record<string, unknown>) : null;
  const fromOut = async (name: string) => {
    const d = await existing(out, join(sdir, name));
    return d === 'corrupt' ? null : d;
  };

  // ---- position ----
  const { phases, completedCount, firstOpen, currentStep, open } = positionOf(state);
  const prevStatus = str(origEntry.status);
  const status = goStatus(state.status, prevStatus);
  const resumable = state.status === 'active' || state.status === 'paused' || state.status === 'interrupted';
  const def = STEPS[currentStep - 1] ?? STEPS[0];

  // ---- registry, merged with the one at the destination ----
  const regRel = join(cpDir, 'sessions.json');
  const { reg, entry } = await mergeRegistry(input, out, regRel, origRegistry, origEntry, {
    status,
    resumable,
    currentStep,
    completedCount,
    phases,
    createdAt: str(asObj(mine.get('manifest.json'))?.created_at),
  });

  const writes: WritePlan['writes'] = [];

  // ---- manifest ----
  const manifest: Record<string, unknown> = (await fromOut('manifest.json')) ??
    asObj(mine.get('manifest.json')) ?? {
      session_id: id,
      topic: state.title,
      created_at: state.createdAt,
      updated_at: nowIso,
      checkpoints: [],
      current_checkpoint: null,
      current_step: currentStep,
      rollback_history: [],
    };
  const keep = input.unchangedSinceImport === true;
  Object.assign(manifest, {
    session_id: id,
    topic: state.title,
    updated_at: keep && manifest.updated_at !== undefined ? manifest.updated_at : nowIso,
    current_step: keep && manifest.current_step !== undefined ? manifest.current_step : currentStep,
  });

  // ---- live state (an "action" save) ----
  const live: Record<string, unknown> = (await fromOut('state.json')) ??
    asObj(mine.get('state.json')) ?? {
      session_id: id,
      saved_at: nowIso,
      save_trigger: 'action',
      state: {
        topic: state.title,
        date: nowIso.slice(0, 10),
        phase: def?.name ?? 'init',
        current_step: currentStep,
        current_agent: null,
        iteration_count: 0,
        max_iterations: REVIEW_MAX_ITERATIONS,
        breakpoint_active: false,
      },
      context: { last_action: null, pending_tasks: [], current_file: null, current_line: null },
      outputs: {},
      recovery_point: {
        checkpoint: entry.current_checkpoint,
        actions_since_checkpoint: 0,
        can_resume_from_action: true,
      },
    };
  const ls: Record<string, unknown> = { ...obj(live.state) };
  const previousStep = stepOf(ls.current_step);
  ls.topic = state.title;
  ls.current_step = currentStep;
  if (previousStep !== currentStep) ls.phase = def?.name ?? ls.phase;
  if (open && (open.status === 'in_progress' || open.status === 'failed') && firstOpen + 1 === currentStep) {
    const sub = open.subStep;
    if (sub && def?.sub && sub === `${currentStep}b`) ls.phase = def.sub;
    const it = sub ? /^review-(\d+)$/.exec(sub) : null;
    if (it && currentStep === 6) ls.iteration_count = Number(it[1]);
  }
  if (ls.session !== undefined && typeof obj(ls.session).status === 'string')
    ls.session = { ...obj(ls.session), status };
  writeTokenMetrics(ls, state, docs);
  const context = { ...obj(live.context) };
  if (state.contextSummary !== null) context.last_action = state.contextSummary;
  Object.assign(live, { session_id: id, saved_at: nowIso, save_trigger: 'action', state: ls, context });

  writes.push({ path: join(sdir, 'state.json'), content: json(live), backup: false });
  writes.push({ path: join(sdir, 'manifest.json'), content: json(manifest), backup: false });

  // ---- recovery metadata for an interrupted session ----
  const origRecovery = mine.get('recovery.json');
  if (state.status === 'interrupted') {
    const rec = (await fromOut('recovery.json')) ?? asObj(origRecovery);
    const recovery = rec ?? newRecovery(state, id, nowIso, currentStep, entry, manifest, ls);
    writes.push({ path: join(sdir, 'recovery.json'), content: json(recovery), backup: false });
  } else if (origRecovery !== undefined && !(await out.exists(join(sdir, 'recovery.json')))) {
    writes.push({
      path: join(sdir, 'recovery.json'),
      content: typeof origRecovery === 'string' ? origRecovery : json(origRecovery),
      backup: false,
    });
  }

  // ---- checkpoints and rollback history, verbatim ----
  for (const [name, doc] of mine) {
    if (MANAGED.has(name) || (await out.exists(join(sdir, name)))) continue;
    writes.push({ path: join(sdir, name), content: typeof doc === 'string' ? doc : json(doc), backup: false });
  }

  writes.push({ path: regRel, content: json(reg), backup: false });
  return { writes, removes: [] };
}

/** Whether `a` and `b` hold the same fields and values, `except` aside (key order ignored). */
function sameFields(a: Record<string, unknown>, b: Record<string, unknown>, except: string): boolean {
  const norm = (v: unknown): unknown =>
    Array.isArray(v)
      ? v.map(norm)
      : v && typeof v === 'object'
        ? Object.fromEntries(
            Object.keys(v as object)
              .sort()
              .filter((k) => k !== except)
              .map((k) => [k, norm((v as Record<string, unknown>)[k])]),
          )
        : v;
  return JSON.stringify(norm(a)) === JSON.stringify(norm(b));
}
