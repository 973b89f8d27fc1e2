/**
 * Hints worded for tool callers (src/mcp/hint-words.ts): the domain's hint actions come out
 * naming tools and arguments where the CLI's name commands and options, and never a CLI
 * command or option. Refusals driven through the tools are checked by `refused` (helpers.ts)
 * in every MCP test; this covers the hints no in-memory test can provoke (git, repair, expired
 * leases) and the exact wordings, next to the CLI's wording of the same action.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ERROR_CODES } from '../../src/domain/errors.js';
import type { ErrorCode } from '../../src/domain/errors.js';
import type { Hint } from '../../src/domain/hints.js';
import { hint as h_ } from '../../src/domain/hints.js';
import { cliWords } from '../../src/cli/hint-words.js';
import { CODE_HINTS, namesCli, toolHint } from '../../src/mcp/hint-words.js';
import { connect, expectToolHint } from './helpers.js';
import type { Harness } from './helpers.js';

let h: Harness;
beforeAll(async () => {
  h = await connect();
});
afterAll(async () => {
  await h.close();
});

/** Hint actions as the domain, manager and stores give them, the CLI's wording, and the tool wording expected (null: any CLI-free wording). */
const DOMAIN_HINTS: Array<[ErrorCode, Hint, string, string | null]> = [
  [
    'INVALID_TRANSITION',
    h_('resume.plan-then-apply', { session: 's1' }),
    'See `baton resume --session s1`, then reopen it with `baton resume --apply --session s1`.',
    'See `resume_plan`, then reopen it with `session_resume`.',
  ],
  [
    'INVALID_TRANSITION',
    h_('session.status', { session: 's1' }),
    'See `baton status --session s1`.',
    'See `session_status`.',
  ],
  [
    'INVALID_TRANSITION',
    h_('resume.apply', { session: 's1' }),
    'Run `baton resume --apply --session s1` to reopen it.',
    'Call `session_resume` to reopen it.',
  ],
  [
    'INVALID_TRANSITION',
    h_('phase.start', { phase: 'design' }),
    'Start it first: `baton phase start design`.',
    'Start it first: `phase_start` with phase design.',
  ],
  [
    'INVALID_TRANSITION',
    h_('run.hold-lease'),
    'Go on working in it (`baton run -- CMD` holds its lease while you do).',
    'Go on working in it.',
  ],
  [
    'INVALID_TRANSITION',
    h_('session.start-new'),
    'Start a new session with `baton start`.',
    'Start a new session with `session_start`.',
  ],
  [
    'NO_ACTIVE_SESSION',
    h_('session.name-one', { sessions: ['a', 'b'], more: false }),
    'Pass --session with one of: a, b (or `baton switch <id>`).',
    'Pass `session` with one of: a, b (or `session_switch`).',
  ],
  [
    'NO_ACTIVE_SESSION',
    h_('session.start-one'),
    'Start one with `baton start "<title>"`.',
    'Start one with `session_start`.',
  ],
  [
    'ACTIVE_EXISTS',
    h_('session.switch-or-end'),
    'Pass --switch to pause it and go on, or run `baton pause` / `baton complete` first.',
    'Pass `switch: true` to pause it and go on, or call `session_pause` / `session_complete` first.',
  ],
  [
    'NOT_FOUND',
    h_('session.list-all'),
    'Run `baton list --all` to see the sessions.',
    'Call `session_list` with `all: true` to see the sessions.',
  ],
  [
    'NOT_FOUND',
    h_('checkpoint.list', { session: 's1' }),
    'Run `baton checkpoints --session s1` to see its checkpoints.',
    'Call `checkpoint_list` to see its checkpoints.',
  ],
  [
    'NOT_FOUND',
    h_('checkpoint.list-some', { checkpoints: ['cp-1', 'cp-2'] }),
    'Its checkpoints: cp-1, cp-2 (`baton checkpoints`).',
    'Its checkpoints: cp-1, cp-2 (`checkpoint_list`).',
  ],
  [
    'NOT_FOUND',
    h_('checkpoint.take-first'),
    'It has none yet; take one with `baton checkpoint [NAME]`.',
    'It has none yet; take one with `checkpoint_create`.',
  ],
  ['NOT_FOUND', h_('milestone.add'), 'Add one with `baton milestone add`.', 'Add one with `milestone_add`.'],
  [
    'NOT_FOUND',
    h_('session.start-with-phases'),
    'This session has no phases; start one with --phases.',
    'This session has no phases; phases are given to `session_start` as `phases`.',
  ],
  [
    'EXISTS',
    h_('session.other-id-or-switch'),
    'Pick another --id, or continue that session with `baton switch`.',
    'Pick another `id`, or continue that session with `session_switch`.',
  ],
  [
    'CONFLICT',
    h_('session.reread'),
    'Re-read the session (`baton status`) and decide again.',
    'Re-read the session (`session_status`) and decide again.',
  ],
  [
    'BLOCKED',
    h_('phase.finish-blockers', { blockers: ['design'] }),
    'Finish design first, or pass --force to start it anyway.',
    'Finish design first, or pass `force: true` to start it anyway.',
  ],
  [
    'RETRIES_EXHAUSTED',
    h_('phase.escalate', { session: 's1', phase: 'build', maxRetries: 2, active: true }),
    'Its retries are used up: the user decides. Retry it anyway (`baton phase retry build --force --session s1`), skip it (`baton phase skip build --session s1`, with --reason), fail the session (`baton fail --session s1`) or abandon it (`baton abandon --session s1`), or change the plan (`baton plan set build --max-retries 3 --session s1` allows one more retry; `baton plan --help` shows how to add or remove phases).',
    'Its retries are used up: ask the user, who decides. Retry it anyway (`phase_retry` with phase "build" and force: true), skip it (`phase_skip` with phase "build" and the user\'s reason), fail the session (`session_fail`) or abandon it (`session_abandon`), or change the plan (`plan_set` with phase "build" and maxRetries 3 allows one more retry; `plan_add` and `plan_remove` add or remove phases).',
  ],
  [
    'LOCKED',
    h_('lease.wait-or-force'),
    'Wait for that run to end or its lease to expire, or pass --force to take it over.',
    'Wait for that run to end or its lease to expire, or pass `force: true` to take it over.',
  ],
  [
    'BAD_INPUT',
    h_('resume.from-options'),
    'Use --from live, --from fresh or --from checkpoint:<id> (see `baton checkpoints`).',
    'Pass `from` as "live", "fresh" or "checkpoint:<id>" (see `checkpoint_list`).',
  ],
  [
    'BAD_INPUT',
    h_('phase.name-one', { phases: ['design', 'build'] }),
    'Pass --phase with one of: design, build.',
    'Pass `phase` with one of: design, build.',
  ],
  [
    'BAD_INPUT',
    h_('tokens.count', { what: 'input' }),
    'Pass --input as a non-negative integer, e.g. --input 1200.',
    'Pass `input` as a non-negative integer, e.g. 1200.',
  ],
  ['BAD_INPUT', h_('tokens.name-agent'), 'Pass --agent NAME (or set BATON_AGENT).', 'Pass `agent`.'],
  [
    'FENCED',
    h_('lease.fenced'),
    'Another run took the session over after this one lost its lease. Stop writing; re-read the session with `baton status` and start a new run if needed.',
    'Another run took the session over after this one lost its lease. Stop writing; re-read the session with `session_status` and start a new run if needed.',
  ],
  ['FENCED', h_('lease.use-run-token'), 'Use the token `baton run` put in BATON_LEASE_TOKEN.', null],
  [
    'FENCED',
    h_('lease.take-new'),
    'Its heartbeat stopped; take a new lease (`baton run` or `baton resume --apply`).',
    'Its heartbeat stopped; take a new lease (`session_resume`).',
  ],
  [
    'CORRUPT',
    h_('repair.empty-journal', { session: 's1' }),
    'Its journal is empty or damaged; run `baton repair --session s1`.',
    null,
  ],
  [
    'CORRUPT',
    h_('repair.keeps-lines', { session: 's1' }),
    'Run `baton repair --session s1`: it keeps the damaged lines aside and rebuilds the journal.',
    null,
  ],
  [
    'CORRUPT',
    h_('repair.rebuilds', { session: 's1' }),
    'Run `baton repair --session s1`: the journal is kept aside and rebuilt with every readable event; damaged lines are preserved as repair events.',
    null,
  ],
  [
    'CORRUPT',
    h_('checkpoint.inspect-log'),
    'The journal lost events after the checkpoint was taken; inspect it with `baton log` before restoring.',
    "The journal lost events after the checkpoint was taken; inspect it with the session's event log (resource baton://sessions/<id>/events) before restoring.",
  ],
  [
    'CORRUPT',
    h_('checkpoint.previous-valid', { checkpoint: 'cp-1', name: 'start', revision: 3, superseded: false }),
    'The previous valid checkpoint is cp-1 ("start", revision 3): `baton restore cp-1`.',
    'The previous valid checkpoint is cp-1 ("start", revision 3): `checkpoint_restore` with checkpoint cp-1.',
  ],
  [
    'CONFLICT',
    h_('restore.dirty-tree'),
    'Commit or stash them (`git stash -u`), or pass --force to discard them (baton keeps a copy of them under refs/baton/; untracked files the checkpoint does not hold stay).',
    null,
  ],
  [
    'CONFLICT',
    h_('restore.untrack-store'),
    'Untrack the store (`git rm -r --cached .baton` and add `.baton/` to .gitignore), or reset the files yourself and run `baton restore` without --git.',
    CODE_HINTS.CONFLICT,
  ],
  ['NO_STORE', h_('store.init'), 'Run `baton init` (or `baton start`) to create one.', CODE_HINTS.NO_STORE],
  [
    'NO_STORE',
    h_('store.init-or-dir'),
    'Run `baton init` here, or point to a store with --dir PATH or BATON_DIR.',
    CODE_HINTS.NO_STORE,
  ],
];

