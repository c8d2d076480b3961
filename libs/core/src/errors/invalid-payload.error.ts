import type { PayloadIssue } from '../model/payload.policy';
import { DroverError } from './drover-error';

/**
 * A payload that cannot be stored: not plain JSON, too large, or failing its job type's contract.
 * Thrown before anything is written. `issues` lists every problem; the message names the first few.
 */
export class InvalidPayloadError extends DroverError {
  get code() {
    return 'invalid-payload' as const;
  }

  constructor(
    readonly jobType: string,
    readonly issues: PayloadIssue[],
  ) {
    const shown = issues
      .slice(0, 5)
      .map((i) => `${i.path.length ? i.path.join('.') : '(root)'}: ${i.message}`)
      .join('; ');
    const more = issues.length > 5 ? ` (and ${issues.length - 5} more)` : '';
    super(`invalid payload for job type "${jobType}": ${shown}${more}`);
    this.name = 'InvalidPayloadError';
  }
}
