/**
 * Lets the event loop run what is waiting (timers, I/O: a due fire) before a long loop goes on.
 * Loops over every routine call it every {@link YIELD_EVERY} items: at 100k routines one pass of
 * plain JavaScript takes seconds, and a scheduler that blocks that long misses its fires.
 */
export const yieldToLoop = (): Promise<void> => new Promise((resolve) => setImmediate(resolve));

export const YIELD_EVERY = 1_000;
