/** Abort reason (and attempt error) when a run exceeds its `timeoutMs`. */
export class JobTimeoutError extends Error {
  constructor(readonly timeoutMs: number) {
    super(`timed out after ${timeoutMs} ms`);
    this.name = 'JobTimeoutError';
  }
}
