import { isHint } from '../manager/index.js';
import type { BatonError, EscalationChoice, Hint, HintAction, HintArgs, ResumePlan } from '../manager/index.js';

/** A path as a shell word: quoted when it holds anything but plain path characters. */
function shellWord(p: string): string {
  return /^[\w./@%+=:,-]+$/.test(p) ? p : `'${p.replace(/'/g, `'\\''`)}'`;
}

function paths(ps: string[]): string {
  return ps.map(shellWord).join(' ');
}

/** `baton file <action> … --phase P --session S` for each action that has paths. */
function acceptWords(a: HintArgs['files.accept']): string {
  const runs = (['modified', 'deleted', 'created'] as const)
    .filter((action) => a[action].length)
    .map((action) => `\`baton file ${action} ${paths(a[action])} --phase ${a.phase} --session ${a.session}\``);
  return `Run ${runs.join(', then ')}.`;
}

/** `git restore --source=…` from a checkpoint's copy, else `git checkout -- …`, for the changed and vanished files; the reappeared ones are deleted again. */
function restoreWords(a: HintArgs['files.restore-git']): string {
  const parts = [
    ...(a.from ?? []).map(
      (f) => `run \`git restore --source=${f.commit} -- ${paths(f.paths)}\` (a checkpoint's copy, as recorded)`,
    ),
    ...(a.checkout.length
      ? [`run \`git checkout -- ${paths(a.checkout)}\` (check first that git holds what was recorded)`]
      : []),
    ...(a.remove.length ? [`delete ${paths(a.remove)} again (recorded as deleted)`] : []),
  ];
  const text = parts.join(', and ');
  return `${text.charAt(0).toUpperCase()}${text.slice(1)}.`;
}

