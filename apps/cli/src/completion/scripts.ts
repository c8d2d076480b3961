import { valueFlags, type CompletionNode } from './command-tree';

/**
 * Completion scripts for bash, zsh and fish, generated from the command tree so a new command
 * completes without touching this file. Each script finds the command being typed the same way:
 * words that name a subcommand of the command so far extend it; options, and the value after an
 * option that takes one, are skipped; anything else is a positional argument.
 */
export const SHELLS = ['bash', 'zsh', 'fish'] as const;
export type Shell = (typeof SHELLS)[number];

const key = (n: CompletionNode) => n.path.join(' ');
const words = (xs: readonly string[]) => xs.join(' ');
/** Shell-safe inside single quotes (bash, zsh). */
const sq = (s: string) => `'${s.replace(/'/g, `'\\''`)}'`;
/** Fish single quotes escape only `\` and `'`. */
const fq = (s: string) => `'${s.replace(/\\/g, '\\\\').replace(/'/g, "\\'")}'`;

/** `case` arms for a POSIX-like shell: the subcommands and the long options of each command. */
function cases(nodes: readonly CompletionNode[], what: (n: CompletionNode) => string[]): string {
  return nodes.map((n) => `    ${sq(key(n))}) echo ${sq(words(what(n)))} ;;`).join('\n');
}

function choiceCases(nodes: readonly CompletionNode[]): string {
  const choices = new Map<string, readonly string[]>();
  for (const n of nodes) {
    for (const o of n.options) {
      if (!o.choices) continue;
      choices.set(o.flag, o.choices);
      if (o.short) choices.set(o.short, o.choices);
    }
  }
  return [...choices].map(([flag, values]) => `    ${sq(flag)}) echo ${sq(words(values))} ;;`).join('\n');
}

/** The functions bash and zsh share: the tables and the command-path walk. */
function posixCore(nodes: readonly CompletionNode[]): string {
  return `_drover_subcommands() {
  case "$1" in
${cases(nodes, (n) => n.subcommands.map((s) => s.name))}
  esac
}
_drover_options() {
  case "$1" in
${cases(nodes, (n) => n.options.map((o) => o.flag))}
  esac
}
_drover_choices() {
  case "$1" in
${choiceCases(nodes)}
  esac
}
# The command named by words 1..n-1 of "$@" (the program name first, the word being typed last).
_drover_path() {
  # Not "path": zsh ties that name to $PATH.
  local at="" skip="" w sub
  local -a args
  args=("$@")
  for w in "\${args[@]:1:\${#args[@]}-2}"; do
    if [ -n "$skip" ]; then skip=""; continue; fi
    case " ${words(valueFlags(nodes))} " in *" $w "*) skip=1; continue ;; esac
    case "$w" in -*) continue ;; esac
    for sub in $(_drover_subcommands "$at"); do
      if [ "$sub" = "$w" ]; then at="\${at:+$at }$w"; break; fi
    done
  done
  printf '%s' "$at"
}`;
}

function bash(nodes: readonly CompletionNode[]): string {
  return `# drover completion for bash. Install: source <(drover completion bash)
${posixCore(nodes)}
_drover() {
  local cur="\${COMP_WORDS[COMP_CWORD]}" prev="\${COMP_WORDS[COMP_CWORD-1]}" at choices
  COMPREPLY=()
  choices="$(_drover_choices "$prev")"
  if [ -n "$choices" ]; then
    mapfile -t COMPREPLY < <(compgen -W "$choices" -- "$cur"); return
  fi
  case " ${words(valueFlags(nodes))} " in *" $prev "*) return ;; esac
  at="$(_drover_path "\${COMP_WORDS[@]:0:COMP_CWORD+1}")"
  if [[ "$cur" == -* ]]; then
    mapfile -t COMPREPLY < <(compgen -W "$(_drover_options "$at")" -- "$cur")
  else
    mapfile -t COMPREPLY < <(compgen -W "$(_drover_subcommands "$at")" -- "$cur")
  fi
}
# -o default: file names when nothing else fits (drover validate <file>).
complete -o default -F _drover drover
`;
}

function zsh(nodes: readonly CompletionNode[]): string {
  return `#compdef drover
# drover completion for zsh. Install: source <(drover completion zsh)  (after compinit)
${posixCore(nodes)}
_drover() {
  local cur="\${words[CURRENT]}" prev="\${words[CURRENT-1]}" at choices list
  choices="$(_drover_choices "$prev")"
  if [[ -n "$choices" ]]; then compadd -- \${=choices}; return; fi
  case " ${words(valueFlags(nodes))} " in *" $prev "*) _files; return ;; esac
  at="$(_drover_path "\${(@)words[1,CURRENT]}")"
  if [[ "$cur" == -* ]]; then
    list="$(_drover_options "$at")"
    compadd -- \${=list}
  else
    list="$(_drover_subcommands "$at")"
    if [[ -n "$list" ]]; then compadd -- \${=list}; else _files; fi
  fi
}
compdef _drover drover
`;
}

function fish(nodes: readonly CompletionNode[]): string {
  const lines = [
    '# drover completion for fish. Install: drover completion fish > ~/.config/fish/completions/drover.fish',
    'function __drover_subcommands',
    '    switch "$argv[1]"',
    ...nodes.map(
      (n) => `        case ${fq(key(n))}\n            echo ${n.subcommands.map((s) => fq(s.name)).join(' ')}`,
    ),
    '    end',
    'end',
    '# The command typed so far: words naming a subcommand extend it; options and their values are skipped.',
    'function __drover_path',
    '    set -l at ""',
    '    set -l skip 0',
    `    set -l value_flags ${valueFlags(nodes).map(fq).join(' ')}`,
    '    set -l typed (commandline -opc)',
    '    set -e typed[1]',
    '    for w in $typed',
    '        if test $skip = 1',
    '            set skip 0',
    '            continue',
    '        end',
    '        if contains -- $w $value_flags',
    '            set skip 1',
    '            continue',
    '        end',
    "        string match -q -- '-*' $w; and continue",
    '        if contains -- $w (string split " " -- (__drover_subcommands "$at"))',
    '            set at (string trim -- "$at $w")',
    '        end',
    '    end',
    '    echo $at',
    'end',
    '# True when the command typed so far is $argv[1] ("" for drover itself).',
    'function __drover_at',
    '    set -l at (__drover_path)',
    '    test "$at" = "$argv[1]"',
    'end',
  ];
  for (const n of nodes) {
    const at = `-n ${fq(`__drover_at ${fq(key(n))}`)}`;
    for (const s of n.subcommands) lines.push(`complete -c drover -f ${at} -a ${fq(s.name)} -d ${fq(s.description)}`);
    for (const o of n.options) {
      const value = o.choices ? ` -x -a ${fq(words(o.choices))}` : o.takesValue ? ' -r' : '';
      const short = o.short ? ` -s ${o.short.slice(1)}` : '';
      lines.push(`complete -c drover ${at} -l ${o.flag.slice(2)}${short}${value} -d ${fq(o.description)}`);
    }
  }
  return lines.join('\n') + '\n';
}

export function completionScript(shell: Shell, nodes: readonly CompletionNode[]): string {
  return shell === 'bash' ? bash(nodes) : shell === 'zsh' ? zsh(nodes) : fish(nodes);
}
