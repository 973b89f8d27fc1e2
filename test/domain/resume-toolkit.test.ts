/**
 * The resume plan follows a foreign toolkit's rules given as data (session metadata
 * `toolkitRules`), with no format name involved: refusal, escalation first, required review
 * steps, orphaned agents, and the toolkit's recovery recommendation (followed, or why not).
 */
import { describe, expect, it } from 'vitest';
import { decidePhase, decideSession, draft } from '../../src/domain/decide.js';
import { planResume } from '../../src/domain/resume/plan-resume.js';
import type { CheckpointInfo, ResumeInput } from '../../src/domain/resume/resume-plan-types.js';
import type { SessionState } from '../../src/domain/state.js';
import { noRules, TOOLKIT_RULES_KEY } from '../../src/domain/toolkits/toolkit-rules.js';
import type { ToolkitRules } from '../../src/domain/toolkits/toolkit-rules.js';
import { at, phases, play, session } from './helpers.js';

const NOW = '2026-03-04T12:00:00.000Z';
const start = (id: string) => (s: SessionState) => decidePhase(s, id, 'start', { agent: null });
const complete = (id: string) => (s: SessionState) => decidePhase(s, id, 'complete');
const fail = (id: string) => (s: SessionState) => decidePhase(s, id, 'fail', { reason: 'boom' });
const retry = (id: string) => (s: SessionState) => decidePhase(s, id, 'retry');
const interrupt = (s: SessionState) => decideSession(s, 'interrupt', 'gone', 'crash');
const rules = (r: Partial<ToolkitRules>) => () => [
  draft('metadata.set', { key: TOOLKIT_RULES_KEY, value: { ...noRules('Kit'), ...r } }),
];

function input(state: SessionState, checkpoints: CheckpointInfo[] = []): ResumeInput {
  return { state, now: NOW, workspace: [], checkpoints, planChanged: false };
}

describe('planResume with toolkit rules as data', () => {
  it('a session the toolkit never resumes is not resumable, with its reason first', () => {
    const s = play(
      session(phases('a', 'b')),
      start('a'),
      fail('a'),
      rules({ refuse: 'Kit never resumes a failed session.' }),
    );
    const p = planResume(input(s));
    expect(p.resumable).toBe(false);
    expect(p.next).toEqual({
      steps: [],
      reason: 'Kit does not resume this session: Kit never resumes a failed session.',
    });
    expect(p.warnings[0]).toBe('Kit does not resume this session: Kit never resumes a failed session.');
    expect(p.recovery.recommended).toBeNull();
    expect(p.toolkit?.refused).toBe('Kit never resumes a failed session.');
  });

  it('exhausted retries escalate before the phase in flight when the toolkit says so (not otherwise)', () => {
    const base = play(
      session(phases('a', 'b')),
      start('a'),
      fail('a'),
      retry('a'),
      fail('a'),
      retry('a'),
      fail('a'),
      start('b'),
      interrupt,
    );
    expect(planResume(input(base)).next.steps.map((x) => [x.phaseId, x.action])).toEqual([['b', 'restart']]);
    const s = play(base, rules({ escalateFirst: true }));
    expect(planResume(input(s)).next.steps.map((x) => [x.phaseId, x.action])).toEqual([
      ['a', 'escalate'],
      ['b', 'restart'],
    ]);
  });

  it('a required review is a review step before archiving, not "only needs to be marked completed"', () => {
    const s = play(
      session(phases('a')),
      start('a'),
      complete('a'),
      rules({ required: [{ phaseId: 'a', name: 'reconciliation of phase a', reason: 'Kit requires it.' }] }),
    );
    const p = planResume(input(s));
    expect(p.next.steps).toEqual([
      { phaseId: 'a', name: 'A', action: 'review', subStep: null, reason: 'Kit requires it.' },
    ]);
    expect(p.warnings.some((w) => w.startsWith('All phases are completed'))).toBe(false);
    expect(p.warnings).toContain('Before archiving, Kit requires reconciliation of phase a: Kit requires it.');
  });

  it("an orphaned agent's phase is reported, not restarted", () => {
    const s = play(
      session(phases('a', 'b')),
      start('a'),
      start('b'),
      interrupt,
      rules({
        orphanedAgents: [
          { agent: 'dev', id: 'agent-9', startedAt: null, phaseId: 'b', reason: 'the session is paused' },
        ],
      }),
    );
    const p = planResume(input(s));
    expect(p.next.steps.map((x) => x.phaseId)).toEqual(['a']);
    expect(p.next.reason).toContain('dev (agent-9) is orphaned');
  });

  it("follows the toolkit's checkpoint recommendation, preferring the checkpoint it names", () => {
    const s = play(
      session(phases('a', 'b', 'c')),
      start('a'),
      complete('a'),
      start('b'),
      complete('b'),
      start('c'),
      interrupt,
      rules({ recommended: { kind: 'checkpoint', checkpoint: 'cp-a', by: 'toolkit', reason: 'its file says so' } }),
    );
    const cps: CheckpointInfo[] = [
      { id: 'cp-a', name: 'a', revision: 3, createdAt: at(3), valid: true, superseded: false },
      { id: 'cp-b', name: 'b', revision: 5, createdAt: at(5), valid: true, superseded: false },
    ];
    const p = planResume(input(s, cps));
    expect(p.recovery.recommended?.from).toBe('checkpoint:cp-a');
    expect(p.recovery.recommended?.reason).toContain('Kit recommends checkpoint cp-a (its file says so)');
    expect(p.toolkit).toMatchObject({ followed: true, departure: null });
  });
});
