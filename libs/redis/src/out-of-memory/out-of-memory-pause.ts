import { performance } from 'node:perf_hooks';
import { RedisOutOfMemoryError } from '@drover/core';

/** What {@link OutOfMemoryPause} needs of a BullMQ Worker (structural: this library does not use BullMQ). */
export interface PausableConsumer {
  on(event: 'error', listener: (err: Error) => void): unknown;
  pause(doNotWaitActive?: boolean): Promise<void>;
  resume(): Promise<void> | void;
  readonly closing: Promise<void> | undefined;
}

export interface OutOfMemoryPauseOptions {
  /** How long the consumer stops fetching after a refusal before it tries again. */
  pauseMs?: number;
  /** At most one warning per this many ms, however many refusals it stands for. */
  warnEveryMs?: number;
}

/**
 * Keeps a BullMQ consumer from spinning while Redis is at its memory limit. BullMQ emits a
 * refused fetch (`moveToActive` is a write) as an `error` and fetches again at once, so a full
 * Redis turns each consumer into a busy loop logging thousands of lines a second. Fed the
 * consumer's `error` events, this pauses fetching for `pauseMs` on a refusal (runs in flight go
 * on) and resumes, and warns once per `warnEveryMs` with the number of refusals since. Nothing is
 * written meanwhile: once Redis has memory again, the next fetch after a pause succeeds.
 */
export class OutOfMemoryPause {
  private holdingUntilResume = false;
  private lastWarnedAt = -Infinity;
  private refusals = 0;
  private readonly pauseMs: number;
  private readonly warnEveryMs: number;

  constructor(
    private readonly consumer: PausableConsumer,
    private readonly warn: (fields: { refusals: number; pauseMs: number }, msg: string) => void,
    opts: OutOfMemoryPauseOptions = {},
  ) {
    this.pauseMs = opts.pauseMs ?? 1_000;
    this.warnEveryMs = opts.warnEveryMs ?? 30_000;
  }

  /** True while fetching is paused for a refusal: the consumer is still meant to consume. */
  get holding(): boolean {
    return this.holdingUntilResume;
  }

  /** Listens to the consumer's `error` events: Redis's refusals are handled here, the rest go to `otherwise`. */
  attach(otherwise: (err: Error) => void): this {
    this.consumer.on('error', (err) => {
      if (!this.handle(err)) otherwise(err);
    });
    return this;
  }

  /** For the consumer's `error` event: true when `err` was Redis's refusal, handled (and logged) here. */
  handle(err: unknown): boolean {
    if (!RedisOutOfMemoryError.matches(err)) return false;
    this.refusals++;
    const now = performance.now();
    if (now - this.lastWarnedAt >= this.warnEveryMs) {
      this.lastWarnedAt = now;
      this.warn(
        { refusals: this.refusals, pauseMs: this.pauseMs },
        'Redis is at its memory limit (maxmemory, noeviction) and refuses writes: fetching paused, retrying every pause; free memory or raise maxmemory',
      );
      this.refusals = 0;
    }
    if (!this.holdingUntilResume && !this.consumer.closing) {
      this.holdingUntilResume = true;
      void this.consumer
        .pause(true)
        .then(() => new Promise((resolve) => setTimeout(resolve, this.pauseMs).unref()))
        .then(async () => {
          if (!this.consumer.closing) await this.consumer.resume();
        })
        .catch(() => undefined)
        .finally(() => (this.holdingUntilResume = false));
    }
    return true;
  }
}

/** For `.catch`: Redis's out-of-memory refusal as the value `'redis-full'`; any other error is rethrown. */
export function redisFull(err: unknown): 'redis-full' {
  if (RedisOutOfMemoryError.matches(err)) return 'redis-full';
  throw err;
}

/**
 * Calls `write` again every `everyMs` while Redis refuses it for lack of memory, for at most
 * `forMs` (or until `stop()`); then answers `'redis-full'`. For a write whose refusal would cost
 * more than the wait (a worker holding a run it may not start yet, within its lease).
 */
export async function retryWhileRedisFull<T>(
  write: () => Promise<T>,
  forMs: number,
  stop: () => boolean = () => false,
  everyMs = 1_000,
): Promise<T | 'redis-full'> {
  for (let waited = 0; ; waited += everyMs) {
    const answer = await write().catch(redisFull);
    if (answer !== 'redis-full' || waited + everyMs > forMs || stop()) return answer;
    await new Promise((resolve) => setTimeout(resolve, everyMs));
  }
}
