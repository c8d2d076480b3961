import type { Command, Option } from 'commander';

/** One long option as a completion offers it. */
export interface CompletionOption {
  /** `--tz`, `--no-color`. */
  flag: string;
  /** `-o`, when it has one: skipped with its value like the long form. */
  short?: string;
  description: string;
  /** It takes a value (the next word is not a command). */
  takesValue: boolean;
  /** Fixed values (`-o table|json|yaml`). */
  choices?: readonly string[];
}

/** A command as completion sees it: its path from the root and what may follow it. */
export interface CompletionNode {
  /** Subcommand names from the root, e.g. `['routines', 'ls']`; `[]` for `drover` itself. */
  path: string[];
  description: string;
  /** Subcommand names, or else the fixed values of its first argument (`completion bash|zsh|fish`). */
  subcommands: { name: string; description: string }[];
  options: CompletionOption[];
}

function optionOf(o: Option): CompletionOption | undefined {
  if (!o.long) return undefined;
  return {
    flag: o.long,
    ...(o.short && { short: o.short }),
    description: o.description,
    takesValue: o.required || o.optional,
    ...(o.argChoices && { choices: o.argChoices }),
  };
}

/**
 * Every command of the program, depth first, read through commander's own Help (so hidden
 * commands and options stay hidden, and the implicit `help` command and `--help` are there).
 * The root's options are offered everywhere: they work after a command too.
 */
export function completionTree(program: Command): CompletionNode[] {
  const nodes: CompletionNode[] = [];
  const global = program
    .createHelp()
    .visibleOptions(program)
    .flatMap((o) => optionOf(o) ?? []);
  const visit = (cmd: Command, path: string[]) => {
    const help = cmd.createHelp();
    const subs = help.visibleCommands(cmd);
    const own = path.length === 0 ? [] : help.visibleOptions(cmd).flatMap((o) => optionOf(o) ?? []);
    // --version belongs to `drover` alone.
    const inherited = global.filter((g) => g.flag !== '--version' && !own.some((o) => o.flag === g.flag));
    const choices = cmd.registeredArguments[0]?.argChoices ?? [];
    nodes.push({
      path,
      description: cmd.description(),
      subcommands:
        subs.length > 0
          ? subs.map((s) => ({ name: s.name(), description: s.description() }))
          : choices.map((name) => ({ name, description: '' })),
      options: path.length === 0 ? global : [...own, ...inherited],
    });
    // The implicit `help` command has no subcommands of its own worth walking.
    for (const sub of subs) if (sub.name() !== 'help' || sub.commands.length > 0) visit(sub, [...path, sub.name()]);
  };
  visit(program, []);
  return nodes;
}

/** Every option that takes a value, anywhere: its next word is skipped when finding the command. */
export function valueFlags(nodes: readonly CompletionNode[]): string[] {
  const flags = nodes.flatMap((n) => n.options.filter((o) => o.takesValue).flatMap((o) => [o.flag, o.short ?? []]));
  return [...new Set(flags.flat())].sort();
}
