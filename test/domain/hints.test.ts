/**
 * Hints as data (src/domain/hints.ts): every hint action is worded by both surfaces, the CLI
 * (src/cli/hint-words.ts, as `baton …` commands) and the MCP server (src/mcp/hint-words.ts, as
 * tools and arguments), byte for byte as they were worded before hints became data; and no
 * hint written in the domain, the stores or the manager names a CLI command or option again.
 */
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';
import { CLI_HINT_WORDS, cliHint, cliWords } from '../../src/cli/hint-words.js';
import { BatonError } from '../../src/domain/errors.js';
import type { ErrorCode } from '../../src/domain/errors.js';
import type { Hint, HintAction } from '../../src/domain/hints.js';
import { hint } from '../../src/domain/hints.js';
import { CODE_HINTS, namesCli, TOOL_HINT_WORDS, toolHint } from '../../src/mcp/hint-words.js';

/** Every action: a code it comes with, sample arguments, the CLI's words and the tool words. */
const TABLE: Array<[HintAction, ErrorCode, Hint['args'], string, string]> = [
  [
    'session.start-new',
    'INVALID_TRANSITION',
    {},
    'Start a new session with `baton start`.',
    'Start a new session with `session_start`.',
  ],
  [
    'session.start-one',
    'NO_ACTIVE_SESSION',
    {},
    'Start one with `baton start "<title>"`.',
    'Start one with `session_start`.',
  ],
  [
    'session.start-with-phases',
    'NOT_FOUND',
    {},
    'This session has no phases; start one with --phases.',
    'This session has no phases; phases are given to `session_start` as `phases`.',
  ],
  ['session.phases-list', 'BAD_INPUT', {}, 'Pass --phases a,b,c.', 'Pass `phases` a,b,c.'],
  [
    'session.status',
    'INVALID_TRANSITION',
    { session: 's1' },
    'See `baton status --session s1`.',
    'See `session_status`.',
  ],
  [
    'session.reread',
    'CONFLICT',
    {},
    'Re-read the session (`baton status`) and decide again.',
    'Re-read the session (`session_status`) and decide again.',
  ],
  [
    'session.end-first',
    'INVALID_TRANSITION',
    { session: 's1' },
    'Complete, pause or abandon it first (`baton complete --session s1`).',
    'Complete, pause or abandon it first (`session_complete`).',
  ],
  [
    'session.switch-or-end',
    'ACTIVE_EXISTS',
    {},
    'Pass --switch to pause it and go on, or run `baton pause` / `baton complete` first.',
    'Pass `switch: true` to pause it and go on, or call `session_pause` / `session_complete` first.',
  ],
  [
    'session.name-one',
    'NO_ACTIVE_SESSION',
    { sessions: ['a', 'b'], more: true },
    'Pass --session with one of: a, b, … (or `baton switch <id>`).',
    'Pass `session` with one of: a, b, … (or `session_switch`).',
  ],
  [
    'session.list-all',
    'NOT_FOUND',
    {},
    'Run `baton list --all` to see the sessions.',
    'Call `session_list` with `all: true` to see the sessions.',
  ],
  [
    'session.list-all-see',
    'NOT_FOUND',
    {},
    'See `baton list --all` for the sessions there are.',
    'See `session_list` with `all: true` for the sessions there are.',
  ],
  [
    'session.other-id-or-switch',
    'EXISTS',
    {},
    'Pick another --id, or continue that session with `baton switch`.',
    'Pick another `id`, or continue that session with `session_switch`.',
  ],
  [
    'session.unpin',
    'INVALID_TRANSITION',
    { session: 's1' },
    'Unpin it first (`baton unpin s1`).',
    'Read the session with `session_status` (or `resume_plan`) to see what may be done now.',
  ],
  [
    'session.bmad-prefix',
    'BAD_INPUT',
    { prefixes: ['SES', 'EPIC'] },
    'Pass --bmad-prefix with one of SES, EPIC.',
    'Fix the arguments as the message says and call the tool again.',
  ],
  [
    'session.complete-unfinished',
    'BLOCKED',
    { session: 's1', phases: ['c', 'd'] },
    'Finish or skip them first (`baton phase complete|skip <phase> --session s1`), or run `baton complete --force --session s1` to complete it anyway, recording c, d as left unfinished.',
    'Finish or skip them first (`phase_complete` / `phase_skip`), or call `session_complete` with `force: true` to complete it anyway, recording c, d as left unfinished.',
  ],
  [
    'toolkit.required-first',
    'BLOCKED',
    { session: 's1', verb: 'archive', phase: null, toolkit: 'Maestro', steps: ['the code review'] },
    'Do the code review in Maestro first (then `baton import` its file again), or run `baton archive s1 --force` to go ahead anyway; the override is recorded.',
    'Do the code review in Maestro first, or call `session_archive` with `force: true` to go ahead anyway (only when a person said so); the override is recorded.',
  ],
  ['tokens.name-agent', 'BAD_INPUT', {}, 'Pass --agent NAME (or set BATON_AGENT).', 'Pass `agent`.'],
  [
    'phase.start',
    'INVALID_TRANSITION',
    { phase: 'build' },
    'Start it first: `baton phase start build`.',
    'Start it first: `phase_start` with phase build.',
  ],
  [
    'phase.finish-blockers',
    'BLOCKED',
    { blockers: ['design', 'api'] },
    'Finish design, api first, or pass --force to start it anyway.',
    'Finish design, api first, or pass `force: true` to start it anyway.',
  ],
  [
    'phase.escalate',
    'RETRIES_EXHAUSTED',
    { session: 's1', phase: 'build', maxRetries: 2, active: true },
    'Its retries are used up: the user decides. Retry it anyway (`baton phase retry build --force --session s1`), skip it (`baton phase skip build --session s1`, with --reason), fail the session (`baton fail --session s1`) or abandon it (`baton abandon --session s1`), or change the plan (`baton plan set build --max-retries 3 --session s1` allows one more retry; `baton plan --help` shows how to add or remove phases).',
    'Its retries are used up: ask the user, who decides. Retry it anyway (`phase_retry` with phase "build" and force: true), skip it (`phase_skip` with phase "build" and the user\'s reason), fail the session (`session_fail`) or abandon it (`session_abandon`), or change the plan (`plan_set` with phase "build" and maxRetries 3 allows one more retry; `plan_add` and `plan_remove` add or remove phases).',
  ],
  [
    'phase.name-one',
    'BAD_INPUT',
    { phases: ['a', 'b'] },
    'Pass --phase with one of: a, b.',
    'Pass `phase` with one of: a, b.',
  ],
  ['milestone.add', 'NOT_FOUND', {}, 'Add one with `baton milestone add`.', 'Add one with `milestone_add`.'],
  [
    'plan.drop-dependency',
    'BAD_INPUT',
    {
      session: 's1',
      changes: [
        { phase: 'test', blockedBy: [] },
        { phase: 'docs', blockedBy: ['design'] },
      ],
    },
    "Change their dependencies first: `baton plan set test --blocked-by '' --session s1`, `baton plan set docs --blocked-by design --session s1`.",
    'Change their dependencies first: `plan_set` with phase "test" and blockedBy [], `plan_set` with phase "docs" and blockedBy ["design"].',
  ],
  [
    'resume.apply',
    'INVALID_TRANSITION',
    { session: 's1' },
    'Run `baton resume --apply --session s1` to reopen it.',
    'Call `session_resume` to reopen it.',
  ],
  [
    'resume.plan-then-apply',
    'INVALID_TRANSITION',
    { session: 's1' },
    'See `baton resume --session s1`, then reopen it with `baton resume --apply --session s1`.',
    'See `resume_plan`, then reopen it with `session_resume`.',
  ],
  [
    'resume.from-options',
    'BAD_INPUT',
    {},
    'Use --from live, --from fresh or --from checkpoint:<id> (see `baton checkpoints`).',
    'Pass `from` as "live", "fresh" or "checkpoint:<id>" (see `checkpoint_list`).',
  ],
  [
    'files.accept',
    'INVALID_TRANSITION',
    { session: 's1', phase: 'design', modified: ['a.txt', 'my notes.md'], deleted: ['gone.txt'], created: [] },
    "Run `baton file modified a.txt 'my notes.md' --phase design --session s1`, then `baton file deleted gone.txt --phase design --session s1`.",
    'Call `file_record` with action "modified", phase "design" and paths ["a.txt","my notes.md"], then `file_record` with action "deleted", phase "design" and paths ["gone.txt"].',
  ],
  [
    'files.restore-git',
    'INVALID_TRANSITION',
    { checkout: ['a.txt', "it's.md"], remove: ['old.txt'] },
    "Run `git checkout -- a.txt 'it'\\''s.md'` (check first that git holds what was recorded), and delete old.txt again (recorded as deleted).",
    'No tool does this: in the workspace, run `git checkout -- "a.txt" "it\'s.md"` (check first that git holds what was recorded), and delete "old.txt" again (recorded as deleted); or ask a person to.',
  ],
  [
    'run.hold-lease',
    'INVALID_TRANSITION',
    {},
    'Go on working in it (`baton run -- CMD` holds its lease while you do).',
    'Go on working in it.',
  ],
  [
    'run.end-orphans',
    'LOCKED',
    { pids: [4242] },
    'Wait for it to exit, or pass --end-orphans to end it first (SIGTERM, then SIGKILL), or end it yourself: kill -TERM -4242.',
    'An orphaned command of a dead run still works in this tree: wait for it to exit, or ask a person to end its process group before taking over.',
  ],
  [
    'bundle.import-as',
    'EXISTS',
    { file: 's1.baton' },
    'Import it under another id with `baton import s1.baton --as NEW_ID`, or replace the existing one (its history is deleted) with `--replace`.',
    'Pick another id.',
  ],
  [
    'bundle.not-a-bundle',
    'BAD_INPUT',
    {},
    "Give the file `baton export --bundle` wrote; to import a toolkit's sessions, give their folder.",
    'Fix the arguments as the message says and call the tool again.',
  ],
  [
    'bundle.store-keeps-steps',
    'BAD_INPUT',
    {},
    'Import it into a file store or PostgreSQL (--dir, --store).',
    'Fix the arguments as the message says and call the tool again.',
  ],
  [
    'run.wait-or-force',
    'LOCKED',
    { session: 's1' },
    'Wait for it to end (`baton status --session s1` shows who works on what), or pass --force to go ahead anyway.',
    'Wait for it to end (`session_status` shows who works on what), or pass `force: true` to go ahead anyway.',
  ],
  [
    'phase.claim-free',
    'LOCKED',
    { session: 's1', free: ['api', 'ui'] },
    'Claim a free one: `baton phase claim api` (free: api, ui).',
    'Claim a free one with `phase_claim` (free: api, ui).',
  ],
  [
    'lease.wait-or-force',
    'LOCKED',
    {},
    'Wait for that run to end or its lease to expire, or pass --force to take it over.',
    'Wait for that run to end or its lease to expire, or pass `force: true` to take it over.',
  ],
  [
    'lease.fenced',
    'FENCED',
    {},
    'Another run took the session over after this one lost its lease. Stop writing; re-read the session with `baton status` and start a new run if needed.',
    'Another run took the session over after this one lost its lease. Stop writing; re-read the session with `session_status` and start a new run if needed.',
  ],
  [
    'lease.use-run-token',
    'FENCED',
    {},
    'Use the token `baton run` put in BATON_LEASE_TOKEN.',
    "This server's BATON_LEASE_TOKEN is not a lease of this session: stop writing to it and tell a person.",
  ],
  [
    'lease.take-new',
    'FENCED',
    {},
    'Its heartbeat stopped; take a new lease (`baton run` or `baton resume --apply`).',
    'Its heartbeat stopped; take a new lease (`session_resume`).',
  ],
  [
    'checkpoint.list',
    'NOT_FOUND',
    { session: 's1' },
    'Run `baton checkpoints --session s1` to see its checkpoints.',
    'Call `checkpoint_list` to see its checkpoints.',
  ],
  [
    'checkpoint.list-some',
    'NOT_FOUND',
    { checkpoints: ['cp-1', 'cp-2'] },
    'Its checkpoints: cp-1, cp-2 (`baton checkpoints`).',
    'Its checkpoints: cp-1, cp-2 (`checkpoint_list`).',
  ],
  [
    'checkpoint.take-first',
    'NOT_FOUND',
    {},
    'It has none yet; take one with `baton checkpoint [NAME]`.',
    'It has none yet; take one with `checkpoint_create`.',
  ],
  [
    'checkpoint.take-new',
    'CORRUPT',
    {},
    'There is no valid checkpoint before it; take a new one with `baton checkpoint`.',
    'There is no valid checkpoint before it; take a new one with `checkpoint_create`.',
  ],
  [
    'checkpoint.previous-valid',
    'CORRUPT',
    { checkpoint: 'cp-2-two', name: 'two', revision: null, superseded: true },
    'The previous valid checkpoint is cp-2-two ("two", revision ?, superseded): `baton restore cp-2-two`.',
    'The previous valid checkpoint is cp-2-two ("two", revision ?, superseded): `checkpoint_restore` with checkpoint cp-2-two.',
  ],
  [
    'checkpoint.inspect-log',
    'CORRUPT',
    {},
    'The journal lost events after the checkpoint was taken; inspect it with `baton log` before restoring.',
    "The journal lost events after the checkpoint was taken; inspect it with the session's event log (resource baton://sessions/<id>/events) before restoring.",
  ],
  [
    'restore.record-after-git',
    'CONFLICT',
    { checkpoint: 'cp-1', session: 's1' },
    'Fix the cause, then run `baton restore cp-1 --session s1` (without --git) to record the restore.',
    'Fix the cause, then call `checkpoint_restore` with checkpoint cp-1 to record the restore.',
  ],
  [
    'restore.without-git',
    'BAD_INPUT',
    { checkpoint: 'cp-1' },
    'Run `baton restore cp-1` without --git.',
    'Call `checkpoint_restore` with checkpoint cp-1.',
  ],
  [
    'restore.commit-missing',
    'NOT_FOUND',
    { checkpoint: 'cp-1' },
    'It may have been garbage-collected or belong to another clone; run `baton restore cp-1` without --git.',
    'It may have been garbage-collected or belong to another clone; call `checkpoint_restore` with checkpoint cp-1.',
  ],
  [
    'restore.untrack-store',
    'BAD_INPUT',
    {},
    'Untrack the store (`git rm -r --cached .baton` and add `.baton/` to .gitignore), or reset the files yourself and run `baton restore` without --git.',
    'Fix the arguments as the message says and call the tool again.',
  ],
  [
    'restore.dirty-tree',
    'CONFLICT',
    {},
    'Commit or stash them (`git stash -u`), or pass --force to discard them (baton keeps a copy of them under refs/baton/; untracked files the checkpoint does not hold stay).',
    'Commit or stash them (`git stash -u`), or pass `force: true` to discard them (baton keeps a copy of them under refs/baton/; untracked files the checkpoint does not hold stay).',
  ],
  [
    'store.init',
    'NO_STORE',
    {},
    'Run `baton init` (or `baton start`) to create one.',
    'No session has been started in this workspace yet: `session_start` creates the store along with the first session.',
  ],
  [
    'store.init-or-dir',
    'NO_STORE',
    {},
    'Run `baton init` here, or point to a store with --dir PATH or BATON_DIR.',
    'No session has been started in this workspace yet: `session_start` creates the store along with the first session.',
  ],
  [
    'store.read-only',
    'STORE_READ_ONLY',
    { location: '/w/.baton', reason: 'a read-only file system' },
    'Reading works as usual (status, list, log, resume, handoff, checkpoints, export, doctor, ui). To change a session, make /w/.baton writable (a read-write mount, or write permission from its owner), or copy it (`baton migrate-store --from /w/.baton --to COPY`) and work on the copy with --dir COPY.',
    'The store can be read but not written (a read-only mount, or files of another user): reading tools still work; tell a person, who can make it writable.',
  ],
  [
    'store.url-kinds',
    'BAD_INPUT',
    {},
    'Use postgres://…, the file store (--dir PATH) or memory:.',
    'Fix the arguments as the message says and call the tool again.',
  ],
  [
    'repair.first',
    'CORRUPT',
    { session: 's1' },
    'Run `baton repair --session s1` first.',
    "The stored data is damaged and no tool repairs it: ask a person to run the baton CLI's repair, or start a new session with `session_start`.",
  ],
  [
    'repair.keeps-lines',
    'CORRUPT',
    { session: 's1' },
    'Run `baton repair --session s1`: it keeps the damaged lines aside and rebuilds the journal.',
    "No tool repairs a damaged journal: ask a person to run the baton CLI's repair on session s1 (it keeps the damaged lines aside and rebuilds the journal), or start a new session with `session_start`.",
  ],
  [
    'repair.rebuilds',
    'CORRUPT',
    { session: 's1' },
    'Run `baton repair --session s1`: the journal is kept aside and rebuilt with every readable event; damaged lines are preserved as repair events.',
    "No tool repairs a damaged journal: ask a person to run the baton CLI's repair on session s1 (it keeps the damaged lines aside and rebuilds the journal), or start a new session with `session_start`.",
  ],
  [
    'repair.run',
    'CORRUPT',
    { session: 's1' },
    'Run `baton repair --session s1`.',
    "No tool repairs a damaged journal: ask a person to run the baton CLI's repair on session s1 (it keeps the damaged lines aside and rebuilds the journal), or start a new session with `session_start`.",
  ],
  [
    'journal.events-lost',
    'CORRUPT',
    { session: 's1' },
    'Put back a copy of journal.jsonl that holds the lost events, or run `baton doctor --fix` to go on from the newest snapshot (the lost seqs are recorded in a repair event and never handed out again).',
    "Acknowledged events of session s1 are lost; no tool repairs this: ask a person to run the baton CLI's doctor (with its fix option) or to restore the journal from a backup, or start a new session with `session_start`.",
  ],
  [
    'journal.restore-backup',
    'CORRUPT',
    { session: 's1' },
    'Restore journal.jsonl from a backup, or move the session folder away (`baton doctor` lists it).',
    'The journal of session s1 is empty or missing; no tool repairs this: ask a person to restore it from a backup, or start a new session with `session_start`.',
  ],
  [
    'repair.empty-journal',
    'CORRUPT',
    { session: 's1' },
    'Its journal is empty or damaged; run `baton repair --session s1`.',
    "Its journal is empty or damaged; no tool repairs a damaged journal: ask a person to run the baton CLI's repair on session s1 (it keeps the damaged lines aside and rebuilds the journal), or start a new session with `session_start`.",
  ],
  [
    'doctor.folder',
    'CORRUPT',
    {},
    'Run `baton doctor` to see what is wrong with its folder.',
    "The stored data is damaged and no tool repairs it: ask a person to run the baton CLI's repair, or start a new session with `session_start`.",
  ],
  [
    'doctor.compare-folders',
    'CONFLICT',
    {},
    'Compare the two folders, keep the one you need (`baton doctor` reports them), then archive again.',
    'Re-read the session with `session_status` and decide again.',
  ],
  [
    'cleanup.dry-run',
    'INVALID_TRANSITION',
    {},
    'Run `baton cleanup --dry-run` to see what cleanup would do now.',
    'Read the session with `session_status` (or `resume_plan`) to see what may be done now.',
  ],
  [
    'cleanup.statuses',
    'BAD_INPUT',
    { statuses: ['paused', 'completed'] },
    'Pause, complete or abandon the session first; --status takes: paused, completed.',
    'Fix the arguments as the message says and call the tool again.',
  ],
  [
    'migrate.two-stores',
    'BAD_INPUT',
    {},
    'Name two different stores with --from and --to.',
    'Fix the arguments as the message says and call the tool again.',
  ],
  [
    'migrate.target-dir',
    'BAD_INPUT',
    {},
    'Name a .baton directory, or a new or empty one (e.g. --to ./copy/.baton).',
    'Fix the arguments as the message says and call the tool again.',
  ],
  [
    'import.id-prefix',
    'EXISTS',
    { moved: false },
    'Import under other ids with --id-prefix PREFIX (e.g. --id-prefix imported-), or delete or rename the baton session(s).',
    'Pick another id.',
  ],
  [
    'mirror.set',
    'INVALID_TRANSITION',
    { session: 's1' },
    'Set one with `baton mirror FORMAT --out DIR --session s1`.',
    'Read the session with `session_status` (or `resume_plan`) to see what may be done now.',
  ],
  ['option.example', 'BAD_INPUT', { option: 'ttl', value: '60s' }, 'e.g. --ttl 60s', 'e.g. 60s'],
  [
    'option.age-examples',
    'BAD_INPUT',
    { what: '--older-than' },
    'e.g. --older-than 12h, --older-than 30d or --older-than 2w.',
    'Fix the arguments as the message says and call the tool again.',
  ],
  [
    'workspace.name',
    'BAD_INPUT',
    { max: 300 },
    'Use 1 to 300 printable characters in --workspace or BATON_WORKSPACE (e.g. --workspace team-a), or unset it for this host and project folder.',
    "The workspace name comes from the server's BATON_WORKSPACE: ask a person to set it to 1 to 300 printable characters, or to unset it for the host and project folder.",
  ],
  [
    'tokens.count',
    'BAD_INPUT',
    { what: 'cached' },
    'Pass --cached as a non-negative integer, e.g. --cached 1200.',
    'Pass `cached` as a non-negative integer, e.g. 1200.',
  ],
  [
    'budget.raise',
    'BUDGET_EXCEEDED',
    { session: 's1', scope: 'session', name: null, unit: 'tokens', suggested: 6000 },
    'Raise it with `baton budget set 6000 --session s1` (or `--on-exceed warn` to only be warned).',
    'Ask the user whether to spend more; if they agree, call `budget_set` with tokens 6000 (reading tools still work).',
  ],
];

