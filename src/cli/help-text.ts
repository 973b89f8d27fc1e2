/**
 * What `--help` adds to commander's own text: the root's command groups (the command table's)
 * and, for every command, examples to end its help with (as gh does). A test checks that every
 * command path has examples, so a new command cannot ship without them.
 */
import { Command, Option } from 'commander';
import { commandPath, GLOBAL_GROUP, quietVerbose } from './program.js';

/** Where a top-level command goes in the root help: its heading. */
export type HelpGroupOf = (name: string) => string | undefined;

/** Examples per command path; each is `[command line, what it does]`. */
export const EXAMPLES: Readonly<Record<string, ReadonlyArray<readonly [string, string]>>> = {
  '': [
    ['baton start "Add OAuth login" --phases design,build,review', 'start a session with three phases'],
    ['baton phase start design --agent alice', 'record that alice started the design phase'],
    ['baton status', 'see where the active session stands'],
    ['baton --session 2026-05-01-oauth resume', 'how to pick up an interrupted session'],
  ],
  init: [
    ['baton init', 'create .baton/ here'],
    ['baton init --store postgres://user@host/db?schema=team', 'prepare a PostgreSQL schema'],
  ],
  start: [
    ['baton start "Add OAuth login" --phases design,build,review', 'a session with three phases'],
    ['baton start "Release 2.0" --plan plan.yaml --budget 500000', 'phases from a plan file, with a token budget'],
  ],
  status: [
    ['baton status', 'the active session'],
    ['baton status --session 2026-05-01-oauth --json', 'one session, as JSON'],
  ],
  list: [
    ['baton list', 'sessions, newest first'],
    ['baton list --status interrupted', 'only the interrupted ones'],
    ['baton list --deleted', 'deleted sessions'],
  ],
  switch: [['baton switch 2026-05-01-oauth', 'pause the active session and make this one active']],
  pause: [['baton pause --reason "waiting for review"', 'pause the active session']],
  complete: [['baton complete', 'mark the active session completed']],
  fail: [['baton fail --reason "requirements dropped"', 'mark the active session failed']],
  abandon: [['baton abandon --reason "superseded"', 'abandon the active session']],
  archive: [['baton archive 2026-04-02-spike', 'move a finished session to the archive']],
  pin: [['baton pin 2026-05-01-oauth --reason "audit"', 'keep a session from cleanup']],
  unpin: [['baton unpin 2026-05-01-oauth', 'let cleanup archive it again']],
  log: [
    ['baton log', 'the events of the active session (lease renewals hidden: --all shows them)'],
    ['baton log --type phase --agent alice', 'the phase events alice recorded'],
    ['baton log --since 120 --json', 'events after seq 120, as JSON'],
  ],
  repair: [['baton repair --session 2026-05-01-oauth', 'rebuild a damaged journal']],
  phase: [
    ['baton phase start design', 'start a phase'],
    ['baton phase complete design', 'complete it'],
    ['baton phase retry build', 'retry a failed phase'],
  ],
  'phase start': [
    ['baton phase start design --agent alice', 'start the design phase as alice'],
    ['baton phase start build --force', 'start it although its blockers are not done'],
  ],
  'phase complete': [['baton phase complete design', 'mark the design phase completed']],
  'phase fail': [['baton phase fail build --reason "tests fail"', 'mark the build phase failed']],
  'phase skip': [
    ['baton phase skip review --reason "trivial change"', 'skip a pending phase'],
    [
      'baton phase skip build --reason "the user: ship without it"',
      "skip a failed phase whose retries are used up (the user's decision)",
    ],
  ],
  plan: [
    ['baton plan set build --max-retries 3', 'allow build one more retry'],
    ['baton plan add "Fix flaky tests" --after build', 'add a phase'],
    ['baton plan remove review', 'drop a pending phase'],
  ],
  'plan add': [
    ['baton plan add "Fix flaky tests" --after build --blocked-by build', 'a new phase after build, waiting for it'],
    ['baton plan add Docs --max-retries 0', 'at the end, never retried'],
  ],
  'plan remove': [['baton plan remove review --reason "trivial change"', 'remove a pending phase nothing depends on']],
  'plan set': [
    ['baton plan set build --max-retries 3', 'change its retry limit'],
    ['baton plan set test --blocked-by build,docs', 'change what it waits for (all of it)'],
    ["baton plan set test --blocked-by ''", 'it waits for nothing'],
  ],
  'phase retry': [['baton phase retry build', 'retry a failed phase (counted against its limit)']],
  'phase claim': [
    ['baton phase claim', 'take the first free phase (LOCKED, naming the free ones, when none is)'],
    ['baton run --phase build -- claude', 'an agent working on phase build: its records go there'],
  ],
  substep: [['baton substep build "write tests"', 'record reaching a sub-step (the resume point)']],
  file: [
    ['baton file created src/auth.ts', 'record a new file'],
    ['baton file modified src/app.ts --phase build', 'record a change under a phase'],
  ],
  'file created': [['baton file created src/auth.ts src/auth.test.ts', 'record new files (hashed now)']],
  'file modified': [['baton file modified src/app.ts --phase build', 'record a modified file']],
  'file deleted': [['baton file deleted src/old.ts', 'record a deleted file']],
  error: [
    ['baton error add --phase build --type runtime --message "crash on start"', 'record an error'],
    ['baton error resolve err-1 --resolution "fixed"', 'resolve it'],
  ],
  'error add': [
    ['baton error add --phase build --type timeout --message "API took 60s"', 'record an error; prints its id'],
  ],
  'error resolve': [['baton error resolve err-1 --resolution "raised the timeout"', 'mark an error resolved']],
  tokens: [
    ['baton tokens', 'token use and estimated cost'],
    ['baton tokens --by agent', 'broken down by agent'],
  ],
  'tokens add': [
    ['baton tokens add --agent alice --input 1200 --output 300', 'record token use'],
    ['baton tokens add --agent bob --model claude-sonnet-4 --input 900', 'priced by model'],
  ],
  budget: [
    ['baton budget', 'the budgets and the use against each'],
    ['baton budget set 500000 --on-exceed stop', 'a token budget that stops the work once exceeded'],
    ['baton budget set --cost 25', 'a cost budget in US dollars'],
    ['baton budget clear', 'no token budget'],
  ],
  'budget show': [['baton budget show --json', 'the budgets, their policies and the use against each']],
  'budget set': [
    ['baton budget set 500000', 'a token budget'],
    ['baton budget set --cost 25', 'a cost budget in US dollars'],
    [
      'baton budget set 200000 --phase build --on-exceed ask',
      "a phase's budget; tool calls past it are put to the user",
    ],
    ['baton budget set 50000 --agent reviewer --on-exceed stop', "an agent's budget"],
  ],
  'budget clear': [
    ['baton budget clear', 'remove the token budget'],
    ['baton budget clear --cost', 'remove the cost budget'],
  ],
  pricing: [['baton pricing', 'the prices used to estimate cost']],
  decision: [['baton decision add --title "Auth library" --choice passport --rationale "mature"', 'record a decision']],
  'decision add': [
    [
      'baton decision add --title "Auth library" --choice passport --alternative lucia',
      'record a decision and an alternative',
    ],
  ],
  finding: [
    ['baton finding add "SQL built by hand" --severity high', 'add a finding'],
    ['baton finding remove f-1', 'remove it'],
  ],
  'finding add': [['baton finding add "SQL built by hand" --severity high --phase review', 'add an open finding']],
  'finding remove': [['baton finding remove f-1', 'remove a finding']],
  note: [['baton note add "staging is down until noon"', 'add a note']],
  'note add': [['baton note add "staging is down until noon" --phase build', 'add a note to a phase']],
  milestone: [
    ['baton milestone add "Beta" --target 2026-06-01', 'add a milestone'],
    ['baton milestone done Beta', 'mark it done'],
  ],
  'milestone add': [['baton milestone add "Beta" --target 2026-06-01', 'add a milestone with a target date']],
  'milestone done': [['baton milestone done Beta', 'mark a milestone done']],
  artifact: [['baton artifact add design/auth.md --kind design-doc', 'record an artifact']],
  'artifact add': [
    ['baton artifact add dist/app.tgz --kind build --description "release build"', 'record an artifact'],
  ],
  context: [['baton context set "Auth works; next: refresh tokens"', 'set the summary for the next agent']],
  'context set': [['baton context set "Auth works; next: refresh tokens"', 'set the summary for the next agent']],
  checkpoint: [
    ['baton checkpoint before-refactor', 'take a named checkpoint'],
    ['baton checkpoint show cp-3-before-refactor', 'show one'],
  ],
  'checkpoint show': [['baton checkpoint show cp-3-before-refactor', 'a checkpoint and how its files differ now']],
  'checkpoint validate': [['baton checkpoint validate cp-3-before-refactor', 'check its checksum and contents']],
  checkpoints: [['baton checkpoints', "the active session's checkpoints"]],
  restore: [
    ['baton restore cp-3-before-refactor', "put the session's record back"],
    ['baton restore cp-3-before-refactor --git', 'and reset the git work tree'],
  ],
  cleanup: [
    ['baton cleanup --dry-run', 'what cleanup would do'],
    ['baton cleanup --older-than 14d --keep 5', 'archive old finished sessions, keeping 5'],
    ['baton cleanup --delete', 'delete instead'],
  ],
  run: [
    ['baton run -- npm test', 'run a command under the session lease'],
    ['baton run --ttl 2m -- ./agent.sh', 'with a longer lease'],
  ],
  resume: [
    ['baton resume', 'how to resume (changes nothing)'],
    ['baton resume --apply', 'resume as recommended'],
    ['baton resume --from checkpoint:cp-3-before-refactor --git', 'from a checkpoint'],
  ],
  handoff: [
    ['baton handoff', 'a Markdown briefing for the next agent'],
    ['baton handoff --write HANDOFF.md', 'also write it to a file'],
  ],
  doctor: [
    ['baton doctor', 'check the store'],
    ['baton doctor --fix', 'repair what is safe'],
  ],
  claim: [
    ['baton claim --agent worker-1', 'take one session that needs a worker'],
    ['baton claim --wait --timeout 10m --json', 'wait for one'],
  ],
  watch: [
    ['baton watch', 'changes as they happen'],
    ['baton watch --json --session 2026-05-01-oauth', 'one session, as NDJSON'],
  ],
  ui: [
    ['baton ui', 'the web dashboard on 127.0.0.1; open the printed URL'],
    ['baton ui --port 8377 --open', 'on a fixed port, opened in the browser'],
  ],
  'migrate-store': [
    ['baton migrate-store --from .baton --to postgres://host/db?schema=team', 'copy a file store to PostgreSQL'],
  ],
  mcp: [
    ['baton mcp', 'serve MCP on stdio (an MCP client starts it)'],
    [
      'baton mcp --http --port 7337',
      'serve MCP over HTTP at http://127.0.0.1:7337/mcp; the token is printed on stderr',
    ],
  ],
  inspect: [['baton inspect .gemini', "read a toolkit's sessions without changing anything"]],
  import: [
    ['baton import .gemini', "import a toolkit's sessions"],
    ['baton import ./old --id-prefix imported-', 'under other ids'],
    ['baton import carry.baton --as mine', 'restore a session bundle, under another id'],
  ],
  export: [
    ['baton export --format maestro --out .gemini', 'write the session in the Maestro layout'],
    ['baton export --all --format bmit --out exported', 'every live session'],
    ['baton export --bundle carry.baton', 'the session as one file for another machine'],
  ],
  otel: [
    ['baton otel export --all --endpoint http://localhost:4318', 'send every session to a collector once'],
    ['baton otel follow', 'keep sending spans as sessions change'],
  ],
  'otel export': [
    ['baton otel export --session 2026-05-01-oauth', 'one session, to $OTEL_EXPORTER_OTLP_ENDPOINT'],
    ['baton otel export --all --since 2h --protocol http/json', 'sessions changed in the last two hours, as JSON'],
  ],
  'otel follow': [
    ['baton otel follow --endpoint http://localhost:4318', 'send spans as they end, until Ctrl+C'],
    ['OTEL_SERVICE_NAME=ci baton otel follow --name ci', 'a second follower with its own cursor'],
  ],
  mirror: [
    ['baton mirror maestro --out .gemini', 'keep a Maestro copy up to date'],
    ['baton mirror --off', 'stop mirroring'],
  ],
  hooks: [
    ['baton hooks install claude', "install baton's hooks in Claude Code"],
    ['baton hooks status', 'what is installed'],
  ],
  'hooks install': [
    ['baton hooks install claude --dry-run', 'show the change as a diff'],
    ['baton hooks install codex --scope user', 'in your user config'],
    [
      "baton hooks install claude --scope user --command 'node /path/to/baton/dist/baton.cjs'",
      'a checkout that is not on the PATH',
    ],
  ],
  'hooks uninstall': [['baton hooks uninstall gemini', "remove baton's hooks from Gemini CLI"]],
  'hooks status': [['baton hooks status', 'which hooks are installed, and their problems']],
  hook: [['baton hook claude < payload.json', 'record one hook payload (agent CLIs run this)']],
  completion: [
    ['source <(baton completion bash)', 'complete in this bash'],
    // biome-ignore lint/suspicious/noTemplateCurlyInString: a zsh command line, shown as typed
    ['baton completion zsh > "${fpath[1]}/_baton"', 'install for zsh'],
    ['baton completion fish > ~/.config/fish/completions/baton.fish', 'install for fish'],
  ],
};

