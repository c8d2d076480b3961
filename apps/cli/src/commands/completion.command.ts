import { Argument, type Command } from 'commander';
import type { CliContext } from '../context';
import { completionTree } from '../completion/command-tree';
import { completionScript, SHELLS, type Shell } from '../completion/scripts';

export function registerCompletion(program: Command, ctx: CliContext): void {
  program
    .command('completion')
    .description('print a shell completion script (bash, zsh or fish) for every drover command and option')
    .addArgument(new Argument('<shell>', 'the shell').choices(SHELLS))
    .addHelpText(
      'after',
      `
Install:
  bash  source <(drover completion bash)                 (add it to ~/.bashrc)
  zsh   source <(drover completion zsh)                  (in ~/.zshrc, after compinit)
  fish  drover completion fish > ~/.config/fish/completions/drover.fish`,
    )
    .action((shell: Shell) => {
      // Generated from the live command tree, so a new command completes without editing anything.
      // The script is the output in every format: -o json would only wrap shell text in quotes.
      ctx.io.out(completionScript(shell, completionTree(program)));
    });
}
