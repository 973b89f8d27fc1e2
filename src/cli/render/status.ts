import {
  sessionBudget,
  toolkitTokenNotes,
  continueWith,
  costReport,
  costShown,
  effectiveStatus,
  formatCost,
  formatCostBudget,
  leaseOf,
  resumeStep,
  runsView,
  stepOutcome,
  stepsText,
} from '../../manager/index.js';
import type { Phase, PhaseStatus, PricingTable, SessionState } from '../../manager/index.js';
import type { Paint } from '../io.js';
import { paintStatus } from './session-status.js';
import { ago, bar, num, until } from './time.js';

/** Durable steps `baton status` lists one by one (the rest are counted). */
const STEPS_SHOWN = 10;

/** Phase indicators shared with Maestro's session files. */
export const INDICATORS: Readonly<Record<PhaseStatus, string>> = {
  completed: '✓',
  in_progress: '○',
  failed: '✗',
  pending: '□',
  skipped: '–',
};

function phaseLine(s: SessionState, p: Phase, c: Paint, idWidth: number): string {
  const ind = INDICATORS[p.status];
  const colored =
    p.status === 'completed'
      ? c.green(ind)
      : p.status === 'failed'
        ? c.red(ind)
        : p.status === 'in_progress'
          ? c.yellow(ind)
          : c.dim(ind);
  const bits: string[] = [p.status.replace('_', ' ')];
  if (p.subStep && (p.status === 'in_progress' || p.status === 'failed')) bits.push(`sub-step: ${p.subStep}`);
  if (p.retryCount > 0 || p.status === 'failed') bits.push(`retries ${p.retryCount}/${p.maxRetries}`);
  const open = p.blockedBy.filter(
    (b) => !['completed', 'skipped'].includes(s.phases.find((x) => x.id === b)?.status ?? ''),
  );
  if (p.status === 'pending' && open.length) bits.push(`blocked by ${open.join(', ')}`);
  if (p.agents.length) bits.push(`agents: ${p.agents.join(', ')}`);
  if (p.files.length) bits.push(`${p.files.length} file${p.files.length === 1 ? '' : 's'}`);
  const errs = p.errors.filter((e) => !e.resolved).length;
  if (errs) bits.push(c.red(`${errs} unresolved error${errs === 1 ? '' : 's'}`));
  const name = p.name === p.id ? '' : `  ${p.name}`;
  return `  ${colored} ${p.id.padEnd(idWidth)}${name}  ${c.dim(bits.join(' · '))}`;
}

