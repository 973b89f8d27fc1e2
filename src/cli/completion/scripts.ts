/**
 * Shell completion scripts for bash, zsh and fish, generated from the program itself, so
 * they offer exactly the commands, subcommands and options `--help` shows. The scripts hold
 * the command tree as data (no `baton` process runs per keystroke).
 */
import type { Command } from 'commander';

/** One command of the tree: its path (`phase start`), subcommands and long options. */
interface Node {
  path: string;
  subs: Array<{ name: string; description: string }>;
  options: Array<{ flag: string; description: string }>;
}

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
      .map((o) => ({ flag: o.long!, description: o.description }));
    const subs = help.visibleCommands(cmd).filter((c) => c.name() !== 'help').map((c) => ({ name: c.name(), description: c.description() }));
    out.push({ path, subs, options });
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
${caseArms(list, (n) => n.subs.map((s) => s.name), (p, w) => `    "${p}") echo "${w}" ;;`)}
  esac
}

_baton_opts() {
  case "$1" in
${caseArms(list, (n) => n.options.map((o) => o.flag), (p, w) => `    "${p}") echo "${w}" ;;`)}
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
}`;
}

function bash(list: Node[]): string {
  return `# bash completion for baton. Load it with: source <(baton completion bash)
${shFunctions(list)}

_baton() {
  local cur="\${COMP_WORDS[COMP_CWORD]}" cmdpath
  cmdpath="$(_baton_path "\${COMP_WORDS[@]:1:COMP_CWORD-1}")"
  if [[ "$cur" == -* ]]; then
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
  local cmdpath
  cmdpath="$(_baton_path "\${(@)words[2,CURRENT-1]}")"
  if [[ "\${words[CURRENT]}" == -* ]]; then
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
    ...list.filter((n) => n.subs.length).flatMap((n) => [`        case ${fishQuote(n.path)}`, `            printf '%s\\n' ${n.subs.map((s) => s.name).join(' ')}`]),
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
      ...n.subs.map((s) => `complete -c baton -n ${fishQuote(`__baton_at ${fishQuote(n.path)}`)} -f -a ${fishQuote(s.name)} -d ${fishQuote(s.description.slice(0, 80))}`),
      ...n.options.map((o) => `complete -c baton -n ${fishQuote(`__baton_at ${fishQuote(n.path)}`)} -l ${o.flag.slice(2)} -d ${fishQuote(o.description.slice(0, 80))}`),
    ]),
  ];
  return `${lines.join('\n')}\n`;
}

/** The completion script of `shell` for the commands of `program`. */
export function completionScript(program: Command, shell: Shell): string {
  const list = nodes(program);
  return shell === 'bash' ? bash(list) : shell === 'zsh' ? zsh(list) : fish(list);
}
