/**
 * Shell completion scripts for bash, zsh and fish, generated from the program itself, so
 * they offer exactly the commands, subcommands and options `--help` shows. The scripts hold
 * the command tree as data (no `baton` process runs per keystroke).
 */
import type { Command } from 'commander';

/** What a command's first argument names, completed from the store rather than as a file name. */
export type IdKind = 'session' | 'phase' | 'checkpoint';

/** One command of the tree: its path (`phase start`), subcommands, long options and what its first argument names. */
interface Node {
  path: string;
  subs: Array<{ name: string; description: string }>;
  options: Array<{ flag: string; description: string; takesValue: boolean }>;
  kind: IdKind | null;
}

/** The kind of id an argument names, from its name and description (`<phase>`, `[id]`, `<id> checkpoint id`). */
function argKind(name: string | undefined, description: string): IdKind | null {
  if (name === 'phase') return 'phase';
  if (name === 'id') return /checkpoint/i.test(description) ? 'checkpoint' : 'session';
  return null;
}

/** Options whose value is an id: `--session ID`, `--phase PHASE`. */
const OPTION_KINDS: Readonly<Record<string, IdKind>> = { '--session': 'session', '--phase': 'phase' };

/** The shells a script can be printed for. */
export const SHELLS = ['bash', 'zsh', 'fish'] as const;
export type Shell = (typeof SHELLS)[number];

function nodes(program: Command): Node[] {
  const out: Node[] = [];
  const walk = (cmd: Command, path: string): void => {
    const help = cmd.createHelp();
    const options = help
      .visibleOptions(cmd)
      .filter((o) => o.long)
      .map((o) => ({ flag: o.long!, description: o.description, takesValue: o.required || o.optional }));
    const subs = help
      .visibleCommands(cmd)
      .filter((c) => c.name() !== 'help')
      .map((c) => ({ name: c.name(), description: c.description() }));
    const first = cmd.registeredArguments[0];
    out.push({ path, subs, options, kind: first ? argKind(first.name(), first.description) : null });
    for (const c of cmd.commands) walk(c, path ? `${path} ${c.name()}` : c.name());
  };
  walk(program, '');
  return out;
}

function caseArms(list: Node[], what: (n: Node) => string[], arm: (path: string, words: string) => string): string {
  return list
    .map((n) => ({ n, words: what(n) }))
    .filter((x) => x.words.length)
    .map((x) => arm(x.n.path, x.words.join(' ')))
    .join('\n');
}

/** The shared POSIX-shell walk: finds the command path typed so far in `words`. */
function shFunctions(list: Node[]): string {
  return `_baton_subs() {
  case "$1" in
${caseArms(
  list,
  (n) => n.subs.map((s) => s.name),
  (p, w) => `    "${p}") echo "${w}" ;;`,
)}
  esac
}

_baton_opts() {
  case "$1" in
${caseArms(
  list,
  (n) => n.options.map((o) => o.flag),
  (p, w) => `    "${p}") echo "${w}" ;;`,
)}
  esac
}

# The command path typed so far: the words that name a subcommand of the path before them.
_baton_path() {
  local cmdpath="" w subs
  for w in "$@"; do
    case "$w" in -*) continue ;; esac
    subs=" $(_baton_subs "$cmdpath") "
    case "$subs" in *" $w "*) cmdpath="\${cmdpath:+$cmdpath }$w" ;; esac
  done
  echo "$cmdpath"
}

# What the first argument of a command names (completed from the store, not as a file).
_baton_kind() {
  case "$1" in
${caseArms(
  list,
  (n) => (n.kind && !n.subs.length ? [n.kind] : []),
  (p, w) => `    "${p}") echo "${w}" ;;`,
)}
  esac
}

# Arguments typed after the command path (option values not counted).
_baton_npos() {
  local cmdpath="" w subs n=0 skip=0
  for w in "$@"; do
    if (( skip )); then skip=0; continue; fi
    case "$w" in
      -*) case " ${[...new Set(list.flatMap((n) => n.options.filter((o) => o.takesValue).map((o) => o.flag)))].sort().join(' ')} " in *" $w "*) skip=1 ;; esac; continue ;;
    esac
    subs=" $(_baton_subs "$cmdpath") "
    case "$subs" in *" $w "*) cmdpath="\${cmdpath:+$cmdpath }$w" ;; *) n=$((n+1)) ;; esac
  done
  echo "$n"
}

# The kind of id the word being completed names, if any: the value of --session or --phase,
# or the first argument of a command whose argument is an id.
_baton_want() {
  local prev="$1" cmdpath="$2" npos="$3"
  case "$prev" in
${Object.entries(OPTION_KINDS)
  .map(([flag, kind]) => `    ${flag}) echo ${kind}; return ;;`)
  .join('\n')}
  esac
  if [ "$npos" = 0 ]; then _baton_kind "$cmdpath"; fi
}

# The ids of a kind, read from the store by baton itself (the session named by --session, if typed).
_baton_ids() {
  local kind="$1" session="" prev="" w
  shift
  for w in "$@"; do
    if [ "$prev" = --session ]; then session="$w"; fi
    prev="$w"
  done
  if [ -n "$session" ]; then BATON_SESSION="$session" baton completion --ids "$kind" 2>/dev/null; else baton completion --ids "$kind" 2>/dev/null; fi
}`;
}

