/**
 * The Markdown "Orchestration Log" under the frontmatter: one `## Phase N: <name> <indicator>`
 * section appended per meaningful change. It is the human companion of the frontmatter; when
 * the two disagree the frontmatter wins (and the disagreement is reported).
 */
import type { UnitStatus } from '../types.js';

/** Maestro's status indicators (completed ✓, in progress ○, failed ✗, pending □, skipped –). */
export const INDICATOR: Record<'pending' | 'in_progress' | 'completed' | 'failed' | 'skipped', string> = {
  completed: '✓',
  in_progress: '○',
  failed: '✗',
  pending: '□',
  skipped: '–',
};

// Hand-written logs use look-alikes; they mean the same thing.
const READ_INDICATOR: Record<string, UnitStatus> = {
  '✓': 'completed',
  '✔': 'completed',
  '✅': 'completed',
  '○': 'in_progress',
  '◯': 'in_progress',
  '✗': 'failed',
  '✘': 'failed',
  '❌': 'failed',
  '□': 'pending',
  '☐': 'pending',
  '–': 'skipped',
  '—': 'skipped',
  '-': 'skipped',
};

const HEADING = /^##[ \t]+Phase[ \t]+([^:\s]+)[ \t]*:[ \t]*(.*?)[ \t]*$/;

/** The status each phase shows in its LAST body section (later sections supersede earlier ones). */
export function bodyStatuses(body: string): Map<string, { status: UnitStatus; indicator: string; line: number }> {
  const out = new Map<string, { status: UnitStatus; indicator: string; line: number }>();
  const lines = body.split('\n');
  lines.forEach((line, i) => {
    const m = HEADING.exec(line);
    if (!m) return;
    const rest = m[2]!;
    const last = [...rest].pop();
    if (last === undefined) return;
    const status = READ_INDICATOR[last];
    if (status) out.set(m[1]!, { status, indicator: last, line: i + 1 });
  });
  return out;
}

/** The topic of a `# <Topic> Orchestration Log` heading, or null. */
export function bodyTitle(body: string): string | null {
  const m = /^#[ \t]+(.+?)[ \t]*$/m.exec(body);
  if (!m) return null;
  return m[1]!.replace(/[ \t]+Orchestration Log$/i, '').trim() || null;
}

/** What a phase section written by baton shows. */
export interface PhaseSection {
  id: string;
  name: string;
  status: keyof typeof INDICATOR;
  agents: string[];
  created: string[];
  modified: string[];
  deleted: string[];
  errors: Array<{ message: string; resolved: boolean; resolution: string | null }>;
  retries: number;
  at: string;
}

/** A body section in Maestro's shape, recording a phase's state as baton exported it. */
export function renderPhaseSection(s: PhaseSection): string {
  const out = [`## Phase ${s.id}: ${s.name} ${INDICATOR[s.status]}`, ''];
  out.push(`Status: ${s.status} (recorded by baton, ${s.at})${s.retries > 0 ? `; retries: ${s.retries}` : ''}`);
  if (s.agents.length) out.push(`Agents: ${s.agents.join(', ')}`);
  out.push('');
  if (s.created.length || s.modified.length || s.deleted.length) {
    out.push('### Files Changed');
    if (s.created.length) out.push(`- Created: ${s.created.join(', ')}`);
    if (s.modified.length) out.push(`- Modified: ${s.modified.join(', ')}`);
    if (s.deleted.length) out.push(`- Deleted: ${s.deleted.join(', ')}`);
    out.push('');
  }
  if (s.errors.length) {
    out.push('### Errors');
    for (const e of s.errors)
      out.push(`- ${e.resolved ? 'resolved' : 'unresolved'}: ${e.message}${e.resolution ? ` (${e.resolution})` : ''}`);
    out.push('');
  }
  return out.join('\n');
}
