import { DroverError } from './drover-error';

/**
 * Thrown when the options of a call (or of `DroverModule`) are invalid; nothing is written.
 * `where` names the call (`enqueue`, `waitForRun`, `DroverModule`…), `issues` each bad field.
 */
export class InvalidOptionsError extends DroverError {
  get code() {
    return 'invalid-options' as const;
  }

  constructor(
    readonly where: string,
    readonly issues: string[],
  ) {
    super(`invalid ${where} options: ${issues.join('; ')}`);
    this.name = 'InvalidOptionsError';
  }
}
