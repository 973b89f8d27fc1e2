import { describe, expect, it } from 'vitest';
import {
  decideError,
  decideFiles,
  decidePhase,
  decideSession,
  draft,
  decideSubstep,
  decideTokens,
} from '../../src/domain/decide.js';
import { decideBudgetPolicy } from '../../src/domain/spend/budget-policy.js';
import {
  decideArtifact,
  decideContext,
  decideDecision,
  decideFinding,
  decideFindingRemove,
  decideMilestone,
  decideMilestoneDone,
  decideNote,
} from '../../src/domain/decide-records.js';
import type { PhaseSpec } from '../../src/domain/events.js';
import { HANDOFF_INDICATORS, escapeCell, nextActions, renderHandoff } from '../../src/domain/resume/handoff.js';
import { planResume } from '../../src/domain/resume/plan-resume.js';
import type { ResumeInput } from '../../src/domain/resume/resume-plan-types.js';
import type { SessionState } from '../../src/domain/state.js';
import { at, commit, fakeSha as h, phases, play as run, session } from './helpers.js';

const NOW = '2026-03-04T12:00:00.000Z';

function handoff(state: SessionState, o: Partial<ResumeInput> = {}): string {
  const plan = planResume({ state, now: NOW, workspace: [], checkpoints: [], planChanged: false, ...o });
  return renderHandoff({ state, plan, now: NOW });
}

/** A session with something in every section. */
function rich(): SessionState {
  const specs: PhaseSpec[] = [
    { id: 'design', name: 'Design', agents: ['alice'] },
    { id: 'build', name: 'Build', blockedBy: ['design'] },
    { id: 'test', name: 'Test', maxRetries: 1 },
    { id: 'ship', name: 'Ship', blockedBy: ['build', 'test'] },
    { id: 'docs', name: 'Docs' },
  ];
  return run(
    session(specs, {
      title: 'Release 2',
      contextSummary: 'Ship release 2 of the CLI.\nKeep the API stable.',
      budgetMax: 10_000,
    }),
    (s) => decidePhase(s, 'design', 'start', { agent: 'alice' }),
    (s) => decideFiles(s, 'created', [{ path: 'docs/design.md', sha256: h('d1'), size: 10 }], 'design', 'alice'),
    (s) =>
      decideDecision(s, {
        title: 'Storage',
        choice: 'JSONL journal',
        rationale: 'append-only, easy to repair',
        alternatives: ['SQLite', 'one JSON file'],
        agent: 'alice',
        phase: 'design',
      }).events,
    (s) => decidePhase(s, 'design', 'complete'),
    (s) => decidePhase(s, 'docs', 'skip', { reason: 'later' }),
    (s) => decidePhase(s, 'test', 'start', { agent: 'carol' }),
    (s) => decideError(s, { phase: 'test', type: 'timeout', message: 'e2e suite hung', agent: 'carol' }).events,
    (s) => decidePhase(s, 'test', 'fail', { reason: 'e2e red' }),
    (s) => decidePhase(s, 'test', 'retry', { agent: 'carol' }),
    (s) => decidePhase(s, 'test', 'fail'),
    (s) => decidePhase(s, 'build', 'start', { agent: 'bob' }),
    (s) => decideSubstep(s, 'build', 'compile'),
    (s) => decideFiles(s, 'modified', [{ path: 'src/main.ts', sha256: h('m1'), size: 10 }], 'build', 'bob'),
    (s) => decideTokens(s, { agent: 'alice', phase: 'design', input: 1200, output: 300, cached: 50 }),
    (s) => decideTokens(s, { agent: 'bob', phase: 'build', input: 4000, output: 2500, cached: 0 }),
    (s) => decideFinding(s, { text: 'Flaky e2e on CI', severity: 'high', phase: 'test', agent: 'carol' }).events,
    (s) => decideFinding(s, { text: 'typo', severity: null }).events,
    (s) => decideFindingRemove(s, 'fnd-2'),
    (s) => decideNote(s, { text: 'Use node 20', phase: 'build', agent: 'bob' }).events,
    (s) => decideMilestone(s, { title: 'Beta', targetDate: '2026-04-01' }).events,
    (s) => decideMilestone(s, { title: 'Design sign-off' }).events,
    (s) => decideMilestoneDone(s, 'ms-2'),
    (s) =>
      decideArtifact(s, {
        path: 'dist/cli.js',
        kind: 'bundle',
        description: 'release build',
        phase: 'build',
        agent: 'bob',
      }).events,
    (s) => decideSession(s, 'interrupt', 'pid 77 vanished', 'lease-expired'),
  );
}

