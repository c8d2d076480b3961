import { CommanderError } from 'commander';
import { CliError } from './cli-error';
import { ExitCode } from './exit-codes';
import { explain } from './explain';
import type { CliIo } from './io';
import { terminalSafe } from './output/terminal-safe';
import { buildProgram } from './program';

/**
 * Runs one `drover` invocation and resolves with its exit code; never throws. Failures print
 * one line on stderr (`drover: <reason>`); stdout carries only data.
 */
export async function runCli(argv: readonly string[], io: CliIo): Promise<number> {
  const { program, ctx } = buildProgram(io);
  try {
    await program.parseAsync([...argv], { from: 'user' });
    return ExitCode.ok;
  } catch (err) {
    if (err instanceof CommanderError) {
      // --help and --version end parsing with a "success" error; usage errors are already printed.
      if (err.exitCode === 0) return ExitCode.ok;
      return ExitCode.usage;
    }
    const failure = explain(err, () => {
      try {
        return ctx.apiTarget.baseUrl;
      } catch {
        return undefined;
      }
    });
    // The reason often quotes the server (a problem's detail): never raw control characters.
    io.err(`drover: ${terminalSafe(failure.message)}\n`);
    if (!(err instanceof CliError) && failure.message.startsWith('unexpected error') && io.env.DROVER_DEBUG) {
      io.err(`${(err as Error).stack ?? ''}\n`);
    }
    return failure.exitCode;
  }
}