describe('hint actions worded by each surface', () => {
  it('the table covers every action, and both surfaces word every action', () => {
    const actions = TABLE.map((r) => r[0]).sort();
    expect(new Set(actions).size).toBe(actions.length);
    expect(Object.keys(CLI_HINT_WORDS).sort()).toEqual(actions);
    expect(Object.keys(TOOL_HINT_WORDS).sort()).toEqual(actions);
  });

  it.each(TABLE)('%s (%s)', (action, code, args, cli, tool) => {
    const e = new BatonError(code, 'refused', { hint: { action, args } as Hint });
    expect(e.hint).toBeUndefined();
    expect(e.hintAction).toEqual({ action, args });
    expect(cliHint(e)).toBe(cli);
    expect(toolHint(e)).toBe(tool);
    expect(namesCli(tool), tool).toBe(false);
  });

  // Second wordings of an action: an escalation of a session to reopen first, files a checkpoint's copy holds.
  it.each([
    [
      'phase.escalate',
      'RETRIES_EXHAUSTED',
      { session: 's1', phase: 'build', maxRetries: 2, active: false },
      'Its retries are used up: the user decides. Reopen the session first (`baton resume --apply --session s1`), then: Retry it anyway (`baton phase retry build --force --session s1`), skip it (`baton phase skip build --session s1`, with --reason), fail the session (`baton fail --session s1`) or abandon it (`baton abandon --session s1`), or change the plan (`baton plan set build --max-retries 3 --session s1` allows one more retry; `baton plan --help` shows how to add or remove phases).',
      'Its retries are used up: ask the user, who decides. Reopen the session first (`session_resume`), then: Retry it anyway (`phase_retry` with phase "build" and force: true), skip it (`phase_skip` with phase "build" and the user\'s reason), fail the session (`session_fail`) or abandon it (`session_abandon`), or change the plan (`plan_set` with phase "build" and maxRetries 3 allows one more retry; `plan_add` and `plan_remove` add or remove phases).',
    ],
    [
      'files.restore-git',
      'INVALID_TRANSITION',
      { checkout: [], remove: [], from: [{ commit: 'c0ffee', paths: ['a.txt', 'my notes.md'] }] },
      "Run `git restore --source=c0ffee -- a.txt 'my notes.md'` (a checkpoint's copy, as recorded).",
      'No tool does this: in the workspace, run `git restore --source=c0ffee -- "a.txt" "my notes.md"` (a checkpoint\'s copy, as recorded); or ask a person to.',
    ],
  ] as Array<[HintAction, ErrorCode, Record<string, unknown>, string, string]>)(
    '%s (%s), other arguments',
    (action, code, args, cli, tool) => {
      const e = new BatonError(code, 'refused', { hint: { action, args } as Hint });
      expect(cliHint(e)).toBe(cli);
      expect(toolHint(e)).toBe(tool);
    },
  );

  it('a tool wording that cannot be given falls back to the hint of the error code', () => {
    expect(toolHint(new BatonError('CORRUPT', 'x', { hint: hint('repair.first', { session: 's1' }) }))).toBe(
      CODE_HINTS.CORRUPT,
    );
    expect(
      toolHint(new BatonError('BAD_INPUT', 'x', { hint: hint('option.example', { option: 'format', value: 'auto' }) })),
    ).toBe(CODE_HINTS.BAD_INPUT);
  });

  it('a plain-text hint is printed as given by both surfaces', () => {
    const e = new BatonError('BAD_INPUT', 'x', { hint: 'Nothing to do.' });
    expect(e.hintAction).toBeUndefined();
    expect(cliHint(e)).toBe('Nothing to do.');
    expect(toolHint(e)).toBe('Nothing to do.');
    expect(cliWords(hint('session.reread'))).toBe('Re-read the session (`baton status`) and decide again.');
  });

  it('a re-thrown error keeps its hint action (BatonError.way)', () => {
    const e = new BatonError('NOT_FOUND', 'x', { hint: hint('milestone.add') });
    const again = new BatonError(e.code, `Plan p: ${e.message}`, { hint: e.way });
    expect(cliHint(again)).toBe('Add one with `baton milestone add`.');
  });
});

