/** One problem with a payload: where (`path` from the payload root; `[]` = the root) and what. */
export interface PayloadProblem {
  path: (string | number)[];
  message: string;
}

/**
 * Thrown by `enqueue` before anything is written when the payload fails its job type's contract
 * or is not plain JSON. `issues` lists every problem; the message names the first few.
 */
export class InvalidPayloadError extends Error {
  constructor(
    readonly jobType: string,
    readonly issues: PayloadProblem[],
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
