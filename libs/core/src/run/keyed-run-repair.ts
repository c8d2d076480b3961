/** What a repair sees of a run that holds one of its concurrency key's places. */
export interface KeyedRunSeen {
  /** Its job still exists. */
  exists: boolean;
  /** BullMQ recorded its end (completed or failed: succeeded, canceled or parked). */
  finished: boolean;
  /** When BullMQ will release it, if it is delayed (epoch ms); absent when it is not. */
  delayedUntil?: number;
}

/**
 * What a repair does with a run holding a key's place: `drop` frees the place (its job is gone or
 * ended and its settle was lost), `start` promotes it (its release decided to start it, but the
 * promote was lost: it is still held far ahead, past `holdFrom`), `keep` leaves it (running, waiting,
 * or delayed for a retry: a retry keeps its place). Pure.
 */
export function keyedRunRepair(seen: KeyedRunSeen, holdFrom: number): 'drop' | 'start' | 'keep' {
  if (!seen.exists || seen.finished) return 'drop';
  if (seen.delayedUntil !== undefined && seen.delayedUntil >= holdFrom) return 'start';
  return 'keep';
}