describe('renderHandoff', () => {
  it('renders every section of a rich session, exactly', () => {
    const s = rich();
    const text = handoff(s, {
      workspace: [
        { path: 'docs/design.md', sha256: h('d2'), size: 11 },
        { path: 'src/main.ts', sha256: h('m1'), size: 10 },
      ],
      newFiles: ['notes.txt'],
      checkpoints: [
        { id: 'cp-1', name: 'after design', revision: 5, createdAt: at(5), valid: true, superseded: false },
      ],
      planChanged: false,
    });
    expect(text).toBe(
      [
        '# Handoff: Release 2',
        '',
        'Session `sess-1` · revision 25 · generated 2026-03-04T12:00:00.000Z',
        '',
        '## Goal',
        '',
        'Ship release 2 of the CLI.',
        'Keep the API stable.',
        '',
        '## Status',
        '',
        '- Status: **interrupted** — lease-expired: pid 77 vanished, at 2026-03-04T10:00:25.000Z',
        '- Progress: 2 of 5 phases done',
        '- Resumable: yes',
        '- Plan file: unchanged since the session started',
        '',
        '## Phases',
        '',
        '| id | name | status | agents | retries | sub-step |',
        '|---|---|---|---|---|---|',
        '| design | Design | ✓ completed | alice | 0/2 |  |',
        '| build | Build | ○ in progress | bob | 0/2 | compile |',
        '| test | Test | ✗ failed | carol | 1/1 |  |',
        '| ship | Ship | □ pending |  | 0/2 |  |',
        '| docs | Docs | – skipped |  | 0/2 |  |',
        '',
        '## Where to resume',
        '',
        '- Last completed: design (Design), at 2026-03-04T10:00:05.000Z',
        '- In flight: build (Build) — resume at sub-step "compile"',
        '- Blocked: ship (Ship) waits for build (in progress), test (failed)',
        '- Why: Phase build was in flight: finish it before anything else.',
        '- → Resume phase build (Build) at sub-step "compile"',
        '',
        '## Unresolved errors',
        '',
        '- `err-1` [test] timeout: e2e suite hung (carol, 2026-03-04T10:00:08.000Z)',
        '',
        '## Retries',
        '',
        '- test (Test): 1 of 1 used, 0 left — escalate, the user decides: retry it anyway, skip it, fail or abandon the session, or change the plan',
        '',
        '## Decisions',
        '',
        '- **Storage**: JSONL journal (dec-1, phase design, alice)',
        '  - Rationale: append-only, easy to repair',
        '  - Alternatives: SQLite; one JSON file',
        '',
        '## Open findings',
        '',
        '- [high] Flaky e2e on CI (fnd-1, phase test, carol)',
        '',
        '## Files',
        '',
        'Recorded by the session, per phase:',
        '',
        '- design (Design): `docs/design.md` created',
        '- build (Build): `src/main.ts` modified',
        '',
        'Changed outside the session (since recorded):',
        '',
        '- design (Design), completed:',
        '  - `docs/design.md` — changed (sha256 d10000000000 → d20000000000)',
        '- New files: `notes.txt`',
        '',
        'Written by a phase in flight, as recorded (possibly half-written):',
        '',
        '- build (Build): `src/main.ts`',
        '',
        '## Tokens',
        '',
        '- Used: 5,200 in / 2,800 out / 50 cached',
        '- Budget: 8,000 of 10,000 (80%, warning)',
        '- By agent: alice 1,200 in / 300 out / 50 cached; bob 4,000 in / 2,500 out / 0 cached',
        '- By phase: design 1,200 in / 300 out / 50 cached; build 4,000 in / 2,500 out / 0 cached',
        '',
        '## Milestones',
        '',
        '- [ ] Beta (target 2026-04-01)',
        '- [x] Design sign-off (done 2026-03-04T10:00:23.000Z)',
        '',
        '## Artifacts',
        '',
        '- `dist/cli.js` (bundle) — release build (phase build, bob)',
        '',
        '## Notes',
        '',
        '- 2026-03-04T10:00:20.000Z · build · bob: Use node 20',
        '',
        '## Recovery options',
        '',
        '- **checkpoint:cp-1** "after design" (revision 5): loses 20 events recorded after revision 5. It puts back the session\'s record, not the files: the files changed outside the session stay as they are.',
        '- **live**: loses nothing. Keeps the half-done work of build (at sub-step "compile"). ← recommended',
        '- **fresh**: loses everything: 1 completed phase and 24 events since the session was created. Starts again from the first phase of the plan.',
        "- Recommended: `live` — Files of completed phase design changed outside the session. Restoring a checkpoint would not undo that (it puts back the session's record, not the files): accept the edits, put the files back with git, or keep going, and continue from the current state.",
        '- Outside edits: design: docs/design.md (changed). Choose one:',
        '  - accept: The edits are wanted: record the file again as it is now, as work of design; the plan then stops reporting it.',
        "  - restore-files: The edits are not wanted: put the file back as recorded, with git (restoring a checkpoint puts back the session's record, not the files).",
        '  - keep-going: Decide later: continue as is; the plan reports the file until it is accepted or put back.',
        '',
        '## Warnings',
        '',
        '- Phase build was in flight: its 1 file may be half-written (src/main.ts); check it before continuing.',
        '- 1 file of completed phase design changed, vanished or reappeared outside the session.',
        '- 1 new file appeared in the workspace since the session started.',
        '- Phase test failed after using 1 of 1 retries; it is not retried automatically. The user decides: retry it anyway, skip it, fail or abandon the session, or change the plan.',
        '',
        '## Next actions',
        '',
        "1. Continue from the live state (`live`): Files of completed phase design changed outside the session. Restoring a checkpoint would not undo that (it puts back the session's record, not the files): accept the edits, put the files back with git, or keep going, and continue from the current state.",
        '2. Check the possibly half-written files of phase build: `src/main.ts`.',
        '3. Review the files changed outside the session: `docs/design.md` (changed).',
        '4. Look at the files that appeared since the session started: `notes.txt`.',
        '5. Resume phase build (Build) at sub-step "compile".',
        '6. Decide on phase test (Test): retries exhausted (1/1); the user decides: retry it anyway, skip it, fail or abandon the session, or change the plan.',
        '7. Resolve or acknowledge the unresolved error: err-1.',
        '',
      ].join('\n'),
    );
  });

  it('is deterministic: the same input gives the same text', () => {
    const s = rich();
    expect(handoff(s)).toBe(handoff(structuredClone(s)));
  });

  it('escapes pipes and line breaks in table cells', () => {
    const specs: PhaseSpec[] = [{ id: 'a', name: 'Parse | validate\nthen store', agents: ['x|y'] }];
    let s = session(specs);
    s = run(
      s,
      (x) => decidePhase(x, 'a', 'start'),
      (x) => decideSubstep(x, 'a', 'step|1'),
    );
    const text = handoff(s);
    expect(text).toContain('| a | Parse \\| validate<br>then store | ○ in progress | x\\|y | 0/2 | step\\|1 |');
    expect(escapeCell('a|b\r\nc\nd')).toBe('a\\|b<br>c<br>d');
    // Every table row still has exactly the six columns.
    const rows = text.split('\n').filter((l) => l.startsWith('| a '));
    expect(rows).toHaveLength(1);
    expect(rows[0]!.split(/(?<!\\)\|/).length - 2).toBe(6);
  });

  it('shows each phase status with its indicator', () => {
    expect(HANDOFF_INDICATORS).toEqual({ completed: '✓', in_progress: '○', failed: '✗', pending: '□', skipped: '–' });
  });

  it('says "none" for empty sections and shows when there is no budget', () => {
    const text = handoff(session(phases('a')));
    for (const line of [
      '_No context summary recorded._',
      '## Unresolved errors\n\nNone.',
      '## Retries\n\nNone used.',
      '## Decisions\n\nNone recorded.',
      '## Open findings\n\nNone.',
      '- Budget: none set (0 counted)',
      '## Milestones\n\nNone.',
      '## Artifacts\n\nNone.',
      '## Notes\n\nNone.',
      'Changed outside the session (since recorded):\n\n- none detected',
      '- **checkpoint**: unavailable — No checkpoint was taken.',
      '- **live**: loses nothing. ← recommended',
      '## Next actions\n\n1. Continue from the live state (`live`): Nothing changed outside the session and no phase in flight wrote files: continue where it stopped.\n2. Start phase a (A).\n',
    ]) {
      expect(text).toContain(line);
    }
  });

  it('keeps only the last 10 notes', () => {
    let s = session(phases('a'));
    for (let i = 1; i <= 12; i++) s = run(s, (x) => decideNote(x, { text: `note ${i}` }).events);
    const text = handoff(s);
    expect(text).toContain('## Notes (last 10 of 12)');
    expect(text).not.toContain(': note 2\n');
    expect(text).toContain(`- ${at(4)}: note 3\n`);
    expect(text).toContain(`- ${at(13)}: note 12\n`);
  });

  it('tells the reader there is nothing to resume in a completed session', () => {
    let s = session(phases('a'));
    s = run(
      s,
      (x) => decidePhase(x, 'a', 'start'),
      (x) => decidePhase(x, 'a', 'complete'),
      (x) => decideSession(x, 'complete', 'shipped'),
    );
    const text = handoff(s);
    expect(text).toContain(`- Status: **completed** — completed: shipped, at ${at(4)}`);
    expect(text).toContain('- Resumable: no — The session is completed: nothing to resume.');
    expect(text).toContain('- Recommended: none (nothing to resume)');
    expect(
      text.endsWith('## Next actions\n\n1. Nothing to resume: The session is completed: nothing to resume.\n'),
    ).toBe(true);
  });

  it('reports the lease and an expired lease as an interruption', () => {
    const s = commit(session(phases('a')), [
      draft('lease.acquired', { owner: 'agent-7', pid: 77, host: 'box', token: 2, expiresAt: at(60), takeover: true }),
    ]);
    const plan = planResume({ state: s, now: at(90), workspace: [], checkpoints: [], planChanged: null });
    const text = renderHandoff({ state: s, plan, now: at(90) });
    expect(text).toContain(
      `- Status: **interrupted** — lease-expired: held by agent-7 (pid 77 on box); in flight: nothing, at ${at(60)}\n- Lease: held by agent-7 (pid 77 on box), token 2, expired at ${at(60)}\n`,
    );
    expect(text).toContain('- Plan file: unknown whether it changed');
  });

  it('keeps multi-line free text inside its list item', () => {
    const s = run(
      session(phases('a')),
      (x) => decideContext(x, 'Goal'),
      (x) => decideFinding(x, { text: 'line one\nline two' }).events,
    );
    expect(handoff(s)).toContain('- line one\n  line two (fnd-1)');
  });

  it('derives next actions from the plan: retries left, escalations and the plan file', () => {
    const s = run(
      session([
        { id: 'a', name: 'A' },
        { id: 'b', name: 'B', maxRetries: 0 },
        { id: 'c', name: 'C', blockedBy: ['a', 'b'] },
      ]),
      (x) => decidePhase(x, 'a', 'start'),
      (x) => decidePhase(x, 'a', 'fail', { reason: 'oops' }),
      (x) => decidePhase(x, 'b', 'start'),
      (x) => decidePhase(x, 'b', 'fail'),
      (x) => decideBudgetPolicy(x, { tokens: 100 }),
    );
    const plan = planResume({ state: s, now: NOW, workspace: [], checkpoints: [], planChanged: true });
    expect(nextActions(plan)).toEqual([
      'Continue from the live state (`live`): Continue from the current state, after checking the warnings.',
      'Check the plan file: it changed since the session started.',
      'Retry phase a (A): failed (oops); 2 retries left of 2.',
      'Decide on phase b (B): retries exhausted (0/0); the user decides: retry it anyway, skip it, fail or abandon the session, or change the plan.',
    ]);
  });
});
