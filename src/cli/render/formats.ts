import type {
  BundleExportResult,
  BundleImportResult,
  ExportResult,
  ForeignSession,
  FormatProblem,
  ImportResult,
  InspectResult,
  MirrorSetting,
  UnitStatus,
} from '../../manager/index.js';
import type { Paint } from '../io.js';
import { num } from './time.js';

const MARK: Record<UnitStatus, string> = {
  completed: '✓',
  in_progress: '▶',
  pending: '○',
  failed: '✗',
  skipped: '–',
  blocked: '□',
};

function problemLines(ps: FormatProblem[], c: Paint, indent: string): string[] {
  const lines: string[] = [];
  for (const p of ps) {
    const sev =
      p.severity === 'error' ? c.red('error') : p.severity === 'warning' ? c.yellow('warning') : c.dim('info');
    lines.push(`${indent}${sev} ${p.code}${p.path ? ` ${p.path}` : ''}: ${p.message}`);
    // The fix sits right under its problem.
    if (p.hint) lines.push(`${indent}  ${c.dim('hint')}: ${p.hint}`);
  }
  return lines;
}

const SEVERITY_RANK: Record<string, number> = { error: 0, warning: 1, info: 2 };

/** Why a session needs attention (damaged, interrupted, active), or null when it does not. */
function attention(s: ForeignSession): string | null {
  if (s.problems.some((p) => p.severity === 'error')) return 'damaged';
  if (s.status === 'interrupted') return 'interrupted';
  if (s.status === 'active' && !s.archived) return 'active';
  return null;
}

/** Sessions needing attention first (damaged, interrupted, active), then the rest, each group in the reader's order. */
export function attentionOrder(sessions: ForeignSession[]): ForeignSession[] {
  const rank = (s: ForeignSession): number => ({ damaged: 0, interrupted: 1, active: 2 })[attention(s) ?? ''] ?? 3;
  return sessions
    .map((s, i) => ({ s, i }))
    .sort((a, b) => rank(a.s) - rank(b.s) || a.i - b.i)
    .map((x) => x.s);
}

/** The one thing to do first for a session, for the summary. */
function firstStep(s: ForeignSession): string {
  const worst = [...s.problems].sort((a, b) => (SEVERITY_RANK[a.severity] ?? 3) - (SEVERITY_RANK[b.severity] ?? 3))[0];
  if (worst && worst.severity === 'error')
    return `fix ${worst.code}${worst.path ? ` in ${worst.path}` : ''}${worst.hint ? `: ${worst.hint}` : `: ${worst.message}`}`;
  const r = s.resume;
  if (r.action === 'refuse' || r.action === 'none') return `nothing to resume: ${r.reason}`;
  const rec = r.options.find((o) => o.recommended);
  const where = `${r.action}${r.unitId ? ` ${r.unitId}` : ''}${r.subStep ? ` at sub-step ${r.subStep}` : ''}${s.position.task ? ` (task ${s.position.task})` : ''}`;
  const choices = r.choices?.length ? `; choose ${r.choices.join(' / ')}` : '';
  return `${where}${rec ? ` from ${rec.kind}${rec.target ? ` ${rec.target}` : ''}` : ''}${choices}`;
}

function tokenLines(s: ForeignSession, c: Paint): string[] {
  if (!s.tokens) return ['  Tokens: none recorded'];
  const t = s.tokens;
  const lines: string[] = [];
  // An empty per-agent breakdown is no breakdown, not a disagreement.
  const agrees =
    t.agrees === null
      ? 'no per-agent breakdown'
      : t.agrees
        ? 'per-agent breakdown agrees'
        : c.red('per-agent breakdown DISAGREES');
  const b = (t as unknown as { bmad?: { percent?: number; projectedOverrun?: number; max: number } }).bmad;
  const budget =
    t.max !== null ? `; budget ${num(t.max)}${b?.percent !== undefined ? ` (${b.percent}% used)` : ''}` : '';
  lines.push(`  Tokens: ${num(t.input)} in / ${num(t.output)} out / ${num(t.cached)} cached; ${agrees}${budget}`);
  if (b?.projectedOverrun)
    lines.push(`    without isolation the work would exceed the limit by ${num(b.projectedOverrun)} tokens`);
  if (t.byAgent)
    for (const [a, v] of Object.entries(t.byAgent))
      lines.push(
        `    ${a.padEnd(16)} ${num(v.input).padStart(10)} in ${num(v.output).padStart(10)} out ${num(v.cached).padStart(10)} cached`,
      );
  return lines;
}

