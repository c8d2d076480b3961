import { adHocRunId, runIdForIdempotencyKey, runIdForSlot, type BatchCallbackOn } from '@drover/core';
import { replayRunId } from '../runs/run-ids';

/**
 * Where a new run comes from, as far as its id is concerned. Each source has one kind of id:
 * - `slot`: the scheduler's run of a slot, `r-<routine>-<slot>[.<rev>]` (deterministic, so several
 *   schedulers make one run); a selector's further keys add `.k<n>`;
 * - `backfill`: a slot the scheduler skipped, run again by an operator: `b-<routine>-<slot>`, so the
 *   skipped record stays and a second backfill finds the first one's run;
 * - `ad-hoc` / `manual`: a fresh random id `a-…` / `m-…` that sorts by creation time;
 * - `key`: a caller's idempotency key, `k-<sha256 prefix>` (same key, same run);
 * - `replay`: a parked run run again, `<parked id>.r<parkedAt base36>` (same parked instance, same run);
 * - `batch-callback`: a batch's callback, `<batch id>.<complete|success>` (one per batch and callback).
 */
export type RunIdOf =
  | { kind: 'slot'; routine: string; slot: number; rev?: number; keyIndex?: number }
  | { kind: 'backfill'; routine: string; slot: number }
  | { kind: 'ad-hoc' | 'manual'; now: number; random: () => number }
  | { kind: 'key'; idempotencyKey: string }
  | { kind: 'replay'; parkedId: string; parkedAt: number }
  | { kind: 'batch-callback'; batch: string; on: BatchCallbackOn };

/**
 * The id of a new run (also its BullMQ job id). Every producer mints ids here, so which kind of id
 * a source gets is decided once. Throws `RangeError` for an invalid routine name or slot.
 */
export function newRunId(of: RunIdOf): string {
  switch (of.kind) {
    case 'slot': {
      const id = runIdForSlot(of.routine, of.slot, of.rev ?? 0);
      return of.keyIndex ? `${id}.k${of.keyIndex}` : id;
    }
    case 'backfill':
      return `b-${runIdForSlot(of.routine, of.slot).slice(2)}`;
    case 'ad-hoc':
      return adHocRunId(of.now, of.random, 'a');
    case 'manual':
      return adHocRunId(of.now, of.random, 'm');
    case 'key':
      return runIdForIdempotencyKey(of.idempotencyKey);
    case 'replay':
      return replayRunId(of.parkedId, of.parkedAt);
    case 'batch-callback':
      return `${of.batch}.${of.on}`;
  }
}
