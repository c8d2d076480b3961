import {
  DROVER_ERROR_CODES,
  type DroverError,
  type DroverErrorCode,
  type InvalidOptionsError,
  type InvalidPayloadError,
  type InvalidRoutineError,
  type RedisOutOfMemoryError,
} from '@drover/core';
import { fieldErrorsOfMessages } from './field-errors';
import type { FieldError } from './problem';

/**
 * How a route answers a {@link DroverError}: its status, the error's message as the detail and,
 * for codes about the request's fields, those fields. `null`: the error is never the caller's
 * doing when it reaches a route (a role's own error, a lost leadership), so it is a logged 500.
 */
export interface ErrorAnswer {
  status: number;
  fields?: (err: DroverError) => FieldError[];
  /** Headers of the answer (`Retry-After` for a condition that passes). */
  headers?: (err: DroverError) => Record<string, string>;
}

/** A field builder for one class; the code names the class, so the table is what narrows it. */
const fieldsOf =
  <E extends DroverError>(build: (err: E) => FieldError[]) =>
  (err: DroverError): FieldError[] =>
    build(err as E);

/**
 * Every code's answer. The type makes the table complete: a new code fails to compile until it
 * is given an answer here (and docs/errors.md lists it).
 */
export const ERROR_ANSWERS: Record<DroverErrorCode, ErrorAnswer | null> = {
  'invalid-payload': {
    status: 400,
    fields: fieldsOf<InvalidPayloadError>((err) =>
      err.issues.map((i) => ({ path: ['body', 'payload', ...i.path.map(String)].join('.'), message: i.message })),
    ),
  },
  'invalid-options': {
    status: 400,
    fields: fieldsOf<InvalidOptionsError>((err) => fieldErrorsOfMessages(err.issues, 'body')),
  },
  'invalid-routine': {
    status: 400,
    // Core checks one routine as a bundle: `routines[nightly].trigger` is the body's `trigger`.
    fields: fieldsOf<InvalidRoutineError>((err) => fieldErrorsOfMessages(err.errors, 'body', /^routines\[[^\]]*\]\.?/)),
  },
  'unknown-job-type': { status: 400, fields: (err) => [{ path: 'body.jobType', message: err.message }] },
  'idempotency-key-conflict': { status: 409 },
  'run-not-found': { status: 404 },
  'routine-not-found': { status: 404 },
  'routine-version-conflict': { status: 412 },
  'unknown-queue': { status: 404 },
  'not-parked': { status: 409 },
  'not-awaiting-approval': { status: 409 },
  'flow-parent-not-replayable': { status: 409 },
  'duplicate-override': { status: 409 },
  'routine-not-triggerable': { status: 409 },
  'routine-archived': { status: 409 },
  // Not the caller's doing and not a bug: Redis refuses writes until memory is freed, so retry.
  'redis-out-of-memory': {
    status: 503,
    headers: (err) => ({ 'Retry-After': String((err as RedisOutOfMemoryError).retryAfterS) }),
  },
  'trigger-key-conflict': { status: 409 },
  'slot-not-skippable': { status: 409 },
  'not-a-slot': { status: 422, fields: (err) => [{ path: 'body.slot', message: err.message }] },
  'stale-leader': null,
  // Nothing the caller did: Redis could not replicate the write in time; retrying is safe, and a
  // replica that lagged usually catches up within a second.
  'redis-not-replicated': { status: 503, headers: () => ({ 'Retry-After': '1' }) },
  'invalid-config': null,
  'unusable-tls-file': null,
  'run-wait-timeout': null,
  'duplicate-name': null,
  'launch-timeout': null,
  'duplicate-handler': null,
  permanent: null,
  'job-timeout': null,
  'job-canceled': null,
  'lease-lost': null,
  'waiting-for-children': null,
  'worker-shutdown': null,
  'checkpoint-not-json': null,
  'checkpoint-too-large': null,
  'outbound-refused': null,
};

/** The codes an answer may carry (problem `code`), in the order core lists them. */
export const ANSWERED_CODES: DroverErrorCode[] = DROVER_ERROR_CODES.filter((code) => ERROR_ANSWERS[code] !== null);