describe('tool hints', () => {
  it.each(DOMAIN_HINTS)('%s: %j', async (code, action, cli, expected) => {
    expect(cliWords(action)).toBe(cli);
    const worded = toolHint({ code, hint: undefined, hintAction: action });
    if (expected !== null) expect(worded).toBe(expected);
    await expectToolHint(h.client, worded!, cli);
  });

  it('the repair advice names no CLI command and offers session_start', () => {
    const w = toolHint({
      code: 'CORRUPT',
      hint: undefined,
      hintAction: h_('repair.empty-journal', { session: 's1' }),
    })!;
    expect(w).toContain('session s1');
    expect(w).toContain('`session_start`');
  });

  it('every code has a CLI-free fallback hint naming only real tools', async () => {
    for (const code of ERROR_CODES) {
      expect(namesCli(CODE_HINTS[code]), code).toBe(false);
      await expectToolHint(h.client, CODE_HINTS[code], code);
    }
  });

  it('a hint that cannot be reworded gives way to the hint for its code; no hint stays null', () => {
    expect(toolHint({ code: 'LOCKED', hint: 'Run `baton doctor --fix` first.', hintAction: undefined })).toBe(
      CODE_HINTS.LOCKED,
    );
    expect(toolHint({ code: 'LOCKED', hint: undefined, hintAction: h_('doctor.folder') })).toBe(CODE_HINTS.LOCKED);
    expect(toolHint({ code: 'BAD_INPUT', hint: undefined, hintAction: undefined })).toBeNull();
    expect(toolHint({ code: 'NO_STORE', hint: undefined, hintAction: undefined })).toBe(CODE_HINTS.NO_STORE);
  });
});
