/**
 * One journal event as a sentence for people ("bob started phase build (attempt 2)."), for
 * views that list events (the dashboard's event log). The event's data stays the truth: the
 * sentence leaves out ids and hashes a person does not read. Pure; unknown types get a
 * generic sentence, never an error.
 */
import { budgetSentence } from './spend/budget-policy.js';
import { formatUsd } from './spend/cost.js';

interface EventLike {
  type: string;
  data: unknown;
  actor?: { agent?: string | null } | null;
}

/** A value as text; missing or structured values (data from an older or newer baton) read as "?". */
const txt = (v: unknown): string =>
  typeof v === 'string' ? v : typeof v === 'number' || typeof v === 'boolean' ? String(v) : '?';
const num = (n: unknown): string => (typeof n === 'number' ? n.toLocaleString('en-US') : txt(n));
const q = (s: unknown): string => `"${txt(s).replace(/\s+/g, ' ').slice(0, 200)}"`;
const inPhase = (p: unknown): string => (typeof p === 'string' && p ? ` in phase ${p}` : '');
const because = (r: unknown): string => (typeof r === 'string' && r ? `: ${r.replace(/\s+/g, ' ').slice(0, 200)}` : '');
const plural = (n: number, word: string): string => `${num(n)} ${word}${n === 1 ? '' : 's'}`;

type Sentence = (d: Record<string, unknown>, who: string) => string;

