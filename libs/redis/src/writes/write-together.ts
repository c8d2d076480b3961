import type { RedisClient } from '../redis-connections';

/** What {@link writeTogether} needs of a connection's socket (a net or TLS socket). */
interface Corkable {
  readonly writableCorked: number;
  cork(): void;
  uncork(): void;
}

function uncork(stream: Corkable): void {
  stream.uncork();
}

/**
 * Holds back the writes `redis` makes for the rest of this tick and sends them together at its end
 * (one `writev` instead of one system call per command). Commands keep their order and each its own
 * reply: only when the bytes leave changes, never which bytes or in what order. Under load, calls
 * that start in the same tick (e.g. each one's predecessor answered in the same read) share one
 * write; a lone call leaves at the end of its tick. A socket corked already (by a call earlier in
 * this tick) is left as it is. A cluster client, or one not connected yet, writes as before.
 */
export function writeTogether(redis: RedisClient): void {
  const stream = (redis as { stream?: Partial<Corkable> }).stream;
  if (!stream || stream.writableCorked !== 0 || typeof stream.cork !== 'function') return;
  const corkable = stream as Corkable;
  corkable.cork();
  process.nextTick(uncork, corkable);
}
