import type { ExportResult, ForeignSession, FormatProblem, ImportResult, InspectResult, MirrorSetting, UnitStatus } from '../../manager/index.js';
import type { Paint } from '../io.js';
import { num } from './time.js';

const MARK: Record<UnitStatus, string> = { completed: '✓', in_progress: '▶', pending: '○', failed: '✗', skipped: '–', blocked: '□' };

function problemLines(ps: FormatProblem[], c: Paint, indent: string): string[] {
  const lines: string[] = [];
  for (const p of ps) {
    const sev = p.severity === 'error' ? c.red('error') : p.severity === 'warning' ? c.yellow('warning') : c.dim('info');
    lines.push(`${indent}${sev} ${p.code}${p.path ? ` ${p.path}` : ''}: ${p.message}`);
    if (p.hint) lines.push(`${indent}  ${c.dim('hint')}: ${p.hint}`);
  }
  return lines;
}

/** One foreign session, for people: what `inspect` shows per session. */
export function renderForeignSession(s: ForeignSession, c: Paint): string[] {
  const lines: string[] = [];
  const flags = [s.active ? 'active' : null, s.archived ? 'archived' : null].filter(Boolean).join(', ');
  lines.push(`${c.bold(`Session ${s.id}`)}  ${s.status}${s.rawStatus !== null && s.rawStatus !== s.status ? ` (${JSON.stringify(s.rawStatus)})` : ''}${flags ? `  [${flags}]` : ''}`);
  if (s.title && s.title !== s.id) lines.push(`  Title: ${s.title}`);
  lines.push(`  File: ${s.path}${s.updatedAt ? `  (updated ${s.updatedAt})` : ''}`);
  if (s.units.length) {
    lines.push('  Units:');
    const w = Math.max(...s.units.map((u) => u.id.length));
    for (const u of s.units) {
      const extra = [u.subStep ? `sub-step ${u.subStep}` : null, u.retries ? `retries ${u.retries}` : null, u.errors.length ? `${u.errors.length} error(s)` : null].filter(Boolean).join(', ');
      lines.push(`    ${MARK[u.status] ?? '?'} ${u.id.padEnd(w)}  ${u.status.padEnd(11)} ${u.name !== u.id ? u.name : ''}${extra ? `  (${extra})` : ''}`.trimEnd());
    }
  } else {
    lines.push('  Units: none');
  }
  const pos = s.position.unitId ? `unit ${s.position.unitId}${s.position.subStep ? `, sub-step ${s.position.subStep}` : ''}` : 'none';
  lines.push(`  Position: ${pos}`);
  const r = s.resume;
  const limit = r.retryLimit !== null ? ` (retries ${r.retriesUsed ?? 0}/${r.retryLimit})` : '';
  lines.push(`  Resume: ${r.action}${r.unitId ? ` ${r.unitId}` : ''}${r.subStep ? ` at sub-step ${r.subStep}` : ''}${limit}${r.lastCompleted ? `; last completed ${r.lastCompleted}` : ''}`);
  if (r.reason) lines.push(`    ${c.dim('rule')}: ${r.reason}`);
  for (const o of r.options) {
    lines.push(`    ${o.recommended || r.recommended === o.kind ? c.green('*') : '-'} ${o.kind}${o.target ? ` ${o.target}` : ''}: ${o.description}${o.loses ? ` (loses: ${o.loses})` : ''}${o.recommended || r.recommended === o.kind ? ' [recommended]' : ''}`);
  }
  for (const w of r.warnings) lines.push(`    ${c.yellow('warning')}: ${w}`);
  if (s.unresolvedErrors.length) {
    lines.push(`  Unresolved errors (${s.unresolvedErrors.length}):`);
    for (const e of s.unresolvedErrors) lines.push(`    ${e.unitId ?? '-'} ${e.type}: ${e.message}${e.agent ? ` [${e.agent}]` : ''}`);
  }
  if (s.tokens) {
    const t = s.tokens;
    const agrees = t.agrees === null ? 'no per-agent breakdown' : t.agrees ? 'per-agent breakdown agrees' : c.red('per-agent breakdown DISAGREES');
    lines.push(`  Tokens: ${num(t.input)} in / ${num(t.output)} out / ${num(t.cached)} cached; ${agrees}${t.max !== null ? `; budget ${num(t.max)}` : ''}`);
    if (t.byAgent) for (const [a, v] of Object.entries(t.byAgent)) lines.push(`    ${a.padEnd(16)} ${num(v.input).padStart(10)} in ${num(v.output).padStart(10)} out ${num(v.cached).padStart(10)} cached`);
  } else {
    lines.push('  Tokens: none recorded');
  }
  const counts = [
    [s.decisions.length, 'decision(s)'],
    [s.findings.length, 'finding(s)'],
    [s.notes.length, 'note(s)'],
    [s.milestones.length, 'milestone(s)'],
    [s.artifacts.length, 'artifact(s)'],
    [s.checkpoints.length, 'checkpoint(s)'],
  ].filter(([n]) => (n as number) > 0);
  if (counts.length) lines.push(`  Records: ${counts.map(([n, w]) => `${n} ${w}`).join(', ')}`);
  const bad = s.checkpoints.filter((k) => !k.valid);
  for (const k of bad) lines.push(`    ${c.red('invalid checkpoint')} ${k.id}: ${k.problem ?? ''}`);
  if (s.problems.length) {
    lines.push('  Problems:');
    lines.push(...problemLines(s.problems, c, '    '));
  }
  return lines;
}

/** Every problem of an inspect result (tree and sessions). */
export function allProblems(r: { problems: FormatProblem[]; sessions: Array<{ problems: FormatProblem[] }> }): FormatProblem[] {
  return [...r.problems, ...r.sessions.flatMap((s) => s.problems)];
}

/** `baton inspect`, for people. */
export function renderInspect(r: InspectResult, c: Paint): string {
  const lines: string[] = [];
  const det = r.detection ? ` (detected; scores: ${r.detection.map((d) => `${d.format} ${d.score.toFixed(2)}`).join(', ') || 'none'})` : '';
  lines.push(r.format ? `${c.bold(r.format)} layout in ${r.root}${det}` : `No known layout in ${r.root}${det}`);
  lines.push(`${r.sessions.length} session(s)`);
  for (const s of r.sessions) {
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
    const word = s.action === 'created' ? c.green('created  ') : s.action === 'updated' ? c.green('updated  ') : s.action === 'unchanged' ? c.dim('unchanged') : c.yellow('skipped  ');
    lines.push(`  ${word} ${s.id ?? '-'}${s.id !== s.foreignId ? ` (from ${s.foreignId})` : ''}${s.revision !== null ? `  revision ${s.revision}` : ''}${s.archived ? '  [archived]' : ''}`);
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
  if (m && e && e.message) lines.push(`Last rewrite failed at ${e.at ?? '?'}: ${e.message}`);
  if (m && e && e.hint) lines.push(`  hint: ${e.hint}`);
  return `${lines.join('\n')}\n`;
}