function factLines(s: ForeignSession): string[] {
  const lines: string[] = [];
  if (s.variant)
    lines.push(
      `  Variant: ${Object.entries(s.variant)
        .map(([k, v]) => `${k} ${v}`)
        .join(', ')}`,
    );
  if (s.idParts)
    lines.push(
      `  Id: ${Object.entries(s.idParts)
        .map(([k, v]) => `${k} ${v}`)
        .join(', ')}`,
    );
  if (s.recordedPosition)
    lines.push(
      `  Recorded position: ${s.recordedPosition.field} = ${JSON.stringify(s.recordedPosition.value)}${s.recordedPosition.agrees ? ' (agrees)' : ' (differs from the derived position)'}`,
    );
  for (const h of s.halfWritten ?? [])
    lines.push(`  Possibly half-written (unit ${h.unitId}, ${h.status}): ${h.files.join(', ')}`);
  if (s.archive)
    lines.push(`  Archive: ${s.archive.allowed ? 'allowed' : `not allowed yet: ${s.archive.reasons.join(' ')}`}`);
  if (s.defaulted && Object.keys(s.defaulted).length)
    lines.push(
      `  Defaulted: ${Object.entries(s.defaulted)
        .map(([k, v]) => `${k} = ${JSON.stringify(v)}`)
        .join(', ')}`,
    );
  if (s.noActive) lines.push(`  No active session: ${s.noActive}`);
  return lines;
}

function resumeLines(s: ForeignSession, c: Paint): string[] {
  const lines: string[] = [];
  const r = s.resume;
  const limit = r.retryLimit !== null ? ` (retries ${r.retriesUsed ?? 0}/${r.retryLimit})` : '';
  lines.push(
    `  Resume: ${r.action}${r.unitId ? ` ${r.unitId}` : ''}${r.subStep ? ` at sub-step ${r.subStep}` : ''}${limit}${r.lastCompleted ? `; last completed ${r.lastCompleted}` : ''}`,
  );
  if (r.reason) lines.push(`    ${c.dim('rule')}: ${r.reason}`);
  if (r.nextSubStep) lines.push(`    next sub-step checkpoint: ${r.nextSubStep}`);
  if (r.choices?.length) lines.push(`    choices: ${r.choices.join(', ')}`);
  for (const o of r.options) {
    const rec = o.recommended || r.recommended === o.kind;
    lines.push(
      `    ${rec ? c.green('*') : '-'} ${o.kind}${o.target ? ` ${o.target}` : ''}: ${o.description}${o.loses ? ` (loses: ${o.loses})` : ''}${rec ? ` [recommended${r.recommendedBy ? ` by ${r.recommendedBy === 'toolkit' ? 'the toolkit' : 'default'}` : ''}]` : ''}`,
    );
    for (const w of o.warnings ?? []) lines.push(`        ${c.yellow('check')}: ${w}`);
  }
  if (r.departure) lines.push(`    ${c.yellow('baton departs')}: ${r.departure}`);
  for (const w of r.warnings) lines.push(`    ${c.yellow('warning')}: ${w}`);
  return lines;
}