/** How the CLI words each hint action: the `baton …` command (and options) that does it. */
export const CLI_HINT_WORDS: { readonly [A in HintAction]: (a: HintArgs[A]) => string } = {
  'session.start-new': () => 'Start a new session with `baton start`.',
  'session.start-one': () => 'Start one with `baton start "<title>"`.',
  'session.start-with-phases': () => 'This session has no phases; start one with --phases.',
  'session.phases-list': () => 'Pass --phases a,b,c.',
  'session.status': (a) => `See \`baton status --session ${a.session}\`.`,
  'session.reread': () => 'Re-read the session (`baton status`) and decide again.',
  'session.end-first': (a) => `Complete, pause or abandon it first (\`baton complete --session ${a.session}\`).`,
  'session.switch-or-end': () => 'Pass --switch to pause it and go on, or run `baton pause` / `baton complete` first.',
  'session.name-one': (a) =>
    `Pass --session with one of: ${a.sessions.join(', ')}${a.more ? ', …' : ''} (or \`baton switch <id>\`).`,
  'session.list-all': () => 'Run `baton list --all` to see the sessions.',
  'session.list-all-see': () => 'See `baton list --all` for the sessions there are.',
  'session.other-id-or-switch': () => 'Pick another --id, or continue that session with `baton switch`.',
  'session.unpin': (a) => `Unpin it first (\`baton unpin ${a.session}\`).`,
  'session.bmad-prefix': (a) => `Pass --bmad-prefix with one of ${a.prefixes.join(', ')}.`,
  'session.complete-unfinished': (a) =>
    `Finish or skip them first (\`baton phase complete|skip <phase> --session ${a.session}\`), or run \`baton complete --force --session ${a.session}\` to complete it anyway, recording ${a.phases.join(', ')} as left unfinished.`,
  'toolkit.required-first': (a) => {
    const cmd =
      a.verb === 'phase-complete'
        ? `baton phase complete ${a.phase ?? '<phase>'} --force --session ${a.session}`
        : a.verb === 'complete'
          ? `baton complete --force --session ${a.session}`
          : a.verb === 'archive'
            ? `baton archive ${a.session} --force`
            : `baton export --format … --out … --force --session ${a.session}`;
    return `Do ${a.steps.join(' and ')} in ${a.toolkit} first (then \`baton import\` its file again), or run \`${cmd}\` to go ahead anyway; the override is recorded.`;
  },
  'tokens.name-agent': () => 'Pass --agent NAME (or set BATON_AGENT).',
  'phase.start': (a) => `Start it first: \`baton phase start ${a.phase}\`.`,
  'phase.finish-blockers': (a) => `Finish ${a.blockers.join(', ')} first, or pass --force to start it anyway.`,
  'phase.escalate': (a) =>
    `Its retries are used up: the user decides.${a.active ? '' : ` Reopen the session first (\`baton resume --apply --session ${a.session}\`), then:`} Retry it anyway (\`baton phase retry ${a.phase} --force --session ${a.session}\`), skip it (\`baton phase skip ${a.phase} --session ${a.session}\`, with --reason), fail the session (\`baton fail --session ${a.session}\`) or abandon it (\`baton abandon --session ${a.session}\`), or change the plan (\`baton plan set ${a.phase} --max-retries ${a.maxRetries + 1} --session ${a.session}\` allows one more retry; \`baton plan --help\` shows how to add or remove phases).`,
  'phase.name-one': (a) => `Pass --phase with one of: ${a.phases.join(', ')}.`,
  'milestone.add': () => 'Add one with `baton milestone add`.',
  'plan.drop-dependency': (a) =>
    `Change their dependencies first: ${a.changes.map((c) => `\`baton plan set ${c.phase} --blocked-by ${c.blockedBy.length ? c.blockedBy.join(',') : "''"} --session ${a.session}\``).join(', ')}.`,
  'resume.apply': (a) => `Run \`baton resume --apply --session ${a.session}\` to reopen it.`,
  'resume.plan-then-apply': (a) =>
    `See \`baton resume --session ${a.session}\`, then reopen it with \`baton resume --apply --session ${a.session}\`.`,
  'resume.from-options': () => 'Use --from live, --from fresh or --from checkpoint:<id> (see `baton checkpoints`).',
  'files.accept': acceptWords,
  'files.restore-git': restoreWords,
  'run.hold-lease': () => 'Go on working in it (`baton run -- CMD` holds its lease while you do).',
  'lease.wait-or-force': () => 'Wait for that run to end or its lease to expire, or pass --force to take it over.',
  'bundle.import-as': (a) =>
    `Import it under another id with \`baton import ${a.file} --as NEW_ID\`, or replace the existing one (its history is deleted) with \`--replace\`.`,
  'bundle.not-a-bundle': () =>
    "Give the file `baton export --bundle` wrote; to import a toolkit's sessions, give their folder.",
  'bundle.store-keeps-steps': () => 'Import it into a file store or PostgreSQL (--dir, --store).',
  'run.wait-or-force': (a) =>
    `Wait for it to end (\`baton status --session ${a.session}\` shows who works on what), or pass --force to go ahead anyway.`,
  'run.end-orphans': (a) =>
    `Wait for it to exit, or pass --end-orphans to end it first (SIGTERM, then SIGKILL), or end it yourself: kill -TERM -${a.pids[0]}.`,
  'phase.claim-free': (a) =>
    a.free.length
      ? `Claim a free one: \`baton phase claim ${a.free[0]}\` (free: ${a.free.join(', ')}).`
      : `No phase is free now; \`baton status --session ${a.session}\` shows who works on what.`,
  'lease.fenced': () =>
    'Another run took the session over after this one lost its lease. Stop writing; re-read the session with `baton status` and start a new run if needed.',
  'lease.use-run-token': () => 'Use the token `baton run` put in BATON_LEASE_TOKEN.',
  'lease.take-new': () => 'Its heartbeat stopped; take a new lease (`baton run` or `baton resume --apply`).',
  'checkpoint.list': (a) => `Run \`baton checkpoints --session ${a.session}\` to see its checkpoints.`,
  'checkpoint.list-some': (a) => `Its checkpoints: ${a.checkpoints.join(', ')} (\`baton checkpoints\`).`,
  'checkpoint.take-first': () => 'It has none yet; take one with `baton checkpoint [NAME]`.',
  'checkpoint.take-new': () => 'There is no valid checkpoint before it; take a new one with `baton checkpoint`.',
  'checkpoint.previous-valid': (a) =>
    `The previous valid checkpoint is ${a.checkpoint} ("${a.name}", revision ${a.revision ?? '?'}${a.superseded ? ', superseded' : ''}): \`baton restore ${a.checkpoint}\`.`,
  'checkpoint.inspect-log': () =>
    'The journal lost events after the checkpoint was taken; inspect it with `baton log` before restoring.',
  'restore.record-after-git': (a) =>
    `Fix the cause, then run \`baton restore ${a.checkpoint} --session ${a.session}\` (without --git) to record the restore.`,
  'restore.without-git': (a) => `Run \`baton restore ${a.checkpoint}\` without --git.`,
  'restore.commit-missing': (a) =>
    `It may have been garbage-collected or belong to another clone; run \`baton restore ${a.checkpoint}\` without --git.`,
  'restore.untrack-store': () =>
    'Untrack the store (`git rm -r --cached .baton` and add `.baton/` to .gitignore), or reset the files yourself and run `baton restore` without --git.',
  'restore.dirty-tree': () =>
    'Commit or stash them (`git stash -u`), or pass --force to discard them (baton keeps a copy of them under refs/baton/; untracked files the checkpoint does not hold stay).',
  'store.init': () => 'Run `baton init` (or `baton start`) to create one.',
  'store.init-or-dir': () => 'Run `baton init` here, or point to a store with --dir PATH or BATON_DIR.',
  'store.url-kinds': () => 'Use postgres://…, the file store (--dir PATH) or memory:.',
  'store.read-only': (a) =>
    `Reading works as usual (status, list, log, resume, handoff, checkpoints, export, doctor, ui). To change a session, make ${a.location} writable (a read-write mount, or write permission from its owner), or copy it (\`baton migrate-store --from ${a.location} --to COPY\`) and work on the copy with --dir COPY.`,
  'repair.first': (a) => `Run \`baton repair --session ${a.session}\` first.`,
  'repair.keeps-lines': (a) =>
    `Run \`baton repair --session ${a.session}\`: it keeps the damaged lines aside and rebuilds the journal.`,
  'repair.rebuilds': (a) =>
    `Run \`baton repair --session ${a.session}\`: the journal is kept aside and rebuilt with every readable event; damaged lines are preserved as repair events.`,
  'workspace.name': (a) =>
    `Use 1 to ${a.max} printable characters in --workspace or BATON_WORKSPACE (e.g. --workspace team-a), or unset it for this host and project folder.`,
  'repair.run': (a) => `Run \`baton repair --session ${a.session}\`.`,
  'journal.events-lost': () =>
    `Put back a copy of journal.jsonl that holds the lost events, or run \`baton doctor --fix\` to go on from the newest snapshot (the lost seqs are recorded in a repair event and never handed out again).`,
  'journal.restore-backup': () =>
    'Restore journal.jsonl from a backup, or move the session folder away (`baton doctor` lists it).',
  'repair.empty-journal': (a) => `Its journal is empty or damaged; run \`baton repair --session ${a.session}\`.`,
  'doctor.folder': () => 'Run `baton doctor` to see what is wrong with its folder.',
  'doctor.compare-folders': () =>
    'Compare the two folders, keep the one you need (`baton doctor` reports them), then archive again.',
  'cleanup.dry-run': () => 'Run `baton cleanup --dry-run` to see what cleanup would do now.',
  'cleanup.statuses': (a) => `Pause, complete or abandon the session first; --status takes: ${a.statuses.join(', ')}.`,
  'migrate.two-stores': () => 'Name two different stores with --from and --to.',
  'migrate.target-dir': () => 'Name a .baton directory, or a new or empty one (e.g. --to ./copy/.baton).',
  'import.id-prefix': (a) =>
    `Import under other ids with --id-prefix PREFIX (e.g. --id-prefix imported-), or delete or rename the baton session(s)${a.moved ? "; if the toolkit's folder was moved and this is the same session, import with --moved" : ''}.`,
  'mirror.set': (a) => `Set one with \`baton mirror FORMAT --out DIR --session ${a.session}\`.`,
  'option.example': (a) => `e.g. --${a.option} ${a.value}`,
  'option.age-examples': (a) => `e.g. ${a.what} 12h, ${a.what} 30d or ${a.what} 2w.`,
  'tokens.count': (a) => `Pass --${a.what} as a non-negative integer, e.g. --${a.what} 1200.`,
  'budget.raise': (a) =>
    `Raise it with \`baton budget set ${a.unit === 'tokens' ? a.suggested : `--cost ${a.suggested}`}${a.scope === 'phase' ? ` --phase ${a.name}` : a.scope === 'agent' ? ` --agent ${a.name}` : ''} --session ${a.session}\` (or \`--on-exceed warn\` to only be warned).`,
};

