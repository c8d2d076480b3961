import { CliError, UsageError } from '../cli-error';
import type { CliContext } from '../context';

/**
 * Asks before a destructive step unless `--yes`. Without a terminal to ask on, refuses: a
 * script must say `--yes` rather than have a purge happen because stdin was empty.
 */
export async function confirm(ctx: CliContext, question: string, yes: boolean | undefined): Promise<void> {
  if (yes) return;
  if (!ctx.io.stdinIsTty) throw new UsageError(`${question} — not asked: stdin is not a terminal; add --yes`);
  const answer = await ctx.io.ask(`${question} [y/N] `);
  if (!answer || !/^y(es)?$/i.test(answer.trim())) throw new CliError('not confirmed; nothing was changed');
}