/** The examples section ending a command's help. */
export function examplesText(path: string): string {
  const list = EXAMPLES[path] ?? [];
  if (!list.length) return '';
  return `\nExamples:\n${list.map(([cmd, what]) => `  $ ${cmd}\n      ${what}`).join('\n')}`;
}

/**
 * Puts each top-level command in its help group (`groupOf`), ends every command's help with
 * its examples, and gives every command --quiet, --verbose and -h under the global options.
 */
export function decorateHelp(program: Command, groupOf: HelpGroupOf): void {
  for (const c of program.commands) {
    const g = groupOf(c.name());
    if (g !== undefined) c.helpGroup(g);
  }
  program.addHelpCommand(
    new Command('help')
      .argument('[command]')
      .description('show the help of a command')
      .helpOption(false)
      .helpGroup('Help:'),
  );
  const walk = (cmd: Command): void => {
    if (cmd.name() !== 'help') cmd.addHelpOption(new Option('-h, --help', 'show this help').helpGroup(GLOBAL_GROUP));
    // Every command that runs takes --quiet and --verbose (read from argv by the CLI itself).
    if (!cmd.parent || !cmd.commands.length || cmd.options.length) quietVerbose(cmd);
    const text = examplesText(commandPath(cmd));
    if (text) cmd.addHelpText('after', text);
    for (const sub of cmd.commands) walk(sub);
  };
  walk(program);
}