/** The human `baton status` view. */
export function renderStatus(
  s: SessionState,
  c: Paint,
  now: Date,
  pricing?: PricingTable,
  dead?: ReadonlySet<string>,
  orphans?: ReadonlyMap<string, number>,
): string {
  const out: string[] = [];
  out.push(`${c.bold(s.title)}  ${c.dim(s.id)}`);
  const eff = effectiveStatus(s, now.toISOString(), dead);
  const cause = eff.cause
    ? ` (${eff.cause.cause}${eff.cause.detail ? `: ${eff.cause.detail}` : ''}, ${ago(eff.cause.at, now)})`
    : '';
  out.push(
    `Status: ${paintStatus(eff.status, c)}${cause}${s.archived ? ' · archived' : ''}${s.pinned ? ' · pinned' : ''} · revision ${s.revision} · updated ${ago(s.updatedAt, now)}`,
  );
  const lease = leaseOf(s);
  if (lease && eff.status === 'active') {
    out.push(
      c.dim(
        `Lease: ${lease.owner} (pid ${lease.pid} on ${lease.host}), token ${lease.token}, expires ${until(lease.expiresAt, now)}`,
      ),
    );
  }
  const runs = runsLine(s, now, dead, orphans);
  if (runs) out.push(runs);
  const done = s.phases.filter((p) => p.status === 'completed' || p.status === 'skipped').length;
  if (s.phases.length) {
    out.push(
      `Progress: ${bar(done / s.phases.length)} ${done}/${s.phases.length} phases (${Math.round((done / s.phases.length) * 100)}%)`,
    );
    out.push('');
    const w = Math.max(...s.phases.map((p) => p.id.length));
    for (const p of s.phases) {
      out.push(phaseLine(s, p, c, w));
      if (p.steps?.length && p.status === 'in_progress')
        out.push(...stepsText(p.steps, resumeStep(p.steps), `      `).map((l) => c.dim(l)));
    }
  } else if (!s.graph) {
    out.push('No phases.');
  }
  // A LangGraph thread (baton-sessions/langgraph): its steps, by namespace ("" is the graph itself).
  if (s.graph) {
    const root = s.graph.latest[''];
    const subs = Object.keys(s.graph.latest).length - (root ? 1 : 0);
    const at = root ? `; at step ${root.step ?? '?'}${root.source ? ` (${root.source})` : ''}` : '';
    out.push(
      `Graph: ${num(s.graph.checkpoints)} checkpoint${s.graph.checkpoints === 1 ? '' : 's'}, ${num(s.graph.writes)} pending write${s.graph.writes === 1 ? '' : 's'}${at}${subs ? `; ${num(subs)} subgraph namespace${subs === 1 ? '' : 's'}` : ''}`,
    );
  }
  // A Claude Agent SDK conversation (baton-sessions/claude-agent-sdk): its transcript's lines.
  if (s.mirror) {
    const main = s.mirror.transcripts[''] ?? 0;
    const subs = Object.keys(s.mirror.transcripts).filter((k) => k !== '').length;
    out.push(
      `Transcript: ${num(main)} line${main === 1 ? '' : 's'} mirrored${subs ? `; ${num(subs)} sub-agent transcript${subs === 1 ? '' : 's'}` : ''}`,
    );
  }
  out.push('');
  const t = s.tokens;
  const b = sessionBudget(s);
  let tokens = `Tokens: ${num(t.input)} in / ${num(t.output)} out / ${num(t.cached)} cached`;
  if (b.max !== null) {
    const lvl = b.level === 'ok' ? c.green(b.level) : b.level === 'warning' ? c.yellow(b.level) : c.red(b.level);
    tokens += ` · budget ${num(b.used)}/${num(b.max)} (${b.percent}%) ${lvl}`;
  }
  out.push(tokens);
  const kit = toolkitTokenNotes(s);
  for (const line of kit.lines) out.push(c.dim(`  ${line}`));
  for (const w of kit.warnings) out.push(c.yellow(`  ! ${w}`));
  if (pricing && costShown(s)) out.push(costLine(s, pricing, c));
  const agents = Object.entries(t.byAgent);
  if (agents.length)
    out.push(
      c.dim(
        `  by agent: ${agents.map(([a, v]) => `${a} ${num(v.input)}/${num(v.output)}/${num(v.cached)}`).join(', ')}`,
      ),
    );
  const errors = s.phases.flatMap((p) => p.errors.filter((e) => !e.resolved));
  if (errors.length) {
    out.push('');
    out.push(c.red(`Unresolved errors (${errors.length}):`));
    for (const e of errors)
      out.push(
        `  ${e.id} [${e.phaseId}] ${e.type}: ${e.message}${e.agent ? c.dim(` (${e.agent}, ${ago(e.time, now)})`) : ''}`,
      );
  }
  const findings = s.findings.filter((f) => !f.removed);
  if (findings.length) out.push('', `Open findings: ${findings.length}`);
  const steps = s.durableSteps ?? [];
  if (steps.length) {
    const by = (st: string): number => steps.filter((d) => d.status === st).length;
    const parts = [
      `${by('completed')} completed`,
      by('running') ? c.yellow(`${by('running')} running`) : '',
      by('failed') ? c.red(`${by('failed')} failed`) : '',
    ].filter(Boolean);
    out.push('', `Durable steps: ${parts.join(' · ')}`);
    // Running and failed steps first (they need a look), then the completed ones, in order.
    const order = (d: (typeof steps)[number]): number => (d.status === 'running' ? 0 : d.status === 'failed' ? 1 : 2);
    const shown = [...steps].sort((a, b) => order(a) - order(b)).slice(0, STEPS_SHOWN);
    for (const d of shown) {
      const line = `${d.phaseId ? `${d.phaseId}/` : ''}${d.key}: ${stepOutcome(d)}`;
      // The indent outside the colour, so a wrapped line's continuation is indented like the others.
      out.push(`  ${d.status === 'failed' ? c.red(line) : d.status === 'running' ? c.yellow(line) : line}`);
    }
    if (steps.length > shown.length)
      out.push(c.dim(`  … ${steps.length - shown.length} more (status --json lists them all)`));
  }
  const talks = continueWith(s);
  if (talks.length)
    out.push(
      '',
      `Continue the ${talks[0]!.cli} conversation: ${talks[0]!.command}${talks.length > 1 ? c.dim(` (${talks.length - 1} earlier)`) : ''}`,
    );
  if (s.repairs.length) out.push('', c.yellow(`Repairs recorded: ${s.repairs.map((r) => r.kind).join(', ')}`));
  return `${out.join('\n')}\n`;
}

/** `Cost (estimate): $1.23 · cost budget $1.23/$10.00 (12.3%) ok`. */
function costLine(s: SessionState, pricing: PricingTable, c: Paint): string {
  const r = costReport(s, pricing);
  let line = `Cost (estimate): ${formatCost(r.total)}`;
  const b = r.budget;
  if (b.maxUsd !== null) {
    const lvl = b.level === 'ok' ? c.green(b.level) : b.level === 'warning' ? c.yellow(b.level) : c.red(b.level);
    line += ` · cost budget ${formatCostBudget(b)} ${lvl}`;
  }
  return line;
}

/**
 * "Runs: live run-2 (claude on build) · orphaned: command pid 9 still running (run-3, command
 * on test) · dead run-1 (on docs)": one line, or none without runs.
 */
function runsLine(
  s: SessionState,
  now: Date,
  dead?: ReadonlySet<string>,
  orphans?: ReadonlyMap<string, number>,
): string | null {
  if (!s.runs?.length) return null;
  const views = runsView(s, { now: now.toISOString(), ...(dead ? { dead } : {}), ...(orphans ? { orphans } : {}) });
  const owned = (id: string): string =>
    s.phases
      .filter((p) => p.owner === id && p.status === 'in_progress')
      .map((p) => p.id)
      .join(', ');
  const what = (v: (typeof views)[number]): string =>
    `${v.kind === 'mcp' ? 'MCP' : v.kind}${v.agent ? ` ${v.agent}` : ''}${owned(v.id) ? ` on ${owned(v.id)}` : ''}`;
  const who = (v: (typeof views)[number]): string => `${v.id} (${what(v)})`;
  const live = views.filter((v) => v.state === 'live');
  const orphaned = views.filter((v) => v.state === 'orphaned');
  const gone = views.filter(
    (v) => v.state === 'dead' || (v.state === 'ended' && v.ended?.how === 'died' && owned(v.id)),
  );
  if (!live.length && !gone.length && !orphaned.length) return null;
  return `Runs: ${[
    live.length ? `live ${live.map(who).join(', ')}` : 'none live',
    ...orphaned.map((v) => `orphaned: command pid ${v.orphanPid} still running (${v.id}, ${what(v)})`),
    ...(gone.length ? [`dead ${gone.map(who).join(', ')}`] : []),
  ].join(' · ')}`;
}
