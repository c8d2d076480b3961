import * as client from '../index';

describe('the errors @drover/client exports', () => {
  it('are every error a call may throw, each a DroverError, so `instanceof` and `code` work with this import alone', () => {
    const names = [
      'DuplicateOverrideError',
      'IdempotencyKeyConflictError',
      'InvalidOptionsError',
      'InvalidPayloadError',
      'InvalidRoutineError',
      'RedisOutOfMemoryError',
      'RoutineArchivedError',
      'RoutineNotFoundError',
      'RoutineNotTriggerableError',
      'RoutineVersionConflictError',
      'RunNotFoundError',
      'RunWaitTimeoutError',
      'UnknownJobTypeError',
      'UnknownQueueError',
    ];
    const exported = client as unknown as Record<string, { prototype: unknown }>;
    for (const name of names)
      expect([name, exported[name]?.prototype instanceof client.DroverError]).toEqual([name, true]);
  });
});