/** Sentences by event type; `who` is the agent named in the data, else the actor, else "Someone". */
const SENTENCES: Record<string, Sentence> = {
  'session.created': (d) =>
    `Session ${q(d['title'])} created${Array.isArray(d['phases']) && d['phases'].length ? ` with ${plural(d['phases'].length, 'phase')}` : ''}${typeof d['budgetMax'] === 'number' ? `, token budget ${num(d['budgetMax'])}` : ''}.`,
  'session.paused': (d) => `Session paused (${txt(d['cause'])}${d['detail'] ? `: ${txt(d['detail'])}` : ''}).`,
  'session.resumed': (d) => `Session resumed from ${txt(d['from'])}.`,
  'session.interrupted': (d) =>
    `Session interrupted (${txt(d['cause'])}${d['detail'] ? `: ${txt(d['detail'])}` : ''}).`,
  'session.completed': (d) =>
    `Session completed${Array.isArray(d['unfinished']) && d['unfinished'].length ? `, leaving ${d['unfinished'].join(', ')} unfinished` : ''}${because(d['detail'])}.`,
  'session.failed': (d) => `Session marked failed${because(d['detail'])}.`,
  'session.abandoned': (d) => `Session abandoned${because(d['detail'])}.`,
  'session.archived': () => 'Session archived.',
  'session.pinned': (d) => `Session pinned${because(d['reason'])}.`,
  'session.unpinned': (d) => `Session unpinned${because(d['reason'])}.`,
  'phase.started': (d, who) => `${who} started phase ${txt(d['phaseId'])}${d['forced'] ? ' (forced)' : ''}.`,
  'phase.retried': (d, who) => `${who} retried phase ${txt(d['phaseId'])} (retry ${txt(d['attempt'])}).`,
  'phase.completed': (d, who) => `${who} completed phase ${txt(d['phaseId'])}.`,
  'phase.failed': (d, who) => `${who} failed phase ${txt(d['phaseId'])}${because(d['reason'])}.`,
  'phase.skipped': (d) => `Phase ${txt(d['phaseId'])} skipped${because(d['reason'])}.`,
  'substep.reached': (d) => `Phase ${txt(d['phaseId'])} reached sub-step ${q(d['name'])}.`,
  'file.recorded': (d, who) =>
    `${who} ${txt(d['action'])} ${txt(d['path'])}${inPhase(d['phaseId'])}${typeof d['size'] === 'number' ? ` (${plural(d['size'], 'byte')})` : ''}.`,
  'error.recorded': (d) =>
    `Error ${txt(d['errorId'])} (${txt(d['type'])})${inPhase(d['phaseId'])}: ${txt(d['message']).replace(/\s+/g, ' ').slice(0, 300)}`,
  'error.resolved': (d) =>
    `Error ${txt(d['errorId'])} resolved: ${txt(d['resolution']).replace(/\s+/g, ' ').slice(0, 300)}`,
  'tokens.recorded': (d, who) =>
    `${who} used ${num(d['input'])} input and ${num(d['output'])} output tokens${Number(d['cached']) > 0 ? ` (${num(d['cached'])} cached)` : ''}${d['model'] ? ` on ${txt(d['model'])}` : ''}${inPhase(d['phaseId'])}.`,
  'budget.set': budgetSentence,
  'budget.cost_set': (d) =>
    typeof d['maxUsd'] === 'number' ? `Cost budget set to ${formatUsd(d['maxUsd'])}.` : 'Cost budget removed.',
  'transcript.read': (d) => `Tokens read from the ${txt(d['cli'])} transcript.`,
  'decision.recorded': (d, who) =>
    `${who} decided ${q(d['title'])}: ${txt(d['choice'])}${d['rationale'] ? `, because ${txt(d['rationale'])}` : ''}.`,
  'finding.added': (d) =>
    `Finding${d['severity'] ? ` (${txt(d['severity'])})` : ''}: ${txt(d['text']).replace(/\s+/g, ' ').slice(0, 300)}`,
  'finding.removed': (d) => `Finding ${txt(d['findingId'])} removed.`,
  'note.added': (d) => `Note: ${txt(d['text']).replace(/\s+/g, ' ').slice(0, 300)}`,
  'milestone.added': (d) =>
    `Milestone ${q(d['title'])} added${d['targetDate'] ? `, due ${txt(d['targetDate'])}` : ''}.`,
  'milestone.done': (d) => `Milestone ${txt(d['milestoneId'])} reached.`,
  'artifact.added': (d) => `Artifact ${txt(d['path'])} added${d['description'] ? `: ${txt(d['description'])}` : '.'}`,
  'context.updated': () => 'Context summary updated.',
  'metadata.set': (d) => `Setting ${txt(d['key'])} changed.`,
  'lease.acquired': (d) =>
    `${txt(d['owner'])} ${d['takeover'] ? 'took over' : 'took'} the lease (pid ${txt(d['pid'])} on ${txt(d['host'])}).`,
  'lease.renewed': () => 'Lease renewed.',
  'lease.released': () => 'Lease released.',
  'lease.expired': (d) =>
    `The lease of ${txt(d['owner'])} ended${d['holderGone'] ? ': its process is gone' : ': it expired'}.`,
  'run.started': (d) => `Run started: ${Array.isArray(d['command']) ? d['command'].join(' ') : txt(d['command'])}.`,
  'run.ended': (d) =>
    `Run ended (${txt(d['cause'])}${d['exitCode'] !== null && d['exitCode'] !== undefined ? `, exit ${txt(d['exitCode'])}` : ''}${d['signal'] ? `, ${txt(d['signal'])}` : ''}).`,
  'checkpoint.created': (d) =>
    `Checkpoint ${q(d['name'])} taken${d['trigger'] === 'phase' ? ` when phase ${txt(d['phaseId'])} completed` : ''}.`,
  'checkpoint.restored': (d) => `Checkpoint ${q(d['name'])} restored${d['git'] ? ', work tree reset' : ''}.`,
  'agent.bound': (d) => `A ${txt(d['cli'])} conversation joined the session.`,
  'agent.ended': (d) => `The ${txt(d['cli'])} conversation ended${because(d['reason'])}.`,
  'subagent.started': (d) => `Sub-agent ${txt(d['agent'])} started${inPhase(d['phaseId'])}.`,
  'subagent.stopped': (d) => `Sub-agent ${txt(d['agent'])} stopped${inPhase(d['phaseId'])}.`,
  'steps.planned': (d, who) =>
    `${who} planned ${Array.isArray(d['steps']) ? plural(d['steps'].length, 'step') : 'steps'}${inPhase(d['phaseId'])}.`,
  'step.started': (d, who) =>
    `${who} ${d['takeover'] ? 'took over' : 'started'} step ${q(d['key'])}${inPhase(d['phaseId'])}.`,
  'step.completed': (d) =>
    `Step ${q(d['key'])} completed${inPhase(d['phaseId'])} (${plural(Number(d['attempts']), 'attempt')}, result ${plural(Number(d['size']), 'byte')}).`,
  'step.failed': (d) =>
    `Step ${q(d['key'])} failed${inPhase(d['phaseId'])} after ${plural(Number(d['attempts']), 'attempt')}${d['error'] && typeof d['error'] === 'object' ? because((d['error'] as { message?: unknown }).message) : ''}.`,
  'repair.torn_tail': (d) =>
    `A torn last line (${plural(Number(d['truncatedBytes']), 'byte')}) was cut from the journal.`,
  'repair.unreadable_line': (d) => `Journal line ${txt(d['line'])} could not be read and was set aside.`,
  'repair.journal': () => 'The journal was repaired.',
  'graph.checkpoint': (d) =>
    `Graph checkpoint at step ${txt(d['step'])}${d['source'] ? ` (${txt(d['source'])})` : ''}${d['ns'] ? ` in ${txt(d['ns'])}` : ''}.`,
  'graph.writes': (d) =>
    `Graph task ${txt(d['taskId'])} wrote ${Array.isArray(d['writes']) ? plural(d['writes'].length, 'value') : 'values'}.`,
  'transcript.mirrored': (d) =>
    `${Array.isArray(d['entries']) ? plural(d['entries'].length, 'transcript line') : 'Transcript lines'} mirrored${d['subpath'] ? ` to ${txt(d['subpath'])}` : ''}.`,
  'mirror.conflicted': (d, who) =>
    `${who} wrote ${txt(d['path'])} (${txt(d['format'])}) from a stale copy; baton kept ${Array.isArray(d['lost']) ? plural(d['lost'].length, 'change') : 'its changes'} the write would have lost and rewrote the file.`,
  'transcript.cleared': (d) => `Transcript ${txt(d['subpath'])} deleted.`,
  'repair.events_lost': (d) => `Events ${txt(d['from'])}–${txt(d['to'])} were lost and the state recovered.`,
};

/** The sentence for one event (ends with a full stop, at most a few hundred characters). */
export function eventSentence(e: EventLike): string {
  const d = (typeof e.data === 'object' && e.data !== null ? e.data : {}) as Record<string, unknown>;
  const agent = typeof d['agent'] === 'string' && d['agent'] ? d['agent'] : (e.actor?.agent ?? null);
  const f = SENTENCES[e.type];
  const text = f ? f(d, agent ?? 'Someone') : `${e.type} recorded.`;
  return /[.!?]$/.test(text) ? text : `${text}.`;
}
