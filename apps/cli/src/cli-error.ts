import { ExitCode } from './exit-codes';

/** A failure the CLI reports as one line on stderr and an exit code, without a stack. */
export class CliError extends Error {
  constructor(
    message: string,
    readonly exitCode: ExitCode = ExitCode.failed,
  ) {
    super(message);
    this.name = 'CliError';
  }
}

/** A bad argument or option value: exit 2, like commander's own usage errors. */
export class UsageError extends CliError {
  constructor(message: string) {
    super(message, ExitCode.usage);
    this.name = 'UsageError';
  }
}
