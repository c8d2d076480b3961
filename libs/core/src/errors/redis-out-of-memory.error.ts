import { DroverError } from './drover-error';

/**
 * What Redis says when it refuses a write because it is at `maxmemory` with `noeviction`, whether
 * the write was a plain command, a Lua script (BullMQ's and Drover's: `… script: <sha>, on
 * @user_script:<line>`) or a queued command of a MULTI that then failed with EXECABORT.
 */
const OOM_REPLY = /\bOOM command not allowed\b/;

/** Seconds a caller is asked to wait before trying again: enough for an operator or retention to free memory. */
export const REDIS_OUT_OF_MEMORY_RETRY_AFTER_S = 5;

/**
 * Redis refused a write because it is at its memory limit (`maxmemory`, policy `noeviction`):
 * nothing of the refused call was written, and it may succeed once memory is freed (retention,
 * a larger `maxmemory`). Every read still works. Thrown by the client's enqueue and other writes;
 * the API answers it 503 with `Retry-After`.
 */
export class RedisOutOfMemoryError extends DroverError {
  get code() {
    return 'redis-out-of-memory' as const;
  }

  /** Seconds to wait before retrying (the API's `Retry-After`). */
  readonly retryAfterS = REDIS_OUT_OF_MEMORY_RETRY_AFTER_S;

  constructor(cause?: unknown) {
    super(
      "Redis is at its memory limit (maxmemory, policy noeviction) and refused the write; nothing was written: retry later, and free memory (retention) or raise Redis's maxmemory",
      { cause },
    );
    this.name = 'RedisOutOfMemoryError';
  }

  /** True when `err` is Redis's out-of-memory refusal (or an EXECABORT caused by one). */
  static matches(err: unknown): boolean {
    if (!(err instanceof Error)) return false;
    if (OOM_REPLY.test(err.message)) return true;
    const previous = (err as { previousErrors?: unknown }).previousErrors;
    return Array.isArray(previous) && previous.some((e) => e instanceof Error && OOM_REPLY.test(e.message));
  }

  /** `err` as a RedisOutOfMemoryError when it is Redis's refusal, else `err` itself. */
  static from(err: unknown): unknown {
    if (err instanceof RedisOutOfMemoryError || !RedisOutOfMemoryError.matches(err)) return err;
    return new RedisOutOfMemoryError(err);
  }

  /** Rethrows `err`, as a RedisOutOfMemoryError when it is Redis's refusal (for `.catch`). */
  static rethrow(this: void, err: unknown): never {
    throw RedisOutOfMemoryError.from(err);
  }
}
