import { HttpException } from '@nestjs/common';
import {
  DROVER_ERROR_CODES,
  IdempotencyKeyConflictError,
  InvalidOptionsError,
  InvalidPayloadError,
  InvalidRoutineError,
  RedisOutOfMemoryError,
  RoutineNotFoundError,
  RoutineVersionConflictError,
  RunNotFoundError,
  UnknownJobTypeError,
} from '@drover/core';
import { NotReplicatedError, StaleLeaderError } from '@drover/redis';
import {
  DuplicateOverrideError,
  NotParkedError,
  RoutineNotTriggerableError,
  TriggerKeyConflictError,
  UnknownQueueError,
} from '@drover/store';
import { ERROR_ANSWERS } from './error-answers';
import { mapError } from './error-mapping';
import { ProblemError } from './problem';

describe('mapError', () => {
  it('has an answer for every code (null: a logged 500)', () => {
    expect(DROVER_ERROR_CODES.filter((code) => ERROR_ANSWERS[code] === undefined)).toEqual([]);
    expect(Object.keys(ERROR_ANSWERS).sort()).toEqual([...DROVER_ERROR_CODES].sort());
  });

  it.each([
    { err: new RoutineNotFoundError('nightly'), status: 404 },
    { err: new RunNotFoundError('r1'), status: 404 },
    { err: new UnknownQueueError('q', ['default']), status: 404 },
    { err: new RoutineVersionConflictError('nightly', 2, 3), status: 412 },
    { err: new NotParkedError('r1', 'default', 'queued'), status: 409 },
    { err: new DuplicateOverrideError('nightly', 'k', 'r1'), status: 409 },
    { err: new RoutineNotTriggerableError('nightly', 'it is archived'), status: 409 },
    {
      err: new IdempotencyKeyConflictError('k', 'r1', { jobType: 'a', queue: 'q' }, { jobType: 'b', queue: 'q' }),
      status: 409,
    },
    { err: new TriggerKeyConflictError('k', 'r1', null, 'nightly'), status: 409 },
    {
      err: new NotReplicatedError('run r1', 0, 1, '0 acknowledged within 1000 ms'),
      status: 503,
      headers: { 'Retry-After': '1' },
    },
  ] as { err: Error & { code: string }; status: number; headers?: Record<string, string> }[])(
    'answers $err.name with $status and its message as the detail',
    ({ err, status, headers }) => {
      expect(mapError(err)).toEqual({
        problem: {
          type: expect.stringMatching(/^urn:drover:problem:/),
          title: expect.any(String),
          status,
          detail: err.message,
          code: err.code,
        },
        headers: headers ?? {},
        unexpected: false,
      });
    },
  );

  it('names the fields of the request the error is about', () => {
    expect(mapError(new UnknownJobTypeError('x', [])).problem.errors).toEqual([
      { path: 'body.jobType', message: expect.stringContaining('job type "x"') },
    ]);
    expect(mapError(new InvalidOptionsError('enqueue', ['runAt: must be a time', 'odd'])).problem.errors).toEqual([
      { path: 'body.runAt', message: 'must be a time' },
      { path: 'body', message: 'odd' },
    ]);
    expect(
      mapError(new InvalidRoutineError(['routines[nightly].trigger.cron: bad', 'routines[nightly]: odd'])).problem,
    ).toMatchObject({
      status: 400,
      errors: [
        { path: 'body.trigger.cron', message: 'bad' },
        { path: 'body', message: 'odd' },
      ],
    });
    const payload = new InvalidPayloadError('report', [{ path: ['month', 0], message: 'expected a string' }]);
    expect(mapError(payload).problem).toMatchObject({
      status: 400,
      detail: payload.message,
      errors: [{ path: 'body.payload.month.0', message: 'expected a string' }],
    });
  });

  it('answers a Drover error no route expects, and any unforeseen error, with a 500 that says nothing more', () => {
    for (const err of [new StaleLeaderError('routines'), new Error('boom'), 'a string']) {
      expect(mapError(err)).toEqual({
        problem: expect.objectContaining({ status: 500, detail: 'internal error; the server logged it' }),
        headers: {},
        unexpected: true,
      });
    }
  });

  it("answers Redis's out-of-memory refusal, however a write met it, with a 503 to retry after a while", () => {
    const refusal = "OOM command not allowed when used memory > 'maxmemory'.";
    const execAbort = Object.assign(new Error('EXECABORT Transaction discarded because of previous errors.'), {
      previousErrors: [new Error(refusal)],
    });
    for (const err of [
      new Error(refusal),
      new Error(`${refusal} script: 5ab432e88830d573e2fa33392ffbd4ad25a9b100, on @user_script:589.`),
      execAbort,
      new RedisOutOfMemoryError(),
    ]) {
      expect(mapError(err)).toEqual({
        problem: expect.objectContaining({
          status: 503,
          code: 'redis-out-of-memory',
          detail: new RedisOutOfMemoryError().message,
        }),
        headers: { 'Retry-After': '5' },
        unexpected: false,
      });
    }
    // Another Redis error stays a logged 500.
    expect(mapError(new Error('ERR wrong number of arguments')).problem.status).toBe(500);
  });

  it('keeps a ProblemError as thrown and a Nest 4xx as its status', () => {
    expect(mapError(new ProblemError(428, 'need If-Match', undefined, { X: '1' }))).toMatchObject({
      problem: { status: 428, detail: 'need If-Match' },
      headers: { X: '1' },
    });
    expect(mapError(new HttpException('nope', 404)).problem.detail).toBe('no such route');
  });
});