/** Hint literals (`hint: '…'`, also inside ternaries and templates) in the .ts files under `dir`. */
function hintTexts(dir: string): Array<{ where: string; text: string }> {
  const out: Array<{ where: string; text: string }> = [];
  for (const entry of readdirSync(dir, { withFileTypes: true, recursive: true })) {
    if (!entry.isFile() || !entry.name.endsWith('.ts')) continue;
    const file = path.join(entry.parentPath, entry.name);
    const src = ts.createSourceFile(file, readFileSync(file, 'utf8'), ts.ScriptTarget.Latest, true);
    const collect = (n: ts.Node, where: string): void => {
      if (ts.isStringLiteral(n) || ts.isNoSubstitutionTemplateLiteral(n)) out.push({ where, text: n.text });
      else if (ts.isTemplateExpression(n))
        out.push({ where, text: [n.head.text, ...n.templateSpans.map((s) => s.literal.text)].join('${…}') });
      else if (ts.isCallExpression(n)) return; // hint('action', args): data, not words
      ts.forEachChild(n, (c) => collect(c, where));
    };
    const visit = (n: ts.Node): void => {
      if (ts.isPropertyAssignment(n) && n.name.getText(src) === 'hint') {
        collect(
          n.initializer,
          `${path.relative(process.cwd(), file)}:${src.getLineAndCharacterOfPosition(n.getStart()).line + 1}`,
        );
      }
      ts.forEachChild(n, visit);
    };
    visit(src);
  }
  return out;
}

