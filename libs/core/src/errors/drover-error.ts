/**
 * Every code a {@link DroverError} may carry. The codes are part of Drover's public contract, like
 * the class names: a code never changes meaning and is never reused, so callers may switch on
 * `err.code` across versions and across copies of the library (where `instanceof` fails).
 * docs/errors.md lists each code with its class, who throws it and the API's status for it.
 */
export const DROVER_ERROR_CODES = [
  // core: contracts every face shares (client, api, scheduler, worker)
  'invalid-payload',
  'invalid-options',
  'invalid-routine',
  'unknown-job-type',
  'idempotency-key-conflict',
  'run-not-found',
  'routine-not-found',
  'routine-version-conflict',
  'routine-archived',
  'redis-out-of-memory',
  // store
  'unknown-queue',
  'not-parked',
  'not-awaiting-approval',
  'flow-parent-not-replayable',
  'duplicate-override',
  'routine-not-triggerable',
  'trigger-key-conflict',
  'slot-not-skippable',
  'not-a-slot',
  // redis
  'stale-leader',
  'redis-not-replicated',
  // config
  'invalid-config',
  'unusable-tls-file',
  // client
  'run-wait-timeout',
  // scheduler
  'duplicate-name',
  'launch-timeout',
  // worker-runtime
  'duplicate-handler',
  'permanent',
  'job-timeout',
  'job-canceled',
  'lease-lost',
  'worker-shutdown',
  'checkpoint-not-json',
  'checkpoint-too-large',
  'waiting-for-children',
  // builtins
  'outbound-refused',
] as const;

export type DroverErrorCode = (typeof DROVER_ERROR_CODES)[number];

/**
 * The base of every error a Drover library throws on purpose. A subclass declares its code as a
 * getter (`get code() { return 'run-not-found' as const; }`): it lives on the prototype, so the
 * class itself carries it (tests read it without building an error) and serialised errors and
 * logs look as they did. Subclasses also set `name` to a string literal: bundlers that minify
 * rename classes, not strings. Pass `{ cause }` to keep the error that led to this one.
 */
export abstract class DroverError extends Error {
  abstract get code(): DroverErrorCode;

  protected constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = new.target.name;
  }
}
