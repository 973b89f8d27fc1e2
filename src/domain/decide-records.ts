/**
 * Decisions for the session's records: decisions, findings, notes, milestones, artifacts and
 * the context summary. Pure, like decide.ts: the state and a request in, events out.
 */
import { BatonError } from './errors.js';
import { hint } from './hints.js';
import { clip } from './ids.js';
import { assertWritable, draft, nextId, optionalPhase, text } from './decide.js';
import type { EventDraft } from './decide.js';
import type { SessionState } from './state.js';

/** Request to record a decision. */
export interface DecisionInput {
  title: string;
  choice: string;
  rationale?: string | null;
  alternatives?: string[];
  agent?: string | null;
  phase?: string | null;
}

/** Records a decision with its rationale and the alternatives considered. */
export function decideDecision(s: SessionState, d: DecisionInput): { events: EventDraft[]; id: string } {
  assertWritable(s);
  const id = nextId(s, 'decision', 'dec');
  return {
    id,
    events: [
      draft('decision.recorded', {
        decisionId: id,
        title: text(d.title, 'decision title', { max: 1000 }),
        choice: text(d.choice, 'decision choice'),
        rationale: d.rationale ? text(d.rationale, 'rationale') : null,
        alternatives: (d.alternatives ?? []).map((a) => text(a, 'alternative', { max: 1000 })),
        agent: d.agent ?? null,
        phaseId: optionalPhase(s, d.phase),
      }),
    ],
  };
}

/** Adds an open finding. */
export function decideFinding(
  s: SessionState,
  f: { text: string; severity?: string | null; phase?: string | null; agent?: string | null },
): { events: EventDraft[]; id: string } {
  assertWritable(s);
  const id = nextId(s, 'finding', 'fnd');
  return {
    id,
    events: [
      draft('finding.added', {
        findingId: id,
        text: text(f.text, 'finding'),
        severity: f.severity ?? null,
        phaseId: optionalPhase(s, f.phase),
        agent: f.agent ?? null,
      }),
    ],
  };
}

/** Removes (closes) a finding. */
export function decideFindingRemove(s: SessionState, id: string): EventDraft[] {
  assertWritable(s);
  const f = s.findings.find((x) => x.id === id);
  if (!f || f.removed) {
    const open = s.findings.filter((x) => !x.removed).map((x) => x.id);
    throw new BatonError('NOT_FOUND', `Session ${s.id} has no open finding ${JSON.stringify(clip(id))}.`, {
      hint: open.length ? `Open findings: ${open.join(', ')}.` : 'There are no open findings.',
    });
  }
  return [draft('finding.removed', { findingId: id })];
}

/** Adds a note. */
export function decideNote(
  s: SessionState,
  n: { text: string; phase?: string | null; agent?: string | null },
): { events: EventDraft[]; id: string } {
  assertWritable(s);
  const id = nextId(s, 'note', 'note');
  return {
    id,
    events: [
      draft('note.added', {
        noteId: id,
        text: text(n.text, 'note'),
        phaseId: optionalPhase(s, n.phase),
        agent: n.agent ?? null,
      }),
    ],
  };
}

/** Adds a milestone. */
export function decideMilestone(
  s: SessionState,
  m: { title: string; targetDate?: string | null },
): { events: EventDraft[]; id: string } {
  assertWritable(s);
  const id = nextId(s, 'milestone', 'ms');
  if (m.targetDate && Number.isNaN(Date.parse(m.targetDate))) {
    throw new BatonError('BAD_INPUT', `Target date ${JSON.stringify(clip(m.targetDate))} is not a date.`, {
      hint: 'Use ISO-8601, e.g. 2026-12-01.',
    });
  }
  return {
    id,
    events: [
      draft('milestone.added', {
        milestoneId: id,
        title: text(m.title, 'milestone title', { max: 1000 }),
        targetDate: m.targetDate ?? null,
      }),
    ],
  };
}

/** Marks a milestone done. */
export function decideMilestoneDone(s: SessionState, ref: string): EventDraft[] {
  assertWritable(s);
  const m = s.milestones.find((x) => x.id === ref) ?? s.milestones.find((x) => x.title === ref);
  if (!m) {
    throw new BatonError('NOT_FOUND', `Session ${s.id} has no milestone ${JSON.stringify(clip(ref))}.`, {
      hint: s.milestones.length ? `Milestones: ${s.milestones.map((x) => x.id).join(', ')}.` : hint('milestone.add'),
    });
  }
  if (m.done)
    throw new BatonError('INVALID_TRANSITION', `Milestone ${m.id} is already done.`, { hint: 'Nothing to do.' });
  return [draft('milestone.done', { milestoneId: m.id })];
}

/** Records an artifact produced by the workflow. */
export function decideArtifact(
  s: SessionState,
  a: { path: string; kind?: string | null; description?: string | null; phase?: string | null; agent?: string | null },
): { events: EventDraft[]; id: string } {
  assertWritable(s);
  const id = nextId(s, 'artifact', 'art');
  return {
    id,
    events: [
      draft('artifact.added', {
        artifactId: id,
        path: text(a.path, 'artifact path', { max: 4096 }),
        kind: a.kind ?? null,
        description: a.description ?? null,
        phaseId: optionalPhase(s, a.phase),
        agent: a.agent ?? null,
      }),
    ],
  };
}

/** Replaces the context summary. */
export function decideContext(s: SessionState, summary: string): EventDraft[] {
  assertWritable(s);
  return [draft('context.updated', { summary: text(summary, 'context summary') })];
}
