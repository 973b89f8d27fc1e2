/**
 * Where a BMAD session resumes, by the session manager's commands: `SESSION resume` reads
 * `active-session.yaml`; with no active session it offers to start a new one; a closed
 * session is not resumed (a new one is started); the resumed session restores its
 * `context_summary` and carries on with `current_focus` (epic, story, task; a blocker is a
 * warning). Agents still `running` (completed: null) are orphaned, in any session: BMAD's
 * agents are Task-tool subprocesses of a conversation, and nothing reattaches to them.
 */
import { noRules } from '../../domain/toolkits/toolkit-rules.js';
import type { ToolkitRules } from '../../domain/toolkits/toolkit-rules.js';
import type { ForeignSession, ForeignUnit, ResumeAdvice } from '../types.js';
import { obj, str } from '../util.js';
import type { Pointer } from './pointer.js';
import { runningAgents } from './read.js';
import type { BmadTokens } from './tokens.js';

function focusText(doc: Record<string, unknown>): string | null {
  const f = obj(doc['current_focus']);
  const parts = (['epic', 'story', 'task'] as const)
    .map((k) => (str(f[k]) ? `${k} ${str(f[k])}` : null))
    .filter(Boolean);
  return parts.length > 0 ? parts.join(', ') : null;
}

/** The advice for `s`, given the pointer (null when there is none or it is unreadable). */
export function bmadResume(
  s: ForeignSession,
  doc: Record<string, unknown>,
  pointer: Pointer | null,
  pointerTargetExists: boolean,
): ResumeAdvice {
  const warnings: string[] = [];
  const orphans = runningAgents(s);
  if (orphans.length > 0) {
    // Nothing reattaches to a BMAD agent (a Task-tool subprocess): running is orphaned in any session.
    const ctx =
      s.rawStatus === 'active' || s.rawStatus === null
        ? 'an active session with no conversation attached'
        : `a ${s.rawStatus} session`;
    warnings.push(
      `Agent${orphans.length === 1 ? '' : 's'} ${orphans.map((u) => `${u.id} (${u.name})`).join(', ')} still marked running in ${ctx}: orphaned; check ${orphans.flatMap((u) => u.files.map((f) => f.path)).join(', ') || 'their output'} and mark ${orphans.length === 1 ? 'it' : 'them'} completed or failed.`,
    );
  }
  // BMAD records only that an agent failed (status, completed time, output file), no error
  // text: the failure is surfaced so resuming does not carry on as if its output existed.
  const failed = s.units.filter((u) => u.status === 'failed');
  for (const u of failed) {
    const out = u.files.map((f) => f.path).join(', ');
    warnings.push(
      `Agent ${u.id} (${u.name}) failed${u.completedAt ? ` at ${u.completedAt}` : ''}${out ? `; its output ${out} may be missing or partial` : ''}: re-spawn it or record why its work is not needed before continuing.`,
    );
  }
  const blocker = str(obj(doc['current_focus'])['blocker']);
  if (blocker) warnings.push(`Blocker: ${blocker}`);
  const t = s.tokens as BmadTokens | null;
  if (t && t.bmad.level !== 'ok')
    warnings.push(`Token budget ${t.bmad.level}: ${t.bmad.current}/${t.bmad.max} (${t.bmad.percent}%).`);
  const base = {
    subStep: null,
    retryLimit: null,
    retriesUsed: null,
    lastCompleted: null,
    options: [],
    recommended: null,
    warnings,
  };
  if (s.archived || s.rawStatus === 'closed' || s.rawStatus === 'completed') {
    return {
      ...base,
      unitId: null,
      action: 'refuse',
      reason: `Session ${s.id} is ${s.archived ? 'closed and archived' : s.rawStatus}: BMAD does not resume a closed session; start a new one (SESSION start).`,
    };
  }
  const focus = focusText(doc);
  const carryOn = `restore context_summary${focus ? ` and continue with ${focus}` : ''}`;
  if (pointer === null || pointer.id === null) {
    return {
      ...base,
      unitId: null,
      action: 'start',
      reason: `No active session (${pointer ? 'active-session.yaml is cleared' : 'no active-session.yaml'}): BMAD's resume offers to start a new session; SESSION switch ${s.id} would load this one and ${carryOn}.`,
    };
  }
  if (pointer.id !== s.id) {
    return {
      ...base,
      unitId: null,
      action: pointerTargetExists ? 'none' : 'start',
      reason: pointerTargetExists
        ? `Not the active session (active-session.yaml names ${pointer.id}); SESSION switch ${s.id} would load it and ${carryOn}.`
        : `active-session.yaml names ${pointer.id}, which does not exist: BMAD's resume finds no session and offers to start one; SESSION switch ${s.id} would load this one.`,
    };
  }
  // An orphaned agent is never continued (nothing to reattach to): it is checked first.
  const check =
    orphans.length > 0
      ? ` First check orphaned agent${orphans.length === 1 ? '' : 's'} ${orphans.map((u) => u.id).join(', ')} (left running, completed: null): mark ${orphans.length === 1 ? 'it' : 'them'} completed or failed, or re-spawn.`
      : '';
  return {
    ...base,
    unitId: failed[failed.length - 1]?.id ?? null,
    action: 'continue',
    reason: `Active session ${s.id}${s.rawStatus === 'paused' ? ' (paused: resuming makes it active again)' : ''}: ${carryOn}.${check}`,
  };
}

/** What "no active session" means for BMAD's next command (seed 003, SESSION resume step 2). */
export const NO_ACTIVE =
  'No active session: SESSION resume prompts "No active session. Start new? [y/n]" (SESSION start creates one; SESSION switch <id> loads an existing one).';

/**
 * BMAD's rules for one session as data (domain/toolkits/toolkit-rules.ts). Seed 003: a closed session
 * is archived and not resumed (SESSION close; docs/formats/bmad.md "States: active ⇄ paused →
 * closed"); agents spawned in a context that is closed, paused or no longer the active one
 * are orphaned when still marked running (docs/formats/bmad.md, orphaned agents).
 */
export function bmadRules(s: ForeignSession, running: ForeignUnit[], pointed: string | null): ToolkitRules {
  const r = noRules('BMAD');
  if (s.archived || s.rawStatus === 'closed' || s.rawStatus === 'completed')
    r.refuse = `session ${s.id} is ${s.archived ? 'closed and archived' : s.rawStatus}: BMAD does not resume a closed session (start a new one with SESSION start).`;
  const context = s.archived
    ? 'the session is archived'
    : s.rawStatus !== null && s.rawStatus !== 'active'
      ? `the session is ${s.rawStatus}`
      : pointed !== s.id
        ? 'the session is not the active one (its context was left)'
        : 'the conversation that spawned it is gone (BMAD keeps no process to reattach to)';
  r.orphanedAgents = running.map((u) => ({
    agent: u.name,
    id: u.id,
    startedAt: u.startedAt,
    phaseId: u.id,
    reason: context,
  }));
  const t = s.tokens as BmadTokens | null;
  // Seed 003: "When tokens.current / tokens.max > 0.80" (strictly); agents run isolated in
  // Task-tool subprocesses, their tokens "not counted" in the main session but saved.
  r.tokens = { isolatedAgents: true, strictThresholds: true, saved: t ? t.bmad.saved : 0 };
  if (t && t.bmad.projectedOverrun > 0)
    r.notes.push(
      `Without isolation the work would exceed the ${t.bmad.max}-token limit by ${t.bmad.projectedOverrun} tokens.`,
    );
  return r;
}