/** One foreign session, for people: what `inspect` shows per session. */
export function renderForeignSession(s: ForeignSession, c: Paint): string[] {
  const lines: string[] = [];
  const flags = [
    s.active ? 'active' : null,
    s.archived ? 'archived' : null,
    attention(s) === 'damaged' ? 'damaged' : null,
  ]
    .filter(Boolean)
    .join(', ');
  lines.push(
    `${c.bold(`Session ${s.id}`)}  ${s.status}${s.rawStatus !== null && s.rawStatus !== s.status ? ` (${JSON.stringify(s.rawStatus)})` : ''}${flags ? `  [${flags}]` : ''}`,
  );
  if (s.title && s.title !== s.id) lines.push(`  Title: ${s.title}`);
  lines.push(`  File: ${s.path}${s.updatedAt ? `  (updated ${s.updatedAt})` : ''}`);
  lines.push(`  First: ${firstStep(s)}`);
  if (s.units.length) {
    lines.push('  Units:');
    const w = Math.max(...s.units.map((u) => u.id.length));
    for (const u of s.units) {
      const extra = [
        u.subStep ? `sub-step ${u.subStep}` : null,
        u.retries ? `retries ${u.retries}` : null,
        u.errors.length ? `${u.errors.length} error(s)` : null,
      ]
        .filter(Boolean)
        .join(', ');
      lines.push(
        `    ${MARK[u.status] ?? '?'} ${u.id.padEnd(w)}  ${u.status.padEnd(11)} ${u.name !== u.id ? u.name : ''}${extra ? `  (${extra})` : ''}`.trimEnd(),
      );
    }
  } else {
    lines.push('  Units: none');
  }
  const pos = s.position.unitId
    ? `unit ${s.position.unitId}${s.position.subStep ? `, sub-step ${s.position.subStep}` : ''}${s.position.task ? `, task ${s.position.task}` : ''}`
    : 'none';
  lines.push(`  Position: ${pos}`);
  lines.push(...factLines(s));
  lines.push(...resumeLines(s, c));
  if (s.unresolvedErrors.length) {
    lines.push(`  Unresolved errors (${s.unresolvedErrors.length}):`);
    for (const e of s.unresolvedErrors)
      lines.push(`    ${e.unitId ?? '-'} ${e.type}: ${e.message}${e.agent ? ` [${e.agent}]` : ''}`);
  }
  lines.push(...tokenLines(s, c));
  const counts = [
    [s.decisions.length, 'decision(s)'],
    [s.findings.length, 'finding(s)'],
    [s.notes.length, 'note(s)'],
    [s.milestones.length, 'milestone(s)'],
    [s.artifacts.length, 'artifact(s)'],
    [s.checkpoints.length, 'checkpoint(s)'],
  ].filter(([n]) => (n as number) > 0);
  if (counts.length) lines.push(`  Records: ${counts.map(([n, w]) => `${n} ${w}`).join(', ')}`);
  for (const k of s.checkpoints) {
    if (k.valid && k.checksum !== 'unverified' && !k.current) continue;
    const what = !k.valid
      ? c.red(k.invalidatedBy ? 'invalidated checkpoint' : 'invalid checkpoint')
      : k.checksum === 'unverified'
        ? c.yellow('unverified checkpoint')
        : 'valid checkpoint';
    lines.push(
      `    ${what} ${k.id}${k.unitId ? ` (step ${k.unitId})` : ''}${k.problem ? `: ${k.problem}` : ''}${k.git?.commit ? `  commit ${k.git.commit.slice(0, 12)}` : ''}`,
    );
  }
  if (s.problems.length) {
    lines.push('  Problems:');
    const sorted = [...s.problems].sort((a, b) => (SEVERITY_RANK[a.severity] ?? 3) - (SEVERITY_RANK[b.severity] ?? 3));
    lines.push(...problemLines(sorted, c, '    '));
  }
  return lines;
}

/** Every problem of an inspect result (tree and sessions). */
export function allProblems(r: {
  problems: FormatProblem[];
  sessions: Array<{ problems: FormatProblem[] }>;
}): FormatProblem[] {
  return [...r.problems, ...r.sessions.flatMap((s) => s.problems)];
}

/** The summary that opens `baton inspect`: what to do first, sessions needing attention first. */
function summaryLines(r: InspectResult, c: Paint): string[] {
  const lines: string[] = [];
  const ordered = attentionOrder(r.sessions);
  const needing = ordered.filter((s) => attention(s) !== null);
  lines.push(`${r.sessions.length} session(s)${needing.length ? `, ${needing.length} needing attention` : ''}`);
  const treeErrors = r.problems.filter((p) => p.severity === 'error');
  if (!needing.length && !treeErrors.length && !r.problems.some((p) => p.severity === 'warning')) return lines;
  lines.push(c.bold('What to do first:'));
  let n = 0;
  for (const p of treeErrors)
    lines.push(`  ${++n}. ${p.code}: ${p.message}${p.hint ? ` ${c.green('fix')}: ${p.hint}` : ''}`);
  for (const s of needing) lines.push(`  ${++n}. ${s.id} (${attention(s)}): ${firstStep(s)}`);
  for (const p of r.problems.filter((x) => x.severity === 'warning'))
    lines.push(`  ${++n}. ${p.code}: ${p.message}${p.hint ? ` ${c.green('fix')}: ${p.hint}` : ''}`);
  return lines;
}

/** `baton inspect`, for people. */
export function renderInspect(r: InspectResult, c: Paint): string {
  const lines: string[] = [];
  const det = r.detection
    ? ` (detected; scores: ${r.detection.map((d) => `${d.format} ${d.score.toFixed(2)}`).join(', ') || 'none'})`
    : '';
  lines.push(r.format ? `${c.bold(r.format)} layout in ${r.root}${det}` : `No known layout in ${r.root}${det}`);
  lines.push(...summaryLines(r, c));
  for (const s of attentionOrder(r.sessions)) {
    lines.push('');
    lines.push(...renderForeignSession(s, c));
  }
  if (r.problems.length) {
    lines.push('');
    lines.push('Problems of the folder:');
    lines.push(...problemLines(r.problems, c, '  '));
  }
  const all = allProblems(r);
  const n = (sev: string): number => all.filter((p) => p.severity === sev).length;
  lines.push('');
  lines.push(`${n('error')} error(s), ${n('warning')} warning(s), ${n('info')} note(s)`);
  return `${lines.join('\n')}\n`;
}

