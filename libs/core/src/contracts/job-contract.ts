import type { z } from 'zod';
import { NAME_PATTERN } from '../model/name.schema';
import { MAX_JOB_TYPE_LENGTH } from '../model/limits';

/**
 * A typed job contract shared by producers (`DroverClient.enqueue`) and the worker
 * (`@JobHandler`): the job type's name, the zod schemas of its payload and (optionally) its
 * result, and producer-side defaults. `P` is the payload a handler receives (the schema's
 * output), `I` what a producer passes (the schema's input), `R` the handler's result.
 */
export interface JobContract<P = unknown, R = unknown, I = unknown> {
  readonly jobType: string;
  readonly payload: z.ZodType<P, I>;
  readonly result?: z.ZodType<R>;
  /** The queue a producer uses when its `enqueue` names none (before the client's default queue). */
  readonly queue?: string;
  /** The attempts a producer asks for when its `enqueue` names none (before the queue's default). */
  readonly maxAttempts?: number;
}

/** What a handler receives for contract `C` (the payload schema's output). */
export type PayloadOf<C> = C extends JobContract<infer P, unknown, unknown> ? P : never;
/** What a producer passes for contract `C` (the payload schema's input, before defaults and transforms). */
export type PayloadInputOf<C> = C extends JobContract<unknown, unknown, infer I> ? I : never;
/** What a handler of contract `C` returns (the result schema's output; `unknown` without one). */
export type ResultOf<C> = C extends JobContract<unknown, infer R, unknown> ? R : never;

/** Options of {@link defineJob}. */
export interface JobContractSchemas<PS extends z.ZodType, RS extends z.ZodType> {
  payload: PS;
  result?: RS;
  /** Default queue for producers; a queue name (`[a-z0-9][a-z0-9._-]{0,127}`). */
  queue?: string;
  /** Default attempts for producers; a positive integer. */
  maxAttempts?: number;
}

/**
 * Declares a job contract, e.g.
 * `export const reportsGenerate = defineJob('reports.generate', { payload: z.object({ month: z.string() }) })`.
 * Throws `RangeError` for an empty or over-long job type, an invalid queue name or a
 * `maxAttempts` that is not a positive integer: a contract is code, so a mistake fails at load.
 */
export function defineJob<PS extends z.ZodType, RS extends z.ZodType = z.ZodType<unknown>>(
  jobType: string,
  schemas: JobContractSchemas<PS, RS>,
): JobContract<z.output<PS>, z.output<RS>, z.input<PS>> {
  if (!jobType.trim()) throw new RangeError('a job type needs a non-empty name');
  if (jobType.length > MAX_JOB_TYPE_LENGTH)
    throw new RangeError(`job type "${jobType.slice(0, 40)}…" is longer than ${MAX_JOB_TYPE_LENGTH} characters`);
  const { queue, maxAttempts } = schemas;
  if (queue !== undefined && !NAME_PATTERN.test(queue)) {
    throw new RangeError(
      `job type "${jobType}": queue ${JSON.stringify(queue)} is not a valid queue name; use 1-128 of a-z 0-9 . _ - starting with a letter or digit`,
    );
  }
  if (maxAttempts !== undefined && !(Number.isSafeInteger(maxAttempts) && maxAttempts > 0)) {
    throw new RangeError(`job type "${jobType}": maxAttempts must be a positive integer, got ${maxAttempts}`);
  }
  return {
    jobType,
    payload: schemas.payload as unknown as z.ZodType<z.output<PS>, z.input<PS>>,
    ...(schemas.result && { result: schemas.result as unknown as z.ZodType<z.output<RS>> }),
    ...(queue !== undefined && { queue }),
    ...(maxAttempts !== undefined && { maxAttempts }),
  };
}
