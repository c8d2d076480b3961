import { DroverError } from './drover-error';
import { IdempotencyKeyConflictError } from './idempotency-key-conflict.error';
import { InvalidOptionsError } from './invalid-options.error';
import { InvalidPayloadError } from './invalid-payload.error';
import { InvalidRoutineError } from './invalid-routine.error';
import { RoutineNotFoundError } from './routine-not-found.error';
import { RoutineVersionConflictError } from './routine-version-conflict.error';
import { RunNotFoundError } from './run-not-found.error';
import { UnknownJobTypeError } from './unknown-job-type.error';

class ExampleError extends DroverError {
  get code() {
    return 'permanent' as const;
  }

  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
  }
}

describe('DroverError', () => {
  it('is an Error named after its class, with its code and the cause it was given', () => {
    const cause = new Error('socket closed');
    const err = new ExampleError('could not send', { cause });
    expect(err).toBeInstanceOf(Error);
    expect(err).toBeInstanceOf(DroverError);
    expect(err).toMatchObject({ name: 'ExampleError', code: 'permanent', message: 'could not send', cause });
    expect(String(err)).toBe('ExampleError: could not send');
  });

  it('keeps the code on the class, not on each error: JSON and logs of an error look as they did', () => {
    const err = new RunNotFoundError('r1');
    expect(Object.keys(err).sort()).toEqual(['name', 'runId']);
    expect((RunNotFoundError.prototype as DroverError).code).toBe('run-not-found');
  });

  it.each([
    { err: new RunNotFoundError('r1'), code: 'run-not-found', message: /^run r1 does not exist/ },
    {
      err: new RoutineNotFoundError('nightly'),
      code: 'routine-not-found',
      message: /^routine "nightly" does not exist$/,
    },
    {
      err: new RoutineVersionConflictError('nightly', 2, 3),
      code: 'routine-version-conflict',
      message: /is at version 3, not 2/,
    },
    {
      err: new RoutineVersionConflictError('nightly', 2, 0),
      code: 'routine-version-conflict',
      message: /does not exist \(expected version 2\)/,
    },
    {
      err: new InvalidOptionsError('enqueue', ['a', 'b']),
      code: 'invalid-options',
      message: /^invalid enqueue options: a; b$/,
    },
    { err: new InvalidRoutineError(['a']), code: 'invalid-routine', message: /^invalid routine: a$/ },
    { err: new UnknownJobTypeError('x', ['b', 'a']), code: 'unknown-job-type', message: /registered: a, b/ },
    { err: new UnknownJobTypeError('x', []), code: 'unknown-job-type', message: /registered: \(none\)/ },
    {
      err: new IdempotencyKeyConflictError('k', 'r1', { jobType: 'a', queue: 'q' }, { jobType: 'b', queue: 'q' }),
      code: 'idempotency-key-conflict',
      message: /is bound to run r1/,
    },
    {
      err: new InvalidPayloadError('report', [{ path: [], message: 'not JSON' }]),
      code: 'invalid-payload',
      message: /\(root\): not JSON/,
    },
  ])('$err.name has code $code and says what is wrong', ({ err, code, message }) => {
    expect(err).toBeInstanceOf(DroverError);
    expect(err.code).toBe(code);
    expect(err.name).toBe(err.constructor.name);
    expect(err.message).toMatch(message);
  });
});
