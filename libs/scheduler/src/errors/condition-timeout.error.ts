/** A condition check did not answer within its routine's `conditionTimeoutMs` (a launch failure). */
export class ConditionTimeoutError extends Error {
  constructor(
    readonly condition: string,
    readonly timeoutMs: number,
  ) {
    super(`condition "${condition}" did not answer within ${timeoutMs} ms`);
    this.name = 'ConditionTimeoutError';
  }
}