/**
 * Plain-text hints that still quote the CLI, on purpose: the mirror conflict's hint is recorded
 * in the session's journal (`mirrorError`, docs/formats.md) as the words a person reads, and a
 * format problem's hint is part of the foreign-layout report (FormatProblem), worded like the
 * readers' own hints in src/formats.
 */
const RECORDED_AS_TEXT = [/^Take the changes into baton with `baton import --format /, /or try --format auto\.$/];

describe('no CLI wording in the hints of the domain, the stores and the manager', () => {
  it.each(['src/domain', 'src/store', 'src/manager'])('%s', (dir) => {
    const texts = hintTexts(dir);
    expect(texts.length).toBeGreaterThan(0);
    const cli = texts.filter(
      (t) =>
        (/`baton[\s`]|\bbaton [a-z-]+ --/.test(t.text) || /(^|[^\w-])--[a-z]/.test(t.text)) &&
        !RECORDED_AS_TEXT.some((r) => r.test(t.text)),
    );
    expect(cli.map((t) => `${t.where}: ${t.text}`)).toEqual([]);
  });

  it('the check sees a hint that quotes the CLI', () => {
    const file = path.join(process.cwd(), 'src/manager/toolkits/formats-export.ts');
    const texts = hintTexts(path.dirname(file)).filter((t) =>
      t.where.startsWith('src/manager/toolkits/formats-export.ts'),
    );
    expect(texts.some((t) => RECORDED_AS_TEXT[0]!.test(t.text))).toBe(true);
  });
});