/** `baton import`, for people. */
export function renderImport(r: ImportResult, c: Paint): string {
  const lines = [`Imported from the ${r.format} layout in ${r.root}:`];
  if (!r.sessions.length) lines.push('  no session found');
  for (const s of r.sessions) {
    const word =
      s.action === 'created'
        ? c.green('created  ')
        : s.action === 'updated'
          ? c.green('updated  ')
          : s.action === 'unchanged'
            ? c.dim('unchanged')
            : c.yellow('skipped  ');
    lines.push(
      `  ${word} ${s.id ?? '-'}${s.id !== s.foreignId ? ` (from ${s.foreignId})` : ''}${s.revision !== null ? `  revision ${s.revision}` : ''}${s.archived ? '  [archived]' : ''}`,
    );
    lines.push(...problemLines(s.problems, c, '      '));
  }
  if (r.problems.length) {
    lines.push('Problems of the folder:');
    lines.push(...problemLines(r.problems, c, '  '));
  }
  return `${lines.join('\n')}\n`;
}

/** `baton export`, for people. */
export function renderExport(r: ExportResult): string {
  const lines = [`Exported ${r.id} as ${r.format} session ${r.foreignId} to ${r.out}:`];
  for (const w of r.written) lines.push(`  wrote   ${w}`);
  for (const b of r.backups) lines.push(`  kept    ${b}`);
  for (const x of r.removed) lines.push(`  removed ${x}`);
  return `${lines.join('\n')}\n`;
}

/** `baton mirror`, for people. */
export function renderMirror(id: string, m: MirrorSetting | null, error: unknown): string {
  const lines = [m ? `Session ${id} is mirrored as ${m.format} in ${m.out}` : `Session ${id} has no mirror`];
  const e = error as { at?: string; message?: string; hint?: string | null } | null;
  if (m && e?.message) lines.push(`Last rewrite failed at ${e.at ?? '?'}: ${e.message}`);
  if (m && e?.hint) lines.push(`  hint: ${e.hint}`);
  return `${lines.join('\n')}\n`;
}

/** `baton export --bundle`, for people. */
export function renderBundleExport(r: BundleExportResult): string {
  const lines = [`Exported ${r.id} to ${r.file} (${r.bytes} bytes, sha256 ${r.sha256.slice(0, 12)}…):`];
  lines.push(
    `  ${counted(r.events, 'event')}, ${counted(r.checkpoints, 'checkpoint')}, ${counted(r.stepResults, 'large step result')}, ${counted(r.relativePaths, 'path')} made relative to the repository root`,
  );
  if (r.git)
    lines.push(
      `  git: ${r.git.branch ?? '(detached)'} at ${r.git.head?.slice(0, 12) ?? '(no commit)'}: push it so the receiver can fetch it`,
    );
  const name = r.file.split(/[\\/]/).pop();
  lines.push(
    `The receiver runs \`baton import ${name}\`; the handoff inside (\`baton import ${name} --handoff\`) says what else.`,
  );
  return `${lines.join('\n')}\n`;
}

/** `1 checkpoint`, `2 checkpoints`. */
function counted(n: number, what: string): string {
  return `${n} ${what}${n === 1 ? '' : 's'}`;
}

/** `baton import FILE` (a bundle), for people. */
export function renderBundleImport(r: BundleImportResult): string {
  const lines = [
    `Imported ${r.id}${r.id !== r.bundledId ? ` (${r.bundledId} in the bundle)` : ''} from ${r.file}, verified${r.replaced ? ', replacing the session of that id' : ''}:`,
  ];
  lines.push(
    `  ${counted(r.events, 'event')} (revision ${r.revision}), ${counted(r.checkpoints, 'checkpoint')}, ${counted(r.stepResults, 'large step result')}, ${counted(r.relativePaths, 'path')} put under ${r.root}`,
  );
  lines.push(
    r.active ? '  It is now the active session.' : '  It is not the active session (use --switch, or `baton resume`).',
  );
  lines.push('Next:');
  for (const s of r.next) lines.push(`  ${s}`);
  return `${lines.join('\n')}\n`;
}
