/** Abort reason when an operator (or a `replace` overlap policy) cancels a running run. */
export class JobCanceledError extends Error {
  constructor(readonly reason: string) {
    super(`canceled: ${reason}`);
    this.name = 'JobCanceledError';
  }
}
