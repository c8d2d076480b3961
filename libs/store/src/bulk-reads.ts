import type { RedisClient } from '@drover/redis';

/*
 * Reading every routine without stalling the scheduler. At 100k routines one pass of plain
 * JavaScript takes seconds, so long loops yield to the event loop (a due fire gets its turn); and
 * one big reply (an HGETALL of 100k fields, a pipeline of 100k commands) would queue every other
 * command on the connection behind it, so big reads go a thousand at a time.
 */

/** How many fields, members or commands one big read takes at a time. */
export const READ_CHUNK = 1_000;

/** Lets the event loop run what is waiting (timers, I/O: a due fire) before a long loop goes on. */
const yieldToLoop = (): Promise<void> => new Promise((resolve) => setImmediate(resolve));

/** Longest stretch a long loop runs before it yields, ms. */
const SLICE_MS = 2;

/**
 * For a loop over every routine: call `await pace()` once per item; it yields to the event loop
 * once the loop has run {@link SLICE_MS} since it last did. A fire waiting on a reply then waits
 * for a slice, not for a thousand items: each of its round trips is one more wait.
 */
export function pacer(): () => Promise<void> | undefined {
  let since = performance.now();
  return () => {
    const now = performance.now();
    if (now - since < SLICE_MS) return undefined;
    return yieldToLoop().then(() => void (since = performance.now()));
  };
}

/** A whole hash, a thousand fields at a time (HSCAN). */
export async function hscanAll(redis: RedisClient, key: string): Promise<Map<string, string>> {
  const out = new Map<string, string>();
  let cursor = '0';
  do {
    const [next, flat] = await redis.hscan(key, cursor, 'COUNT', READ_CHUNK);
    // HSCAN may return a field twice (while Redis rehashes): the map keeps one.
    for (let i = 0; i < flat.length; i += 2) out.set(flat[i]!, flat[i + 1]!);
    cursor = next;
  } while (cursor !== '0');
  return out;
}

/** Every member of a sorted set, a thousand at a time (ZSCAN), in no particular order. */
export async function zscanMembers(redis: RedisClient, key: string): Promise<string[]> {
  const out = new Set<string>();
  let cursor = '0';
  do {
    const [next, flat] = await redis.zscan(key, cursor, 'COUNT', READ_CHUNK);
    for (let i = 0; i < flat.length; i += 2) out.add(flat[i]!);
    cursor = next;
  } while (cursor !== '0');
  return [...out];
}