/** A hint action worded for a person at a terminal. */
export function cliWords(h: Hint): string {
  return (CLI_HINT_WORDS[h.action] as (a: Hint['args']) => string)(h.args);
}

/** The hint of `e` as the CLI prints it (stderr `hint:` line, `--json` `hint` field); undefined when it has none. */
export function cliHint(e: Pick<BatonError, 'hint' | 'hintAction'>): string | undefined {
  return e.hintAction ? cliWords(e.hintAction) : e.hint;
}

/**
 * A record that carries its way out as text or as an action (an import problem, a recorded
 * mirror failure), with `hint` worded for the CLI when only the action is given: what the CLI
 * printed before hints became data. Anything else is returned as it is.
 */
export function withCliHint<T>(r: T): T {
  const x = r as { hint?: unknown; hintAction?: unknown } | null;
  if (!x || typeof x !== 'object' || (x.hint !== null && x.hint !== undefined) || !isHint(x.hintAction)) return r;
  return { ...r, hint: cliWords(x.hintAction) };
}

/** The commands that make each escalation choice (`baton resume --json` lists them as its `choices`). */
export const CLI_ESCALATION_COMMANDS: { readonly [C in EscalationChoice]: readonly string[] } = {
  retry: ['baton phase retry'],
  skip: ['baton phase skip'],
  fail: ['baton fail'],
  abandon: ['baton abandon'],
  'change-plan': ['baton plan set', 'baton plan add', 'baton plan remove'],
};

/**
 * A resume plan as the CLI prints it as JSON: each escalation's `choices` are the commands
 * that make them, and its `hint` is worded with them. Anything else is as planned.
 */
export function cliResumePlan(plan: ResumePlan): Record<string, unknown> {
  const failed = plan.failed.map((f) =>
    f.escalation
      ? {
          ...f,
          escalation: {
            ...f.escalation,
            choices: f.escalation.choices.flatMap((c) => CLI_ESCALATION_COMMANDS[c as EscalationChoice] ?? [c]),
            hint: cliWords(f.escalation.hint),
          },
        }
      : f,
  );
  return { ...plan, failed };
}