function bash(list: Node[]): string {
  return `# bash completion for baton. Load it with: source <(baton completion bash)
${shFunctions(list)}

_baton() {
  local cur="\${COMP_WORDS[COMP_CWORD]}" cmdpath kind
  cmdpath="$(_baton_path "\${COMP_WORDS[@]:1:COMP_CWORD-1}")"
  if [[ "$cur" != -* ]]; then
    kind="$(_baton_want "\${COMP_WORDS[COMP_CWORD-1]}" "$cmdpath" "$(_baton_npos "\${COMP_WORDS[@]:1:COMP_CWORD-1}")")"
  fi
  if [[ -n "$kind" ]]; then
    # An id, never a file name: no fallback to files when none matches.
    compopt +o default 2>/dev/null
    COMPREPLY=($(compgen -W "$(_baton_ids "$kind" "\${COMP_WORDS[@]:1:COMP_CWORD-1}")" -- "$cur"))
  elif [[ "$cur" == -* ]]; then
    COMPREPLY=($(compgen -W "$(_baton_opts "$cmdpath")" -- "$cur"))
  else
    COMPREPLY=($(compgen -W "$(_baton_subs "$cmdpath")" -- "$cur"))
  fi
}
complete -o default -F _baton baton
`;
}

function zsh(list: Node[]): string {
  return `#compdef baton
# zsh completion for baton. Load it with: source <(baton completion zsh), or save it as _baton in a folder of $fpath.
${shFunctions(list)}

_baton() {
  local cmdpath kind
  cmdpath="$(_baton_path "\${(@)words[2,CURRENT-1]}")"
  if [[ "\${words[CURRENT]}" != -* ]]; then
    kind="$(_baton_want "\${words[CURRENT-1]}" "$cmdpath" "$(_baton_npos "\${(@)words[2,CURRENT-1]}")")"
  fi
  if [[ -n "$kind" ]]; then
    # An id, never a file name.
    local -a ids
    ids=(\${(f)"$(_baton_ids "$kind" "\${(@)words[2,CURRENT-1]}")"})
    (( \${#ids} )) && compadd -- $ids
  elif [[ "\${words[CURRENT]}" == -* ]]; then
    compadd -- \${=$(_baton_opts "$cmdpath")}
  else
    local -a subs
    subs=(\${=$(_baton_subs "$cmdpath")})
    if (( \${#subs} )); then compadd -- $subs; else _files; fi
  fi
}

if [[ "\${zsh_eval_context[-1]}" == loadautofunc ]]; then
  _baton "$@"
else
  compdef _baton baton
fi
`;
}

function fishQuote(s: string): string {
  return `'${s.replace(/\\/g, '\\\\').replace(/'/g, "\\'")}'`;
}

function fish(list: Node[]): string {
  const lines = [
    '# fish completion for baton. Install it with: baton completion fish > ~/.config/fish/completions/baton.fish',
    'function __baton_subs',
    '    switch "$argv[1]"',
    ...list
      .filter((n) => n.subs.length)
      .flatMap((n) => [
        `        case ${fishQuote(n.path)}`,
        `            printf '%s\\n' ${n.subs.map((s) => s.name).join(' ')}`,
      ]),
    '    end',
    'end',
    '# The command path typed so far: the words that name a subcommand of the path before them.',
    'function __baton_path',
    '    set -l words (commandline -opc)',
    '    set -e words[1]',
    '    set -l p ""',
    '    for w in $words',
    "        string match -q -- '-*' $w; and continue",
    '        if contains -- $w (__baton_subs "$p")',
    '            set p (string trim -- "$p $w")',
    '        end',
    '    end',
    '    echo $p',
    'end',
    'function __baton_at',
    '    test (__baton_path) = "$argv[1]"',
    'end',
    ...list.flatMap((n) => [
      ...n.subs.map(
        (s) =>
          `complete -c baton -n ${fishQuote(`__baton_at ${fishQuote(n.path)}`)} -f -a ${fishQuote(s.name)} -d ${fishQuote(s.description.slice(0, 80))}`,
      ),
      ...n.options.map(
        (o) =>
          `complete -c baton -n ${fishQuote(`__baton_at ${fishQuote(n.path)}`)} -l ${o.flag.slice(2)} -d ${fishQuote(o.description.slice(0, 80))}`,
      ),
    ]),
  ];
  return `${lines.join('\n')}\n`;
}

/** The completion script of `shell` for the commands of `program`. */
export function completionScript(program: Command, shell: Shell): string {
  const list = nodes(program);
  return shell === 'bash' ? bash(list) : shell === 'zsh' ? zsh(list) : fish(list);
}
